// The order lifecycle routes (commerce.md parts 3-4): draft orders, close, status in any direction, the four editable
// fields, and cancel (what an order owes is paid through order-checkout.service.ts). Every status moves through
// moveOrder; every rule is checked on the row read under the order's lock; events per target status.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { Prisma } from "../generated/prisma/client";
import { findCustomer } from "../customers/customers.service";
import { principalEventTenant, recordEvent } from "../events/events.service";
import { cancelSubscriptionNow } from "../subscriptions/subscription-changes.service";
import { requireScope, requireTenant } from "../shared/guards";
import { addressSchema, canonicalAddress, metadataSchema } from "../shared/address";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount, currencyCode } from "../shared/money";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { assertNotOnHold } from "./holds.service";
import { moveOrder, ORDER_STATUSES, ORDER_TRANSITIONS, type OrderStatus } from "./order.machine";
import { actorData, actorOf, lockOrder, moneyOf, orderTenant, type PaymentAction, statusEventType, voidOpenAuthorizations } from "./order-ops.common";
import { refundCaptured } from "./order-refunds.service";
import { type FullOrder, readOrder } from "./orders.service";
import { assertLinesFit, assertOrderTotalsFit, orderTotals } from "./order-totals";

// ---- draft orders ------------------------------------------------------------------------------------------------

const draftLine = z.strictObject({
  name: z.string().trim().min(1).max(200),
  unitPrice: amount,
  quantity: z.number().int().min(1).max(100_000),
  referenceId: z.string().trim().min(1).max(200).optional(),
  requiresShipping: z.boolean().optional(),
});

export const createOrderInput = z
  .strictObject({
    customerId: z.string().min(1).max(64).optional(),
    customerEmail: z.email().max(320).optional(),
    currency: z.string().trim().toUpperCase().pipe(currencyCode).optional(),
    lineItems: z.array(draftLine).min(1).max(100),
    shippingAddress: addressSchema.optional(),
    billingAddress: addressSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((v) => !(v.customerId && v.customerEmail), { message: "send customerId or customerEmail, not both", path: ["customerEmail"] });

/** POST /orders: a draft order (source draft) with its lines, totals (tax when configured) and first history row. */
export async function createDraftOrder(ctx: Ctx, body: unknown) {
  const p = requireScope(ctx, "orders:write");
  const input = parseInput(createOrderInput, body ?? {});
  const t = requireTenant(ctx);
  const currency = p.application!.currency;
  if (input.currency && input.currency !== currency) {
    throw new DomainError("currency_mismatch", `Currency ${input.currency} differs from the application's ${currency}`, { currency: input.currency, applicationCurrency: currency });
  }
  return withTx(ctx, async (tx) => {
    let customerId: string | null = null;
    let email = input.customerEmail?.toLowerCase() ?? null;
    if (input.customerId) {
      const c = await findCustomer(tx, t, input.customerId);
      if (!c) throw errors.notFound("Customer");
      customerId = c.id;
      email = c.email;
    }
    const shippingAddress = canonicalAddress(input.shippingAddress ?? null);
    const billingAddress = canonicalAddress(input.billingAddress ?? null);
    const lines = input.lineItems.map((l, i) => ({
      type: "product",
      referenceId: l.referenceId ?? null,
      name: l.name,
      unitPrice: l.unitPrice,
      quantity: l.quantity,
      taxAmount: 0,
      discountAmount: 0,
      requiresShipping: l.requiresShipping ?? true,
      position: i,
    }));
    // every sum within the money columns' bound, before anything is written (422 naming the line, else lineItems)
    assertLinesFit(input.lineItems.map((l, i) => ({ path: ["lineItems", i, "quantity"], unitPrice: l.unitPrice, quantity: l.quantity })));
    const totals = orderTotals(lines, { shippingTotal: 0, taxTotal: 0, shippingAddress, billingAddress }, await loadShippingTaxConfig(tx, t));
    assertOrderTotalsFit(totals, ["lineItems"]);
    const at = tx.clock.now();
    const order = await tx.db.order.create({
      data: {
        id: randomUUID(),
        applicationId: t.applicationId,
        environmentId: t.environmentId,
        customerId,
        email,
        status: "draft",
        currency,
        ...totals,
        shippingAddress: shippingAddress ?? undefined,
        billingAddress: billingAddress ?? undefined,
        metadata: (input.metadata ?? {}) as object,
        source: "draft",
        createdAt: at,
        updatedAt: at,
        lineItems: { create: lines },
        history: { create: [{ fromStatus: null, toStatus: "draft", ...actorOf(tx), source: "manual", createdAt: at }] },
      },
      include: { lineItems: true, payments: true },
    });
    await recordEvent(tx, principalEventTenant(tx), "order.created", { orderId: order.id, source: "draft", status: "draft", total: order.total, currency, customerId });
    return order;
  });
}

// ---- status moves --------------------------------------------------------------------------------------------------

async function statusMoved(tx: Ctx, o: FullOrder, to: OrderStatus, extra: Record<string, unknown>) {
  const at = tx.clock.now();
  if (to === "cancelled" || to === "closed") await tx.db.order.update({ where: { id: o.id }, data: to === "cancelled" ? { cancelledAt: at } : { closedAt: at } });
  // a subscription-managed order: cancelling it cancels the subscription at once
  if (to === "cancelled" && o.subscriptionId) await cancelSubscriptionNow(tx, o.subscriptionId, "order_cancelled");
  await recordEvent(tx, await orderTenant(tx, o), statusEventType(to) satisfies "order.cancelled" | "order.closed" | "order.fulfilled" | "order.updated", { orderId: o.id, status: to, previousStatus: o.status, paymentStatus: o.paymentStatus, ...extra });
}

export const closeInput = z.strictObject({ reason: z.string().trim().min(1).max(500).optional() });

/** POST /orders/{id}/close: fulfilled or cancelled -> closed (terminal). */
export async function closeOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "orders:write");
  const input = parseInput(closeInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    if (!ORDER_TRANSITIONS[o.status as OrderStatus]?.includes("closed")) {
      throw new DomainError("invalid_order_transition", `An order in ${o.status} cannot be closed (only fulfilled or cancelled ones)`, { from: o.status, to: "closed" });
    }
    await moveOrder(tx, o, "closed", { ...actorOf(tx), source: "manual", reason: input.reason ?? null });
    await statusMoved(tx, o, "closed", { manual: true, actor: actorData(tx), action: "CLOSE", reason: input.reason ?? null });
    return o.id;
  });
}

