// Payments and their transactions on a processor: apply a charge outcome, capture (partial), refund
// (single-flight), mark failed, the test processor's resolve, and reads with every filter.
import { sql } from "kysely";
import { z } from "zod";
import type { Payment } from "../generated/prisma/client";
import { recordEvent, tenantOf } from "../events/events.service";
import { type Actor, actorOf as callerOf } from "../shared/actor";
import { type OrderSyncOptions, syncOrderAfterPayment } from "./order-sync";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { calendarDate } from "../shared/dates";
import { MAX_AMOUNT, positiveAmount } from "../shared/money";
import { keyset, pageQuery, toPage } from "../shared/pagination";
import { nextInvoiceNumber, queueInvoiceEmail } from "./invoice-issue";
import { movePayment, movePaymentReadingOrder, type PaymentStatus } from "./payment.machine";
import type { OrderPaymentFacts } from "./payment-facts";
import { type ChargeResult, processorFor, refundAtProcessor } from "./processor";
import { isUuid } from "../shared/ids";

export function paymentView(p: Payment) {
  return {
    id: p.id,
    orderId: p.orderId,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    method: p.method,
    processor: p.processor,
    authorizedAmount: p.authorizedAmount,
    capturedAmount: p.capturedAmount,
    refundedAmount: p.refundedAmount,
    error: p.errorCode ? { code: p.errorCode, message: p.errorMessage } : null,
    disputed: p.disputed,
    disputeReason: p.disputeReason,
    disputeOpenedAt: p.disputeOpenedAt?.toISOString() ?? null,
    disputeResolvedAt: p.disputeResolvedAt?.toISOString() ?? null,
    disputeOutcome: p.disputeOutcome,
    invoiceNumber: p.invoiceNumber,
    net_n: p.netN,
    netNSource: p.netNSource,
    metadata: p.metadata,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

const system: Actor = { actorType: "system" };
const CARD_AUTH_TTL_MS = 7 * 86_400_000;

export async function paymentEvent(ctx: Ctx, p: Payment, type: string, extra: Record<string, unknown> = {}) {
  await recordEvent(ctx, await tenantOf(ctx, p), type, {
    paymentId: p.id,
    orderId: p.orderId,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    method: p.method,
    ...extra,
  });
}

/** A payment's ledger entries: what was asked of the processor and how it answered. */
export type TransactionType = "authorization" | "capture" | "refund";
export type TransactionStatus = "pending" | "succeeded" | "failed";

/** Applies a processor's answer to a pending or processing payment, in the caller's transaction. */
export async function applyChargeResult(
  ctx: Ctx,
  payment: Payment,
  result: ChargeResult,
  actor: Actor = system,
  /** given: the order's moves are put here for the caller's next statement to write (syncOrderAfterPayment) */
  opts: OrderSyncOptions = {},
) {
  const now = ctx.clock.now();
  const row = (type: TransactionType, status: TransactionStatus, amount: number) => ({ type, status, amount, currency: payment.currency, processorReference: result.processorPaymentId ?? null, createdAt: now });
  let p: Payment;
  // Each move writes its ledger rows, and reads what syncOrderAfterPayment needs of the order, in the same statement.
  let order = null as OrderPaymentFacts | null;
  const move = async (...args: Parameters<typeof movePaymentReadingOrder>) => {
    const moved = await movePaymentReadingOrder(...args);
    order = moved.order;
    return moved.payment;
  };
  switch (result.outcome) {
    case "captured":
      p = await move(ctx, payment, "captured", { authorizedAmount: payment.amount, capturedAmount: payment.amount, processorPaymentId: result.processorPaymentId, errorCode: null, errorMessage: null }, [
        row("authorization", "succeeded", payment.amount),
        row("capture", "succeeded", payment.amount),
      ]);
      await paymentEvent(ctx, p, "payment.captured", { capturedAmount: p.capturedAmount, authorizedAmount: p.authorizedAmount });
      break;
    case "authorized": {
      // A Net-N payment is authorized when its invoice is issued: the invoice gets its number in this transaction.
      const invoice = payment.method === "net30" && !payment.invoiceNumber ? { invoiceNumber: await nextInvoiceNumber(ctx, payment) } : {};
      p = await move(
        ctx,
        payment,
        "authorized",
        {
          ...invoice,
          authorizedAmount: payment.amount,
          processorPaymentId: result.processorPaymentId,
          errorCode: null,
          errorMessage: null,
          // card authorizations lapse; a Net-N invoice is a receivable until its due date and beyond
          authorizationExpiresAt: payment.method === "card" ? new Date(now.getTime() + CARD_AUTH_TTL_MS) : null,
        },
        [row("authorization", "succeeded", payment.amount)],
      );
      await paymentEvent(ctx, p, "payment.authorized", { authorizedAmount: p.authorizedAmount, ...invoice });
      if (invoice.invoiceNumber) queueInvoiceEmail(ctx, p, `invoice:${p.id}`);
      break;
    }
    case "processing":
      p = await move(ctx, payment, "processing", { processorPaymentId: result.processorPaymentId, errorCode: null, errorMessage: null }, [row("authorization", "pending", payment.amount)]);
      await paymentEvent(ctx, p, "payment.processing");
      break;
    case "failed":
      p = await move(
        ctx,
        payment,
        "failed",
        { processorPaymentId: result.processorPaymentId, errorCode: result.errorCode ?? "payment_failed", errorMessage: result.errorMessage ?? "The payment failed" },
        [row("authorization", "failed", payment.amount)],
      );
      await paymentEvent(ctx, p, "payment.failed", { error: { code: p.errorCode, message: p.errorMessage } });
      break;
  }
  if (p.orderId) await syncOrderAfterPayment(ctx, p.orderId, actor, order, opts);
  return p;
}

export async function findPayment(ctx: Ctx, id: string, lock = false) {
  const t = requireTenant(ctx);
  if (!isUuid(id)) throw errors.notFound("Payment");
  if (lock) await ctx.sql.selectFrom("Payment").select("id").where("id", "=", id).forUpdate().execute();
  const p = await ctx.db.payment.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } });
  if (!p) throw errors.notFound("Payment");
  return p;
}

