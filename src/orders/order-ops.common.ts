// Shared pieces of the order operations (lifecycle, holds, comps, refunds, manual payments, line edits): the locked
// read of a tenant's order (the plain read is readOrder in orders.service.ts), the caller as an actor, what an
// order's payments add up to, the status events, and the void of open authorizations that cancel and comp share.
import type { Order, Payment } from "../generated/prisma/client";
import { recordEvent, tenantOf, type EventTenant } from "../events/events.service";
import { actorOf as callerOf } from "../shared/actor";
import { requireTenant } from "../shared/guards";
import { movePayment } from "../payments/payment.machine";
import { processorFor } from "../payments/processor";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors } from "../shared/errors";
import type { Actor, OrderStatus } from "./order.machine";
import { type FullOrder, syncOrderAfterPayment } from "./orders.service";
import { isUuid } from "../shared/ids";
import { lockTenantRow } from "../shared/tenant-lock";

/** The caller as history rows take it (type and id; shared/actor.ts). */
export function actorOf(ctx: Ctx): Actor {
  const { actorType, actorId } = callerOf(ctx);
  return { actorType, actorId };
}

/** The actor as event payloads and timeline rows carry it. */
export function actorData(ctx: Ctx) {
  const a = actorOf(ctx);
  return { type: a.actorType, id: a.actorId ?? null };
}

/**
 * The caller's order, locked (SELECT … FOR UPDATE) for the rest of the transaction, with its lines and payments.
 * Every order operation that checks a rule (hold, status, balance) and then writes takes this lock first, so two
 * operations on one order run one after the other, in any process. Another tenant's id is 404.
 */
export async function lockOrder(tx: Ctx, id: string): Promise<FullOrder> {
  const t = requireTenant(tx);
  if (!isUuid(id)) throw errors.notFound("Order");
  const hit = await lockTenantRow(tx, "Order", t, id).execute();
  if (!hit.length) throw errors.notFound("Order");
  return tx.db.order.findUniqueOrThrow({ where: { id }, include: { lineItems: true, payments: true } });
}

const IN_FLIGHT = new Set(["pending", "processing", "authorized"]);

/** What the payments add up to: captured (partial captures at the captured figure), refunded, in flight, and owed. */
export function moneyOf(o: Pick<Order, "total" | "compAmount">, payments: Pick<Payment, "status" | "amount" | "capturedAmount" | "refundedAmount" | "refundingAmount">[]) {
  const captured = payments.reduce((a, p) => a + p.capturedAmount, 0);
  const refunded = payments.reduce((a, p) => a + p.refundedAmount, 0);
  const inFlight = payments.reduce((a, p) => a + (IN_FLIGHT.has(p.status) ? p.amount : 0), 0);
  return {
    captured,
    refunded,
    inFlight,
    /** still to be asked of the buyer: what is neither comped, collected nor already being collected */
    balance: Math.max(0, o.total - o.compAmount - captured - inFlight),
    /** what a comp would waive: everything not collected */
    uncollected: Math.max(0, o.total - o.compAmount - captured),
  };
}

export function invalidOrderState(o: Pick<Order, "status">, what: string) {
  return new DomainError("invalid_order_state", `Cannot ${what} an order that is ${o.status}`, { status: o.status });
}

/** The event of a status: its own for fulfilled, cancelled and closed, else order.updated. */
export function statusEventType(to: OrderStatus): "order.cancelled" | "order.closed" | "order.fulfilled" | "order.updated" {
  return to === "cancelled" ? "order.cancelled" : to === "closed" ? "order.closed" : to === "fulfilled" ? "order.fulfilled" : "order.updated";
}

export async function orderTenant(ctx: Ctx, o: Pick<Order, "applicationId" | "environmentId">): Promise<EventTenant> {
  return tenantOf(ctx, o);
}

export interface PaymentAction {
  paymentId: string;
  action: "void" | "refund";
  status: "succeeded" | "failed";
  amount?: number;
  error?: { code: string; message: string };
}

/**
 * Voids the order's open authorizations (card holds and unpaid Net-N invoices): each asked of its processor outside
 * any transaction (a Net-N invoice is ours to cancel), then every successful void moved by the payment machine with
 * its ledger row and payment.voided in one transaction. A failed void is reported, never thrown: what caused it (a
 * comp, a cancel) stays done. `onVoided` runs in that transaction for each voided payment (the comp's buyer email).
 */
export async function voidOpenAuthorizations(ctx: Ctx, orderId: string, onVoided?: (tx: Ctx, p: Payment) => Promise<void>): Promise<PaymentAction[]> {
  const open = await ctx.db.payment.findMany({ where: { orderId, status: "authorized" }, orderBy: { createdAt: "asc" } });
  if (!open.length) return [];
  const asked = await Promise.all(
    open.map(async (p) => {
      if (p.method === "net30") return { p, ok: true as const };
      try {
        const r = await processorFor(p.processor).void(p.processorPaymentId ?? "");
        return r.ok ? { p, ok: true as const } : { p, ok: false as const, error: { code: "void_failed", message: "The processor refused the void" } };
      } catch (e) {
        return { p, ok: false as const, error: { code: "void_failed", message: e instanceof Error ? e.message : "The void failed" } };
      }
    }),
  );
  return withTx(ctx, async (tx) => {
    const actions: PaymentAction[] = [];
    let moved = false;
    for (const a of asked) {
      if (!a.ok) {
        actions.push({ paymentId: a.p.id, action: "void", status: "failed", error: a.error });
        continue;
      }
      try {
        const v = await movePayment(tx, a.p, "voided", {}, [{ type: "void", status: "succeeded", amount: a.p.authorizedAmount || a.p.amount, currency: a.p.currency, processorReference: a.p.processorPaymentId, createdAt: tx.clock.now() }]);
        await recordEvent(tx, await tenantOf(tx, v), "payment.voided", { paymentId: v.id, orderId: v.orderId, status: v.status, amount: v.amount, currency: v.currency, method: v.method });
        if (onVoided) await onVoided(tx, v);
        actions.push({ paymentId: a.p.id, action: "void", status: "succeeded" });
        moved = true;
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        actions.push({ paymentId: a.p.id, action: "void", status: "failed", error: { code: e.code, message: e.message } });
      }
    }
    if (moved) await syncOrderAfterPayment(tx, orderId, actorOf(tx));
    return actions;
  });
}
