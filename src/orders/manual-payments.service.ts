// Manual payments (POST /orders/{id}/payments/record): money received outside any processor, recorded as a payment
// created captured (processor manual) through the payment machine, with its capture ledger row and payment.recorded.
import { z } from "zod";
import { recordEvent } from "../events/events.service";
import { movePayment } from "../payments/payment.machine";
import { requirePermission, requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { assertSumsFit, positiveAmount } from "../shared/money";
import { assertNotOnHold } from "./holds.service";
import { actorOf, invalidOrderState, lockOrder, moneyOf, orderTenant } from "./order-ops.common";
import { syncOrderAfterPayment } from "./orders.service";

export const recordPaymentInput = z.strictObject({
  amount: positiveAmount,
  currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code like USD").optional(),
  method: z.enum(["cash", "bank_transfer", "cheque", "external"]),
  receivedAt: z.iso.datetime({ offset: true }).optional(),
  reference: z.string().trim().min(1).max(120).optional(),
  note: z.string().trim().min(1).max(500).optional(),
});

export async function recordManualPayment(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payment_records:write");
  requirePermission(ctx, "application:payments:record");
  const input = parseInput(recordPaymentInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    if (o.status === "cancelled" || o.status === "closed") throw invalidOrderState(o, "record a payment on");
    if (input.currency && input.currency !== o.currency) {
      throw new DomainError("validation_error", `currency: must be the order's ${o.currency}`, { issues: [{ path: ["currency"], message: `must be the order's ${o.currency}` }] });
    }
    // the order's captured sum stays within the money bound (422 amount), before anything is written
    assertSumsFit([{ path: ["amount"], value: moneyOf(o, o.payments).captured + input.amount, what: "The order's captured amount with this payment" }]);
    const now = tx.clock.now();
    const actor = actorOf(tx);
    const receivedAt = input.receivedAt ? new Date(input.receivedAt) : now;
    const created = await tx.db.payment.create({
      data: {
        applicationId: o.applicationId,
        environmentId: o.environmentId,
        orderId: o.id,
        amount: input.amount,
        currency: o.currency,
        method: input.method,
        processor: "manual",
        reference: input.reference ?? null,
        note: input.note ?? null,
        receivedAt,
        recordedBy: actor.actorId ?? actor.actorType,
        createdAt: now,
      },
    });
    const p = await movePayment(tx, created, "captured", { authorizedAmount: input.amount, capturedAmount: input.amount }, [
      { type: "capture", status: "succeeded", amount: input.amount, currency: o.currency, processorReference: input.reference ?? null, createdAt: now },
    ]);
    await recordEvent(tx, await orderTenant(tx, o), "payment.recorded", {
      paymentId: p.id,
      orderId: o.id,
      status: p.status,
      amount: p.amount,
      currency: p.currency,
      method: p.method,
      processor: "manual",
      capturedAmount: p.capturedAmount,
      reference: p.reference,
      receivedAt: receivedAt.toISOString(),
      recordedBy: p.recordedBy,
    });
    await syncOrderAfterPayment(tx, o.id, actor);
    return p;
  });
}
