// Acceptance (quotes.md part 4 "Accept rules", decisions.md parts 3 and 5), by the buyer at the link or by a rep
// recording a phone or email acceptance: the current issued revision, with the buyer's item selections, becomes a
// cart and a checkout session whose payment methods, Net-N days, deposit and address steps the terms pin.
//
// One quote, one checkout, across processes: the accepting transaction takes the quote's row lock with NOWAIT, so
// a concurrent accept answers 409 accept_in_progress at once instead of queueing; once it commits, every later
// accept of the same revision finds the quote accepted and gets the same session (or, when that session lapsed, a
// resumed one on the same cart with the same pinned settings).
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { CheckoutSession, Prisma } from "../generated/prisma/client";
import { insertSession, sessionView } from "../checkout/checkout.service";
import { type EventTenant, outboxOf, recordEvent, tenantOf } from "../events/events.service";
import { notify } from "../notifications/notifications.service";
import { type Ctx, pgCode, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { formatMoney } from "../shared/money";
import { formatDay } from "../shared/dates";
import { lockTenantRow } from "../shared/tenant-lock";
import { nextQuoteStatus, moveQuote, type QuoteActor } from "./quote.machine";
import { MAX_QUOTE_ITEMS } from "./quotes.inputs";
import { queueQuoteEmails } from "./quote-emails";
import { type AcceptedLine, acceptedItems } from "./quote-accepted";
import { actorOf } from "./quote-revisions.service";
import { buyerBaseUrl, collectOf, quoteView, openShareToken, quoteEventData, revisionTotals } from "./quote.view";
import { findQuote, quoteNotFound, writeTenant, type QuoteFull, type RevisionFull, type TenantIds } from "./quote-read.service";

const itemSelectionInput = z.strictObject({
  itemId: z.string().min(1).max(100),
  selected: z.boolean().optional(),
  quantity: z.number().int().min(1).max(1_000_000).optional(),
});

export const acceptInput = z.strictObject({
  revisionId: z.string().min(1).max(100),
  acceptedByName: z.string().trim().min(1).max(200),
  /** defaults to the quote's customer email */
  acceptedByEmail: z.email().max(320).optional(),
  itemSelections: z
    .array(itemSelectionInput)
    .max(MAX_QUOTE_ITEMS)
    .refine((a) => new Set(a.map((s) => s.itemId)).size === a.length, "lists an item more than once")
    .optional(),
});
export const repAcceptInput = acceptInput.extend({ reason: z.string().trim().max(2000).optional() });
type AcceptInput = z.output<typeof repAcceptInput>;

export { type AcceptedLine, acceptedItems } from "./quote-accepted";

/** Payment methods a revision's terms allow at checkout (decisions.md part 3). */
function allowedMethodsFor(termsMode: string): string[] {
  return termsMode === "net_terms" ? ["net30"] : ["card"];
}

function invalidSelection(itemId: string, reason: string, message: string, extra: Record<string, unknown> = {}) {
  return new DomainError("invalid_item_selection", message, { itemId, reason, ...extra });
}

/**
 * Applies itemSelections to the issued lines (rule 3): optional lines may be deselected, quantity-editable lines
 * resized; a locked line's quantity, a non-optional deselect, an unknown id and (deposit terms) a total at or below
 * the frozen deposit are 400 invalid_item_selection. Lines not listed keep their issued state.
 */
export function applySelections(rev: RevisionFull, selections: AcceptInput["itemSelections"] = [], currency = "USD"): AcceptedLine[] {
  const byId = new Map(rev.items.map((i) => [i.id, i]));
  const chosen = new Map<string, AcceptedLine>(rev.items.map((i) => [i.id, { itemId: i.id, selected: i.selected, quantity: i.quantity }]));
  for (const s of selections) {
    const item = byId.get(s.itemId);
    if (!item) throw invalidSelection(s.itemId, "unknown_item", `Item ${s.itemId} is not a line of revision ${rev.number}`);
    const line = chosen.get(s.itemId)!;
    if (s.selected === false && !item.optional) throw invalidSelection(s.itemId, "not_optional", `"${item.name}" is not optional and cannot be deselected`);
    if (s.selected !== undefined) line.selected = s.selected;
    if (s.quantity !== undefined && s.quantity !== item.quantity) {
      if (!item.qtyEditable) throw invalidSelection(s.itemId, "quantity_locked", `The quantity of "${item.name}" is fixed at ${item.quantity}`);
      line.quantity = s.quantity;
    }
  }
  const lines = [...chosen.values()];
  if (!lines.some((l) => l.selected)) throw invalidSelection(selections[0]?.itemId ?? "", "nothing_selected", "At least one line must stay selected");
  if (rev.termsMode === "deposit_balance" && rev.depositAmount !== null) {
    const { total } = acceptedTotals(rev, lines);
    if (total <= rev.depositAmount) {
      throw invalidSelection(selections[selections.length - 1]?.itemId ?? "", "deposit_floor", `The selection totals ${formatMoney(total, currency)}, at or below the deposit of ${formatMoney(rev.depositAmount, currency)}; include more lines`, {
        total,
        depositAmount: rev.depositAmount,
      });
    }
  }
  return lines;
}

/** Tax: the issued revision's frozen rates on the accepted selection (plus priced shipping), as revisionTotals. */
function acceptedTotals(rev: RevisionFull, lines: AcceptedLine[]) {
  return revisionTotals({ ...rev, items: acceptedItems(rev, lines) });
}

type By = { kind: "buyer" } | { kind: "merchant"; actor: QuoteActor };

const LOCK_NOT_AVAILABLE = "55P03";

/**
 * The row lock an acceptance needs, without waiting: another transaction holding it is (almost always) another
 * acceptance materializing this quote's checkout.
 */
async function lockForAccept(tx: Ctx, t: TenantIds, id: string) {
  try {
    const q = /^[0-9a-f-]{36}$/i.test(id) ? await lockTenantRow(tx, "Quote", t, id).noWait().executeTakeFirst() : undefined;
    if (!q) throw quoteNotFound();
    return q;
  } catch (e) {
    if (pgCode(e) === LOCK_NOT_AVAILABLE) throw acceptInProgress();
    throw e;
  }
}

const acceptInProgress = () => new DomainError("accept_in_progress", "Another acceptance of this quote is creating its checkout; retry shortly");

interface AcceptResult {
  quote: QuoteFull;
  session: CheckoutSession;
  checkoutUrl: string;
}

/** Accepts quote `id` of tenant `t` (the caller has resolved the link or the key to them). */
export async function acceptQuoteCore(ctx: Ctx, t: TenantIds, id: string, input: AcceptInput, by: By): Promise<AcceptResult> {
  try {
    return await withTx(ctx, async (tx) => {
      await lockForAccept(tx, t, id);
      const q = (await findQuote(tx, t, id))!;
      const now = tx.clock.now();
      const tenant = await tenantOf(tx, t);
      // Rule 4: the same revision accepted again returns its checkout (resumed on the same cart if it lapsed).
      if ((q.status === "accepted" || q.status === "converted") && q.acceptedRevisionId === input.revisionId && q.checkoutSessionId) {
        const session = await currentSession(tx, q, tenant, now);
        return result(tx, q, session);
      }
      if (q.currentRevisionId && input.revisionId !== q.currentRevisionId) {
        throw new DomainError("revision_superseded", "That revision is no longer the current offer", { currentRevisionId: q.currentRevisionId });
      }
      if (q.status === "expired" || (q.status === "proposed" && q.expiresAt && q.expiresAt.getTime() <= now.getTime())) {
        throw new DomainError("quote_expired", `This quote expired on ${q.expiresAt ? formatDay(q.expiresAt) : "its expiry date"}`, { expiresAt: q.expiresAt?.toISOString() ?? null });
      }
      nextQuoteStatus(q.status, "accept");
      const rev = q.revisions.find((r) => r.id === q.currentRevisionId)!;
      const lines = applySelections(rev, input.itemSelections, q.currency);
      const session = await materialize(tx, q, rev, lines);
      const acceptance = {
        by: by.kind,
        name: input.acceptedByName,
        email: (input.acceptedByEmail ?? q.customerEmail).toLowerCase(),
        reason: by.kind === "merchant" ? (input.reason ?? null) : null,
        actorId: by.kind === "merchant" ? (by.actor.actorId ?? null) : null,
        items: lines,
      };
      await moveQuote(tx, q, "accept", by.kind === "merchant" ? { ...by.actor, reason: input.reason ?? null } : { actorType: "buyer" }, {
        acceptedRevisionId: rev.id,
        acceptedAt: now,
        acceptance,
        checkoutSessionId: session.id,
      });
      const full = (await findQuote(tx, t, id))!;
      const checkoutUrl = `${tx.deps.config.CHECKOUT_URL}/checkout/${session.id}`;
      const ev = await recordEvent(tx, tenant, "quote.accepted", quoteEventData(full, { revisionId: rev.id, acceptedBy: by.kind, checkoutSessionId: session.id, checkoutUrl, items: lines }));
      queueQuoteEmails(tx, full, ["customer.quote_accepted", "admin.quote_accepted"], ev.id, { acceptedBy: input.acceptedByName, acceptedByEmail: acceptance.email, checkoutUrl });
      await recordEvent(tx, tenant, "cart.checkout_started", { cartId: session.cartId, checkoutSessionId: session.id, quoteId: q.id });
      await notify(tx, t, {
        type: "quote.accepted",
        quoteId: q.id,
        title: `${q.number} accepted by ${input.acceptedByName}`,
        body: by.kind === "merchant" ? "Recorded by a rep." : "Accepted at the buyer link; checkout has started.",
      });
      return result(tx, full, session);
    });
  } catch (e) {
    if (pgCode(e) === LOCK_NOT_AVAILABLE) throw acceptInProgress();
    throw e;
  }
}

function result(ctx: Ctx, quote: QuoteFull, session: CheckoutSession): AcceptResult {
  return { quote, session, checkoutUrl: sessionView(session, ctx.deps.config.CHECKOUT_URL).hostedUrl };
}

/**
 * The accepted revision as a cart (the chosen lines and quantities, flat shipping as the selected rate) and its
 * checkout session: methods pinned by the terms, the negotiated Net-N, the deposit, and the address steps derived
 * from the accepted lines unless the revision overrides them. Three statements.
 */
async function materialize(tx: Ctx, q: QuoteFull, rev: RevisionFull, lines: AcceptedLine[]): Promise<CheckoutSession> {
  const items = acceptedItems(rev, lines).filter((i) => i.selected);
  // the frozen tax on the accepted selection: the cart's tax lines, so the order's taxTotal is the quote's
  const { taxLines } = acceptedTotals(rev, lines);
  const cartId = randomUUID();
  const at = tx.clock.now();
  await tx.db.cart.create({
    data: {
      id: cartId,
      applicationId: q.applicationId,
      environmentId: q.environmentId,
      status: "open",
      currency: q.currency,
      customerId: q.customerId,
      customerEmail: q.customerEmail,
      metadata: { quoteId: q.id, quoteNumber: q.number, revisionId: rev.id },
      selectedShipping:
        rev.shippingMode === "flat" && rev.shippingAmount
          ? { methodId: "quote_flat", displayName: "Shipping", rateAmount: rev.shippingAmount, carrier: null, serviceCode: null, estimatedDeliveryDays: null, currency: q.currency }
          : undefined,
      taxLines: taxLines as unknown as Prisma.InputJsonValue,
      createdAt: at,
      updatedAt: at,
    },
  });
  await tx.db.cartLineItem.createMany({
    data: items.map((i, n) => ({
      cartId,
      type: i.type,
      referenceId: i.referenceId ?? i.sku,
      name: i.name,
      description: i.description,
      unitPrice: i.unitPrice ?? 0,
      quantity: i.quantity,
      requiresShipping: i.deliveryMethod !== "none",
      metadata: { quoteItemId: i.id, ...(i.sku ? { sku: i.sku } : {}) },
      createdAt: new Date(at.getTime() + n), // keeps the quote's line order (cart lines are read by createdAt)
    })),
  });
  const collect = collectOf({ ...rev, items: acceptedItems(rev, lines) });
  const link = `${buyerBaseUrl(tx, q.application.settings)}/q/${openShareToken(tx, q)}`;
  return insertSession(tx, q, outboxOf(tx), {
    cartId,
    returnUrl: link,
    cancelUrl: link,
    customerEmail: q.customerEmail,
    customerId: q.customerId,
    customer: null,
    allowedMethods: allowedMethodsFor(rev.termsMode),
    netN: rev.termsMode === "net_terms" ? rev.netN : null,
    collectShipping: collect.shippingAddress,
    collectBilling: collect.billingAddress,
    metadata: { quoteId: q.id, quoteNumber: q.number, revisionId: rev.id },
    quoteId: q.id,
    depositAmount: rev.termsMode === "deposit_balance" ? rev.depositAmount : null,
    balanceNetN: rev.termsMode === "deposit_balance" ? (rev.balanceNetN ?? 30) : null,
  });
}

/**
 * The accepted quote's checkout: the session itself while it is open (or completed), else a new session on the same
 * cart with the same pinned methods, terms, deposit and collect flags (a checkout resumed after the session TTL).
 */
async function currentSession(tx: Ctx, q: QuoteFull, tenant: EventTenant, now: Date): Promise<CheckoutSession> {
  const s = await tx.db.checkoutSession.findUniqueOrThrow({ where: { id: q.checkoutSessionId! } });
  const lapsed = s.status === "expired" || s.status === "cancelled" || (s.status === "open" && s.expiresAt.getTime() <= now.getTime() && !s.completionStartedAt);
  if (q.status !== "accepted" || !lapsed) return s;
  if (s.status === "open") await tx.db.checkoutSession.updateMany({ where: { id: s.id, status: "open" }, data: { status: "expired" } });
  const resumed = await insertSession(tx, q, outboxOf(tx), {
    cartId: s.cartId,
    returnUrl: s.returnUrl,
    cancelUrl: s.cancelUrl,
    customerEmail: s.customerEmail,
    customerId: s.customerId,
    customer: s.customer,
    allowedMethods: s.allowedMethods,
    netN: s.netN,
    collectShipping: s.collectShipping,
    collectBilling: s.collectBilling,
    metadata: s.metadata,
    quoteId: s.quoteId,
    depositAmount: s.depositAmount,
    balanceNetN: s.balanceNetN,
  });
  await tx.db.quote.updateMany({ where: { id: q.id }, data: { checkoutSessionId: resumed.id, updatedAt: now } });
  await recordEvent(tx, tenant, "cart.checkout_started", { cartId: resumed.cartId, checkoutSessionId: resumed.id, quoteId: q.id, resumedFrom: s.id });
  return resumed;
}

/** POST /quotes/{id}/accept: a rep records the buyer's phone or email acceptance -> { quote (merchant view), checkoutUrl } */
export async function acceptQuote(ctx: Ctx, id: string, body: unknown) {
  const t = writeTenant(ctx);
  const input = parseInput(repAcceptInput, body);
  const r = await acceptQuoteCore(ctx, t, id, input, { kind: "merchant", actor: actorOf(ctx.principal) });
  return { quote: quoteView(ctx, r.quote), checkoutUrl: r.checkoutUrl };
}
