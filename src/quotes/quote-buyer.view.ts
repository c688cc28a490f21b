// What the buyer link shows (decisions.md part 3), built field by field: the current issued revision (as accepted,
// once it is) with what changed since the revision before it, the issued history, shared comments only, the
// merchant's branding, the PDF link and, once the quote became an order, the order's number, what was paid and the
// Net-N invoice with its buyer download link. Never internal notes or comments, the working revision or target prices.
import type { Ctx } from "../shared/context";
import { invoiceDownloadUrl } from "../payments/invoice-issue";
import { orderDisplayNumber } from "../documents/order-number";
import { asAccepted } from "./quote-accepted";
import { frozenParties } from "../documents/parties";
import { acceptanceView, buyerBaseUrl, itemView, revisionTotals } from "./quote.view";
import { type QuoteFull, type RevisionFull } from "./quote-read.service";

type Item = RevisionFull["items"][number];

/** A line as the buyer sees it: the merchant's line view without the buyer's own target price. */
function buyerItemView(i: Item) {
  const { targetUnitPrice: _target, ...line } = itemView(i);
  return line;
}

/** A line across revisions: a revision clones its lines with new ids, so the merchant's product id, SKU or name. */
const lineKey = (i: Item) => (i.referenceId ? `r:${i.referenceId}` : i.sku ? `s:${i.sku}` : `n:${i.name.trim().toLowerCase()}`);
const brief = (i: Item) => ({ name: i.name, quantity: i.quantity, unitPrice: i.unitPrice });

/**
 * What changed from `prev` to `rev` (both as issued): lines added, removed, and lines whose unit price or quantity
 * changed. Null for the first revision.
 */
function revisionChanges(prev: RevisionFull | undefined, rev: RevisionFull) {
  if (!prev) return null;
  const before = new Map(prev.items.map((i) => [lineKey(i), i]));
  const after = new Map(rev.items.map((i) => [lineKey(i), i]));
  return {
    fromRevision: prev.number,
    added: rev.items.filter((i) => !before.has(lineKey(i))).map(brief),
    removed: prev.items.filter((i) => !after.has(lineKey(i))).map(brief),
    changed: rev.items.flatMap((i) => {
      const old = before.get(lineKey(i));
      return old && (old.unitPrice !== i.unitPrice || old.quantity !== i.quantity) ? [{ name: i.name, from: { quantity: old.quantity, unitPrice: old.unitPrice }, to: { quantity: i.quantity, unitPrice: i.unitPrice } }] : [];
    }),
    previousTotal: revisionTotals(prev).total,
  };
}

function buyerRevisionView(r: RevisionFull, prev: RevisionFull | undefined) {
  return {
    id: r.id,
    number: r.number,
    status: r.status,
    items: r.items.map(buyerItemView),
    paymentTerms: { mode: r.termsMode, netN: r.netN, balanceNetN: r.balanceNetN },
    depositAmount: r.depositAmount,
    shippingMode: r.shippingMode,
    shippingAmount: r.shippingAmount,
    ...revisionTotals(r),
    notes: r.notes,
    terms: r.terms,
    parties: frozenParties(r.parties),
    issuedAt: r.issuedAt?.toISOString() ?? null,
    changes: revisionChanges(prev, r),
  };
}

