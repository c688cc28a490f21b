// Subscriptions (merchant side): created by a recurring checkout, read and listed, plan and seat changes with
// proration, cancel at period end and resume, cancellation by order cancellation. Renewals and dunning live in
// renewals.service.ts; every status move goes through subscription.machine.ts.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { testVaultReference } from "../payments/processor";
import { Prisma, type SavedCard, type Subscription } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { customerUuid, findCustomer } from "../customers/customers.service";
import { filter, pipe } from "graphql-yoga";
import { currentStateFirst, type EventTenant, recordEvent, tenantOf, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { requireScope, requireTenant } from "../shared/guards";
import { actorOf } from "../shared/actor";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { assertSumsFit, MAX_AMOUNT } from "../shared/money";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { moveSubscription, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "./subscription.machine";
import { chargeSubscription } from "./charge";
import { isUuid } from "../shared/ids";

export const INTERVALS = ["weekly", "monthly", "quarterly", "yearly"] as const;
export type Interval = (typeof INTERVALS)[number];

const planReference = z.string().trim().min(1).max(200);
const planName = z.string().trim().min(1).max(200);
const amount = z.number().int().min(1).max(MAX_AMOUNT);
const quantity = z.number().int().min(1).max(100_000);

/** CheckoutSession.recurring, validated at session creation. */
export const recurringInput = z.strictObject({
  planReference,
  planName: planName.optional(),
  interval: z.enum(INTERVALS),
  amount,
  quantity: quantity.optional(),
  trialDays: z.number().int().min(0).max(730).optional(),
  mode: z.enum(["auto", "manual"]).default("auto"),
});
export type Recurring = z.output<typeof recurringInput>;

// ---- time -------------------------------------------------------------------------------------------------------

/** The end of a period starting at `from`: calendar months (day clamped to the month's last day), weeks of 7 days. */
export function addInterval(from: Date, interval: string): Date {
  if (interval === "weekly") return new Date(from.getTime() + 7 * 86_400_000);
  const months = interval === "monthly" ? 1 : interval === "quarterly" ? 3 : 12;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = new Date(from.getTime());
  d.setUTCDate(1);
  d.setUTCFullYear(y, m, Math.min(from.getUTCDate(), last));
  return d;
}

// ---- views and events -------------------------------------------------------------------------------------------

export type CardSummary = Pick<SavedCard, "id" | "cardBrand" | "cardLastFour" | "cardExpMonth" | "cardExpYear">;

export function subscriptionView(s: Subscription, card: CardSummary | null = null) {
  return {
    id: s.id,
    customerId: s.customerId,
    status: s.status,
    mode: s.mode,
    planReference: s.planReference,
    planName: s.planName,
    amount: s.amount,
    quantity: s.quantity,
    currency: s.currency,
    interval: s.interval,
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    trialEnd: s.trialEnd?.toISOString() ?? null,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    cancelledAt: s.cancelledAt?.toISOString() ?? null,
    failureCount: s.failureCount,
    nextRetryAt: s.nextRetryAt?.toISOString() ?? null,
    creditAmount: s.creditAmount,
    pendingPlanReference: s.pendingPlanReference,
    pendingPlanName: s.pendingPlanName,
    pendingInterval: s.pendingInterval,
    pendingAmount: s.pendingAmount,
    pendingQuantity: s.pendingQuantity,
    paymentMethod: card ? { id: card.id, cardBrand: card.cardBrand, cardLastFour: card.cardLastFour, cardExpMonth: card.cardExpMonth, cardExpYear: card.cardExpYear } : null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
export type SubscriptionView = ReturnType<typeof subscriptionView>;

export type SubscriptionCustomer = { id: string; email: string | null } | null;

/** A subscription.* event: the subscription's state and a nullable customer object. */
export async function subscriptionEvent(ctx: Ctx, s: Subscription, type: string, extra: Record<string, unknown> = {}, customer?: SubscriptionCustomer, tenant?: EventTenant) {
  const c = customer !== undefined ? customer : await ctx.db.customer.findUnique({ where: { id: s.customerId }, select: { id: true, email: true } });
  await recordEvent(ctx, tenant ?? (await tenantOf(ctx, s)), type, {
    subscriptionId: s.id,
    status: s.status,
    planReference: s.planReference,
    amount: s.amount,
    quantity: s.quantity,
    currency: s.currency,
    interval: s.interval,
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    customerId: s.customerId,
    customer: c ? { id: c.id, email: c.email ?? null } : null,
    ...extra,
  });
}

/** The customer's default card (not deleted), or null. */
export async function defaultCard(ctx: Ctx, customerId: string) {
  return ctx.db.savedCard.findFirst({ where: { customerId, deletedAt: null, isDefault: true } });
}

// ---- reads ------------------------------------------------------------------------------------------------------

/** The tenant's subscription (optionally locked FOR UPDATE), or 404. */
export async function findSubscription(ctx: Ctx, id: string, lock = false): Promise<Subscription> {
  const t = requireTenant(ctx);
  if (!isUuid(id)) throw errors.notFound("Subscription");
  if (lock) {
    const [row] = await ctx.db.$queryRaw<Subscription[]>`
      SELECT ${columns(Prisma.SubscriptionScalarFieldEnum)} FROM "Subscription" WHERE id = ${id}::uuid AND "applicationId" = ${t.applicationId}::uuid AND "environmentId" = ${t.environmentId}::uuid FOR UPDATE`;
    if (!row) throw errors.notFound("Subscription");
    return row;
  }
  const row = await ctx.db.subscription.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } });
  if (!row) throw errors.notFound("Subscription");
  return row;
}

export async function subscriptionRead(ctx: Ctx, s: Subscription) {
  return subscriptionView(s, await defaultCard(ctx, s.customerId));
}

export async function getSubscription(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:read");
  return subscriptionRead(ctx, await findSubscription(ctx, id));
}

export const subscriptionFilters = {
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  customerId: z.string().min(1).max(100).optional(),
};

export async function listSubscriptions(ctx: Ctx, query: unknown) {
  requireScope(ctx, "subscriptions:read");
  const t = requireTenant(ctx);
  const q = parseListQuery(subscriptionFilters, query);
  let customerId: string | undefined;
  if (q.customerId !== undefined) {
    const uuid = customerUuid(q.customerId);
    if (!uuid) throw errors.validation([{ path: ["query", "customerId"], message: "Not a customer id" }]);
    customerId = uuid;
  }
  const k = keyset(q);
  const rows = await ctx.db.subscription.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, ...(q.status ? { status: q.status } : {}), ...(customerId ? { customerId } : {}), ...k.where },
    orderBy: k.orderBy,
    take: k.take,
  });
  const page = toPage(rows, q);
  // the default cards of the page's customers: one statement
  const cards = page.items.length
    ? await ctx.db.savedCard.findMany({ where: { customerId: { in: [...new Set(page.items.map((s) => s.customerId))] }, isDefault: true, deletedAt: null } })
    : [];
  const byCustomer = new Map(cards.map((c) => [c.customerId, c]));
  return { items: page.items.map((s) => subscriptionView(s, byCustomer.get(s.customerId) ?? null)), pagination: page.pagination };
}

