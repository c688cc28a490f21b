// GraphQL for the workspace's platform billing: the same services and views as REST (billing.rest.ts).
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import type { BillingState } from "../platform/live-gate";
import {
  addPaymentMethod,
  type BillingOverview,
  cancel,
  getBilling,
  listPaymentMethods,
  type PlanId,
  removePaymentMethod,
  resume,
  setBackupPaymentMethod,
  setDefaultPaymentMethod,
  subscribe,
} from "./billing.service";
import type { PaymentMethodView, subscriptionView } from "./billing.view";

const PlanEnum = describedEnum<PlanId>("PlatformPlan", "A platform plan (monthly, USD)", {
  starter: "29.00 USD a month",
  growth: "99.00 USD a month",
  scale: "299.00 USD a month",
});
const StateEnum = describedEnum<BillingState>("WorkspaceBillingState", "What the workspace's production credentials get", {
  live: "An active subscription (or a comped workspace): production works",
  trialing: "A trial that has not ended: production works until trialEndsAt",
  workspace_not_live: "Never subscribed: production answers 402 workspace_not_live",
  workspace_not_entitled_for_live: "The subscription lapsed (or a trial ended with a card but no subscription): 402 workspace_not_entitled_for_live",
  trial_expired: "The trial ended with no card on file: 402 trial_expired",
});
const SubStatusEnum = describedEnum<"active" | "past_due" | "cancelled">("PlatformSubscriptionStatus", "Where the platform subscription is", {
  active: "Paid for the current period (possibly cancelled at its end)",
  past_due: "A renewal charge failed; the workspace is not live",
  cancelled: "Ended at the period end after a cancellation",
});

type Sub = ReturnType<typeof subscriptionView>;
const SubscriptionRef = builder.objectRef<Sub>("PlatformSubscription").implement({
  description: "The workspace's subscription to the platform",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The subscription's id" }),
    plan: t.field({ type: PlanEnum, description: "The plan", resolve: (s) => s.plan }),
    status: t.field({ type: SubStatusEnum, description: "Where the subscription is", resolve: (s) => s.status }),
    amount: t.exposeInt("amount", { description: "Charge per period, minor units" }),
    currency: t.exposeString("currency", { description: "ISO 4217 currency (USD)" }),
    interval: t.exposeString("interval", { description: "Billing interval (month)" }),
    currentPeriodStart: t.field({ type: "DateTime", description: "Start of the paid period", resolve: (s) => s.currentPeriodStart }),
    currentPeriodEnd: t.field({ type: "DateTime", description: "End of the paid period: the next renewal, or the end after a cancellation", resolve: (s) => s.currentPeriodEnd }),
    cancelAtPeriodEnd: t.exposeBoolean("cancelAtPeriodEnd", { description: "Cancelled: ends at currentPeriodEnd unless resumed" }),
    cancelledAt: t.field({ type: "DateTime", nullable: true, description: "When it was cancelled", resolve: (s) => s.cancelledAt }),
  }),
});

const BillingRef = builder.objectRef<BillingOverview>("WorkspaceBilling").implement({
  description: "Where the workspace stands with the platform",
  fields: (t) => ({
    workspaceId: t.exposeID("workspaceId", { description: "The workspace" }),
    live: t.exposeBoolean("live", { description: "Production credentials work because the workspace is live (state live)" }),
    state: t.field({ type: StateEnum, description: "What production credentials get now", resolve: (b) => b.state }),
    trialEndsAt: t.field({ type: "DateTime", nullable: true, description: "End of the trial, for a trial workspace", resolve: (b) => b.trialEndsAt }),
    subscription: t.field({ type: SubscriptionRef, nullable: true, description: "The platform subscription; null when never subscribed", resolve: (b) => b.subscription }),
    defaultPaymentMethodId: t.exposeString("defaultPaymentMethodId", { nullable: true, description: "The card renewals charge (wpm_…)" }),
    backupPaymentMethodId: t.exposeString("backupPaymentMethodId", { nullable: true, description: "The card a renewal charges when the default declines (wpm_…)" }),
  }),
});

