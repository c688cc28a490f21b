// What a draft or unpaid order owes (commerce.md parts 3-4): its checkout session, the completion of that session,
// and a card authorization through the order's route.
import { z } from "zod";
import { type CheckoutSession, type Payment } from "../generated/prisma/client";
import { recordEvent } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { processorFor } from "../payments/processor";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { assertNotOnHold } from "./holds.service";
import { moveOrder } from "./order.machine";
import { actorOf, invalidOrderState, lockOrder, moneyOf, orderTenant } from "./order-ops.common";

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
      await tx.sql.selectFrom("Order").select("id").where("id", "=", s.payOrderId!).forUpdate().execute();
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
