// GraphQL for subscriptions: reads, the changes, manual renewal, trial eligibility and the live
// subscriptionUpdated(id). Same services and view as REST (subscriptions.rest.ts).
import { compact } from "../graphql/args";
import { liveItem } from "../events/events.service";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { renewSubscriptionNow } from "./renewals.service";
import type { SubscriptionStatus } from "./subscription.machine";
import { changeSubscriptionPlan, changeSubscriptionQuantity, clearPendingChange, resumeSubscription, updateSubscription } from "./subscription-changes.service";
import { getSubscription, type Interval, listSubscriptions, subscribeSubscriptionUpdates, type SubscriptionView, trialEligibility } from "./subscriptions.service";

type Proration = { creditCents: number; chargedCents: number; fullAmount: number };
export type SubV = SubscriptionView & { proration?: Proration; charged?: boolean; cancelled?: boolean };

const SubscriptionStatusEnum = describedEnum<SubscriptionStatus>("SubscriptionStatus", "Where a subscription is in its billing", {
  active: "Paid for the current period; renews at currentPeriodEnd",
  trialing: "In its trial; the first charge is at currentPeriodEnd",
  past_due: "The renewal charge was declined; retried on the dunning schedule",
  paused: "Not renewing for now",
  cancelled: "Ended (terminal)",
  unpaid: "Every dunning retry was declined; no further retries",
});
const IntervalEnum = describedEnum<Interval>("SubscriptionInterval", "How long a billing period is", {
  weekly: "7 days",
  monthly: "One calendar month",
  quarterly: "Three calendar months",
  yearly: "Twelve calendar months",
});
const ModeEnum = describedEnum<"auto" | "manual">("SubscriptionMode", "Who starts a renewal", {
  auto: "The renewal job charges at period end",
  manual: "Renewals wait for renewSubscription",
});
const EffectiveEnum = describedEnum<"now" | "period_end">("SubscriptionChangeEffective", "When a change applies", {
  now: "At once (plan: full charge and a new period; seats: prorated)",
  period_end: "At the next renewal (pending fields)",
});

export const RecurringInput = builder.inputType("RecurringInput", {
  description: "A recurring checkout: the subscription created when the session completes (card only)",
  fields: (t) => ({
    planReference: t.string({ required: true, description: "Your plan's reference" }),
    planName: t.string({ description: "The plan's display name" }),
    interval: t.field({ type: IntervalEnum, required: true, description: "Period length" }),
    amount: t.int({ required: true, description: "Per seat, minor units" }),
    quantity: t.int({ description: "Seats (default 1)" }),
    trialDays: t.int({ description: "Trial length; applies once per customer per plan" }),
    mode: t.field({ type: ModeEnum, required: true, description: "auto: the renewal job charges; manual: renewSubscription" }),
  }),
});

export const CardRef = builder.objectRef<NonNullable<SubscriptionView["paymentMethod"]>>("SubscriptionPaymentMethod").implement({
  description: "The customer's default card, which renewals charge",
  fields: (t) => ({
    id: t.exposeID("id", { description: "cpm_ id" }),
    cardBrand: t.exposeString("cardBrand", { description: "Issuer brand" }),
    cardLastFour: t.exposeString("cardLastFour", { description: "Last four digits" }),
    cardExpMonth: t.exposeInt("cardExpMonth", { description: "1 to 12" }),
    cardExpYear: t.exposeInt("cardExpYear", { description: "Four digits" }),
  }),
});
const ProrationRef = builder.objectRef<Proration>("SubscriptionProration").implement({
  description: "An immediate seat change: unused fractions of the old and new period charge",
  fields: (t) => ({
    creditCents: t.exposeInt("creditCents", { description: "Unused part of the current period's charge" }),
    chargedCents: t.exposeInt("chargedCents", { description: "Unused part of the new period charge" }),
    fullAmount: t.exposeInt("fullAmount", { description: "The new period charge" }),
  }),
});