// ---- trials -------------------------------------------------------------------------------------------------------

/** One trial per customer per plan. */
export async function trialEligibility(ctx: Ctx, customerId: string, query: unknown) {
  requireScope(ctx, "customers:read");
  const q = parseInput(z.strictObject({ planReference }), query ?? {}, ["query"]);
  const t = requireTenant(ctx);
  const customer = await findCustomer(ctx, t, customerId);
  if (!customer) throw errors.notFound("Customer");
  const used = await ctx.db.trialRedemption.findUnique({
    where: { applicationId_environmentId_customerId_planReference: { applicationId: t.applicationId, environmentId: t.environmentId, customerId: customer.id, planReference: q.planReference } },
  });
  return used ? { eligible: false, reason: "trial_already_used" } : { eligible: true, reason: null };
}

// ---- creation by a recurring checkout --------------------------------------------------------------------------------

/** A synthesized order line for a recurring session with an empty cart (no charge now during a trial). */
export function recurringLine(r: Recurring) {
  return {
    type: "subscription",
    referenceId: r.planReference,
    name: r.planName ?? r.planReference,
    description: null,
    unitPrice: r.amount,
    quantity: r.quantity ?? 1,
    taxAmount: 0,
    discountAmount: 0,
    requiresShipping: false,
    imageUrl: null,
    metadata: { interval: r.interval, mode: r.mode },
  };
}