export async function getPayment(ctx: Ctx, id: string) {
  requireScope(ctx, "payments:read");
  return findPayment(ctx, id);
}

export async function paymentTransactions(ctx: Ctx, id: string) {
  requireScope(ctx, "payments:read");
  const p = await findPayment(ctx, id);
  return ctx.db.transaction.findMany({ where: { paymentId: p.id }, orderBy: [{ seq: "asc" }] });
}

export const captureInput = z.strictObject({ amount: positiveAmount.optional() });

/** Captures an authorized payment, fully or partially (Net-N: "mark paid"). */
export async function capturePayment(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payments:write");
  const input = parseInput(captureInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const p = await findPayment(tx, id, true);
    return captureLocked(tx, p, input.amount);
  });
}

async function captureLocked(ctx: Ctx, p: Payment, amount?: number) {
  if (p.status !== "authorized") {
    throw new DomainError("payment_not_capturable", `Only authorized payments can be captured; this one is ${p.status}`, { status: p.status });
  }
  const capture = amount ?? p.authorizedAmount;
  if (capture > p.authorizedAmount) {
    throw errors.validation([{ path: ["amount"], message: `must be at most the authorized ${p.authorizedAmount}` }]);
  }
  const res = await processorFor(p.processor).capture(p.processorPaymentId ?? "", capture);
  if (!res.ok) throw new DomainError("payment_failed", "The processor refused the capture", { reason: res.errorCode });
  const updated = await movePayment(ctx, p, "captured", { capturedAmount: capture });
  await ctx.db.transaction.create({ data: { paymentId: p.id, type: "capture", status: "succeeded", amount: capture, currency: p.currency, createdAt: ctx.clock.now() } });
  await paymentEvent(ctx, updated, "payment.captured", { capturedAmount: updated.capturedAmount, authorizedAmount: updated.authorizedAmount });
  if (updated.orderId) await syncOrderAfterPayment(ctx, updated.orderId, actorOf(ctx));
  return updated;
}

