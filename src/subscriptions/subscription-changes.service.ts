// Subscription changes (merchant side): cancel at period end and resume, pending changes, cancellation by order
// cancellation, and plan and seat changes with proration charged to the stored card.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Subscription } from "../generated/prisma/client";
import { requireScope } from "../shared/guards";
import { actorOf } from "../shared/actor";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { assertSumsFit } from "../shared/money";
import { asSubscription, moveSubscription, SUBSCRIPTION_COLUMNS, type SubscriptionStatus } from "./subscription.machine";
import { chargeSubscription } from "./charge";
import { INTERVALS, addInterval, amount, defaultCard, findSubscription, planName, planReference, quantity, subscriptionEvent, subscriptionRead } from "./subscriptions.service";

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
function roundHalfUp(num: bigint, den: bigint): number {
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
  const row = await tx.sql.selectFrom("Subscription").select(SUBSCRIPTION_COLUMNS).where("id", "=", subscriptionId).forUpdate().executeTakeFirst();
  const s = row && asSubscription(row);
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
    const card = await defaultCard(ctx, s);
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
    const card = due > 0 ? await defaultCard(ctx, s) : null;
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