export const SubscriptionRef = builder.objectRef<SubV>("CustomerSubscription").implement({
  description: "A customer's recurring plan, charged to their default card each period",
  fields: (t) => ({
    id: t.exposeID("id"),
    customerId: t.exposeID("customerId", { description: "The customer who pays" }),
    status: t.field({ type: SubscriptionStatusEnum, description: "Where it is in its billing", resolve: (s) => s.status as SubscriptionStatus }),
    mode: t.field({ type: ModeEnum, description: "Who starts a renewal", resolve: (s) => s.mode as "auto" }),
    planReference: t.exposeString("planReference", { description: "Your plan's reference" }),
    planName: t.exposeString("planName", { nullable: true, description: "The plan's display name" }),
    amount: t.exposeInt("amount", { description: "Per seat, minor units; the period charge is amount x quantity" }),
    quantity: t.exposeInt("quantity", { description: "Seats" }),
    currency: t.exposeString("currency"),
    interval: t.field({ type: IntervalEnum, description: "Period length", resolve: (s) => s.interval as Interval }),
    currentPeriodStart: t.field({ type: "DateTime", description: "Start of the current period", resolve: (s) => s.currentPeriodStart }),
    currentPeriodEnd: t.field({ type: "DateTime", nullable: true, description: "The failed renewal's when past due", resolve: (s) => s.currentPeriodEnd }),
    trialEnd: t.field({ type: "DateTime", nullable: true, description: "When the trial ends (the first charge)", resolve: (s) => s.trialEnd }),
    cancelAtPeriodEnd: t.exposeBoolean("cancelAtPeriodEnd", { description: "Cancels at currentPeriodEnd instead of renewing" }),
    cancelledAt: t.field({ type: "DateTime", nullable: true, description: "When it was cancelled", resolve: (s) => s.cancelledAt }),
    failureCount: t.exposeInt("failureCount", { description: "Consecutive declined renewal attempts" }),
    nextRetryAt: t.field({ type: "DateTime", nullable: true, description: "The next dunning retry", resolve: (s) => s.nextRetryAt }),
    creditAmount: t.exposeInt("creditAmount", { description: "Proration credit taken off the next renewal" }),
    pendingPlanReference: t.exposeString("pendingPlanReference", { nullable: true, description: "Plan applied at the next renewal" }),
    pendingPlanName: t.exposeString("pendingPlanName", { nullable: true, description: "Its display name" }),
    pendingInterval: t.field({ type: IntervalEnum, nullable: true, description: "Its interval", resolve: (s) => s.pendingInterval as Interval | null }),
    pendingAmount: t.exposeInt("pendingAmount", { nullable: true, description: "Its per-seat amount" }),
    pendingQuantity: t.exposeInt("pendingQuantity", { nullable: true, description: "Seats from the next renewal" }),
    proration: t.field({ type: ProrationRef, nullable: true, description: "Set by an immediate changeSubscriptionQuantity", resolve: (s) => s.proration ?? null }),
    charged: t.boolean({ nullable: true, description: "Set by renewSubscription: whether the card was charged", resolve: (s) => s.charged ?? null }),
    createdAt: t.field({ type: "DateTime", resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (s) => s.updatedAt }),
  }),
});

const SubscriptionPage = pageOf<SubV>("CustomerSubscriptionPage", SubscriptionRef, "subscriptions");
const TrialEligibilityRef = builder.objectRef<{ eligible: boolean; reason: string | null }>("TrialEligibility").implement({
  description: "Whether a customer may start a trial of a plan (one trial per customer per plan)",
  fields: (t) => ({
    eligible: t.exposeBoolean("eligible", { description: "Whether a trial would apply" }),
    reason: t.exposeString("reason", { nullable: true, description: "Why not, e.g. trial_already_used" }),
  }),
});

const subscriptionId = "The subscription's id";

