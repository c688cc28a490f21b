// Comps (commerce.md part 4): the uncollected balance is waived (compAmount; never an amount from the caller), open
// authorizations and unpaid Net-N invoices are voided (their buyers emailed), and a failed void never undoes the
// comp. A reversal restores the balance and un-voids nothing.
import { z } from "zod";
import type { Payment } from "../generated/prisma/client";
import { recordEvent } from "../events/events.service";
import { queueEmail } from "../mail/mail.service";
import { requirePermission, requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { formatMoney } from "../shared/money";
import { recordActivity } from "./activity";
import { assertNotOnHold } from "./holds.service";
import { actorData, actorOf, lockOrder, moneyOf, orderTenant } from "./order-ops.common";
import { voidOpenAuthorizations } from "./order-ops.common";
import { syncOrderAfterPayment } from "./orders.service";

export const compInput = z.strictObject({ reason: z.string().trim().min(3).max(500) });

function requireCompRights(ctx: Ctx) {
  requireScope(ctx, "order_comps:write");
  requirePermission(ctx, "application:orders:comp");
}

/** POST /orders/{id}/comp {reason}: 422 validation_error when nothing is owed, already comped, cancelled or refunded. */
export async function compOrder(ctx: Ctx, id: string, body: unknown) {
  requireCompRights(ctx);
  const input = parseInput(compInput, body ?? {});
  const comped = await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    const refuse = (message: string) => errors.validation([{ path: ["id"], message }], message);
    if (o.status === "cancelled" || o.status === "closed") throw refuse(`A ${o.status} order cannot be comped`);
    if (o.compAmount > 0) throw refuse("The order is already comped; reverse the comp first");
    if (o.paymentStatus === "refunded") throw refuse("A refunded order cannot be comped");
    const waived = moneyOf(o, o.payments).uncollected;
    if (waived <= 0) throw refuse("Nothing is owed on this order");
    const actor = actorOf(tx);
    await tx.db.order.update({ where: { id: o.id }, data: { compAmount: waived, compReason: input.reason, compedAt: tx.clock.now(), compedBy: actor.actorId ?? actor.actorType } });
    await recordActivity(tx, o.id, [{ kind: "payment", title: "Balance comped", source: "manual", amount: waived, currency: o.currency, reason: input.reason, actorType: actor.actorType, actorId: actor.actorId }]);
    await recordEvent(tx, await orderTenant(tx, o), "order.comped", { orderId: o.id, compAmount: waived, currency: o.currency, reason: input.reason, status: o.status, actor: actorData(tx) });
    await syncOrderAfterPayment(tx, o.id, actor);
    return o;
  });
  let merchantName: string | undefined;
  const paymentActions = await voidOpenAuthorizations(ctx, comped.id, async (tx, p: Payment) => {
    if (!comped.email) return;
    merchantName ??= (await tx.db.application.findUnique({ where: { id: comped.applicationId }, select: { name: true } }))?.name ?? "";
    queueEmail(tx, comped, {
      template: "customer.order_comp_voided",
      to: [comped.email],
      vars: { quoteNumber: "", merchantName, customerEmail: comped.email, total: formatMoney(p.amount, p.currency), reason: input.reason },
      cause: `comp_void:${p.id}`,
    });
  });
  return { orderId: comped.id, paymentActions };
}

/** POST /orders/{id}/comp/reverse: compAmount back to 0 (422 validation_error without a comp). */
export async function reverseComp(ctx: Ctx, id: string) {
  requireCompRights(ctx);
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    if (o.compAmount <= 0) throw errors.validation([{ path: ["id"], message: "The order has no comp to reverse" }], "The order has no comp to reverse");
    const actor = actorOf(tx);
    await tx.db.order.update({ where: { id: o.id }, data: { compAmount: 0, compReason: null, compedAt: null, compedBy: null } });
    await recordActivity(tx, o.id, [{ kind: "payment", title: "Comp reversed", source: "manual", amount: o.compAmount, currency: o.currency, reason: o.compReason, actorType: actor.actorType, actorId: actor.actorId }]);
    await recordEvent(tx, await orderTenant(tx, o), "order.comp_reversed", { orderId: o.id, previousCompAmount: o.compAmount, currency: o.currency, status: o.status, actor: actorData(tx) });
    await syncOrderAfterPayment(tx, o.id, actor);
    return o.id;
  });
}
