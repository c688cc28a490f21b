// Charging a subscription's stored card: renewals, retries, plan changes and seat changes. A pending payment row
// (subscriptionId, savedCardId) is written first, the processor is called outside any transaction, then one
// transaction applies its answer: on success the order (one subscription line, paid) is written and linked, and the
// caller's subscription update runs in that same transaction.
import { hook } from "../shared/hook";
import type { Payment, SavedCard, Subscription } from "../generated/prisma/client";
import { recordEvent, tenantOf } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { processorFor } from "../payments/processor";
import { type Ctx, withTx } from "../shared/context";

type ChargePurpose = "renewal" | "plan_change" | "quantity_change" | "retry";

interface ChargeLine {
  name: string;
  unitPrice: number;
  quantity: number;
  discountAmount: number;
}

type ChargeOutcome =
  | { ok: true; payment: Payment | null; orderId: string | null }
  | { ok: false; reason: string; message: string; payment: Payment | null };

export interface Connector {
  id: string | null;
  provider: string;
}

/** The tenant's active card connector (the test processor when none is configured). */
export async function cardConnector(ctx: Ctx, t: { applicationId: string; environmentId: string }): Promise<Connector> {
  const c = await ctx.db.connector.findFirst({ where: { applicationId: t.applicationId, environmentId: t.environmentId, kind: "card", status: "active" }, orderBy: { createdAt: "asc" }, select: { id: true, provider: true } });
  return c ?? { id: null, provider: "test" };
}

/**
 * Charges `line` (total unitPrice x quantity - discountAmount) on `card` for `sub`, then runs `then` with the outcome
 * in the transaction that records it. A card that cannot be charged (none, merchant-attached) fails without a
 * payment row; a zero amount succeeds without one.
 */
export async function chargeSubscription<T>(
  ctx: Ctx,
  a: { sub: Subscription; card: SavedCard | null; line: ChargeLine; purpose: ChargePurpose; connector?: Connector; email?: string | null },
  then: (tx: Ctx, outcome: ChargeOutcome) => Promise<T>,
): Promise<T> {
  const { sub, card, line } = a;
  const amount = line.unitPrice * line.quantity - line.discountAmount;
  if (amount <= 0) return withTx(ctx, (tx) => then(tx, { ok: true, payment: null, orderId: null }));
  if (!card) return withTx(ctx, (tx) => then(tx, { ok: false, reason: "no_payment_method", message: "The customer has no card on file", payment: null }));
  if (!card.chargeable || !card.processorReference) {
    return withTx(ctx, (tx) => then(tx, { ok: false, reason: "payment_method_not_chargeable", message: "This card was attached by the merchant and cannot be charged", payment: null }));
  }
  const connector = a.connector ?? (await cardConnector(ctx, sub));
  const now = ctx.clock.now();
  const payment = await withTx(ctx, async (tx) => {
    const p = await tx.db.payment.create({
      data: {
        applicationId: sub.applicationId,
        environmentId: sub.environmentId,
        amount,
        currency: sub.currency,
        method: "card",
        processor: connector.provider,
        connectorId: connector.id,
        subscriptionId: sub.id,
        savedCardId: card.id,
        metadata: { source: a.purpose },
        createdAt: now,
        updatedAt: now,
      },
    });
    await recordEvent(tx, await tenantOf(tx, sub), "payment.pending", { paymentId: p.id, orderId: null, amount, currency: p.currency, method: "card", subscriptionId: sub.id });
    return p;
  });
  const result = await processorFor(connector.provider).charge({ amount, currency: sub.currency, paymentToken: card.processorReference, reference: payment.id });
  return withTx(ctx, async (tx) => {
    if (result.outcome === "captured" || result.outcome === "authorized") {
      const orderId = await subscriptionOrderWriter.call(tx, { sub, line, purpose: a.purpose, paymentId: payment.id, email: a.email });
      const p = await applyChargeResult(tx, { ...payment, orderId }, result);
      return then(tx, { ok: true, payment: p, orderId });
    }
    const p = await applyChargeResult(tx, payment, result.outcome === "processing" ? { ...result, outcome: "failed", errorCode: "payment_processing", errorMessage: "The card needs an action from the buyer" } : result);
    return then(tx, { ok: false, reason: p.errorCode ?? "card_declined", message: p.errorMessage ?? "The card was declined", payment: p });
  });
}

/** What a successful charge's order is made of: one subscription line, paid by `paymentId`. */
export interface SubscriptionOrder {
  sub: Subscription;
  line: ChargeLine;
  purpose: ChargePurpose;
  paymentId: string;
  email?: string | null;
}

/**
 * Writes a successful charge's order (its line, its first history row, the payment's link) in `tx` and returns its
 * id. The order's statement lives with the orders (orders/order-row.ts, the one place Order rows are created),
 * a higher layer than subscriptions (docs/architecture.md, "Layers"), so the composition root registers it.
 */
export type SubscriptionOrderWriter = (tx: Ctx, order: SubscriptionOrder) => Promise<string>;
/** orders writes the charge's Order row (orders/order-row.ts, the one writer of Order rows), registered at start-up */
export const subscriptionOrderWriter = hook<SubscriptionOrderWriter>("subscription order writer");
