// Quotes, merchant side (quotes.md parts 2-4, decisions.md part 3): create, list, read, update, issue, revisions,
// comments and the buyer link's rotation. Every command locks the quote row first (SELECT … FOR UPDATE), so the
// rules that span rows (one working revision, the issued revision frozen, one current offer) hold under
// concurrency. Numbers come from a counter row bumped in the creating transaction: consecutive, no gaps.
import { randomUUID } from "node:crypto";
import { actorOf as callerOf } from "../shared/actor";
import { Prisma } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { findOrCreateCustomerByEmail } from "../customers/customers.service";
import { currentStateFirst, type EventTenant, principalEventTenant, recordEvent, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { filter, pipe } from "graphql-yoga";
import { requirePermission, requireScope, requireTenant } from "../shared/guards";
import type { Principal } from "../shared/principal";
import { type Ctx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { MAX_AMOUNT, percentOf, sum } from "../shared/money";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { openSecret, sealSecret } from "../shared/secrets";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { queueQuoteEmails } from "./quote-emails";
import { currentParties, frozenParties, partiesJson, sellerBlock } from "./quote-parties";
import { type QuoteTaxLine, revisionTaxRates, type TaxedRevision, type TaxRates, taxLinesFor, taxTotalOf } from "./quote-tax";
import { moveQuote, nextQuoteStatus, PATCH_STATUS_ACTIONS, type QuoteActor, type QuoteStatus, QUOTE_TRANSITIONS } from "./quote.machine";
import {
  commentInput,
  createQuoteInput,
  issueQuoteInput,
  type LineItemInput,
  quoteListFilters,
  type RevisionInput,
  updateQuoteInput,
  updateRevisionInput,
} from "./quotes.inputs";

export type TenantIds = { applicationId: string; environmentId: string };

// ---- loading --------------------------------------------------------------------------------------------

/** Everything the merchant view shows, in one statement (relation joins). */
export const QUOTE_INCLUDE = {
  customer: { select: { id: true, email: true } },
  application: { select: { name: true, settings: true } },
  revisions: { orderBy: { number: "asc" }, include: { items: { orderBy: { position: "asc" } } } },
  comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
} satisfies Prisma.QuoteInclude;
/** With the environment's tax table, which prices a working revision's tax live (quote-tax.ts). */
export type QuoteFull = Prisma.QuoteGetPayload<{ include: typeof QUOTE_INCLUDE }> & { taxRates: TaxRates };
export type RevisionFull = QuoteFull["revisions"][number];
type ItemRow = RevisionFull["items"][number];
type CommentRow = QuoteFull["comments"][number];

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const quoteNotFound = () => errors.notFound("Quote");

/**
 * The quote with its customer, application settings, revisions (lines in order) and comments in one statement:
 * PostgreSQL builds the nested JSON (json_agg), so the process only parses it. A quote read is the hottest quote
 * path (merchant reads, the buyer link, every command's answer); Prisma's relation-join include does the same in
 * one statement but costs several times the CPU to shape (bench/quotes.ts). The shape is QUOTE_INCLUDE's.
 */
async function selectQuoteFull(ctx: Ctx, where: Prisma.Sql): Promise<QuoteFull | null> {
  const [row] = await ctx.db.$queryRaw<any[]>`
    SELECT ${columns(Prisma.QuoteScalarFieldEnum, "q")}, CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'email', c.email) END AS customer,
      json_build_object('name', a.name, 'settings', a.settings) AS application,
      (SELECT coalesce(json_agg(r ORDER BY r.number), '[]'::json) FROM (
         SELECT r.*, (SELECT coalesce(json_agg(i ORDER BY i.position), '[]'::json) FROM "QuoteLineItem" i WHERE i."revisionId" = r.id) AS items
         FROM "QuoteRevision" r WHERE r."quoteId" = q.id) r) AS revisions,
      (SELECT coalesce(json_agg(cm ORDER BY cm."createdAt", cm.id), '[]'::json) FROM "QuoteComment" cm WHERE cm."quoteId" = q.id) AS comments,
      (SELECT st."taxRates" FROM "ShippingTaxSettings" st WHERE st."applicationId" = q."applicationId" AND st."environmentId" = q."environmentId") AS "taxRates"
    FROM "Quote" q
    LEFT JOIN "Customer" c ON c.id = q."customerId"
    JOIN "Application" a ON a.id = q."applicationId"
    WHERE ${where}`;
  return row ? shapeQuoteRow(row) : null;
}

const toDate = (v: unknown) => (v == null ? null : new Date(v as string));

/** json_agg carries timestamps as text: back to Dates, as Prisma's include returns them. */
export function shapeQuoteRow(row: any): QuoteFull {
  return {
    ...row,
    revisions: row.revisions.map((r: any) => ({
      ...r,
      issuedAt: toDate(r.issuedAt),
      supersededAt: toDate(r.supersededAt),
      viewedAt: toDate(r.viewedAt),
      repReminderAt: toDate(r.repReminderAt),
      buyerReminderAt: toDate(r.buyerReminderAt),
      createdAt: toDate(r.createdAt),
      updatedAt: toDate(r.updatedAt),
    })),
    comments: row.comments.map((c: any) => ({ ...c, createdAt: toDate(c.createdAt) })),
    taxRates: row.taxRates ?? {},
  };
}

export async function findQuote(ctx: Ctx, t: TenantIds, id: string): Promise<QuoteFull | null> {
  if (!UUID_RE.test(id)) return null;
  return selectQuoteFull(ctx, Prisma.sql`q.id = ${id}::uuid AND q."applicationId" = ${t.applicationId}::uuid AND q."environmentId" = ${t.environmentId}::uuid`);
}

async function loadQuote(ctx: Ctx, t: TenantIds, id: string): Promise<QuoteFull> {
  const q = await findQuote(ctx, t, id);
  if (!q) throw quoteNotFound();
  return q;
}

interface LockedQuote {
  id: string;
  status: QuoteStatus;
  currentRevisionId: string | null;
  expiresAt: Date | null;
  currency: string;
}

/** Takes the quote's row lock for the rest of the transaction; unknown and foreign ids are 404. */
export async function lockQuote(tx: Ctx, t: TenantIds, id: string): Promise<LockedQuote> {
  if (!UUID_RE.test(id)) throw quoteNotFound();
  const [q] = await tx.db.$queryRaw<LockedQuote[]>`
    SELECT id, status, "currentRevisionId", "expiresAt", currency FROM "Quote"
    WHERE id = ${id}::uuid AND "applicationId" = ${t.applicationId}::uuid AND "environmentId" = ${t.environmentId}::uuid
    FOR UPDATE`;
  if (!q) throw quoteNotFound();
  return q;
}

// ---- derived values ---------------------------------------------------------------------------------------

export function defaultDeliveryMethod(type: string) {
  return type === "service" ? "none" : "shipment";
}

export function itemTotal(i: Pick<ItemRow, "unitPrice" | "quantity">): number | null {
  return i.unitPrice === null ? null : i.unitPrice * i.quantity;
}

export interface QuoteTotals {
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
export function collectDefault(r: { items: Pick<ItemRow, "deliveryMethod" | "selected">[]; shippingMode: string }) {
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
export type RevisionView = ReturnType<typeof revisionView>;

export function commentView(c: CommentRow) {
  return { id: c.id, visibility: c.visibility, authorType: c.authorType, authorName: c.authorName, body: c.body, createdAt: c.createdAt.toISOString() };
}

const SHARE_TOKEN_PURPOSE = "quote-share-token";

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
export function currentRevision(q: QuoteFull): RevisionFull | null {
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

// ---- guards and helpers -----------------------------------------------------------------------------------

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

export function readTenant(ctx: Ctx): TenantIds {
  requireScope(ctx, "quotes:read");
  return tenantIds(ctx);
}

export function writeTenant(ctx: Ctx): TenantIds {
  requireScope(ctx, "quotes:write");
  requirePermission(ctx, "application:quotes:write");
  return tenantIds(ctx);
}

/** The caller as quote history takes it: no credential means the buyer's link; otherwise shared/actor.ts. */
export function actorOf(p: Principal | null): QuoteActor {
  if (!p) return { actorType: "buyer" };
  const { actorType, actorId } = callerOf({ principal: p });
  return { actorType: actorType as QuoteActor["actorType"], actorId };
}

export function newShareToken(config: Ctx["deps"]["config"]) {
  const token = `qt_${randomToken(32)}`; // 32 base62 characters: about 190 bits
  return { shareTokenHash: sha256Hex(token), shareTokenSealed: sealSecret(config, SHARE_TOKEN_PURPOSE, token) };
}

/** Statuses in which the offer can still change (a working revision cloned, edited, issued). */
const EDITABLE: readonly string[] = QUOTE_TRANSITIONS.issue.from;
function assertEditable(q: { status: string }) {
  if (!EDITABLE.includes(q.status)) {
    throw new DomainError("quote_not_editable", `A ${q.status} quote's offer can no longer change`, { status: q.status });
  }
}

function assertFuture(ctx: Ctx, at: Date | null | undefined, path: string[]) {
  if (at && at.getTime() <= ctx.clock.now().getTime()) throw errors.validation([{ path, message: "must be in the future" }]);
}

// ---- revision fields ------------------------------------------------------------------------------------

/** A revision's stored fields, as one state (input merged onto what is there). */
export interface RevisionState {
  termsMode: string;
  netN: number | null;
  balanceNetN: number | null;
  depositType: string | null;
  depositValue: number | null;
  collectShipping: boolean | null;
  collectBilling: boolean | null;
  shippingMode: string;
  shippingAmount: number | null;
  taxCountry: string | null;
  notes: string | null;
  terms: string | null;
}

export const EMPTY_REVISION: RevisionState = {
  termsMode: "pay_in_full",
  netN: null,
  balanceNetN: null,
  depositType: null,
  depositValue: null,
  collectShipping: null,
  collectBilling: null,
  shippingMode: "none",
  shippingAmount: null,
  taxCountry: null,
  notes: null,
  terms: null,
};

/** Only the state columns of a revision row. */
export function stateOf(r: RevisionState): RevisionState {
  return {
    termsMode: r.termsMode,
    netN: r.netN,
    balanceNetN: r.balanceNetN,
    depositType: r.depositType,
    depositValue: r.depositValue,
    collectShipping: r.collectShipping,
    collectBilling: r.collectBilling,
    shippingMode: r.shippingMode,
    shippingAmount: r.shippingAmount,
    taxCountry: r.taxCountry,
    notes: r.notes,
    terms: r.terms,
  };
}

/** Applies a revision body to a state and checks the combination (each issue names its field). */
export function mergeRevision(cur: RevisionState, input: RevisionInput, prefix: (string | number)[] = []): RevisionState {
  const next = stateOf(cur);
  if (input.paymentTerms) {
    next.termsMode = input.paymentTerms.mode;
    next.netN = input.paymentTerms.netN ?? null;
    next.balanceNetN = input.paymentTerms.balanceNetN ?? null;
    if (input.paymentTerms.mode !== "deposit_balance" && input.deposit === undefined) {
      next.depositType = null;
      next.depositValue = null;
    }
  }
  if (input.deposit !== undefined) {
    next.depositType = input.deposit?.type ?? null;
    next.depositValue = input.deposit?.value ?? null;
  }
  if (input.collect) {
    if (input.collect.shippingAddress !== undefined) next.collectShipping = input.collect.shippingAddress;
    if (input.collect.billingAddress !== undefined) next.collectBilling = input.collect.billingAddress;
  }
  if (input.shippingMode !== undefined) {
    next.shippingMode = input.shippingMode;
    if (input.shippingMode !== "flat" && input.shippingAmount === undefined) next.shippingAmount = null;
  }
  if (input.shippingAmount !== undefined) next.shippingAmount = input.shippingAmount;
  if (input.taxCountry !== undefined) next.taxCountry = input.taxCountry;
  if (input.notes !== undefined) next.notes = input.notes;
  if (input.terms !== undefined) next.terms = input.terms;
  const issues: { path: (string | number)[]; message: string }[] = [];
  if (next.depositType && next.termsMode !== "deposit_balance") issues.push({ path: [...prefix, "deposit"], message: "applies to deposit_balance terms only" });
  if (next.shippingMode === "flat" && next.shippingAmount === null) issues.push({ path: [...prefix, "shippingAmount"], message: "is required when shippingMode is flat" });
  if (next.shippingMode !== "flat" && next.shippingAmount !== null) issues.push({ path: [...prefix, "shippingAmount"], message: "applies to shippingMode flat only" });
  if (issues.length) throw errors.validation(issues);
  return next;
}

/** Line rows for a revision, positions in list order; `keep` are the ids an item may reuse. */
export function itemRows(revisionId: string, items: LineItemInput[], keep: ReadonlySet<string>, prefix: (string | number)[] = ["items"]) {
  const seen = new Set<string>();
  const issues: { path: (string | number)[]; message: string }[] = [];
  const rows = items.map((i, n) => {
    if (i.id !== undefined && (!keep.has(i.id) || seen.has(i.id))) {
      issues.push({ path: [...prefix, n, "id"], message: seen.has(i.id) ? "appears twice" : "is not an item of this revision (omit it to add a new line)" });
    }
    if (i.id) seen.add(i.id);
    return {
      id: i.id ?? randomUUID(),
      revisionId,
      position: n,
      name: i.name,
      description: i.description ?? null,
      unitPrice: i.unitPrice ?? null,
      quantity: i.quantity,
      type: i.type,
      optional: i.optional,
      selected: true,
      qtyEditable: i.qtyEditable,
      sku: i.sku ?? null,
      referenceId: i.referenceId ?? null,
      note: i.note ?? null,
      targetUnitPrice: i.targetUnitPrice ?? null,
      deliveryMethod: i.deliveryMethod ?? defaultDeliveryMethod(i.type),
    };
  });
  if (issues.length) throw errors.validation(issues);
  const totals = revisionTotals({ items: rows, shippingMode: "none", shippingAmount: null });
  if (totals.subtotal > MAX_AMOUNT) throw errors.validation([{ path: prefix, message: `The lines would total more than ${MAX_AMOUNT} minor units` }]);
  return rows;
}

// ---- creating (shared with requests) -------------------------------------------------------------------------

export interface NewQuote {
  status: "draft" | "requested";
  source: "api" | "dashboard" | "request_form" | "cart";
  customerEmail: string;
  companyName?: string | null;
  buyerReference?: string | null;
  expiresAt?: Date | null;
  internalNote?: string | null;
  requestFormId?: string | null;
  cartId?: string | null;
  revision: RevisionState;
  items: LineItemInput[];
  /** the buyer's written need (requests): the first shared comment */
  firstComment?: { body: string; authorType: "buyer" | "merchant"; authorName?: string | null } | null;
}

/**
 * Inserts a quote, its first (working) revision, lines, history and optional first comment inside the caller's
 * transaction. The customer is found or created by email (race-safe) before the number is taken, so the counter
 * row's lock is held only for the inserts.
 */
export async function insertQuote(tx: Ctx, tenant: EventTenant, n: NewQuote, actor: QuoteActor, currency: string): Promise<string> {
  const customer = await findOrCreateCustomerByEmail(tx, { email: n.customerEmail, company: n.companyName ?? null }, tenant);
  const [{ lastSeq: seq }] = await tx.db.$queryRaw<{ lastSeq: number }[]>`
    INSERT INTO "QuoteCounter" ("applicationId", "environmentId", "lastSeq") VALUES (${tenant.applicationId}::uuid, ${tenant.environmentId}::uuid, 1)
    ON CONFLICT ("applicationId", "environmentId") DO UPDATE SET "lastSeq" = "QuoteCounter"."lastSeq" + 1
    RETURNING "lastSeq"`;
  const quoteId = randomUUID();
  const revisionId = randomUUID();
  const at = tx.clock.now();
  const rows = itemRows(revisionId, n.items, new Set());
  await tx.db.quote.create({
    data: {
      id: quoteId,
      applicationId: tenant.applicationId,
      environmentId: tenant.environmentId,
      seq,
      number: `Q-${seq}`,
      status: n.status,
      currency,
      customerId: customer.id,
      customerEmail: n.customerEmail,
      companyName: n.companyName ?? null,
      buyerReference: n.buyerReference ?? null,
      source: n.source,
      ...newShareToken(tx.deps.config),
      expiresAt: n.expiresAt ?? null,
      internalNote: n.internalNote ?? null,
      requestFormId: n.requestFormId ?? null,
      cartId: n.cartId ?? null,
      createdAt: at,
      updatedAt: at,
      revisions: { create: { id: revisionId, number: 1, status: "working", ...n.revision, createdAt: at, updatedAt: at } },
      history: { create: { fromStatus: null, toStatus: n.status, action: n.status === "draft" ? "create" : "request", actorType: actor.actorType, actorId: actor.actorId ?? null, createdAt: at } },
      ...(n.firstComment
        ? { comments: { create: { visibility: "shared", authorType: n.firstComment.authorType, authorName: n.firstComment.authorName ?? null, body: n.firstComment.body, createdAt: at } } }
        : {}),
    },
  });
  if (rows.length) await tx.db.quoteLineItem.createMany({ data: rows });
  return quoteId;
}

// ---- commands -----------------------------------------------------------------------------------------------

export async function createQuote(ctx: Ctx, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(createQuoteInput, body);
  assertFuture(ctx, input.expiresAt, ["expiresAt"]);
  const revision = mergeRevision(EMPTY_REVISION, input);
  const p = ctx.principal!;
  return withTx(ctx, async (tx) => {
    const id = await insertQuote(
      tx,
      principalEventTenant(tx),
      {
        status: "draft",
        source: p.type === "clerk_jwt" ? "dashboard" : "api",
        customerEmail: input.customerEmail,
        companyName: input.companyName,
        buyerReference: input.buyerReference,
        expiresAt: input.expiresAt,
        internalNote: input.internalNote,
        revision,
        items: input.items ?? [],
      },
      actorOf(p),
      p.application!.currency,
    );
    return quoteView(tx, await loadQuote(tx, t, id));
  });
}

export async function getQuote(ctx: Ctx, id: string) {
  const t = readTenant(ctx);
  return quoteView(ctx, await loadQuote(ctx, t, id));
}

/** The raw row graph, for callers that build their own view (GraphQL subscriptions re-read with this). */
export async function getQuoteFull(ctx: Ctx, id: string) {
  return loadQuote(ctx, readTenant(ctx), id);
}

export async function listQuotes(ctx: Ctx, query: unknown) {
  const t = readTenant(ctx);
  const page = parseListQuery(quoteListFilters, query);
  const ks = keyset(page);
  const where: Prisma.QuoteWhereInput = { applicationId: t.applicationId, environmentId: t.environmentId, ...ks.where };
  if (page.status) where.status = page.status;
  if (page.customerId) where.customerId = page.customerId;
  if (page.q) {
    const contains = { contains: page.q, mode: "insensitive" as const };
    where.AND = [{ OR: [{ number: contains }, { customerEmail: contains }, { companyName: contains }, { buyerReference: contains }] }];
  }
  const [rows, { taxRates }] = await Promise.all([ctx.db.quote.findMany({ where, orderBy: ks.orderBy, take: ks.take, include: QUOTE_INCLUDE }), loadShippingTaxConfig(ctx, t)]);
  const result = toPage(rows.map((q) => ({ ...q, taxRates })), page);
  return { items: result.items.map((q) => quoteView(ctx, q)), pagination: result.pagination };
}

export async function updateQuote(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(updateQuoteInput, body ?? {});
  assertFuture(ctx, input.expiresAt, ["expiresAt"]);
  if (input.declinedReason && input.status !== "declined") {
    throw errors.validation([{ path: ["declinedReason"], message: "is set only with status declined" }]);
  }
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const fields: Prisma.QuoteUpdateManyMutationInput = {};
    if (input.buyerReference !== undefined) fields.buyerReference = input.buyerReference;
    if (input.expiresAt !== undefined) fields.expiresAt = input.expiresAt;
    if (input.internalNote !== undefined) fields.internalNote = input.internalNote;
    if (Object.keys(fields).length) await tx.db.quote.updateMany({ where: { id: q.id }, data: { ...fields, updatedAt: tx.clock.now() } });
    if (input.status !== undefined) {
      const action = PATCH_STATUS_ACTIONS[input.status as keyof typeof PATCH_STATUS_ACTIONS];
      if (!action) throw new DomainError("invalid_quote_transition", `A PATCH cannot move a quote to ${input.status}`, { from: q.status, to: input.status });
      const also = action === "decline" ? { declinedReason: input.declinedReason ?? null, declinedBy: "merchant" } : {};
      await moveQuote(tx, q, action, { ...actorOf(tx.principal), reason: input.declinedReason ?? null }, also);
      const full = await loadQuote(tx, t, q.id);
      if (action === "decline") {
        const ev = await recordEvent(tx, principalEventTenant(tx), "quote.declined", quoteEventData(full, { declinedBy: "merchant", reason: full.declinedReason }));
        queueQuoteEmails(tx, full, ["customer.quote_declined"], ev.id, { reason: full.declinedReason });
      }
      return quoteView(tx, full);
    }
    return quoteView(tx, await loadQuote(tx, t, q.id));
  });
}

/** Thirty days after issue when the quote has no future expiry of its own (decisions.md part 3). */
const DEFAULT_VALIDITY_MS = 30 * 24 * 3600 * 1000;

/** POST /quotes/{id}/issue -> { quote (merchant view, with shareToken), revision (the one just issued) } */
export async function issueQuote(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    nextQuoteStatus(q.status, "issue"); // refuse before any other check
    const rev = await tx.db.quoteRevision.findFirst({ where: { quoteId: q.id, status: "working" }, include: { items: { orderBy: { position: "asc" } } } });
    if (!rev) {
      throw new DomainError("no_working_revision", "The quote has no working revision to issue; create one with POST /quotes/{id}/revisions", { currentRevisionId: q.currentRevisionId });
    }
    if (rev.items.length === 0) throw new DomainError("empty_revision", "The working revision has no lines", { revisionId: rev.id });
    const unpriced = rev.items.filter((i) => i.unitPrice === null).map((i) => i.id);
    if (unpriced.length) throw new DomainError("unpriced_items", `${unpriced.length} line(s) have no unitPrice`, { itemIds: unpriced });
    if (rev.termsMode !== "pay_in_full") {
      const connector = await tx.db.connector.findFirst({ where: { ...t, kind: "invoice_terms", status: "active" }, select: { id: true } });
      if (!connector) {
        throw new DomainError("net_terms_not_configured", `${rev.termsMode} terms need an active invoice_terms connector (POST /connectors)`, { mode: rev.termsMode });
      }
    }
    // the working revision's live tax, frozen below with the revision (quote-tax.ts)
    const totals = revisionTotals(rev, (await loadShippingTaxConfig(tx, t)).taxRates);
    if (totals.total > MAX_AMOUNT) throw errors.validation([{ path: ["items"], message: `The revision would total more than ${MAX_AMOUNT} minor units` }]);
    let depositAmount: number | null = null;
    if (rev.termsMode === "deposit_balance") {
      depositAmount = depositAmountOf(rev, totals.total);
      if (depositAmount === null) throw errors.validation([{ path: ["deposit"], message: "is required for deposit_balance terms" }]);
      if (depositAmount < 1 || depositAmount >= totals.total) {
        throw errors.validation([{ path: ["deposit", "value"], message: `gives a deposit of ${depositAmount}; it must be at least 1 and below the total ${totals.total}` }]);
      }
    }
    const now = tx.clock.now();
    if (q.currentRevisionId) {
      await tx.db.quoteRevision.updateMany({ where: { id: q.currentRevisionId, status: "issued" }, data: { status: "superseded", supersededAt: now, updatedAt: now } });
    }
    // the seller and buyer as they are now, frozen with the revision; empty notes and terms take the seller's defaults
    const { defaults, ...parties } = await currentParties(tx, q.id);
    await tx.db.quoteRevision.update({
      where: { id: rev.id },
      data: {
        status: "issued",
        issuedAt: now,
        depositAmount,
        taxLines: totals.taxLines as unknown as Prisma.InputJsonValue,
        parties: partiesJson(parties),
        notes: rev.notes ?? defaults.notes,
        terms: rev.terms ?? defaults.terms,
        updatedAt: now,
      },
    });
    const expiresAt = q.expiresAt && q.expiresAt.getTime() > now.getTime() ? q.expiresAt : new Date(now.getTime() + DEFAULT_VALIDITY_MS);
    await moveQuote(tx, q, "issue", actorOf(tx.principal), { currentRevisionId: rev.id, expiresAt });
    const full = await loadQuote(tx, t, q.id);
    const ev = await recordEvent(tx, principalEventTenant(tx), "quote.proposed", quoteEventData(full, { revisionId: rev.id, supersededRevisionId: q.currentRevisionId }));
    queueQuoteEmails(tx, full, ["customer.quote_proposed"], ev.id);
    return { quote: quoteView(tx, full), revision: revisionView(full.revisions.find((r) => r.id === rev.id)!) };
  });
}

export async function createRevision(ctx: Ctx, id: string, body?: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    assertEditable(q);
    const revisions = await tx.db.quoteRevision.findMany({ where: { quoteId: q.id }, include: { items: { orderBy: { position: "asc" } } }, orderBy: { number: "asc" } });
    const working = revisions.find((r) => r.status === "working");
    if (working) throw new DomainError("working_revision_exists", "The quote already has a working revision; edit it", { revisionId: working.id });
    const source = revisions.find((r) => r.id === q.currentRevisionId) ?? revisions[revisions.length - 1];
    const newId = randomUUID();
    const now = tx.clock.now();
    const state = stateOf(source);
    await tx.db.quoteRevision.create({ data: { id: newId, quoteId: q.id, number: revisions[revisions.length - 1].number + 1, status: "working", ...state, createdAt: now, updatedAt: now } });
    if (source.items.length) {
      await tx.db.quoteLineItem.createMany({
        data: source.items.map(({ id: _id, revisionId: _r, ...item }) => ({ ...item, id: randomUUID(), revisionId: newId, selected: true })),
      });
    }
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { updatedAt: now } });
    return revisionView((await tx.db.quoteRevision.findUniqueOrThrow({ where: { id: newId }, include: { items: { orderBy: { position: "asc" } } } })) as RevisionFull, (await loadShippingTaxConfig(tx, t)).taxRates);
  });
}

