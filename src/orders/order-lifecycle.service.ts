// The order lifecycle routes (commerce.md parts 3-4): draft orders, their checkout and card authorization, close,
// status in any direction, the four editable fields, and cancel. Every status moves through moveOrder; every rule
// is checked on the row read under the order's lock; events per target status.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type CheckoutSession, type Payment, Prisma } from "../generated/prisma/client";
import { findCustomer } from "../customers/customers.service";
import { principalEventTenant, recordEvent } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { cancelSubscriptionNow } from "../subscriptions/subscriptions.service";
import { processorFor } from "../payments/processor";
import { requireScope, requireTenant } from "../shared/guards";
import { addressSchema, canonicalAddress, metadataSchema } from "../shared/address";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { amount, currencyCode } from "../shared/money";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { assertNotOnHold } from "./holds.service";
import { moveOrder, ORDER_STATUSES, ORDER_TRANSITIONS, type OrderStatus } from "./order.machine";
import { actorData, actorOf, type FullOrder, invalidOrderState, lockOrder, moneyOf, orderTenant, type PaymentAction, readOrder, statusEventType, voidOpenAuthorizations } from "./order-ops.common";
import { refundCaptured } from "./order-refunds.service";
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

// ---- checkout and authorization of what is owed ------------------------------------------------------------------

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
export const orderCheckoutInput = z.strictObject({
  returnUrl: httpUrl.optional(),
  cancelUrl: httpUrl.optional(),
  allowedMethods: z.array(z.enum(["card", "net30"])).min(1).max(2).optional(),
});

const CONNECTOR_KIND = { card: "card", net30: "invoice_terms" } as const;

/**
 * POST /orders/{id}/checkout: a checkout session for the balance (payOrderId: completion pays THIS order), on a cart
 * mirroring the order's lines (one "Balance due" line when part is already paid), and draft -> pending.
 */
export async function checkoutOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "orders:write");
  const input = parseInput(orderCheckoutInput, body ?? {});
  const t = requireTenant(ctx);
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    if (o.status !== "draft" && o.status !== "pending") throw invalidOrderState(o, "open a checkout for");
    if (o.status === "draft") assertNotOnHold(o);
    const m = moneyOf(o, o.payments);
    if (m.balance <= 0) throw errors.validation([{ path: ["id"], message: "Nothing is owed on this order" }]);
    const whole = m.balance === o.total;
    const at = tx.clock.now();
    const cart = await tx.db.cart.create({
      data: {
        applicationId: t.applicationId,
        environmentId: t.environmentId,
        currency: o.currency,
        customerId: o.customerId,
        customerEmail: o.email,
        shippingAddress: o.shippingAddress ?? undefined,
        billingAddress: o.billingAddress ?? undefined,
        selectedShipping: whole ? (o.selectedShipping ?? undefined) : undefined,
        taxLines: whole && o.taxTotal > 0 ? [{ name: "Tax", amount: o.taxTotal - o.lineItems.reduce((a, l) => a + l.taxAmount, 0), rateBps: 0, jurisdiction: "" }] : [],
        metadata: { payOrderId: o.id },
        createdAt: at,
        lineItems: {
          create: whole
            ? o.lineItems.sort((a, b) => a.position - b.position).map((l, i) => ({ type: l.type, referenceId: l.referenceId, name: l.name, description: l.description, unitPrice: l.unitPrice, quantity: l.quantity, taxAmount: l.taxAmount, discountAmount: l.discountAmount, requiresShipping: l.requiresShipping, imageUrl: l.imageUrl, metadata: l.metadata as object, createdAt: new Date(at.getTime() + i) }))
            : [{ type: "custom", name: "Balance due", unitPrice: m.balance, quantity: 1, requiresShipping: false, createdAt: at }],
        },
      },
    });
    const connectors = await tx.db.connector.findMany({ where: { applicationId: t.applicationId, environmentId: t.environmentId, status: "active" } });
    const available = (["card", "net30"] as const).filter((k) => connectors.some((c) => c.kind === CONNECTOR_KIND[k]));
    const allowedMethods = input.allowedMethods ? [...new Set(input.allowedMethods)] : available.length ? [...available] : ["card"];
    const base = tx.deps.config.CHECKOUT_URL;
    const session = await tx.db.checkoutSession.create({
      data: {
        applicationId: t.applicationId,
        environmentId: t.environmentId,
        cartId: cart.id,
        returnUrl: input.returnUrl ?? `${base}/checkout/complete`,
        cancelUrl: input.cancelUrl ?? `${base}/checkout/cancelled`,
        customerEmail: o.email,
        customerId: o.customerId,
        allowedMethods,
        collectShipping: false,
        collectBilling: false,
        expiresAt: new Date(at.getTime() + tx.deps.config.CHECKOUT_SESSION_TTL_MS),
        payOrderId: o.id,
        createdAt: at,
      },
    });
    await tx.db.cart.update({ where: { id: cart.id }, data: { expiresAt: session.expiresAt } });
    const tenant = await orderTenant(tx, o);
    if (o.status === "draft") {
      await moveOrder(tx, o, "pending", { ...actorOf(tx), source: "manual" });
      await recordEvent(tx, tenant, "order.updated", { orderId: o.id, status: "pending", previousStatus: "draft", paymentStatus: o.paymentStatus, checkoutSessionId: session.id });
    }
    await recordEvent(tx, tenant, "cart.checkout_started", { cartId: cart.id, checkoutSessionId: session.id, orderId: o.id });
    return { orderId: o.id, checkoutSession: { id: session.id, hostedUrl: `${base}/checkout/${session.id}` } };
  });
}