/**
 * Completion of a recurring checkout, in the transaction that completes the session (card payments only): vaults
 * the card as the customer's default, creates the subscription (trialing when a trial applies), links the order.
 */
export async function createSubscriptionFromCheckout(
  tx: Ctx,
  a: { session: { id: string; applicationId: string; environmentId: string; recurring: unknown }; orderId: string; customerId: string; email: string | null; currency: string; paymentToken: string; trial: boolean },
) {
  const r = recurringInput.parse(a.session.recurring);
  const now = tx.clock.now();
  const tenant = await tenantOf(tx, a.session);
  // the card: the customer's new default (one default per customer, under a lock on the customer row)
  await tx.db.$queryRaw`SELECT id FROM "Customer" WHERE id = ${a.customerId}::uuid FOR UPDATE`;
  await tx.db.savedCard.updateMany({ where: { customerId: a.customerId, isDefault: true }, data: { isDefault: false } });
  const card = await tx.db.savedCard.create({
    data: {
      id: `cpm_${randomBytes(12).toString("hex")}`,
      applicationId: a.session.applicationId,
      environmentId: a.session.environmentId,
      customerId: a.customerId,
      cardBrand: "visa",
      cardLastFour: "4242",
      cardExpMonth: 12,
      cardExpYear: now.getUTCFullYear() + 4,
      isDefault: true,
      chargeable: true,
      // the test processor charges a vaulted card as the token it was vaulted from
      processorReference: testVaultReference(a.paymentToken),
      source: "checkout",
      createdAt: now,
      updatedAt: now,
    },
  });
  const trialEnd = a.trial ? new Date(now.getTime() + (r.trialDays ?? 0) * 86_400_000) : null;
  const s = await tx.db.subscription.create({
    data: {
      applicationId: a.session.applicationId,
      environmentId: a.session.environmentId,
      customerId: a.customerId,
      status: trialEnd ? "trialing" : "active",
      mode: r.mode,
      planReference: r.planReference,
      planName: r.planName ?? null,
      interval: r.interval,
      amount: r.amount,
      quantity: r.quantity ?? 1,
      currency: a.currency,
      currentPeriodStart: now,
      currentPeriodEnd: trialEnd ?? addInterval(now, r.interval),
      trialEnd,
      checkoutSessionId: a.session.id,
      createdAt: now,
      updatedAt: now,
    },
  });
  await tx.db.subscriptionStatusHistory.create({ data: { subscriptionId: s.id, fromStatus: null, toStatus: s.status, actorType: "system", reason: "checkout", createdAt: now } });
  if (trialEnd) {
    // a concurrent checkout of the same plan may have redeemed it meanwhile: the first redemption stands
    await tx.db.$executeRaw`
      INSERT INTO "TrialRedemption" (id, "applicationId", "environmentId", "customerId", "planReference", "subscriptionId", "createdAt")
      VALUES (gen_random_uuid(), ${s.applicationId}::uuid, ${s.environmentId}::uuid, ${a.customerId}::uuid, ${r.planReference}, ${s.id}::uuid, ${now})
      ON CONFLICT DO NOTHING`;
  }
  await tx.db.order.update({ where: { id: a.orderId }, data: { subscriptionId: s.id } });
  const customer = { id: a.customerId, email: a.email };
  await subscriptionEvent(tx, s, "subscription.created", { orderId: a.orderId, checkoutSessionId: a.session.id, trialEnd: trialEnd?.toISOString() ?? null, paymentMethodId: card.id }, customer, tenant);
  if (s.status === "active") await subscriptionEvent(tx, s, "subscription.activated", { orderId: a.orderId }, customer, tenant);
  return s;
}

