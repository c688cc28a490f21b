// What the workspace's billing looks like to a caller: one pure function per shape, shared by REST, GraphQL and the
// workspace.* event payloads.
import type { PlatformCharge, PlatformPaymentMethod, PlatformSubscription } from "../generated/prisma/client";
import type { PlanId } from "./billing.service";

export function paymentMethodView(m: PlatformPaymentMethod) {
  return {
    id: m.id,
    cardBrand: m.cardBrand,
    cardLastFour: m.cardLastFour,
    cardExpMonth: m.cardExpMonth,
    cardExpYear: m.cardExpYear,
    isDefault: m.isDefault,
    isBackup: m.isBackup,
    createdAt: m.createdAt.toISOString(),
  };
}
export type PaymentMethodView = ReturnType<typeof paymentMethodView>;

export function subscriptionView(s: PlatformSubscription) {
  return {
    id: s.id,
    plan: s.plan as PlanId,
    status: s.status as "active" | "past_due" | "cancelled",
    amount: s.amount,
    currency: s.currency,
    interval: s.interval as "month",
    currentPeriodStart: s.currentPeriodStart.toISOString(),
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    cancelledAt: s.cancelledAt?.toISOString() ?? null,
  };
}

export function chargeView(c: PlatformCharge) {
  return {
    id: c.id,
    plan: c.plan,
    amount: c.amount,
    currency: c.currency,
    status: c.status as "succeeded" | "failed",
    paymentMethodId: c.paymentMethodId,
    failureCode: c.failureCode,
    createdAt: c.createdAt.toISOString(),
  };
}

