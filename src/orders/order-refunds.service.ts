// Order-level refunds (POST /orders/{id}/refund, and cancel with refundCapturedPayments): the amount is spread over
// the captured payments newest capture first and claimed on the rows (Payment.refundingAmount, the claim that
// POST /payments/{id}/refund makes) before any money moves, so a concurrent refund gets 409
// refund_already_in_progress and the refunded total can never pass what was captured.
import { sql } from "kysely";
import { z } from "zod";
import type { Payment } from "../generated/prisma/client";
import { recordEvent, tenantOf } from "../events/events.service";
import { movePayment, type PaymentStatus } from "../payments/payment.machine";
import { refundAtProcessor } from "../payments/processor";
import { requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { positiveAmount } from "../shared/money";
import { actorOf, lockOrder } from "./order-ops.common";
import { syncOrderAfterPayment } from "./orders.service";

export const orderRefundInput = z.strictObject({ amount: positiveAmount.optional(), reason: z.string().trim().min(1).max(500).optional() });

export interface RefundOutcome {
  paymentId: string;
  amount: number;
  status: "succeeded" | "failed";
}

/** POST /orders/{id}/refund {amount?, reason?}: omit the amount to refund everything refundable. */
export async function refundOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payment_refunds:write");
  const input = parseInput(orderRefundInput, body ?? {});
  return { orderId: id, refunds: await refundCaptured(ctx, id, input) };
}

const REFUNDABLE = ["captured", "partially_refunded"];

export async function refundCaptured(ctx: Ctx, orderId: string, input: { amount?: number; reason?: string }): Promise<RefundOutcome[]> {
  // 1. The claim, under the order's lock: one statement claims every row of the plan, or nothing is claimed.
  const plan = await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, orderId);
    if (o.payments.some((p) => p.refundingAmount > 0)) throw new DomainError("refund_already_in_progress", "Another refund of this order is in progress; retry when it finishes");
    const rows = o.payments.filter((p) => REFUNDABLE.includes(p.status) && p.capturedAmount - p.refundedAmount > 0);
    const refundable = rows.reduce((a, p) => a + p.capturedAmount - p.refundedAmount, 0);
    const amount = input.amount ?? refundable;
    if (amount <= 0 || amount > refundable) {
      throw new DomainError("refund_amount_exceeds_balance", `At most ${refundable} can be refunded on this order`, { refundable, requested: amount });
    }
    const captures = rows.length
      ? await tx.db.transaction.groupBy({ by: ["paymentId"], where: { paymentId: { in: rows.map((p) => p.id) }, type: "capture", status: "succeeded" }, _max: { seq: true } })
      : [];
    const capturedSeq = new Map(captures.map((c) => [c.paymentId, c._max.seq ?? 0]));
    rows.sort((a, b) => (capturedSeq.get(b.id) ?? 0) - (capturedSeq.get(a.id) ?? 0) || b.createdAt.getTime() - a.createdAt.getTime());
    const out: { payment: Payment; amount: number }[] = [];
    let left = amount;
    for (const p of rows) {
      if (left <= 0) break;
      const take = Math.min(left, p.capturedAmount - p.refundedAmount);
      out.push({ payment: p, amount: take });
      left -= take;
    }
    const claims = JSON.stringify(out.map((r) => ({ id: r.payment.id, amount: r.amount })));
    const claimed = await tx.sql
      .updateTable("Payment as p")
      .from(sql<{ id: string; amount: number }>`jsonb_to_recordset(${claims}::jsonb)`.as<"x">(sql`x(id uuid, amount int)`))
      .set((eb) => ({ refundingAmount: eb.ref("x.amount"), updatedAt: tx.clock.now() }))
      .whereRef("p.id", "=", "x.id")
      .where("p.refundingAmount", "=", 0)
      .where("p.status", "in", ["captured", "partially_refunded"])
      .where((eb) => eb(eb("p.capturedAmount", "-", eb.ref("p.refundedAmount")), ">=", eb.ref("x.amount")))
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== out.length) throw new DomainError("refund_already_in_progress", "Another refund of this order is in progress; retry when it finishes");
    return out;
  });

  // 2. The processor, outside any transaction.
  const answers = await Promise.all(plan.map((r) => refundAtProcessor(r.payment, r.amount)));

  // 3. Every outcome in one transaction; any failure there releases the claims.
  try {
    return await withTx(ctx, async (tx) => {
      const now = tx.clock.now();
      const current = await tx.db.payment.findMany({ where: { id: { in: plan.map((r) => r.payment.id) } } });
      const out: RefundOutcome[] = [];
      for (const [n, r] of plan.entries()) {
        const cur = current.find((p) => p.id === r.payment.id)!;
        const res = answers[n];
        const tenant = await tenantOf(tx, cur);
        const base = { paymentId: cur.id, orderId: cur.orderId, amount: r.amount, currency: cur.currency, method: cur.method, reason: input.reason ?? null };
        if (!res.ok) {
          await tx.db.payment.update({ where: { id: cur.id }, data: { refundingAmount: 0 } });
          await tx.db.transaction.create({ data: { paymentId: cur.id, type: "refund", status: "failed", amount: r.amount, currency: cur.currency, createdAt: now } });
          await recordEvent(tx, tenant, "payment.refund_failed", { ...base, status: cur.status });
          out.push({ paymentId: cur.id, amount: r.amount, status: "failed" });
          continue;
        }
        const refunded = cur.refundedAmount + r.amount;
        const to: PaymentStatus = refunded >= cur.capturedAmount ? "refunded" : "partially_refunded";
        const moved = await movePayment(tx, cur, to, { refundedAmount: refunded, refundingAmount: 0 }, [{ type: "refund", status: "succeeded", amount: r.amount, currency: cur.currency, processorReference: res.reference, createdAt: now }]);
        await recordEvent(tx, tenant, to === "refunded" ? "payment.refunded" : "payment.partially_refunded", { ...base, status: moved.status, refundedAmount: refunded });
        out.push({ paymentId: cur.id, amount: r.amount, status: "succeeded" });
      }
      await syncOrderAfterPayment(tx, orderId, actorOf(tx));
      return out;
    });
  } catch (e) {
    await Promise.all(plan.map((r) => ctx.db.payment.updateMany({ where: { id: r.payment.id, refundingAmount: r.amount }, data: { refundingAmount: 0 } }).catch(() => {})));
    throw e;
  }
}