export const setStatusInput = z.strictObject({ status: z.enum(ORDER_STATUSES), reason: z.string().trim().min(1).max(500).optional() });

/**
 * POST /orders/{id}/status: any of the seven, in any direction (force), with a history row and the target's event
 * (manual, actor, action SET_STATUS). Side effects already applied are never rewound; cancelled needs
 * order_cancellations:write and voids open authorizations. The same status again changes nothing.
 */
export async function setOrderStatus(ctx: Ctx, id: string, body: unknown) {
  // The scope follows the status asked for, and is checked before the body is validated: a credential that may not
  // make this change gets a 403 whatever else the body holds (a missing or unknown status needs orders:write).
  const asked = body && typeof body === "object" ? (body as { status?: unknown }).status : undefined;
  requireScope(ctx, asked === "cancelled" ? "order_cancellations:write" : "orders:write");
  const input = parseInput(setStatusInput, body ?? {});
  const moved = await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    if (o.status === input.status) return false;
    await moveOrder(tx, o, input.status, { ...actorOf(tx), source: "manual", reason: input.reason ?? null, force: true });
    await statusMoved(tx, o, input.status, { manual: true, actor: actorData(tx), action: "SET_STATUS", reason: input.reason ?? null });
    return true;
  });
  const paymentActions = moved && input.status === "cancelled" ? await voidOpenAuthorizations(ctx, id) : [];
  return { orderId: id, paymentActions };
}

export const updateOrderInput = z.strictObject({
  billingAddress: addressSchema.nullable().optional(),
  shippingAddress: addressSchema.nullable().optional(),
  notes: z.string().max(5000).nullable().optional(),
  metadata: metadataSchema.optional(),
});

/** PATCH /orders/{id}: only the two addresses, notes and metadata (null clears an address or the notes). */
export async function updateOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "orders:write");
  const input = parseInput(updateOrderInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    const changed = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
    if (!changed.length) return o.id;
    const address = (a: unknown) => (a === null ? Prisma.DbNull : (canonicalAddress(a as never) as object));
    await tx.db.order.update({
      where: { id: o.id },
      data: {
        ...(input.billingAddress !== undefined ? { billingAddress: address(input.billingAddress) } : {}),
        ...(input.shippingAddress !== undefined ? { shippingAddress: address(input.shippingAddress) } : {}),
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        ...(input.metadata !== undefined ? { metadata: input.metadata as object } : {}),
        updatedAt: tx.clock.now(),
      },
    });
    await recordEvent(tx, await orderTenant(tx, o), "order.updated", { orderId: o.id, status: o.status, paymentStatus: o.paymentStatus, changed });
    return o.id;
  });
}

export const cancelInput = z.strictObject({ refundCapturedPayments: z.boolean().optional(), reason: z.string().trim().min(1).max(500).optional() });

/**
 * POST /orders/{id}/cancel (not blocked by a hold): draft, pending, processing or partially_fulfilled -> cancelled;
 * open authorizations voided; captured money refunded only with refundCapturedPayments. Each payment's outcome is a
 * paymentAction; a failed void or refund leaves the order cancelled.
 */
export async function cancelOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "order_cancellations:write");
  const input = parseInput(cancelInput, body ?? {});
  await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    if (!ORDER_TRANSITIONS[o.status as OrderStatus]?.includes("cancelled")) {
      throw new DomainError("invalid_order_transition", `An order in ${o.status} cannot be cancelled`, { from: o.status, to: "cancelled" });
    }
    await moveOrder(tx, o, "cancelled", { ...actorOf(tx), source: "manual", reason: input.reason ?? null });
    await statusMoved(tx, o, "cancelled", { manual: true, actor: actorData(tx), action: "CANCEL", reason: input.reason ?? null, refundCapturedPayments: input.refundCapturedPayments ?? false });
  });
  const paymentActions: PaymentAction[] = await voidOpenAuthorizations(ctx, id);
  if (input.refundCapturedPayments) {
    const o = await readOrder(ctx, id);
    const m = moneyOf(o, o.payments);
    if (m.captured - m.refunded > 0) {
      try {
        const refunds = await refundCaptured(ctx, id, { reason: input.reason ?? "Order cancelled" });
        for (const r of refunds) paymentActions.push({ paymentId: r.paymentId, action: "refund", status: r.status === "succeeded" ? "succeeded" : "failed", amount: r.amount });
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        // the refund could not start (another refund holds the claim): each captured payment reports it
        for (const p of o.payments.filter((x) => x.capturedAmount - x.refundedAmount > 0)) {
          paymentActions.push({ paymentId: p.id, action: "refund", status: "failed", amount: p.capturedAmount - p.refundedAmount, error: { code: e.code, message: e.message } });
        }
      }
    }
  }
  return { orderId: id, paymentActions };
}
