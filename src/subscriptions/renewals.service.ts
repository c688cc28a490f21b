// Renewals: the subscription-renewal job, manual renewals (POST /subscriptions/{id}/renew) and the wallet's retry.
// A renewal holds a lease on the subscription row (leaseOwner/leaseUntil, claimed by a conditional UPDATE), so two
// workers never charge one period twice; the subscription update that ends a renewal is a compare-and-set on that
// lease. A decline walks the dunning ladder (DUNNING_SCHEDULE) to unpaid.
import { randomUUID } from "node:crypto";
import type { SavedCard, Subscription } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { requireScope } from "../platform/auth.service";
import { Prisma } from "../generated/prisma/client";
import { type Ctx, withTx } from "../shared/context";
import { DomainError } from "../shared/errors";
import { cardConnector, chargeSubscription, type Connector } from "./charge";
import { moveSubscription, type SubscriptionStatus } from "./subscription.machine";
import { addInterval, findSubscription, subscriptionEvent, type SubscriptionCustomer, subscriptionRead } from "./subscriptions.service";

const LEASE_MS = 5 * 60_000;
const DUE_STATUSES = ["active", "trialing", "past_due"];

type Claimed = Subscription & { _email?: string | null };

/** The card a renewal charges: the default, or when it is paused the next active card (backup). */
async function renewalCard(ctx: Ctx, customerId: string): Promise<{ card: SavedCard | null; backup: boolean }> {
  const cards = await ctx.db.savedCard.findMany({ where: { customerId, deletedAt: null }, orderBy: [{ isDefault: "desc" }, { createdAt: "desc" }, { id: "desc" }] });
  const def = cards.find((c) => c.isDefault) ?? null;
  if (def?.isActive) return { card: def, backup: false };
  const next = cards.find((c) => c.isActive && c !== def) ?? null;
  return { card: next, backup: Boolean(next && def) };
}

/** Claims up to `limit` due auto-mode subscriptions for `owner` (rows locked by another claimer are skipped). */
async function claimDue(ctx: Ctx, owner: string, limit: number): Promise<Claimed[]> {
  const now = ctx.clock.now();
  const until = new Date(now.getTime() + LEASE_MS);
  return ctx.db.$queryRaw<Claimed[]>`
    WITH due AS (
      SELECT id FROM "Subscription"
      WHERE mode = 'auto' AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
        AND ((status IN ('active', 'trialing') AND "currentPeriodEnd" <= ${now}) OR (status = 'past_due' AND "nextRetryAt" <= ${now}))
      ORDER BY "currentPeriodEnd"
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE "Subscription" s SET "leaseOwner" = ${owner}, "leaseUntil" = ${until}
    FROM due WHERE s.id = due.id AND (s."leaseUntil" IS NULL OR s."leaseUntil" < ${now})
    RETURNING ${columns(Prisma.SubscriptionScalarFieldEnum, "s")}, (SELECT email FROM "Customer" c WHERE c.id = s."customerId") AS "_email"`;
}

/** Claims one subscription's lease (any status in `statuses`); null when it is held or the status differs. */
async function claimOne(ctx: Ctx, id: string, owner: string, statuses: string[]): Promise<Claimed | null> {
  const now = ctx.clock.now();
  const [row] = await ctx.db.$queryRaw<Claimed[]>`
    UPDATE "Subscription" s SET "leaseOwner" = ${owner}, "leaseUntil" = ${new Date(now.getTime() + LEASE_MS)}
    WHERE id = ${id}::uuid AND status IN (${Prisma.join(statuses)}) AND ("leaseUntil" IS NULL OR "leaseUntil" < ${now})
    RETURNING ${columns(Prisma.SubscriptionScalarFieldEnum, "s")}, (SELECT email FROM "Customer" c WHERE c.id = s."customerId") AS "_email"`;
  return row ?? null;
}

async function releaseLease(ctx: Ctx, id: string, owner: string) {
  await ctx.db.subscription.updateMany({ where: { id, leaseOwner: owner }, data: { leaseOwner: null, leaseUntil: null } });
}

type RenewalResult = "renewed" | "declined" | "cancelled";

/**
 * One renewal of a subscription whose lease `owner` holds: cancel at period end, or charge the period (pending
 * changes applied, credit taken off) and advance it, or walk the dunning ladder. Releases the lease.
 */
