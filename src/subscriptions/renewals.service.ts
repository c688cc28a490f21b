// Renewals: the subscription-renewal job, manual renewals (POST /subscriptions/{id}/renew) and the wallet's retry.
// A renewal holds a lease on the subscription row (leaseOwner/leaseUntil, claimed by a conditional UPDATE), so two
// workers never charge one period twice (shared/work-queue.ts); the subscription update that ends a renewal is a
// compare-and-set on that lease. A decline walks the dunning ladder (DUNNING_SCHEDULE) to unpaid.
import { randomUUID } from "node:crypto";
import type { SavedCard, Subscription } from "../generated/prisma/client";
import { requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError } from "../shared/errors";
import { nextAttempt, WorkQueue } from "../shared/work-queue";
import { cardConnector, chargeSubscription, type Connector } from "./charge";
import { moveSubscription, SUBSCRIPTION_COLUMNS, type SubscriptionStatus, type SubscriptionWhere } from "./subscription.machine";
import { addInterval, findSubscription, subscriptionEvent, type SubscriptionCustomer, subscriptionRead } from "./subscriptions.service";

const LEASE_MS = 5 * 60_000;
const DUE_STATUSES = ["active", "trialing", "past_due"];

type Claimed = Subscription & { _email?: string | null };

/** The card a renewal charges: the default, or when it is paused the next active card (backup). */
async function renewalCard(ctx: Ctx, s: Pick<Subscription, "customerId" | "applicationId" | "environmentId">): Promise<{ card: SavedCard | null; backup: boolean }> {
  const cards = await ctx.db.savedCard.findMany({ where: { customerId: s.customerId, applicationId: s.applicationId, environmentId: s.environmentId, deletedAt: null }, orderBy: [{ isDefault: "desc" }, { createdAt: "desc" }, { id: "desc" }] });
  const def = cards.find((c) => c.isDefault) ?? null;
  if (def?.isActive) return { card: def, backup: false };
  const next = cards.find((c) => c.isActive && c !== def) ?? null;
  return { card: next, backup: Boolean(next && def) };
}

/**
 * The renewal queue (shared/work-queue.ts): a renewal holds a lease on the subscription row (leaseOwner until
 * leaseUntil) so two workers never charge one period twice; the claim also reads the customer's email.
 */
const SUBSCRIPTIONS = new WorkQueue({ table: "Subscription", lease: { until: "leaseUntil", owner: "leaseOwner" } });
const withEmail = () => ({ _email: SUBSCRIPTIONS.eb.selectFrom("Customer").select("Customer.email").whereRef("Customer.id", "=", "Subscription.customerId").$asScalar() });

/** Claims up to `limit` due auto-mode subscriptions for `owner` (rows locked by another claimer are skipped). */
async function claimDue(ctx: Ctx, owner: string, limit: number): Promise<Claimed[]> {
  const now = ctx.clock.now();
  const rows = await SUBSCRIPTIONS.claim(ctx.sql, {
    due: (eb) =>
      eb.and([
        eb("mode", "=", "auto"),
        eb.or([eb.and([eb("status", "in", ["active", "trialing"]), eb("currentPeriodEnd", "<=", now)]), eb.and([eb("status", "=", "past_due"), eb("nextRetryAt", "<=", now)])]),
      ]),
    order: "currentPeriodEnd",
    limit,
    leaseMs: LEASE_MS,
    now,
    owner,
    returning: SUBSCRIPTION_COLUMNS,
    also: withEmail(),
  });
  // the same values Prisma reads (db/sql-values.ts); Kysely types json as unknown where Prisma says JsonValue
  return rows as Claimed[];
}

/** Claims one subscription's lease (any status in `statuses`); null when it is held or the status differs. */
async function claimOne(ctx: Ctx, id: string, owner: string, statuses: string[]): Promise<Claimed | null> {
  const row = await SUBSCRIPTIONS.claimId(ctx.sql, id, { due: (eb) => eb("status", "in", statuses), leaseMs: LEASE_MS, now: ctx.clock.now(), owner, returning: SUBSCRIPTION_COLUMNS, also: withEmail() });
  return row as Claimed | null;
}

async function releaseLease(ctx: Ctx, id: string, owner: string) {
  await SUBSCRIPTIONS.finish(ctx.sql, [id], {}, { owner });
}

type RenewalResult = "renewed" | "declined" | "cancelled";

/**
 * One renewal of a subscription whose lease `owner` holds: cancel at period end, or charge the period (pending
 * changes applied, credit taken off) and advance it, or walk the dunning ladder. Releases the lease.
 */
async function renewLeased(ctx: Ctx, sub: Claimed, owner: string, connector?: Connector): Promise<RenewalResult> {
  const { _email, ...s } = sub;
  const customer: SubscriptionCustomer = { id: s.customerId, email: _email ?? null };
  const leaseHeld: SubscriptionWhere = (eb) => eb("leaseOwner", "=", owner);
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
    const { card, backup } = await renewalCard(ctx, s);
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
        // the dunning ladder is the queue's retry schedule: a retry per rung, then unpaid
        const retry = nextAttempt({ schedule: rungs, maxAttempts: rungs.length + 1 }, failureCount, tx.clock.now());
        const unpaid = retry.giveUp;
        const to: SubscriptionStatus = unpaid ? "unpaid" : "past_due";
        const nextRetryAt = retry.giveUp ? null : retry.at;
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
  if (s.mode !== "manual") throw new DomainError("invalid_state", "Only a manual-mode subscription is renewed by this route; auto-mode subscriptions renew on their own", { mode: s.mode });
  if (!DUE_STATUSES.includes(s.status) && s.status !== "unpaid") throw new DomainError("invalid_state", `A ${s.status} subscription cannot be renewed`, { status: s.status });
  const owner = `manual-${randomUUID()}`;
  const claimed = await claimOne(ctx, s.id, owner, [...DUE_STATUSES, "unpaid"]);
  if (!claimed) throw new DomainError("conflict", "A renewal of this subscription is in progress");
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
  if (!s) throw new DomainError("not_found", "Subscription not found");
  if (s.status !== "past_due") throw new DomainError("invalid_state", `Only a past_due subscription can be retried (this one is ${s.status})`, { status: s.status });
  const owner = `retry-${randomUUID()}`;
  const claimed = await claimOne(ctx, s.id, owner, ["past_due"]);
  if (!claimed) {
    const again = await ctx.db.subscription.findUnique({ where: { id: subscriptionId }, select: { status: true } });
    if (again?.status !== "past_due") throw new DomainError("invalid_state", `Only a past_due subscription can be retried (this one is ${again?.status})`, { status: again?.status });
    throw new DomainError("conflict", "A renewal of this subscription is in progress");
  }
  const result = await renewLeased(ctx, claimed, owner);
  return { charged: result === "renewed" };
}
