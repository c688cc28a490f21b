// Undo of an order import's rows (import.undo.ts runs the steps): its payments, its fulfillments, then its orders
// unless something from elsewhere now hangs on them.
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { derivePaymentStatus } from "../orders/payment-status";
import { registerUndoStep } from "./import.undo";

/** Payments the import created go, with their ledger rows. */
registerUndoStep("payment", async (tx, imp, ids) => {
  const pays = await tx.payment.findMany({ where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId }, select: { id: true } });
  const present = pays.map((p) => p.id);
  if (present.length) {
    await tx.transaction.deleteMany({ where: { paymentId: { in: present } } });
    await tx.payment.deleteMany({ where: { id: { in: present } } });
  }
  return { deleted: ids, kept: {} };
});

/** Fulfillments the import created go (their lines cascade); the lines they handed over are counted again. */
registerUndoStep("fulfillment", async (tx, imp, ids) => {
  const rows = await tx.fulfillment.findMany({ where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId }, select: { id: true, orderId: true } });
  if (rows.length) {
    await tx.fulfillment.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    const orderIds = [...new Set(rows.map((r) => r.orderId))];
    await sqlInPrisma(tx)
      .updateTable("OrderLineItem as li")
      .set((eb) => ({
        fulfilledQuantity: eb.fn.coalesce(
          eb
            .selectFrom("FulfillmentLine as fl")
            .innerJoin("Fulfillment as f", "f.id", "fl.fulfillmentId")
            .select((e) => e.fn.sum<number>("fl.quantity").as("handed"))
            .whereRef("fl.lineItemId", "=", "li.id")
            .where("f.status", "<>", "cancelled"),
          eb.lit(0),
        ),
      }))
      .where("li.orderId", "in", orderIds)
      .execute();
  }
  return { deleted: ids, kept: {} };
});

/**
 * Orders the import created go (lines, status history, activity cascade) unless something from elsewhere now
 * hangs on them: payments, fulfillments or returns (the import's own payments and fulfillments are gone by now).
 */
registerUndoStep("order", async (tx, imp, ids) => {
  const orders = await tx.order.findMany({
    where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId },
    select: { id: true, total: true, compAmount: true, paymentStatus: true, _count: { select: { payments: true, fulfillments: true, returns: true } } },
  });
  const kept: Record<string, string[]> = {};
  const keep = new Set<string>();
  for (const o of orders) {
    const reason = o._count.payments ? "order_has_payments" : o._count.fulfillments ? "order_has_fulfillments" : o._count.returns ? "order_has_returns" : null;
    if (!reason) continue;
    keep.add(o.id);
    (kept[reason] ??= []).push(o.id);
  }
  const deleted = ids.filter((id) => !keep.has(id));
  if (deleted.length) await tx.order.deleteMany({ where: { id: { in: deleted }, applicationId: imp.applicationId, environmentId: imp.environmentId } });
  // a kept order lost the import's payment: its paymentStatus is rolled up again from what it still has. The import
  // wrote a payment exactly for the orders it marked captured, so those are rolled up even with no payment left
  // (else they would still say captured); a status the file gave without a payment (refunded, authorized…) stays.
  const paid = orders.filter((o) => keep.has(o.id) && (o._count.payments || o.paymentStatus === "captured"));
  if (paid.length) {
    const payments = await tx.payment.findMany({ where: { orderId: { in: paid.map((o) => o.id) } }, select: { orderId: true, status: true, capturedAmount: true, refundedAmount: true, disputed: true } });
    for (const o of paid) {
      const next = derivePaymentStatus(o, payments.filter((p) => p.orderId === o.id));
      if (next !== o.paymentStatus) await tx.order.update({ where: { id: o.id }, data: { paymentStatus: next } });
    }
  }
  return { deleted, kept };
});