/** Whether this customer may start a trial of this plan (no TrialRedemption yet). */
export async function trialApplies(ctx: Ctx, t: { applicationId: string; environmentId: string }, customerId: string | null, r: Recurring) {
  if (!r.trialDays) return false;
  if (!customerId) return true;
  const used = await ctx.db.trialRedemption.findUnique({ where: { applicationId_environmentId_customerId_planReference: { applicationId: t.applicationId, environmentId: t.environmentId, customerId, planReference: r.planReference } } });
  return !used;
}

// ---- changes ----------------------------------------------------------------------------------------------------

function assertNotCancelled(s: Subscription) {
  if (s.status === "cancelled") throw new DomainError("invalid_subscription_state", "A cancelled subscription cannot change", { status: s.status });
}

export const changePlanInput = z.strictObject({
  planReference,
  planName: planName.optional(),
  interval: z.enum(INTERVALS),
  amount,
  effective: z.enum(["now", "period_end"]),
});

export const changeQuantityInput = z.strictObject({
  quantity,
  effective: z.enum(["now", "period_end"]).default("now"),
});

/** Half up of num/den for non-negative integers (exact, in BigInt). */
export function roundHalfUp(num: bigint, den: bigint): number {
  return Number((2n * num + den) / (2n * den));
}

/** Proration of an immediate seat change: unused fractions of the old and the new period charge. */
export function prorate(s: Pick<Subscription, "currentPeriodStart" | "currentPeriodEnd" | "amount" | "quantity">, newQuantity: number, now: Date) {
  const period = BigInt(Math.max(1, Math.round((s.currentPeriodEnd.getTime() - s.currentPeriodStart.getTime()) / 1000)));
  let remaining = BigInt(Math.max(0, Math.floor((s.currentPeriodEnd.getTime() - now.getTime()) / 1000)));
  if (remaining > period) remaining = period;
  const oldCharge = BigInt(s.amount * s.quantity);
  const newCharge = BigInt(s.amount * newQuantity);
  const creditCents = roundHalfUp(oldCharge * remaining, period);
  const chargedCents = roundHalfUp(newCharge * remaining, period);
  return { creditCents, chargedCents, fullAmount: Number(newCharge) };
}

/** PATCH /subscriptions/{id} {cancelAtPeriodEnd}. */
export async function updateSubscription(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "subscriptions:write");
  const input = parseInput(z.strictObject({ cancelAtPeriodEnd: z.boolean() }), body ?? {});
  return withTx(ctx, async (tx) => {
    const s = await findSubscription(tx, id, true);
    assertNotCancelled(s);
    if (s.cancelAtPeriodEnd === input.cancelAtPeriodEnd) return subscriptionRead(tx, s);
    const next = await moveSubscription(tx, s, s.status as SubscriptionStatus, { cancelAtPeriodEnd: input.cancelAtPeriodEnd }, actorOf(tx));
    await subscriptionEvent(tx, next, "subscription.updated", { cancelAtPeriodEnd: next.cancelAtPeriodEnd, change: "cancel_at_period_end" });
    return subscriptionRead(tx, next);
  });
}

/** POST /subscriptions/{id}/resume: clears cancelAtPeriodEnd on any non-cancelled status; the status is unchanged. */
export async function resumeSubscription(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:write");
  return withTx(ctx, async (tx) => {
    const s = await findSubscription(tx, id, true);
    if (s.status === "cancelled") throw new DomainError("invalid_subscription_state", "A cancelled subscription cannot be resumed", { status: s.status });
    if (!s.cancelAtPeriodEnd) return subscriptionRead(tx, s);
    const next = await moveSubscription(tx, s, s.status as SubscriptionStatus, { cancelAtPeriodEnd: false }, actorOf(tx));
    await subscriptionEvent(tx, next, "subscription.resumed", { cancelAtPeriodEnd: false });
    return subscriptionRead(tx, next);
  });
}

/** DELETE /subscriptions/{id}/pending-change: no-op if none; emits subscription.updated. */
export async function clearPendingChange(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:write");
  return withTx(ctx, async (tx) => {
    const s = await findSubscription(tx, id, true);
    const none = s.pendingPlanReference === null && s.pendingQuantity === null;
    const next = none
      ? s
      : await moveSubscription(tx, s, s.status as SubscriptionStatus, { pendingPlanReference: null, pendingPlanName: null, pendingInterval: null, pendingAmount: null, pendingQuantity: null }, actorOf(tx));
    await subscriptionEvent(tx, next, "subscription.updated", { change: "pending_change_cleared", cleared: !none });
    return subscriptionRead(tx, next);
  });
}

