// Processor-proxy payments: the buyer paid on the processor's own page and the checkout completes with the charge's
// id (`paymentMethod: "processor_proxy"`, `processorTransactionId`). The charge is looked up on the session's
// application and environment (the test processor keeps them as TestProcessorCharge rows, minted by
// POST /test-processor/charges in non-production) and recorded once: Payment.processorChargeId is unique.
import { z } from "zod";
import type { Payment, TestProcessorCharge } from "../generated/prisma/client";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, isUniqueViolation, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { currencyCode, positiveAmount } from "../shared/money";
import { applyChargeResult } from "./payments.service";
import { isUuid } from "../shared/ids";

type ProxyFailure = "unknown_charge" | "amount_mismatch" | "currency_mismatch" | "charge_already_used" | "charge_failed";

export const createChargeInput = z.strictObject({
  amount: positiveAmount,
  currency: z.string().trim().toUpperCase().pipe(currencyCode),
  /** what the buyer's payment on the processor's page came to (default captured) */
  status: z.enum(["captured", "authorized", "failed"]).default("captured"),
});

export function chargeView(c: TestProcessorCharge) {
  return { id: c.id, amount: c.amount, currency: c.currency, status: c.status as "captured" | "authorized" | "failed", createdAt: c.createdAt.toISOString() };
}

/** POST /test-processor/charges (non-production only): a charge as if a buyer had paid on the processor's page. */
export async function createTestProcessorCharge(ctx: Ctx, body: unknown) {
  const p = requireScope(ctx, "payments:write");
  if (p.environment.kind === "production") throw errors.notFound("Route");
  const input = parseInput(createChargeInput, body);
  const t = requireTenant(ctx);
  return ctx.db.testProcessorCharge.create({
    data: { applicationId: t.applicationId, environmentId: t.environmentId, amount: input.amount, currency: input.currency, status: input.status, createdAt: ctx.clock.now() },
  });
}

const MESSAGES: Record<ProxyFailure, string> = {
  unknown_charge: "The processor has no such charge for this store",
  amount_mismatch: "The charge's amount is not what this checkout owes",
  currency_mismatch: "The charge is in another currency",
  charge_already_used: "The charge already paid for another payment",
  charge_failed: "The charge failed on the processor",
};

export function proxyFailed(reason: ProxyFailure, extra: Record<string, unknown> = {}) {
  return new DomainError("payment_failed", MESSAGES[reason], { reason, ...extra });
}

/**
 * Before anything is written: the charge on the session's environment, for what the checkout owes, in its
 * currency, succeeded and not recorded by any payment yet (402 payment_failed with details.reason otherwise).
 */
export async function findProxyCharge(ctx: Ctx, s: { applicationId: string; environmentId: string }, chargeId: string, owed: { amount: number; currency: string }) {
  const charge = isUuid(chargeId)
    ? await ctx.db.testProcessorCharge.findFirst({ where: { id: chargeId, applicationId: s.applicationId, environmentId: s.environmentId } })
    : null;
  if (!charge) throw proxyFailed("unknown_charge", { processorTransactionId: chargeId });
  if (charge.currency !== owed.currency) throw proxyFailed("currency_mismatch", { chargeCurrency: charge.currency, currency: owed.currency });
  if (charge.amount !== owed.amount) throw proxyFailed("amount_mismatch", { chargeAmount: charge.amount, amount: owed.amount });
  if (charge.status === "failed") throw proxyFailed("charge_failed");
  if (await ctx.db.payment.findUnique({ where: { processorChargeId: charge.id }, select: { id: true } })) throw proxyFailed("charge_already_used");
  return charge;
}

/**
 * Records the charge on the checkout's pending payment with the charge's state (captured or authorized) and runs
 * `then` (the session's completion) in the same transaction. A payment that does not match, or a charge another
 * payment recorded first (the unique processorChargeId, under any concurrency): the payment fails, the session's
 * claim is released, and 402 payment_failed names the reason.
 */
export async function settleProxyCharge(
  ctx: Ctx,
  a: { sessionId: string; orderId: string; payment: Payment; charge: TestProcessorCharge; then: (tx: Ctx, p: Payment) => Promise<void> },
): Promise<Payment> {
  const { payment, charge } = a;
  const mismatch: ProxyFailure | null = payment.currency !== charge.currency ? "currency_mismatch" : payment.amount !== charge.amount ? "amount_mismatch" : null;
  let reason: ProxyFailure | null = mismatch;
  if (!reason) {
    try {
      return await withTx(ctx, async (tx) => {
        await tx.db.payment.update({ where: { id: payment.id }, data: { processorChargeId: charge.id } });
        const p = await applyChargeResult(tx, { ...payment, processorChargeId: charge.id }, { outcome: charge.status as "captured" | "authorized", processorPaymentId: charge.id });
        await a.then(tx, p);
        return p;
      });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      reason = "charge_already_used";
    }
  }
  const failed = await withTx(ctx, async (tx) => {
    const p = await applyChargeResult(tx, payment, { outcome: "failed", processorPaymentId: charge.id, errorCode: reason, errorMessage: MESSAGES[reason] });
    await tx.db.checkoutSession.update({ where: { id: a.sessionId }, data: { completionStartedAt: null } });
    return p;
  });
  throw proxyFailed(reason, { orderId: a.orderId, paymentId: failed.id });
}