const PaymentMethodRef = builder.objectRef<PaymentMethodView>("PlatformPaymentMethod").implement({
  description: "A card the workspace pays the platform with",
  fields: (t) => ({
    id: t.exposeID("id", { description: "wpm_…" }),
    cardBrand: t.exposeString("cardBrand", { description: "Card brand" }),
    cardLastFour: t.exposeString("cardLastFour", { description: "Last four digits" }),
    cardExpMonth: t.exposeInt("cardExpMonth", { description: "Expiry month" }),
    cardExpYear: t.exposeInt("cardExpYear", { description: "Expiry year" }),
    isDefault: t.exposeBoolean("isDefault", { description: "The card subscribe and renewals charge" }),
    isBackup: t.exposeBoolean("isBackup", { description: "The card a renewal charges when the default declines" }),
    createdAt: t.field({ type: "DateTime", description: "When it was added", resolve: (m) => m.createdAt }),
  }),
});

builder.queryFields((t) => ({
  billing: t.field({
    type: BillingRef,
    description: "The workspace's platform billing (billing:read; dashboard: owners and workspace admins)",
    authScopes: { scope: "billing:read" },
    resolve: (_r, _a, ctx) => getBilling(ctx),
  }),
  billingPaymentMethods: t.field({
    type: [PaymentMethodRef],
    description: "The workspace's cards, oldest first (billing:read; dashboard: owners and workspace admins)",
    authScopes: { scope: "billing:read" },
    resolve: (_r, _a, ctx) => listPaymentMethods(ctx),
  }),
}));

const pmId = "The card's id (wpm_…)";
builder.mutationFields((t) => ({
  subscribeBilling: t.field({
    type: BillingRef,
    description: "Subscribes the workspace and charges the first month: the workspace is live at once (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    args: {
      plan: t.arg({ type: PlanEnum, required: true, description: "The plan" }),
      paymentToken: t.arg.string({ description: "Pay with a new test card (tok_visa); without it the default card pays" }),
    },
    resolve: (_r, a, ctx) => subscribe(ctx, { plan: a.plan, ...(a.paymentToken != null ? { paymentToken: a.paymentToken } : {}) }),
  }),
  cancelBilling: t.field({
    type: BillingRef,
    description: "Cancels at period end; the workspace stays live until then (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    resolve: (_r, _a, ctx) => cancel(ctx),
  }),
  resumeBilling: t.field({
    type: BillingRef,
    description: "Undoes a cancellation before the period ends (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    resolve: (_r, _a, ctx) => resume(ctx),
  }),
  addBillingPaymentMethod: t.field({
    type: PaymentMethodRef,
    description: "Adds a card from a test processor token (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    args: {
      paymentToken: t.arg.string({ required: true, description: "tok_visa (charges succeed) or tok_card_declined (charges decline)" }),
      makeDefault: t.arg.boolean({ description: "Make it the default (the first card always is)" }),
    },
    resolve: (_r, a, ctx) => addPaymentMethod(ctx, { paymentToken: a.paymentToken, ...(a.makeDefault != null ? { makeDefault: a.makeDefault } : {}) }),
  }),
  setDefaultBillingPaymentMethod: t.field({
    type: PaymentMethodRef,
    description: "Makes a card the default (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    args: { id: t.arg.id({ required: true, description: pmId }) },
    resolve: (_r, a, ctx) => setDefaultPaymentMethod(ctx, String(a.id)),
  }),
  setBackupBillingPaymentMethod: t.field({
    type: PaymentMethodRef,
    description:
      "Makes a card the backup, charged when a renewal on the default declines; replaces the previous backup (409 cannot_backup_default for the default card) (billing:write; dashboard: owner only)",
    authScopes: { scope: "billing:write" },
    args: { id: t.arg.id({ required: true, description: pmId }) },
    resolve: (_r, a, ctx) => setBackupPaymentMethod(ctx, String(a.id)),
  }),
  removeBillingPaymentMethod: t.boolean({
    description: "Removes a card (409 cannot_remove_default for the card an active subscription renews on); true when done",
    authScopes: { scope: "billing:write" },
    args: { id: t.arg.id({ required: true, description: pmId }) },
    resolve: async (_r, a, ctx) => {
      await removePaymentMethod(ctx, String(a.id));
      return true;
    },
  }),
}));