async function renewLeased(ctx: Ctx, sub: Claimed, owner: string, connector?: Connector): Promise<RenewalResult> {
  const { _email, ...s } = sub;
  const customer: SubscriptionCustomer = { id: s.customerId, email: _email ?? null };
  const leaseHeld = Prisma.sql`AND "leaseOwner" = ${owner}`;
  const clearLease = { leaseOwner: null, leaseUntil: null };
  // set once the lease was cleared with the subscription's update (the finally then has nothing to give back)
  let released = false;
  try {
    if (s.cancelAtPeriodEnd) {
      await withTx(ctx, async (tx) => {
        const next = await moveSubscription(tx, s, "cancelled", { ...clearLease, cancelledAt: tx.clock.now(), nextRetryAt: null }, { actorType: "system", actorId: null }, "cancel_at_period_end", leaseHeld);
        await subscriptionEvent(tx, next, "subscription.cancelled", { reason: "cancel_at_period_end" }, customer);
      });
      released = true;
      return "cancelled";
    }
    const pending = s.pendingPlanReference !== null || s.pendingQuantity !== null;
    const plan = {
      planReference: s.pendingPlanReference ?? s.planReference,
      planName: s.pendingPlanReference !== null ? s.pendingPlanName : s.planName,
      interval: s.pendingInterval ?? s.interval,
      amount: s.pendingAmount ?? s.amount,
      quantity: s.pendingQuantity ?? s.quantity,
    };
    const gross = plan.amount * plan.quantity;
    const credit = Math.min(s.creditAmount, gross);
    const { card, backup } = await renewalCard(ctx, s.customerId);
    const result = await chargeSubscription(
      ctx,
      { sub: { ...s, ...plan }, card, line: { name: plan.planName ?? plan.planReference, unitPrice: plan.amount, quantity: plan.quantity, discountAmount: credit }, purpose: "renewal", connector, email: _email },
      async (tx, outcome) => {
        const system = { actorType: "system" as const, actorId: null };
        if (outcome.ok) {
          const start = s.currentPeriodEnd;
          const next = await moveSubscription(
            tx,
            s,
            "active",
            {
              ...plan,
              ...clearLease,
              pendingPlanReference: null,
              pendingPlanName: null,
              pendingInterval: null,
              pendingAmount: null,
              pendingQuantity: null,
              creditAmount: s.creditAmount - credit,
              failureCount: 0,
              nextRetryAt: null,
              currentPeriodStart: start,
              currentPeriodEnd: addInterval(start, plan.interval),
            },
            system,
            s.status === "active" ? null : "renewed",
            leaseHeld,
          );
          const extra = { orderId: outcome.orderId, paymentId: outcome.payment?.id ?? null, amountCharged: gross - credit, creditApplied: credit };
          if (backup && card) await subscriptionEvent(tx, next, "subscription.backup_pm_used", { paymentMethodId: card.id, ...extra }, customer);
          if (pending) await subscriptionEvent(tx, next, "subscription.plan_changed", { appliedAtRenewal: true, previousPlanReference: s.planReference, previousQuantity: s.quantity }, customer);
          if (s.status !== "active") await subscriptionEvent(tx, next, "subscription.activated", { previousStatus: s.status }, customer);
          await subscriptionEvent(tx, next, "subscription.renewed", extra, customer);
          return "renewed" as const;
        }
        const failureCount = s.failureCount + 1;
        const rungs = tx.deps.config.DUNNING_SCHEDULE;
        const unpaid = failureCount > rungs.length;
        const to: SubscriptionStatus = unpaid ? "unpaid" : "past_due";
        const nextRetryAt = unpaid ? null : new Date(tx.clock.now().getTime() + rungs[failureCount - 1]);
        const next = await moveSubscription(tx, s, to, { ...clearLease, failureCount, nextRetryAt }, system, outcome.reason, leaseHeld);
        const extra = { reason: outcome.reason, failureCount, nextRetryAt: nextRetryAt?.toISOString() ?? null, paymentId: outcome.payment?.id ?? null, paymentMethodId: card?.id ?? null };
        if (backup && card) await subscriptionEvent(tx, next, "subscription.backup_pm_used", { paymentMethodId: card.id }, customer);
        await subscriptionEvent(tx, next, "subscription.payment_failed", extra, customer);
        if (s.status !== "past_due" && to === "past_due") await subscriptionEvent(tx, next, "subscription.past_due", extra, customer);
        if (unpaid) await subscriptionEvent(tx, next, "subscription.updated", { ...extra, previousStatus: s.status, change: "unpaid" }, customer);
        return "declined" as const;
      },
    );
    released = true;
    return result;
  } finally {
    // a renewal that threw part-way gives its lease back (a finished one cleared it with its update)
    if (!released) await releaseLease(ctx, s.id, owner).catch(() => {});
  }
}