/** The order a converted quote became, as its buyer may see it (null before conversion). */
export async function buyerOrderFacts(ctx: Ctx, q: Pick<QuoteFull, "orderId" | "applicationId" | "environmentId">) {
  if (!q.orderId) return null;
  const o = await ctx.db.order.findFirst({
    where: { id: q.orderId, applicationId: q.applicationId, environmentId: q.environmentId },
    select: {
      id: true,
      externalId: true,
      paymentStatus: true,
      total: true,
      compAmount: true,
      createdAt: true,
      payments: { orderBy: { createdAt: "asc" }, select: { id: true, method: true, status: true, amount: true, capturedAmount: true, refundedAmount: true, netN: true, dueDate: true, invoiceNumber: true } },
    },
  });
  if (!o) return null;
  const live = o.payments.filter((p) => !["failed", "voided", "expired"].includes(p.status));
  const paid = live.reduce((a, p) => a + p.capturedAmount - p.refundedAmount, 0);
  const inv = live.find((p) => p.method === "net30" && p.invoiceNumber);
  return {
    number: orderDisplayNumber(o),
    paymentStatus: o.paymentStatus,
    placedAt: o.createdAt.toISOString(),
    total: o.total,
    amountPaid: paid,
    amountDue: Math.max(0, o.total - o.compAmount - paid),
    invoice: inv
      ? {
          number: inv.invoiceNumber!,
          amount: inv.amount,
          dueDate: inv.dueDate ? inv.dueDate.toISOString().slice(0, 10) : null,
          paid: inv.status === "captured",
          downloadUrl: invoiceDownloadUrl(ctx, inv),
        }
      : null,
  };
}
type BuyerOrderFacts = Awaited<ReturnType<typeof buyerOrderFacts>>;

/** A proposed quote past its expiry reads as expired at once, whether or not the hourly job has moved it yet. */
export function isExpired(ctx: Ctx, q: Pick<QuoteFull, "status" | "expiresAt">) {
  return q.status === "expired" || (q.status === "proposed" && q.expiresAt !== null && q.expiresAt.getTime() <= ctx.clock.now().getTime());
}

/** The quote's own fields as the buyer sees them (also the `quote` of an acceptance). */
export function buyerQuoteSummary(ctx: Ctx, q: QuoteFull) {
  return {
    number: q.number,
    status: q.status,
    expired: isExpired(ctx, q),
    currency: q.currency,
    expiresAt: q.expiresAt?.toISOString() ?? null,
    buyerReference: q.buyerReference,
    declinedBy: q.declinedBy,
    // the buyer who declined sees their own reason; a merchant decline shows the merchant's
    declinedReason: q.status === "declined" ? q.declinedReason : null,
    acceptedRevisionId: q.acceptedRevisionId,
    acceptedAt: q.acceptedAt?.toISOString() ?? null,
    acceptance: acceptanceView(q, false),
    checkoutUrl: q.checkoutSessionId && q.status === "accepted" ? `${ctx.deps.config.CHECKOUT_URL}/checkout/${q.checkoutSessionId}` : null,
  };
}

export function buyerQuoteView(ctx: Ctx, q: QuoteFull, token: string, order: BuyerOrderFacts = null) {
  const settings = (q.application.settings ?? {}) as { logoUrl?: string; brandColor?: string };
  const issued = q.revisions.filter((r) => r.status !== "working");
  const current = issued.find((r) => r.id === q.currentRevisionId) ?? null;
  const prev = current ? issued.filter((r) => r.number < current.number).at(-1) : undefined;
  const base = ctx.deps.config.BASE_URL ?? buyerBaseUrl(ctx, null);
  return {
    quote: buyerQuoteSummary(ctx, q),
    // once accepted, the accepted revision reads as accepted: the buyer's selection, quantities and totals
    revision: current && buyerRevisionView(asAccepted(q, current), prev),
    revisions: issued.map((r) => ({ id: r.id, number: r.number, status: r.status, issuedAt: r.issuedAt?.toISOString() ?? null, total: revisionTotals(asAccepted(q, r)).total })),
    comments: q.comments
      .filter((c) => c.visibility === "shared")
      .map((c) => ({ id: c.id, authorType: c.authorType, authorName: c.authorName, body: c.body, createdAt: c.createdAt.toISOString() })),
    merchant: { name: q.application.name, logoUrl: settings.logoUrl ?? null, brandColor: settings.brandColor ?? null },
    pdfUrl: current ? `${base.replace(/\/+$/, "")}/api/v1/quote-links/${token}/pdf` : null,
    order,
  };
}
export type BuyerQuoteView = ReturnType<typeof buyerQuoteView>;