/**
 * The completion of a session opened by POST /orders/{id}/checkout (called from completeCheckout): the session is
 * claimed (single-flight, 409 checkout_in_progress), a payment for the balance is added to the order (never a new
 * order), the card is charged outside any transaction (Net-N: the invoice is issued), then the session completes.
 */
export async function completeOrderCheckout(
  ctx: Ctx,
  s: CheckoutSession,
  input: { paymentMethod: "card" | "net30"; paymentToken?: string; net30Acceptance?: unknown },
): Promise<{ orderId: string; paymentId: string; paymentStatus: string }> {
  const now = ctx.clock.now();
  const missing = [...(input.paymentMethod === "card" && !input.paymentToken ? ["paymentToken"] : []), ...(input.paymentMethod === "net30" && !input.net30Acceptance ? ["net30Acceptance"] : [])];
  if (missing.length) throw new DomainError("missing_required_field", `Required to complete this checkout: ${missing.join(", ")}`, { fields: missing });
  const release = () => ctx.db.checkoutSession.updateMany({ where: { id: s.id, completionStartedAt: now }, data: { completionStartedAt: null } });
  let claimed = false;
  try {
    const payment = await withTx(ctx, async (tx) => {
      const won = await tx.db.checkoutSession.updateMany({
        where: { id: s.id, status: "open", OR: [{ completionStartedAt: null }, { completionStartedAt: { lt: new Date(now.getTime() - 60_000) } }] },
        data: { completionStartedAt: now },
      });
      if (won.count !== 1) {
        const cur = await tx.db.checkoutSession.findUniqueOrThrow({ where: { id: s.id } });
        if (cur.status !== "open") throw new DomainError("session_not_open", `This checkout session is ${cur.status}`, { status: cur.status, ...(cur.orderId ? { orderId: cur.orderId, paymentId: cur.paymentId } : {}) });
        throw new DomainError("checkout_in_progress", "This checkout is already being completed");
      }
      await tx.db.$executeRaw`SELECT 1 FROM "Order" WHERE id = ${s.payOrderId}::uuid FOR UPDATE`;
      const o = await tx.db.order.findUniqueOrThrow({ where: { id: s.payOrderId! }, include: { payments: true } });
      // A held order takes no payment (it would move its status): the buyer can pay once the hold is released.
      assertNotOnHold(o);
      if (o.status === "cancelled" || o.status === "closed") throw new DomainError("session_not_open", `The order this session pays is ${o.status}`, { status: s.status, reason: "order_not_payable", orderId: o.id });
      const m = moneyOf(o, o.payments);
      if (m.balance <= 0) throw new DomainError("session_not_open", "Nothing is owed on the order this session pays", { status: s.status, reason: "nothing_owed", orderId: o.id });
      const connector = await tx.db.connector.findFirst({ where: { applicationId: s.applicationId, environmentId: s.environmentId, kind: CONNECTOR_KIND[input.paymentMethod], status: "active" }, orderBy: { createdAt: "asc" } });
      if (!connector) throw new DomainError("no_payment_connection", `No active ${CONNECTOR_KIND[input.paymentMethod]} connection for this application and environment`);
      const netN = input.paymentMethod === "net30" ? (s.netN ?? 30) : null;
      const p = await tx.db.payment.create({
        data: {
          applicationId: s.applicationId,
          environmentId: s.environmentId,
          orderId: o.id,
          checkoutSessionId: s.id,
          amount: m.balance,
          currency: o.currency,
          method: input.paymentMethod,
          processor: connector.provider,
          connectorId: connector.id,
          netN,
          netNSource: netN === null ? null : s.netN !== null ? "cart_override" : "default",
          createdAt: tx.clock.now(),
        },
      });
      await recordEvent(tx, await orderTenant(tx, s), "payment.pending", { paymentId: p.id, orderId: o.id, amount: p.amount, currency: p.currency, method: p.method });
      return p;
    });
    claimed = true;
    let settled: Payment;
    if (input.paymentMethod === "card") {
      const result = await processorFor(payment.processor).charge({ amount: payment.amount, currency: payment.currency, paymentToken: input.paymentToken!, reference: payment.id });
      settled = await withTx(ctx, async (tx) => {
        const p = await applyChargeResult(tx, payment, result);
        if (p.status !== "failed") await finishPayOrderSession(tx, s, p);
        else await tx.db.checkoutSession.update({ where: { id: s.id }, data: { completionStartedAt: null } });
        return p;
      });
      if (settled.status === "failed") {
        throw new DomainError("payment_failed", settled.errorMessage ?? "The payment was declined", { reason: settled.errorCode, orderId: settled.orderId, paymentId: settled.id });
      }
    } else {
      settled = await withTx(ctx, async (tx) => {
        const issued = tx.clock.now();
        const due = new Date(Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth(), issued.getUTCDate() + (payment.netN ?? 30)));
        const dueDate = due.toISOString().slice(0, 10);
        await tx.db.payment.update({ where: { id: payment.id }, data: { dueDate: due, metadata: { dueDate, invoiceIssuedAt: issued.toISOString(), net30Acceptance: input.net30Acceptance } as object } });
        const p = await applyChargeResult(tx, { ...payment, metadata: {} } as Payment, { outcome: "authorized", processorPaymentId: `invoice_${payment.id}` });
        await finishPayOrderSession(tx, s, p);
        return p;
      });
    }
    return { orderId: s.payOrderId!, paymentId: settled.id, paymentStatus: settled.status };
  } catch (e) {
    if (claimed) await release().catch(() => {});
    throw e;
  }
}