export async function updateRevision(ctx: Ctx, id: string, revisionId: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(updateRevisionInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const rev = UUID_RE.test(revisionId)
      ? await tx.db.quoteRevision.findFirst({ where: { id: revisionId, quoteId: q.id }, include: { items: { select: { id: true } } } })
      : null;
    if (!rev) throw errors.notFound("Revision");
    if (rev.status !== "working") {
      throw new DomainError("revision_not_editable", `Revision ${rev.number} is ${rev.status}; create a working revision with POST /quotes/{id}/revisions`, { status: rev.status });
    }
    assertEditable(q);
    const state = mergeRevision(rev, input);
    const now = tx.clock.now();
    if (input.items) {
      const rows = itemRows(rev.id, input.items, new Set(rev.items.map((i) => i.id)));
      await tx.db.quoteLineItem.deleteMany({ where: { revisionId: rev.id } });
      if (rows.length) await tx.db.quoteLineItem.createMany({ data: rows });
    }
    await tx.db.quoteRevision.update({ where: { id: rev.id }, data: { ...state, updatedAt: now } });
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { updatedAt: now } });
    return revisionView((await tx.db.quoteRevision.findUniqueOrThrow({ where: { id: rev.id }, include: { items: { orderBy: { position: "asc" } } } })) as RevisionFull, (await loadShippingTaxConfig(tx, t)).taxRates);
  });
}

