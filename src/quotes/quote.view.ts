// What a quote looks like to the merchant and in its events: derived values (totals, deposit, collect steps) and the
// views of a quote, its revisions, items and comments. Pure functions of the loaded row graph.
import { type Ctx } from "../shared/context";
import { percentOf, sum } from "../shared/money";
import { openSecret } from "../shared/secrets";
import { frozenParties } from "../documents/parties";
import { type QuoteTaxLine, revisionTaxRates, type TaxedRevision, type TaxRates, taxLinesFor, taxTotalOf } from "./quote-tax";
import { type CommentRow, type ItemRow, type QuoteFull, type RevisionFull } from "./quote-read.service";

// ---- derived values ---------------------------------------------------------------------------------------

export function defaultDeliveryMethod(type: string) {
  return type === "service" ? "none" : "shipment";
}

export function itemTotal(i: Pick<ItemRow, "unitPrice" | "quantity">): number | null {
  return i.unitPrice === null ? null : i.unitPrice * i.quantity;
}

interface QuoteTotals {
  subtotal: number;
  shippingTotal: number;
  taxLines: QuoteTaxLine[];
  taxTotal: number;
  total: number;
}

/**
 * Selected lines only (optional lines start selected); an unpriced line counts 0 until it is priced. Tax (quote-tax.ts)
 * is on the selected lines plus priced shipping: an issued revision's frozen rates, a working revision's live ones
 * from `rates` (the environment's tax table); a bare line list (no status) has none.
 */
export function revisionTotals(
  r: { items: Pick<ItemRow, "unitPrice" | "quantity" | "selected">[]; shippingMode: string; shippingAmount: number | null } & Partial<TaxedRevision>,
  rates?: TaxRates | null,
): QuoteTotals {
  const subtotal = sum(r.items.filter((i) => i.selected).map((i) => itemTotal(i) ?? 0));
  const shippingTotal = r.shippingMode === "flat" ? (r.shippingAmount ?? 0) : 0;
  const taxLines = r.status ? taxLinesFor(revisionTaxRates({ status: r.status, taxCountry: r.taxCountry ?? null, taxLines: r.taxLines }, rates), subtotal + shippingTotal) : [];
  const taxTotal = taxTotalOf(taxLines);
  return { subtotal, shippingTotal, taxLines, taxTotal, total: subtotal + shippingTotal + taxTotal };
}

/** What checkout asks for by derivation alone: shipping when a selected line ships or shipping is priced. */
function collectDefault(r: { items: Pick<ItemRow, "deliveryMethod" | "selected">[]; shippingMode: string }) {
  const ships = r.items.some((i) => i.selected && i.deliveryMethod !== "none");
  return { shippingAddress: ships || r.shippingMode !== "none", billingAddress: true };
}

export function collectOf(r: Pick<RevisionFull, "collectShipping" | "collectBilling"> & Parameters<typeof collectDefault>[0]) {
  const d = collectDefault(r);
  return { shippingAddress: r.collectShipping ?? d.shippingAddress, billingAddress: r.collectBilling ?? d.billingAddress };
}

/** The deposit a revision would freeze: percent of the total (half up) or the fixed amount. */
export function depositAmountOf(r: Pick<RevisionFull, "termsMode" | "depositType" | "depositValue">, total: number): number | null {
  if (r.termsMode !== "deposit_balance" || !r.depositType || r.depositValue === null) return null;
  return r.depositType === "percent" ? percentOf(total, r.depositValue) : r.depositValue;
}

// ---- views ----------------------------------------------------------------------------------------------

export function itemView(i: ItemRow) {
  return {
    id: i.id,
    name: i.name,
    description: i.description,
    unitPrice: i.unitPrice,
    quantity: i.quantity,
    type: i.type,
    optional: i.optional,
    selected: i.selected,
    qtyEditable: i.qtyEditable,
    sku: i.sku,
    referenceId: i.referenceId,
    note: i.note,
    targetUnitPrice: i.targetUnitPrice,
    deliveryMethod: i.deliveryMethod,
    total: itemTotal(i),
  };
}