async function finishPayOrderSession(tx: Ctx, s: CheckoutSession, p: Payment) {
  const at = tx.clock.now();
  await tx.db.checkoutSession.update({ where: { id: s.id }, data: { status: "completed", completedAt: at, orderId: s.payOrderId, paymentId: p.id, completionStartedAt: null } });
  await tx.db.cart.update({ where: { id: s.cartId }, data: { status: "converted", updatedAt: at } });
  await recordEvent(tx, await orderTenant(tx, s), "cart.converted", { cartId: s.cartId, orderId: s.payOrderId, checkoutSessionId: s.id });
}

export const authorizeInput = z.strictObject({ paymentToken: z.string().trim().min(1).max(200) });

/** POST /orders/{id}/authorize: a card payment for the balance on the test processor (tok_visa_authorize holds it). */
export async function authorizeOrder(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payments:write");
  const input = parseInput(authorizeInput, body ?? {});
  const payment = await withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    assertNotOnHold(o);
    if (o.status === "cancelled" || o.status === "closed") throw invalidOrderState(o, "authorize a payment on");
    const m = moneyOf(o, o.payments);
    if (m.balance <= 0) throw errors.validation([{ path: ["id"], message: "Nothing is owed on this order" }]);
    const connector = await tx.db.connector.findFirst({ where: { applicationId: o.applicationId, environmentId: o.environmentId, kind: "card", status: "active" }, orderBy: { createdAt: "asc" } });
    if (!connector) throw new DomainError("no_payment_connection", "No active card connection for this application and environment");
    const p = await tx.db.payment.create({
      data: { applicationId: o.applicationId, environmentId: o.environmentId, orderId: o.id, amount: m.balance, currency: o.currency, method: "card", processor: connector.provider, connectorId: connector.id, createdAt: tx.clock.now() },
    });
    await recordEvent(tx, await orderTenant(tx, o), "payment.pending", { paymentId: p.id, orderId: o.id, amount: p.amount, currency: p.currency, method: "card" });
    return p;
  });
  const result = await processorFor(payment.processor).charge({ amount: payment.amount, currency: payment.currency, paymentToken: input.paymentToken, reference: payment.id });
  const settled = await withTx(ctx, (tx) => applyChargeResult(tx, payment, result, actorOf(tx)));
  if (settled.status === "failed") {
    throw new DomainError("payment_failed", settled.errorMessage ?? "The payment was declined", { reason: settled.errorCode, orderId: settled.orderId, paymentId: settled.id });
  }
  return { orderId: payment.orderId!, payment: settled };
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
