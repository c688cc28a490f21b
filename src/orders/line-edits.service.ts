// Line edits (PATCH /orders/{id}/line-items): add, update and remove lines, totals recomputed (tax when configured).
// On a captured order the difference is settled as one adjustment: an increase is charged to the card of the latest
// captured card payment (test processor, tok_visa semantics), a decrease refunded up to what was overpaid (never
// more than captured). Draft and pending orders move no money; terminal orders (cancelled, closed) are not editable.
import { z } from "zod";
import type { Payment } from "../generated/prisma/client";
import { recordEvent } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { processorFor } from "../payments/processor";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount } from "../shared/money";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { recordActivity } from "./activity";
import { actorOf, lockOrder, moneyOf, orderTenant } from "./order-ops.common";
import { refundCaptured } from "./order-refunds.service";
import { assertLinesFit, assertOrderTotalsFit, orderTotals } from "./order-totals";

const pick = (l: { unitPrice: number; quantity: number }) => ({ unitPrice: l.unitPrice, quantity: l.quantity });

const quantity = z.number().int().min(1).max(100_000);
export const lineEditsInput = z
  .strictObject({
    add: z.array(z.strictObject({ name: z.string().trim().min(1).max(200), unitPrice: amount, quantity, referenceId: z.string().trim().min(1).max(200).optional(), requiresShipping: z.boolean().optional() })).max(100).optional(),
    update: z.array(z.strictObject({ lineItemId: z.uuid(), quantity: quantity.optional(), unitPrice: amount.optional() })).max(100).optional(),
    remove: z.array(z.uuid()).max(100).optional(),
  })
  .refine((v) => (v.add?.length ?? 0) + (v.update?.length ?? 0) + (v.remove?.length ?? 0) > 0, { message: "send at least one of add, update, remove", path: ["add"] });

export interface Adjustment {
  delta: number;
  previousTotal: number;
  newTotal: number;
  chargedPaymentId?: string;
  refundedPaymentId?: string;
}

