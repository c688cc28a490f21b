// Subscriptions (merchant side): created by a recurring checkout, read and listed, trials; changes are in
// subscription-changes.service.ts. Renewals and dunning live in renewals.service.ts; every status move goes through subscription.machine.ts.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { testVaultReference } from "../payments/processor";
import { sql } from "kysely";
import type { SavedCard, Subscription } from "../generated/prisma/client";
import { customerUuid, findCustomer } from "../customers/customers.service";
import { filter, pipe } from "graphql-yoga";
import { currentStateFirst, type EventTenant, recordEvent, tenantOf, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { MAX_AMOUNT } from "../shared/money";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { asSubscription, SUBSCRIPTION_COLUMNS, SUBSCRIPTION_STATUSES } from "./subscription.machine";
import { isUuid } from "../shared/ids";

export const INTERVALS = ["weekly", "monthly", "quarterly", "yearly"] as const;
export type Interval = (typeof INTERVALS)[number];

export const planReference = z.string().trim().min(1).max(200);
export const planName = z.string().trim().min(1).max(200);
export const amount = z.number().int().min(1).max(MAX_AMOUNT);
export const quantity = z.number().int().min(1).max(100_000);

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

type CardSummary = Pick<SavedCard, "id" | "cardBrand" | "cardLastFour" | "cardExpMonth" | "cardExpYear">;

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

/** The subscription's customer's default card (not deleted) of the subscription's own tenant, or null. */
export async function defaultCard(ctx: Ctx, s: Pick<Subscription, "customerId" | "applicationId" | "environmentId">) {
  return ctx.db.savedCard.findFirst({ where: { customerId: s.customerId, applicationId: s.applicationId, environmentId: s.environmentId, deletedAt: null, isDefault: true } });
}

// ---- reads ------------------------------------------------------------------------------------------------------

/** The tenant's subscription (optionally locked FOR UPDATE), or 404. */
export async function findSubscription(ctx: Ctx, id: string, lock = false): Promise<Subscription> {
  const t = requireTenant(ctx);
  if (!isUuid(id)) throw errors.notFound("Subscription");
  if (lock) {
    const row = await ctx.sql
      .selectFrom("Subscription")
      .select(SUBSCRIPTION_COLUMNS)
      .where("id", "=", id)
      .where("applicationId", "=", t.applicationId)
      .where("environmentId", "=", t.environmentId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw errors.notFound("Subscription");
    return asSubscription(row);
  }
  const row = await ctx.db.subscription.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } });
  if (!row) throw errors.notFound("Subscription");
  return row;
}

export async function subscriptionRead(ctx: Ctx, s: Subscription) {
  return subscriptionView(s, await defaultCard(ctx, s));
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
    ? await ctx.db.savedCard.findMany({ where: { customerId: { in: [...new Set(page.items.map((s) => s.customerId))] }, applicationId: t.applicationId, environmentId: t.environmentId, isDefault: true, deletedAt: null } })
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
  await tx.sql.selectFrom("Customer").select("id").where("id", "=", a.customerId).forUpdate().execute();
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
    await tx.sql
      .insertInto("TrialRedemption")
      .values({ id: sql`gen_random_uuid()`, applicationId: s.applicationId, environmentId: s.environmentId, customerId: a.customerId, planReference: r.planReference, subscriptionId: s.id, createdAt: now })
      .onConflict((oc) => oc.doNothing())
      .execute();
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

// ---- live updates -------------------------------------------------------------------------------------------------

/** The live stream of one subscription's subscription.* events (another tenant's id is 404 before subscribing). */
export async function subscribeSubscriptionUpdates(ctx: Ctx, id: string) {
  requireScope(ctx, "subscriptions:read");
  const s = await findSubscription(ctx, id);
  const t = requireTenant(ctx);
  const mine = (e: Envelope) => e.type.startsWith("subscription.") && (e.data as { subscriptionId?: string } | null)?.subscriptionId === s.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