/** `rates`: the environment's tax table, for a working revision's live tax (an issued one's is frozen). */
export function revisionView(r: RevisionFull, rates?: TaxRates | null) {
  return {
    id: r.id,
    number: r.number,
    status: r.status,
    items: r.items.map(itemView),
    paymentTerms: { mode: r.termsMode, netN: r.netN, balanceNetN: r.balanceNetN },
    deposit: r.depositType && r.depositValue !== null ? { type: r.depositType, value: r.depositValue } : null,
    depositAmount: r.depositAmount,
    collectShipping: r.collectShipping,
    collectBilling: r.collectBilling,
    collect: collectOf(r),
    collectDefault: collectDefault(r),
    shippingMode: r.shippingMode,
    shippingAmount: r.shippingAmount,
    taxCountry: r.taxCountry,
    notes: r.notes,
    terms: r.terms,
    /** frozen at issue: the seller and buyer blocks as they were then (null on a working revision) */
    parties: frozenParties(r.parties),
    ...revisionTotals(r, rates),
    issuedAt: r.issuedAt?.toISOString() ?? null,
    supersededAt: r.supersededAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export function commentView(c: CommentRow) {
  return { id: c.id, visibility: c.visibility, authorType: c.authorType, authorName: c.authorName, body: c.body, createdAt: c.createdAt.toISOString() };
}

export const SHARE_TOKEN_PURPOSE = "quote-share-token";

/** The buyer link's token, opened from its sealed copy. */
export function openShareToken(ctx: Ctx, q: Pick<QuoteFull, "shareTokenSealed">): string {
  return openSecret(ctx.deps.config, SHARE_TOKEN_PURPOSE, q.shareTokenSealed);
}

/** The buyer's link host: the application's checkoutLinkBaseUrl when set, else CHECKOUT_URL. */
export function buyerBaseUrl(ctx: Ctx, settings: unknown): string {
  const own = (settings as { checkoutLinkBaseUrl?: unknown } | null)?.checkoutLinkBaseUrl;
  return (typeof own === "string" && own ? own : ctx.deps.config.CHECKOUT_URL).replace(/\/+$/, "");
}

/** The current offer (the latest issued revision), else the working one (a request before its first issue). */
function currentRevision(q: QuoteFull): RevisionFull | null {
  return q.revisions.find((r) => r.id === q.currentRevisionId) ?? q.revisions.find((r) => r.status === "working") ?? null;
}

/** The merchant view (decisions.md part 3): everything, internal notes and comments included. */
export function quoteView(ctx: Ctx, q: QuoteFull) {
  const shareToken = openShareToken(ctx, q);
  const working = q.revisions.find((r) => r.status === "working") ?? null;
  return {
    id: q.id,
    number: q.number,
    status: q.status,
    currency: q.currency,
    customerId: q.customerId,
    customer: q.customer ? { id: q.customer.id, email: q.customer.email } : null,
    customerEmail: q.customerEmail,
    companyName: q.companyName,
    buyerReference: q.buyerReference,
    source: q.source,
    shareToken,
    buyerUrl: `${buyerBaseUrl(ctx, q.application.settings)}/q/${shareToken}`,
    expiresAt: q.expiresAt?.toISOString() ?? null,
    declinedReason: q.declinedReason,
    declinedBy: q.declinedBy,
    internalNote: q.internalNote,
    currentRevisionId: q.currentRevisionId,
    workingRevision: working && revisionView(working, q.taxRates),
    revisions: q.revisions.map((r) => revisionView(r, q.taxRates)),
    comments: q.comments.map(commentView),
    requestFormId: q.requestFormId,
    cartId: q.cartId,
    acceptedRevisionId: q.acceptedRevisionId,
    acceptedAt: q.acceptedAt?.toISOString() ?? null,
    acceptance: acceptanceView(q, true),
    checkoutSessionId: q.checkoutSessionId,
    orderId: q.orderId,
    convertedAt: q.convertedAt?.toISOString() ?? null,
    createdAt: q.createdAt.toISOString(),
    updatedAt: q.updatedAt.toISOString(),
  };
}

/** Who accepted and what: the rep's reason is the merchant's own record and stays on the merchant side. */
export function acceptanceView(q: Pick<QuoteFull, "acceptance">, merchant: boolean) {
  const a = q.acceptance as { by: string; name: string; email: string; reason?: string | null; items: { itemId: string; selected: boolean; quantity: number }[] } | null;
  if (!a) return null;
  return { by: a.by, name: a.name, email: a.email, ...(merchant ? { reason: a.reason ?? null } : {}), items: a.items };
}
export type QuoteView = ReturnType<typeof quoteView>;

/**
 * The data of every quote.* event: the quote and its current revision, built field by field so that internal
 * notes, internal comments and the share token can never ride along (webhook payloads leave the merchant's side).
 */
export function quoteEventData(q: QuoteFull, extra: Record<string, unknown> = {}) {
  const rev = currentRevision(q);
  return {
    quoteId: q.id,
    quote: {
      id: q.id,
      number: q.number,
      status: q.status,
      currency: q.currency,
      customerId: q.customerId,
      customerEmail: q.customerEmail,
      companyName: q.companyName,
      buyerReference: q.buyerReference,
      source: q.source,
      expiresAt: q.expiresAt?.toISOString() ?? null,
      declinedReason: q.declinedReason,
      declinedBy: q.declinedBy,
      currentRevisionId: q.currentRevisionId,
      acceptedRevisionId: q.acceptedRevisionId,
      acceptedAt: q.acceptedAt?.toISOString() ?? null,
      acceptance: acceptanceView(q, false),
      checkoutSessionId: q.checkoutSessionId,
      orderId: q.orderId,
      convertedAt: q.convertedAt?.toISOString() ?? null,
      createdAt: q.createdAt.toISOString(),
      updatedAt: q.updatedAt.toISOString(),
    },
    revision: rev && revisionView(rev, q.taxRates),
    ...extra,
  };
}
