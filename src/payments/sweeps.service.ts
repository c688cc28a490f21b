// Time-driven payment sweeps, one per job: card authorizations that outlive their TTL expire
// (payment-authorization-expiry); Net-N invoices past their due date raise invoice.overdue once, the payment staying
// authorized (invoice-overdue). Net-N payments never carry authorizationExpiresAt, so the two never touch one row.
import { recordEvent, tenantOf } from "../events/events.service";
import { syncOrderAfterPayment } from "./order-sync";
import { type Ctx, withTx } from "../shared/context";
import { movePayment } from "./payment.machine";
import { paymentEvent } from "./payments.service";

export async function expireAuthorizations(ctx: Ctx, limit = 500) {
  const now = ctx.clock.now();
  const due = await ctx.db.payment.findMany({ where: { status: "authorized", authorizationExpiresAt: { lte: now } }, take: limit });
  let n = 0;
  for (const p of due) {
    await withTx(ctx, async (tx) => {
      const cur = await tx.db.payment.findUniqueOrThrow({ where: { id: p.id } });
      if (cur.status !== "authorized") return;
      const moved = await movePayment(tx, cur, "expired");
      await paymentEvent(tx, moved, "payment.expired", { authorizedAmount: moved.authorizedAmount });
      if (moved.orderId) await syncOrderAfterPayment(tx, moved.orderId, { actorType: "system" });
      n++;
    });
  }
  return n;
}

export async function flagOverdueInvoices(ctx: Ctx, limit = 500) {
  const today = new Date(ctx.clock.now().toISOString().slice(0, 10));
  const due = await ctx.db.payment.findMany({ where: { status: "authorized", method: "net30", dueDate: { lt: today }, overdueNotifiedAt: null }, take: limit });
  let n = 0;
  for (const p of due) {
    await withTx(ctx, async (tx) => {
      const claimed = await tx.db.payment.updateMany({ where: { id: p.id, overdueNotifiedAt: null, status: "authorized" }, data: { overdueNotifiedAt: tx.clock.now() } });
      if (claimed.count !== 1) return;
      await recordEvent(tx, await tenantOf(tx, p), "invoice.overdue", {
        paymentId: p.id,
        orderId: p.orderId,
        invoiceNumber: p.invoiceNumber,
        amount: p.amount,
        currency: p.currency,
        dueDate: p.dueDate?.toISOString().slice(0, 10),
      });
      n++;
    });
  }
  return n;
}
