// OpenAPI paths of subscriptions (src/subscriptions/subscriptions.rest.ts), registered by document.ts.
import { z } from "zod";
import { pageQuery } from "../shared/pagination";
import { changePlanInput, changeQuantityInput } from "../subscriptions/subscription-changes.service";
import { subscriptionFilters } from "../subscriptions/subscriptions.service";
import type { Register } from "./operation";
import { orNull } from "./schemas";

const ts = z.string();
const PaymentMethodSummary = z
  .object({ id: z.string(), cardBrand: z.string(), cardLastFour: z.string(), cardExpMonth: z.number().int(), cardExpYear: z.number().int() })
  .meta({ id: "SubscriptionPaymentMethod" });
export const Subscription = z
  .object({
    id: z.string(),
    customerId: z.string(),
    status: z.enum(["active", "trialing", "past_due", "paused", "cancelled", "unpaid"]),
    mode: z.enum(["auto", "manual"]),
    planReference: z.string(),
    planName: z.string().nullable(),
    amount: z.number().int(),
    quantity: z.number().int(),
    currency: z.string(),
    interval: z.enum(["weekly", "monthly", "quarterly", "yearly"]),
    currentPeriodStart: ts,
    currentPeriodEnd: ts.nullable(),
    trialEnd: ts.nullable(),
    cancelAtPeriodEnd: z.boolean(),
    cancelledAt: ts.nullable(),
    failureCount: z.number().int(),
    nextRetryAt: ts.nullable(),
    creditAmount: z.number().int(),
    pendingPlanReference: z.string().nullable(),
    pendingPlanName: z.string().nullable(),
    pendingInterval: z.string().nullable(),
    pendingAmount: z.number().int().nullable(),
    pendingQuantity: z.number().int().nullable(),
    paymentMethod: orNull(PaymentMethodSummary),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Subscription" });
const Proration = z.object({ creditCents: z.number().int(), chargedCents: z.number().int(), fullAmount: z.number().int() }).meta({ id: "SubscriptionProration" });
const WithProration = Subscription.extend({ proration: Proration.optional() }).meta({ id: "SubscriptionWithProration" });
const Renewal = Subscription.extend({ charged: z.boolean(), cancelled: z.boolean() }).meta({ id: "SubscriptionRenewal" });
const TrialEligibility = z.object({ eligible: z.boolean(), reason: z.string().nullable() }).meta({ id: "TrialEligibility" });

type Reg = Register;

export function registerSubscriptions(r: Reg) {
  const id = { id: "The subscription's" };
  const tag = "subscriptions";
  r("get", "/subscriptions", { tag, summary: "Subscriptions, newest first; filters status, customerId (subscriptions:read)", query: pageQuery.extend(subscriptionFilters), ok: [200, Subscription, "page"] });
  r("get", "/subscriptions/{id}", { tag, summary: "A subscription with its default card (subscriptions:read)", params: id, ok: [200, Subscription] });
  r("patch", "/subscriptions/{id}", { tag, summary: "Set cancelAtPeriodEnd (subscriptions:write; 400 invalid_subscription_state when cancelled)", params: id, body: z.strictObject({ cancelAtPeriodEnd: z.boolean() }), ok: [200, Subscription] });
  r("post", "/subscriptions/{id}/renew", { errors: ["invalid_state", "payment_failed"], tag, summary: "Renew a manual-mode subscription now (subscriptions:write; 422 invalid_state, 409 conflict, charged false on a decline)", params: id, ok: [200, Renewal] });
  r("post", "/subscriptions/{id}/change-plan", { errors: ["invalid_subscription_state", "payment_failed"], tag, summary: "Change plan now (full charge, new period) or at period end (pending fields); 400 invalid_subscription_state, 402 payment_failed", params: id, body: changePlanInput, ok: [200, Subscription] });
  r("post", "/subscriptions/{id}/change-quantity", { errors: ["invalid_subscription_state", "quantity_unchanged", "payment_failed"], tag, summary: "Change seats now (prorated) or at period end; 400 quantity_unchanged, 402 payment_failed", params: id, body: changeQuantityInput, ok: [200, WithProration] });
  r("delete", "/subscriptions/{id}/pending-change", { tag, summary: "Clear the pending plan and quantity change (no-op if none)", params: id, ok: [200, Subscription] });
  r("post", "/subscriptions/{id}/resume", { errors: ["invalid_subscription_state"], tag, summary: "Clear cancelAtPeriodEnd; the status is unchanged (400 invalid_subscription_state when cancelled)", params: id, ok: [200, Subscription] });
  r("get", "/customers/{id}/trial-eligibility", { tag: "customers", summary: "Whether the customer may start a trial of a plan (customers:read)", params: { id: "The customer's" }, query: z.strictObject({ planReference: z.string().min(1).max(200) }), ok: [200, TrialEligibility] });
}
