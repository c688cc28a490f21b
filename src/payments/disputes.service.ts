// Disputes: an out-of-band flag on a payment (its status never changes). Opened by the merchant (POST
// /payments/{id}/dispute, e.g. a Net-N buyer contesting a paid invoice) or by the card network (the test processor's
// inbound POST /test-processor/payments/{id}/dispute); resolved by the merchant: merchant_won clears the flag,
// buyer_won refunds what is still captured (through the refund machinery) and then clears it. While the flag is set
// the order's paymentStatus reads disputed (it outranks captured).
//
// Codes: 422 payment_not_disputable (nothing captured, or everything already refunded; for the test processor also
// a payment that is not its card payment), 409 dispute_already_open, 409 payment_not_disputed (resolve without an
// open dispute), 409 dispute_resolution_in_progress (another resolve of the same dispute is running).
import { z } from "zod";
import type { Payment } from "../generated/prisma/client";
import { syncOrderAfterPayment } from "./order-sync";
import { requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { actorOf, findPayment, paymentEvent, refundPaymentAmount } from "./payments.service";

/** A resolution claimed longer ago than this was abandoned (its request died). */
const STALE_CLAIM_MS = 60_000;

export const disputeInput = z.strictObject({ reason: z.string().trim().min(1).max(500) });
export const resolveDisputeInput = z.strictObject({ outcome: z.enum(["merchant_won", "buyer_won"]) });
export const testDisputeInput = z.strictObject({ reason: z.string().trim().min(1).max(500).optional() });

async function openDispute(tx: Ctx, p: Payment, reason: string, source: "merchant" | "processor") {
  if (p.disputed) throw new DomainError("dispute_already_open", `This payment is already disputed (since ${p.disputeOpenedAt?.toISOString()})`, { disputeOpenedAt: p.disputeOpenedAt?.toISOString() });
  const disputable = p.capturedAmount - p.refundedAmount;
  if (disputable <= 0) {
    throw new DomainError("payment_not_disputable", `Only captured money can be disputed; this ${p.status} payment has ${p.capturedAmount > 0 ? "been refunded in full" : "nothing captured"}`, { status: p.status });
  }
  const [moved] = await tx.db.payment.updateManyAndReturn({
    where: { id: p.id, disputed: false },
    data: { disputed: true, disputeReason: reason, disputeOpenedAt: tx.clock.now(), disputeResolvedAt: null, disputeOutcome: null, updatedAt: tx.clock.now() },
  });
  if (!moved) throw new DomainError("dispute_already_open", "This payment is already disputed");
  await paymentEvent(tx, moved, "payment.disputed", { reason, disputedAmount: disputable, source });
  if (moved.orderId) await syncOrderAfterPayment(tx, moved.orderId, actorOf(tx));
  return moved;
}

/** POST /payments/{id}/dispute { reason } (payment_disputes:write). */
export async function disputePayment(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payment_disputes:write");
  const input = parseInput(disputeInput, body);
  return withTx(ctx, async (tx) => openDispute(tx, await findPayment(tx, id, true), input.reason, "merchant"));
}

/** POST /test-processor/payments/{id}/dispute { reason? } (non-production; payments:write): a chargeback arrives. */
export async function openTestDispute(ctx: Ctx, id: string, body: unknown) {
  const principal = requireScope(ctx, "payments:write");
  if (principal.environment.kind === "production") throw errors.notFound("Route");
  const input = parseInput(testDisputeInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const p = await findPayment(tx, id, true);
    if (p.processor !== "test" || p.method !== "card") {
      throw new DomainError("payment_not_disputable", `The test processor opens disputes on its card payments only; this is a ${p.method} payment`, { method: p.method });
    }
    return openDispute(tx, p, input.reason ?? "fraudulent", "processor");
  });
}

/**
 * POST /payments/{id}/dispute/resolve { outcome } (payment_disputes:write). The resolution is claimed on the row first
 * (disputeOutcome while still disputed), so two resolves never refund twice; a failed refund gives the claim back.
 */
export async function resolvePaymentDispute(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payment_disputes:write");
  const input = parseInput(resolveDisputeInput, body);
  const claimed = await withTx(ctx, async (tx) => {
    const p = await findPayment(tx, id, true);
    if (!p.disputed) throw new DomainError("payment_not_disputed", "This payment has no open dispute to resolve");
    // A claim older than STALE_CLAIM_MS belongs to a request that died; this one takes it over (the refund machinery
    // still refunds at most what is captured).
    const live = p.disputeOutcome && p.disputeResolvedAt && p.disputeResolvedAt.getTime() > tx.clock.now().getTime() - STALE_CLAIM_MS;
    if (live) throw new DomainError("dispute_resolution_in_progress", "This dispute is being resolved by another request");
    return tx.db.payment.update({ where: { id: p.id }, data: { disputeOutcome: input.outcome, disputeResolvedAt: tx.clock.now() } });
  });
  let refunded = 0;
  if (input.outcome === "buyer_won" && claimed.capturedAmount - claimed.refundedAmount > 0) {
    try {
      const before = claimed.refundedAmount;
      refunded = (await refundPaymentAmount(ctx, claimed.id)).refundedAmount - before;
    } catch (e) {
      await ctx.db.payment.updateMany({ where: { id: claimed.id, disputed: true, disputeOutcome: input.outcome }, data: { disputeOutcome: null, disputeResolvedAt: null } });
      throw e;
    }
  }
  return withTx(ctx, async (tx) => {
    await findPayment(tx, claimed.id, true);
    const [cleared] = await tx.db.payment.updateManyAndReturn({
      where: { id: claimed.id, disputed: true, disputeOutcome: input.outcome },
      data: { disputed: false, disputeResolvedAt: tx.clock.now(), updatedAt: tx.clock.now() },
    });
    if (!cleared) throw new DomainError("payment_not_disputed", "This payment has no open dispute to resolve");
    await paymentEvent(tx, cleared, "payment.dispute_cleared", { outcome: input.outcome, reason: cleared.disputeReason, refundedAmount: refunded });
    if (cleared.orderId) await syncOrderAfterPayment(tx, cleared.orderId, actorOf(tx));
    return cleared;
  });
}