export async function editLineItems(ctx: Ctx, id: string, body: unknown): Promise<{ orderId: string; adjustment: Adjustment }> {
  requireScope(ctx, "orders:write");
  const input = parseInput(lineEditsInput, body ?? {});
  const t = requireTenant(ctx);
  const edit = await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    if (o.status === "cancelled" || o.status === "closed") throw new DomainError("order_not_editable", `A ${o.status} order's lines cannot be edited`, { status: o.status });
    const byId = new Map(o.lineItems.map((l) => [l.id, l]));
    const issues: { path: (string | number)[]; message: string }[] = [];
    const removed = new Set(input.remove ?? []);
    (input.remove ?? []).forEach((lid, n) => {
      const l = byId.get(lid);
      if (!l) issues.push({ path: ["remove", n], message: "No such line on this order" });
      else if (l.fulfilledQuantity > 0) issues.push({ path: ["remove", n], message: "The line has fulfilled units and cannot be removed" });
    });
    (input.update ?? []).forEach((u, n) => {
      const l = byId.get(u.lineItemId);
      if (!l || removed.has(u.lineItemId)) issues.push({ path: ["update", n, "lineItemId"], message: "No such line on this order" });
      else if (u.quantity !== undefined && u.quantity < l.fulfilledQuantity) issues.push({ path: ["update", n, "quantity"], message: `must be at least the ${l.fulfilledQuantity} units already fulfilled` });
    });
    if (issues.length) throw errors.validation(issues);
    const updates = new Map((input.update ?? []).map((u) => [u.lineItemId, u]));
    const kept = o.lineItems.filter((l) => !removed.has(l.id)).map((l) => ({ ...l, ...(updates.get(l.id)?.quantity !== undefined ? { quantity: updates.get(l.id)!.quantity! } : {}), ...(updates.get(l.id)?.unitPrice !== undefined ? { unitPrice: updates.get(l.id)!.unitPrice! } : {}) }));
    const firstPosition = o.lineItems.reduce((a, l) => Math.max(a, l.position), -1) + 1;
    const added = (input.add ?? []).map((a, n) => ({ orderId: o.id, type: "product", name: a.name, unitPrice: a.unitPrice, quantity: a.quantity, referenceId: a.referenceId ?? null, requiresShipping: a.requiresShipping ?? true, taxAmount: 0, discountAmount: 0, position: firstPosition + n }));
    if (kept.length + added.length === 0) throw errors.validation([{ path: ["remove"], message: "An order keeps at least one line" }]);
    // every sum within the money columns' bound, before anything is written (422 naming the line, else add/update)
    assertLinesFit([
      ...added.map((a, n) => ({ path: ["add", n, "quantity"], unitPrice: a.unitPrice, quantity: a.quantity })),
      ...(input.update ?? []).map((u, n) => ({ path: ["update", n, u.quantity !== undefined ? "quantity" : "unitPrice"], ...pick(kept.find((l) => l.id === u.lineItemId)!) })),
    ]);
    const totals = orderTotals([...kept, ...added], o, await loadShippingTaxConfig(tx, t));
    assertOrderTotalsFit(totals, [input.add?.length ? "add" : "update"]);
    if (removed.size) await tx.db.orderLineItem.deleteMany({ where: { orderId: o.id, id: { in: [...removed] } } });
    for (const u of updates.values()) {
      await tx.db.orderLineItem.update({ where: { id: u.lineItemId }, data: { ...(u.quantity !== undefined ? { quantity: u.quantity } : {}), ...(u.unitPrice !== undefined ? { unitPrice: u.unitPrice } : {}) } });
    }
    if (added.length) await tx.db.orderLineItem.createMany({ data: added });
    await tx.db.order.update({ where: { id: o.id }, data: { ...totals, updatedAt: tx.clock.now() } });
    const delta = totals.total - o.total;
    const actor = actorOf(tx);
    await recordActivity(tx, o.id, [{ kind: "status", title: "Line items edited", source: "manual", amount: delta, currency: o.currency, detail: `Total ${o.total} -> ${totals.total}`, actorType: actor.actorType, actorId: actor.actorId }]);
    await recordEvent(tx, await orderTenant(tx, o), "order.updated", { orderId: o.id, status: o.status, paymentStatus: o.paymentStatus, change: "line_items", previousTotal: o.total, newTotal: totals.total, delta });

    // What money moves: none on draft/pending; otherwise an increase on a fully paid order, or what is now overpaid.
    const adjustment: Adjustment = { delta, previousTotal: o.total, newTotal: totals.total };
    const moneyMoves = o.status !== "draft" && o.status !== "pending";
    const m = moneyOf(o, o.payments);
    let charge: Payment | null = null;
    let refund = 0;
    if (moneyMoves && delta > 0 && o.paymentStatus === "captured" && o.compAmount === 0) {
      const card = latestCapturedCard(o.payments);
      if (card) {
        charge = await tx.db.payment.create({
          data: { applicationId: o.applicationId, environmentId: o.environmentId, orderId: o.id, amount: delta, currency: o.currency, method: "card", processor: card.processor, connectorId: card.connectorId, metadata: { kind: "line_edit", basedOn: card.id }, createdAt: tx.clock.now() },
        });
        await recordEvent(tx, await orderTenant(tx, o), "payment.pending", { paymentId: charge.id, orderId: o.id, amount: delta, currency: o.currency, method: "card" });
      }
    } else if (moneyMoves && delta < 0) {
      const overpaid = m.captured - m.refunded - (totals.total - o.compAmount);
      refund = Math.min(-delta, Math.max(0, overpaid));
    }
    return { adjustment, charge, refund };
  });

  const { adjustment } = edit;
  if (edit.charge) {
    // tok_visa semantics: the stored card is charged and captured at once
    const p = edit.charge;
    const result = await processorFor(p.processor).charge({ amount: p.amount, currency: p.currency, paymentToken: "tok_visa", reference: p.id });
    const settled = await withTx(ctx, (tx) => applyChargeResult(tx, p, result, actorOf(tx)));
    if (settled.status === "failed") {
      throw new DomainError("payment_failed", "The card on file declined the additional charge; the lines were changed and the difference is owed", { reason: settled.errorCode, orderId: id, paymentId: settled.id });
    }
    adjustment.chargedPaymentId = settled.id;
  }
  if (edit.refund > 0) {
    const refunds = await refundCaptured(ctx, id, { amount: edit.refund, reason: "Order lines edited" });
    const first = refunds.find((r) => r.status === "succeeded");
    if (first) adjustment.refundedPaymentId = first.paymentId;
  }
  return { orderId: id, adjustment };
}

function latestCapturedCard(payments: Payment[]) {
  return [...payments].filter((p) => p.method === "card" && p.capturedAmount > 0).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || b.createdAt.getTime() - a.createdAt.getTime())[0] ?? null;
}