/**
 * One pass of the subscription-renewal job: claims due subscriptions in batches and renews them, `concurrency` at a
 * time. Returns counts per outcome.
 */
export async function runRenewals(ctx: Ctx, opts: { batch?: number; concurrency?: number; owner?: string; maxBatches?: number } = {}) {
  const owner = opts.owner ?? `renewal-${randomUUID()}`;
  const batch = opts.batch ?? 100;
  const concurrency = opts.concurrency ?? 4;
  const counts = { renewed: 0, declined: 0, cancelled: 0, failed: 0 };
  const connectors = new Map<string, Connector>();
  for (let n = 0; n < (opts.maxBatches ?? Infinity); n++) {
    const claimed = await claimDue(ctx, owner, batch);
    if (claimed.length === 0) break;
    let i = 0;
    const worker = async () => {
      while (i < claimed.length) {
        const s = claimed[i++];
        const key = `${s.applicationId}/${s.environmentId}`;
        try {
          if (!connectors.has(key)) connectors.set(key, await cardConnector(ctx, s));
          counts[await renewLeased(ctx, s, owner, connectors.get(key))]++;
        } catch (e) {
          counts.failed++;
          if (ctx.deps.config.LOG_LEVEL !== "silent") console.warn(`[subscription-renewal] ${s.id}: ${(e as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
  }
  return counts;
}

/** POST /subscriptions/{id}/renew: a manual-mode subscription's renewal, now (409 conflict while a lease is held). */
export async function renewSubscriptionNow(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:write");
  const s = await findSubscription(ctx, id);
  if (s.mode !== "manual") throw new DomainError("invalid_state", 422, "Only a manual-mode subscription is renewed by this route; auto-mode subscriptions renew on their own", { mode: s.mode });
  if (!DUE_STATUSES.includes(s.status) && s.status !== "unpaid") throw new DomainError("invalid_state", 422, `A ${s.status} subscription cannot be renewed`, { status: s.status });
  const owner = `manual-${randomUUID()}`;
  const claimed = await claimOne(ctx, s.id, owner, [...DUE_STATUSES, "unpaid"]);
  if (!claimed) throw new DomainError("conflict", 409, "A renewal of this subscription is in progress");
  const result = await renewLeased(ctx, claimed, owner);
  const read = await subscriptionRead(ctx, await findSubscription(ctx, id));
  return { ...read, charged: result === "renewed", cancelled: result === "cancelled" };
}

/**
 * The wallet's retry (POST /me/subscriptions/{id}/retry-charge): the caller has authorized the subscription. 422
 * invalid_state when it is not past due; 409 conflict while a renewal lease is held. On success it returns to active
 * and the period advances; a decline advances dunning one rung.
 */
export async function retrySubscriptionCharge(ctx: Ctx, subscriptionId: string): Promise<{ charged: boolean }> {
  const s = await ctx.db.subscription.findUnique({ where: { id: subscriptionId } });
  if (!s) throw new DomainError("not_found", 404, "Subscription not found");
  if (s.status !== "past_due") throw new DomainError("invalid_state", 422, `Only a past_due subscription can be retried (this one is ${s.status})`, { status: s.status });
  const owner = `retry-${randomUUID()}`;
  const claimed = await claimOne(ctx, s.id, owner, ["past_due"]);
  if (!claimed) {
    const again = await ctx.db.subscription.findUnique({ where: { id: subscriptionId }, select: { status: true } });
    if (again?.status !== "past_due") throw new DomainError("invalid_state", 422, `Only a past_due subscription can be retried (this one is ${again?.status})`, { status: again?.status });
    throw new DomainError("conflict", 409, "A renewal of this subscription is in progress");
  }
  const result = await renewLeased(ctx, claimed, owner);
  return { charged: result === "renewed" };
}