builder.queryFields((t) => ({
  subscription: t.field({
    type: SubscriptionRef,
    description: "One subscription with its default card",
    authScopes: { scope: "subscriptions:read" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }) },
    resolve: (_r, a, ctx) => getSubscription(ctx, String(a.id)),
  }),
  subscriptions: t.field({
    type: SubscriptionPage,
    description: "Subscriptions, newest first",
    authScopes: { scope: "subscriptions:read" },
    args: {
      status: t.arg({ type: SubscriptionStatusEnum, description: "Only this status" }),
      customerId: t.arg.id({ description: "Only this customer's" }),
      ...pageArgs(t),
    },
    resolve: (_r, a, ctx) => listSubscriptions(ctx, compact({ status: a.status, customerId: a.customerId ? String(a.customerId) : null, limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) })),
  }),
  trialEligibility: t.field({
    type: TrialEligibilityRef,
    description: "Whether the customer may start a trial of the plan",
    authScopes: { scope: "customers:read" },
    args: { customerId: t.arg.id({ required: true, description: "The customer's id" }), planReference: t.arg.string({ required: true, description: "The plan" }) },
    resolve: (_r, a, ctx) => trialEligibility(ctx, String(a.customerId), { planReference: a.planReference }),
  }),
}));

builder.mutationFields((t) => ({
  renewSubscription: t.field({
    type: SubscriptionRef,
    description: "Renews a manual-mode subscription now; charged says whether the card paid (a decline walks dunning)",
    authScopes: { scope: "subscriptions:write" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }) },
    resolve: (_r, a, ctx) => renewSubscriptionNow(ctx, String(a.id)),
  }),
  changeSubscriptionPlan: t.field({
    type: SubscriptionRef,
    description: "now: charges the full new amount and starts a new period; period_end: writes the pending fields",
    authScopes: { scope: "subscriptions:write" },
    args: {
      id: t.arg.id({ required: true, description: subscriptionId }),
      planReference: t.arg.string({ required: true, description: "The new plan (400 invalid_subscription_state when it is the current one)" }),
      planName: t.arg.string({ description: "Its display name" }),
      interval: t.arg({ type: IntervalEnum, required: true, description: "Its interval" }),
      amount: t.arg.int({ required: true, description: "Per seat, minor units" }),
      effective: t.arg({ type: EffectiveEnum, required: true, description: "now or period_end" }),
    },
    resolve: (_r, a, ctx) =>
      changeSubscriptionPlan(ctx, String(a.id), compact({ planReference: a.planReference, planName: a.planName, interval: a.interval, amount: a.amount, effective: a.effective })),
  }),
  changeSubscriptionQuantity: t.field({
    type: SubscriptionRef,
    description: "now (default): prorated, the difference charged or kept as credit; period_end: pendingQuantity",
    authScopes: { scope: "subscriptions:write" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }), quantity: t.arg.int({ required: true, description: "Seats, at least 1 (400 quantity_unchanged when the same)" }), effective: t.arg({ type: EffectiveEnum, description: "now (default) or period_end" }) },
    resolve: (_r, a, ctx) => changeSubscriptionQuantity(ctx, String(a.id), compact({ quantity: a.quantity, effective: a.effective })),
  }),
  clearSubscriptionPendingChange: t.field({
    type: SubscriptionRef,
    description: "Clears the pending plan and quantity change (no-op if none)",
    authScopes: { scope: "subscriptions:write" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }) },
    resolve: (_r, a, ctx) => clearPendingChange(ctx, String(a.id)),
  }),
  updateSubscription: t.field({
    type: SubscriptionRef,
    description: "Sets cancelAtPeriodEnd",
    authScopes: { scope: "subscriptions:write" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }), cancelAtPeriodEnd: t.arg.boolean({ required: true, description: "Cancel at period end instead of renewing" }) },
    resolve: (_r, a, ctx) => updateSubscription(ctx, String(a.id), { cancelAtPeriodEnd: a.cancelAtPeriodEnd }),
  }),
  resumeSubscription: t.field({
    type: SubscriptionRef,
    description: "Clears cancelAtPeriodEnd; the status is unchanged",
    authScopes: { scope: "subscriptions:write" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }) },
    resolve: (_r, a, ctx) => resumeSubscription(ctx, String(a.id)),
  }),
}));

builder.subscriptionFields((t) => ({
  subscriptionUpdated: t.field({
    type: SubscriptionRef,
    description: "The subscription: its current state first, then re-read after each of its subscription.* events",
    authScopes: { scope: "subscriptions:read" },
    args: { id: t.arg.id({ required: true, description: subscriptionId }) },
    subscribe: (_r, a, ctx) => subscribeSubscriptionUpdates(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return getSubscription(ctx, String(a.id));
    },
  }),
}));