export async function addComment(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(commentInput, body);
  const p = ctx.principal!;
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    const actor = actorOf(p);
    const row = await tx.db.quoteComment.create({
      data: {
        quoteId: q.id,
        visibility: input.visibility,
        authorType: "merchant",
        authorId: actor.actorId ?? null,
        authorName: input.authorName ?? p.application?.name ?? null,
        body: input.body,
        createdAt: tx.clock.now(),
      },
    });
    if (row.visibility === "shared") {
      const full = await loadQuote(tx, t, q.id);
      const ev = await recordEvent(tx, principalEventTenant(tx), "quote.comment_added", quoteEventData(full, { comment: commentView(row) }));
      // named as the rep signed, else as the seller (its legal name), never the bare application name
      queueQuoteEmails(tx, full, ["customer.quote_comment_added"], ev.id, { commentAuthor: input.authorName ?? sellerBlock(full.application).name, commentBody: row.body });
    }
    return commentView(row);
  });
}

export async function rotateLink(ctx: Ctx, id: string, body?: unknown) {
  const t = writeTenant(ctx);
  parseInput(issueQuoteInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, id);
    await tx.db.quote.updateMany({ where: { id: q.id }, data: { ...newShareToken(tx.deps.config), updatedAt: tx.clock.now() } });
    return quoteView(tx, await loadQuote(tx, t, q.id));
  });
}