/** Cancels at once (order cancellation), in the caller's transaction; nothing if already cancelled. */
export async function cancelSubscriptionNow(tx: Ctx, subscriptionId: string, reason: string) {
  const [s] = await tx.db.$queryRaw<Subscription[]>`SELECT ${columns(Prisma.SubscriptionScalarFieldEnum)} FROM "Subscription" WHERE id = ${subscriptionId}::uuid FOR UPDATE`;
  if (!s || s.status === "cancelled") return null;
  const next = await moveSubscription(tx, s, "cancelled", { cancelledAt: tx.clock.now(), nextRetryAt: null }, actorOf(tx), reason);
  await subscriptionEvent(tx, next, "subscription.cancelled", { reason });
  return next;
}

// ---- plan and seat changes (charging the stored card) --------------------------------------------------------------

function chargeFailed(outcome: { reason: string; message: string; payment: { id: string } | null }) {
  return new DomainError("payment_failed", outcome.message, { reason: outcome.reason, paymentId: outcome.payment?.id ?? null });
}

/** Holds the subscription's renewal lease for a change that charges (409 conflict while a renewal holds it). */
async function leaseForChange(ctx: Ctx, s: Subscription) {
  const owner = `change-${randomBytes(8).toString("hex")}`;
  const now = ctx.clock.now();
  const n = await ctx.db.subscription.updateMany({
    where: { id: s.id, status: s.status, OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }] },
    data: { leaseOwner: owner, leaseUntil: new Date(now.getTime() + 5 * 60_000) },
  });
  if (n.count === 0) throw new DomainError("conflict", "A renewal or another change of this subscription is in progress");
  return owner;
}

async function releaseChangeLease(ctx: Ctx, id: string, owner: string) {
  await ctx.db.subscription.updateMany({ where: { id, leaseOwner: owner }, data: { leaseOwner: null, leaseUntil: null } });
}

/** POST /subscriptions/{id}/change-plan. */
export async function changeSubscriptionPlan(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "subscriptions:write");
  const input = parseInput(changePlanInput, body ?? {});
  const s = await findSubscription(ctx, id);
  assertNotCancelled(s);
  // what renewals then charge, amount x seats (today's and any pending seats), within the money bound
  assertSumsFit([{ path: ["amount"], value: input.amount * Math.max(s.quantity, s.pendingQuantity ?? 0), what: "The plan's amount x quantity" }]);
  if (input.planReference === s.planReference) {
    throw new DomainError("invalid_subscription_state", "The subscription is already on this plan", { planReference: s.planReference });
  }
  const actor = actorOf(ctx);
  if (input.effective === "period_end") {
    return withTx(ctx, async (tx) => {
      const cur = await findSubscription(tx, id, true);
      assertNotCancelled(cur);
      const next = await moveSubscription(tx, cur, cur.status as SubscriptionStatus, { pendingPlanReference: input.planReference, pendingPlanName: input.planName ?? null, pendingInterval: input.interval, pendingAmount: input.amount }, actor);
      await subscriptionEvent(tx, next, "subscription.plan_change_scheduled", { pendingPlanReference: input.planReference, pendingInterval: input.interval, pendingAmount: input.amount, effectiveAt: next.currentPeriodEnd.toISOString() });
      return subscriptionRead(tx, next);
    });
  }
  const owner = await leaseForChange(ctx, s);
  try {
    const card = await defaultCard(ctx, s.customerId);
    const plan = { planReference: input.planReference, planName: input.planName ?? null, interval: input.interval, amount: input.amount };
    return await chargeSubscription(
      ctx,
      { sub: { ...s, ...plan }, card, line: { name: plan.planName ?? plan.planReference, unitPrice: plan.amount, quantity: s.quantity, discountAmount: 0 }, purpose: "plan_change" },
      async (tx, outcome) => {
        if (!outcome.ok) return { error: chargeFailed(outcome) };
        const now = tx.clock.now();
        const next = await moveSubscription(
          tx,
          s,
          s.status === "cancelled" ? "cancelled" : (["trialing", "past_due", "unpaid"].includes(s.status) ? "active" : (s.status as SubscriptionStatus)),
          { ...plan, currentPeriodStart: now, currentPeriodEnd: addInterval(now, plan.interval), pendingPlanReference: null, pendingPlanName: null, pendingInterval: null, pendingAmount: null, pendingQuantity: null, failureCount: 0, nextRetryAt: null, leaseOwner: null, leaseUntil: null },
          actor,
          "plan_changed",
        );
        await subscriptionEvent(tx, next, "subscription.plan_changed", { previousPlanReference: s.planReference, orderId: outcome.orderId, paymentId: outcome.payment?.id ?? null });
        return { read: await subscriptionRead(tx, next) };
      },
    ).then((r) => {
      if ("error" in r) throw r.error;
      return r.read;
    });
  } finally {
    await releaseChangeLease(ctx, s.id, owner);
  }
}