/** POST /orders/{id}/capture: every authorized payment of the order, in full. */
export async function captureOrderPayments(ctx: Ctx, orderId: string) {
  requireScope(ctx, "payments:write");
  const t = requireTenant(ctx);
  return withTx(ctx, async (tx) => {
    const order = isUuid(orderId) ? await tx.db.order.findFirst({ where: { id: orderId, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
    if (!order) throw errors.notFound("Order");
    await tx.sql.selectFrom("Payment").select("id").where("orderId", "=", order.id).forUpdate().execute();
    const authorized = await tx.db.payment.findMany({ where: { orderId: order.id, status: "authorized" } });
    for (const p of authorized) await captureLocked(tx, p);
    return order.id;
  });
}

export const refundInput = z.strictObject({ amount: positiveAmount.optional(), reason: z.string().max(500).optional() });

/**
 * Refund: the amount is claimed on the row first (refundingAmount), so a concurrent refund of the same payment
 * gets 409 refund_already_in_progress and the total refunded can never pass what was captured.
 */
export async function refundPayment(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payment_refunds:write");
  const input = parseInput(refundInput, body ?? {});
  return refundPaymentAmount(ctx, id, input.amount);
}

/** The refund itself, for callers that checked their own scope (a dispute the buyer won refunds through it). */
export async function refundPaymentAmount(ctx: Ctx, id: string, amountAsked?: number) {
  const p = await findPayment(ctx, id);
  if (!["captured", "partially_refunded"].includes(p.status)) {
    throw new DomainError("refund_not_allowed", `A ${p.status} payment cannot be refunded`, { status: p.status });
  }
  const amount = amountAsked ?? p.capturedAmount - p.refundedAmount;
  const claim = await ctx.sql
    .updateTable("Payment")
    .set({ refundingAmount: amount, updatedAt: ctx.clock.now() })
    .where("id", "=", p.id)
    .where("refundingAmount", "=", 0)
    .where("status", "in", ["captured", "partially_refunded"])
    .where((eb) => eb(eb("capturedAmount", "-", eb.ref("refundedAmount")), ">=", amount))
    .where(sql.lit(amount > 0))
    .executeTakeFirst();
  const claimed = Number(claim.numUpdatedRows);
  if (claimed !== 1) {
    const now = await ctx.db.payment.findUniqueOrThrow({ where: { id: p.id } });
    if (now.refundingAmount > 0) throw new DomainError("refund_already_in_progress", "Another refund of this payment is in progress; retry when it finishes");
    throw new DomainError("refund_not_allowed", `At most ${now.capturedAmount - now.refundedAmount} can be refunded`, { refundable: now.capturedAmount - now.refundedAmount, status: now.status });
  }
  try {
    const res = await refundAtProcessor(p, amount);
    const updated = await withTx(ctx, async (tx) => {
      const cur = await tx.db.payment.findUniqueOrThrow({ where: { id: p.id } });
      if (!res.ok) {
        await tx.db.payment.update({ where: { id: p.id }, data: { refundingAmount: 0 } });
        await tx.db.transaction.create({ data: { paymentId: p.id, type: "refund", status: "failed", amount, currency: p.currency, createdAt: tx.clock.now() } });
        await paymentEvent(tx, cur, "payment.refund_failed", { amount });
        return null;
      }
      const refunded = cur.refundedAmount + amount;
      const to: PaymentStatus = refunded >= cur.capturedAmount ? "refunded" : "partially_refunded";
      const moved = await movePayment(tx, cur, to, { refundedAmount: refunded, refundingAmount: 0 });
      await tx.db.transaction.create({ data: { paymentId: p.id, type: "refund", status: "succeeded", amount, currency: p.currency, processorReference: res.reference, createdAt: tx.clock.now() } });
      await paymentEvent(tx, moved, to === "refunded" ? "payment.refunded" : "payment.partially_refunded", { refundedAmount: refunded, amount });
      if (moved.orderId) await syncOrderAfterPayment(tx, moved.orderId, actorOf(tx));
      return moved;
    });
    if (!updated) throw new DomainError("refund_failed", "The processor refused the refund", { reason: res.errorCode });
    return updated;
  } catch (e) {
    await ctx.db.payment.updateMany({ where: { id: p.id, refundingAmount: amount }, data: { refundingAmount: 0 } });
    throw e;
  }
}

export const markFailedInput = z.strictObject({ reason: z.string().trim().min(1).max(500) });

export async function markPaymentFailed(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "payments:write");
  const input = parseInput(markFailedInput, body);
  return withTx(ctx, async (tx) => {
    const p = await findPayment(tx, id, true);
    if (!["pending", "processing", "failed"].includes(p.status)) {
      throw new DomainError("payment_not_failable", `A ${p.status} payment cannot be marked failed`, { status: p.status });
    }
    const updated = await movePayment(tx, p, "failed", { errorCode: "manually_marked_failed", errorMessage: input.reason });
    await paymentEvent(tx, updated, "payment.failed", { error: { code: "manually_marked_failed", message: input.reason } });
    if (updated.orderId) await syncOrderAfterPayment(tx, updated.orderId, actorOf(tx));
    return updated;
  });
}

export const resolveInput = z.strictObject({ outcome: z.enum(["authorized", "captured", "failed"]) });

/** POST /test-processor/payments/{id}/resolve (non-production only): settles a 3-D Secure payment. */
export async function resolveTestPayment(ctx: Ctx, id: string, body: unknown) {
  const principal = requireScope(ctx, "payments:write");
  if (principal.environment.kind === "production") throw errors.notFound("Route");
  const input = parseInput(resolveInput, body);
  return withTx(ctx, async (tx) => {
    const p = await findPayment(tx, id, true);
    if (p.processor !== "test" || p.status !== "processing") {
      throw new DomainError("payment_not_processing", `Only processing test payments can be resolved; this one is ${p.status}`, { status: p.status });
    }
    return applyChargeResult(tx, p, { outcome: input.outcome, processorPaymentId: p.processorPaymentId ?? "", ...(input.outcome === "failed" ? { errorCode: "authentication_failed", errorMessage: "3-D Secure authentication failed" } : {}) }, actorOf(tx));
  });
}

const AGING = { "0_30": [0, 30], "31_60": [31, 60], "61_90": [61, 90], "90_plus": [91, 100_000] } as const;
export const paymentFilters = pageQuery.extend({
  method: z.string().min(1).max(40).optional(),
  status: z.union([z.string(), z.array(z.string())]).optional().transform((s) => (s === undefined ? undefined : Array.isArray(s) ? s : [s])),
  order_id: z.uuid().optional(),
  due_from: calendarDate.optional(),
  due_to: calendarDate.optional(),
  amount_min: z.coerce.number().int().min(0).max(MAX_AMOUNT).optional(),
  amount_max: z.coerce.number().int().min(0).max(MAX_AMOUNT).optional(),
  aging: z.enum(["0_30", "31_60", "61_90", "90_plus"]).optional(),
});

export async function listPayments(ctx: Ctx, query: unknown) {
  requireScope(ctx, "payments:read");
  const t = requireTenant(ctx);
  const q = parseInput(paymentFilters, query ?? {}, ["query"]);
  const ks = keyset(q);
  const today = new Date(ctx.clock.now().toISOString().slice(0, 10));
  const day = 86_400_000;
  let dueRange: { gte?: Date; lte?: Date } = {};
  if (q.due_from) dueRange.gte = new Date(q.due_from);
  if (q.due_to) dueRange.lte = new Date(q.due_to);
  if (q.aging) {
    // days past due: dueDate = today - days
    // (intersected with due_from / due_to when both are given)
    const [minDays, maxDays] = AGING[q.aging];
    const lte = new Date(today.getTime() - minDays * day);
    const gte = new Date(today.getTime() - maxDays * day);
    dueRange = { lte: dueRange.lte && dueRange.lte < lte ? dueRange.lte : lte, gte: dueRange.gte && dueRange.gte > gte ? dueRange.gte : gte };
  }
  const rows = await ctx.db.payment.findMany({
    where: {
      applicationId: t.applicationId,
      environmentId: t.environmentId,
      ...(q.method ? { method: q.method } : {}),
      ...(q.status ? { status: { in: q.status } } : {}),
      ...(q.order_id ? { orderId: q.order_id } : {}),
      ...(q.due_from || q.due_to || q.aging ? { dueDate: dueRange } : {}),
      ...(q.aging ? { status: "authorized" } : {}),
      amount: { ...(q.amount_min !== undefined ? { gte: q.amount_min } : {}), ...(q.amount_max !== undefined ? { lte: q.amount_max } : {}) },
      ...ks.where,
    },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  return toPage(rows, q);
}

/** The caller as history rows take it (type and id; shared/actor.ts). */
export function actorOf(ctx: Ctx): Actor {
  const { actorType, actorId } = callerOf(ctx);
  return { actorType, actorId };
}