/** For the buyer side: the quote a share token opens (null for unknown or rotated-out tokens). */
export async function findQuoteByShareToken(ctx: Ctx, token: string): Promise<QuoteFull | null> {
  if (!/^qt_[A-Za-z0-9]{32}$/.test(token)) return null;
  return selectQuoteFull(ctx, Prisma.sql`q."shareTokenHash" = ${sha256Hex(token)}`);
}

/** quoteUpdated(id): the quote's current state first, then one item per quote.* event of this quote. */
export async function subscribeQuoteUpdates(ctx: Ctx, id: string) {
  const t = readTenant(ctx);
  const q = await loadQuote(ctx, t, id);
  const mine = (e: Envelope) => e.type.startsWith("quote.") && (e.data as { quoteId?: string } | null)?.quoteId === q.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}

/**
 * Checkout completion, in the transaction that creates the order: an accepted quote becomes converted and
 * quote.converted carries the orderId, so no reader ever sees the order beside a quote that says accepted.
 */
export async function convertQuoteForOrder(tx: Ctx, tenant: EventTenant, quoteId: string, orderId: string) {
  const [q] = await tx.db.$queryRaw<{ id: string; status: string }[]>`SELECT id, status FROM "Quote" WHERE id = ${quoteId}::uuid FOR UPDATE`;
  if (!q || q.status !== "accepted") return;
  await moveQuote(tx, q, "convert", { actorType: "system" }, { orderId, convertedAt: tx.clock.now() });
  const full = (await findQuote(tx, tenant, quoteId))!;
  await recordEvent(tx, tenant, "quote.converted", quoteEventData(full, { orderId }));
}