/** POST /subscriptions/{id}/change-quantity. */
export async function changeSubscriptionQuantity(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "subscriptions:write");
  const input = parseInput(changeQuantityInput, body ?? {});
  const s = await findSubscription(ctx, id);
  assertNotCancelled(s);
  // what renewals then charge, amount (today's and any pending plan's) x seats, within the money bound
  assertSumsFit([{ path: ["quantity"], value: Math.max(s.amount, s.pendingAmount ?? 0) * input.quantity, what: "The plan's amount x quantity" }]);
  if (input.quantity === s.quantity) throw new DomainError("quantity_unchanged", "The subscription already has this quantity", { quantity: s.quantity });
  const actor = actorOf(ctx);
  if (input.effective === "period_end") {
    return withTx(ctx, async (tx) => {
      const cur = await findSubscription(tx, id, true);
      assertNotCancelled(cur);
      const next = await moveSubscription(tx, cur, cur.status as SubscriptionStatus, { pendingQuantity: input.quantity }, actor);
      await subscriptionEvent(tx, next, "subscription.updated", { change: "quantity_scheduled", pendingQuantity: input.quantity, effectiveAt: next.currentPeriodEnd.toISOString() });
      return subscriptionRead(tx, next);
    });
  }
  const owner = await leaseForChange(ctx, s);
  try {
    const proration = prorate(s, input.quantity, ctx.clock.now());
    const due = proration.chargedCents - proration.creditCents;
    const card = due > 0 ? await defaultCard(ctx, s.customerId) : null;
    const r = await chargeSubscription(
      ctx,
      { sub: s, card, line: { name: `${s.planName ?? s.planReference}: seats ${s.quantity} to ${input.quantity} (prorated)`, unitPrice: Math.max(due, 0), quantity: 1, discountAmount: 0 }, purpose: "quantity_change" },
      async (tx, outcome) => {
        if (!outcome.ok) return { error: chargeFailed(outcome) };
        const next = await moveSubscription(
          tx,
          s,
          s.status as SubscriptionStatus,
          { quantity: input.quantity, creditAmount: s.creditAmount + Math.max(-due, 0), pendingQuantity: null, leaseOwner: null, leaseUntil: null },
          actor,
        );
        await subscriptionEvent(tx, next, "subscription.updated", { change: "quantity", previousQuantity: s.quantity, proration, orderId: outcome.orderId, paymentId: outcome.payment?.id ?? null });
        return { read: await subscriptionRead(tx, next) };
      },
    );
    if ("error" in r) throw r.error;
    return { ...r.read, proration };
  } finally {
    await releaseChangeLease(ctx, s.id, owner);
  }
}

// ---- live updates -------------------------------------------------------------------------------------------------

/** The live stream of one subscription's subscription.* events (another tenant's id is 404 before subscribing). */
export async function subscribeSubscriptionUpdates(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:read");
  const s = await findSubscription(ctx, id);
  const t = requireTenant(ctx);
  const mine = (e: Envelope) => e.type.startsWith("subscription.") && (e.data as { subscriptionId?: string } | null)?.subscriptionId === s.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
