// Orders: reads with every filter, the payment roll-up after any payment change, capture of an order.
import { filter, pipe } from "graphql-yoga";
import { z } from "zod";
import { sql } from "kysely";
import type { Order, OrderLineItem, Payment } from "../generated/prisma/client";
import { currentStateFirst, recordEvent, tenantOf, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { requireScope, requireTenant } from "../shared/guards";
import { type Address, canonicalAddress } from "../shared/address";
import type { Ctx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { lineTotal } from "../shared/money";
import { keyset, pageQuery, toPage } from "../shared/pagination";
import { moveOrder, orderMove, type OrderMove, type OrderStatus, ORDER_STATUSES, orderStatusLabel, type Actor } from "./order.machine";
import { derivePaymentStatus } from "./payment-status";
import { type OrderPaymentFacts, orderPaymentFactsJson } from "../payments/payment-facts";
import { isUuid } from "../shared/ids";

export const PAYMENT_STATUSES = ["pending", "authorized", "processing", "partially_paid", "captured", "partially_refunded", "refunded", "failed", "voided", "disputed", "expired"] as const;

export function orderView(o: Order & { lineItems?: OrderLineItem[]; payments?: Payment[] }, opts: { single?: boolean } = {}) {
  const items = o.lineItems ?? [];
  const summary = fulfillmentSummary(items);
  return {
    id: o.id,
    status: o.status,
    paymentStatus: o.paymentStatus,
    displayStatus: displayStatus(o),
    currency: o.currency,
    customerId: o.customerId,
    email: o.email,
    checkoutSessionId: o.checkoutSessionId,
    cartId: o.cartId,
    lineItems: items
      .sort((a, b) => a.position - b.position)
      .map((i) => ({ id: i.id, type: i.type, referenceId: i.referenceId, name: i.name, description: i.description, unitPrice: i.unitPrice, quantity: i.quantity, taxAmount: i.taxAmount, discountAmount: i.discountAmount, requiresShipping: i.requiresShipping, imageUrl: i.imageUrl, metadata: i.metadata, total: lineTotal(i) })),
    subtotal: o.subtotal,
    discountTotal: o.discountTotal,
    shippingTotal: o.shippingTotal,
    taxTotal: o.taxTotal,
    total: o.total,
    compAmount: o.compAmount,
    fulfillmentSummary: summary,
    deliveryState: o.deliveryState ?? null,
    compReason: o.compReason,
    compedAt: o.compedAt?.toISOString() ?? null,
    discountCode: o.discountCode,
    shippingAddress: canonicalAddress(o.shippingAddress as Address | null),
    billingAddress: canonicalAddress(o.billingAddress as Address | null),
    selectedShipping: o.selectedShipping,
    notes: o.notes,
    metadata: o.metadata,
    onHold: o.onHold,
    holdReason: o.holdReason,
    heldAt: o.heldAt?.toISOString() ?? null,
    heldBy: o.heldBy,
    subscriptionId: o.subscriptionId,
    source: o.source ?? null,
    cancelledAt: o.cancelledAt?.toISOString() ?? null,
    closedAt: o.closedAt?.toISOString() ?? null,
    ...(opts.single && o.payments
      ? {
          capturedAmount: o.payments.reduce((a, p) => a + p.capturedAmount, 0),
          refundedAmount: o.payments.reduce((a, p) => a + p.refundedAmount, 0),
        }
      : {}),
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

/** Items with something to deliver (requiresShipping), and how many of them live fulfillments handed over. */
function fulfillmentSummary(items: Pick<OrderLineItem, "requiresShipping" | "quantity" | "fulfilledQuantity">[]) {
  const shippable = items.filter((i) => i.requiresShipping);
  const itemsTotal = shippable.reduce((a, i) => a + i.quantity, 0);
  const itemsFulfilled = shippable.reduce((a, i) => a + Math.min(i.fulfilledQuantity, i.quantity), 0);
  return { itemsTotal, itemsFulfilled, itemsRemaining: itemsTotal - itemsFulfilled };
}

const MONEY_QUALIFIER: Record<string, string> = {
  failed: "Payment failed",
  disputed: "Disputed",
  refunded: "Refunded",
  partially_refunded: "Partially refunded",
  partially_paid: "Partially paid",
};
/** paymentStatus values under which nothing has arrived */
const NOTHING_ARRIVED = new Set(["pending", "authorized", "processing", "voided", "expired"]);
const GOODS_QUALIFIER: Record<string, string> = {
  returned: "Returned",
  partially_returned: "Partially returned",
  delivered: "Delivered",
  in_transit: "In transit",
};

/**
 * A human label derived on every read, never stored (decisions.md part 7): the status label and, when one
 * applies, " · " and the first qualifier of: Comped; the money qualifier; the goods qualifier.
 */
export function displayStatus(o: Pick<Order, "status" | "paymentStatus" | "compAmount" | "deliveryState">) {
  const label = orderStatusLabel(o.status);
  let qualifier: string | undefined;
  if (o.compAmount > 0) qualifier = "Comped";
  else if (MONEY_QUALIFIER[o.paymentStatus]) qualifier = MONEY_QUALIFIER[o.paymentStatus];
  else if (NOTHING_ARRIVED.has(o.paymentStatus) && o.status !== "draft" && o.status !== "cancelled") qualifier = "Awaiting payment";
  else if (o.deliveryState && GOODS_QUALIFIER[o.deliveryState]) qualifier = GOODS_QUALIFIER[o.deliveryState];
  return qualifier ? `${label} · ${qualifier}` : label;
}

const instant = z.iso
  .datetime({ offset: true })
  .transform((s) => new Date(s))
  .refine((d) => d.getUTCFullYear() >= 1970 && d.getUTCFullYear() <= 9999, "must be between 1970 and 9999");
/** The date range of an order list: createdAt on or after createdAfter, and before createdBefore (ISO 8601 date-times). */
export const orderDateRange = { createdAfter: instant.optional(), createdBefore: instant.optional() };

export const orderFilters = pageQuery.extend({
  status: z.enum(ORDER_STATUSES).optional(),
  paymentStatus: z.enum(PAYMENT_STATUSES).optional(),
  q: z.string().trim().min(1).max(200).optional(),
  customerId: z.uuid().optional(),
  applicationId: z.uuid().optional(),
  delivery: z.enum(["not_shipped", "in_transit", "delivered", "returned"]).optional(),
  ...orderDateRange,
});

type OrderFilters = z.output<typeof orderFilters>;

/** `delivery` filter values -> the stored deliveryState values they match (returned matches partial returns too). */
export const DELIVERY_MATCH = { in_transit: ["in_transit"], delivered: ["delivered"], returned: ["returned", "partially_returned"] } as const;

/** The Prisma `where` of GET /orders (and its CSV export) for one tenant, without the page's keyset. */
export function orderWhere(t: { applicationId: string; environmentId: string }, q: Omit<OrderFilters, "limit" | "cursor">) {
  const search = q.q
    ? { OR: [{ email: { contains: q.q, mode: "insensitive" as const } }, ...(isUuid(q.q) ? [{ id: q.q }] : []), { lineItems: { some: { name: { contains: q.q, mode: "insensitive" as const } } } }] }
    : {};
  const delivery = !q.delivery ? {} : q.delivery === "not_shipped" ? { deliveryState: null } : { deliveryState: { in: [...DELIVERY_MATCH[q.delivery]] } };
  const created = q.createdAfter || q.createdBefore ? { createdAt: { ...(q.createdAfter ? { gte: q.createdAfter } : {}), ...(q.createdBefore ? { lt: q.createdBefore } : {}) } } : {};
  return {
    applicationId: t.applicationId,
    environmentId: t.environmentId,
    ...(q.status ? { status: q.status } : {}),
    ...(q.paymentStatus ? { paymentStatus: q.paymentStatus } : {}),
    ...(q.customerId ? { customerId: q.customerId } : {}),
    ...delivery,
    ...created,
    ...search,
  };
}

export async function listOrders(ctx: Ctx, query: unknown) {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const q = parseInput(orderFilters, query ?? {}, ["query"]);
  if (q.applicationId && q.applicationId !== t.applicationId) return toPage([], q);
  const ks = keyset(q);
  const rows = await ctx.db.order.findMany({
    where: { ...orderWhere(t, q), AND: [ks.where] },
    orderBy: ks.orderBy,
    take: ks.take,
    include: { lineItems: true },
  });
  return toPage(rows, q);
}

export type FullOrder = Order & { lineItems: OrderLineItem[]; payments: Payment[] };

/** The caller's order (no lock) with its lines and payments, 404 for another tenant's id. */
export async function readOrder(ctx: Ctx, id: string): Promise<FullOrder> {
  const t = requireTenant(ctx);
  const o = isUuid(id)
    ? await ctx.db.order.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lineItems: true, payments: true } })
    : null;
  if (!o) throw errors.notFound("Order");
  return o;
}

export async function getOrder(ctx: Ctx, id: string) {
  requireScope(ctx, "orders:read");
  return readOrder(ctx, id);
}

export async function orderPayments(ctx: Ctx, id: string) {
  requireScope(ctx, "payments:read");
  const o = await readOrder(ctx, id);
  return [...o.payments].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

export async function orderStatusHistory(ctx: Ctx, id: string) {
  requireScope(ctx, "orders:read");
  const o = await readOrder(ctx, id);
  return ctx.db.orderStatusHistory.findMany({ where: { orderId: o.id }, orderBy: [{ seq: "asc" }] });
}

/**
 * After any payment change, inside the same transaction: recompute paymentStatus (order.updated when it
 * changes) and move a pending or draft order to processing once money is authorized or captured; an order with
 * nothing to deliver (no line requires shipping) goes on to fulfilled (order.fulfilled).
 */
export async function syncOrderAfterPayment(
  ctx: Ctx,
  orderId: string,
  actor: Actor,
  facts?: OrderPaymentFacts | null,
  /** given: the order's moves are checked and put here, for the caller's next statement to write (writingOrderMoves) */
  opts: { orderMoves?: OrderMove[] } = {},
) {
  // The order, what its payments add up to and whether a line ships: read by the statement that moved the payment
  // (`facts`, payment.machine.ts movePaymentReadingOrder), or here in one statement.
  const o = facts ?? (await ctx.sql.selectNoFrom(orderPaymentFactsJson(sql.val(orderId)).as("facts")).executeTakeFirstOrThrow()).facts;
  const move = async (order: { id: string; status: string }, to: OrderStatus, how: Parameters<typeof orderMove>[3], also?: { paymentStatus?: string }) => {
    if (opts.orderMoves) opts.orderMoves.push(orderMove(ctx, order, to, how, also));
    else await moveOrder(ctx, order, to, how, also);
  };
  if (!o || o.id !== orderId) throw new Error(`syncOrderAfterPayment: no order ${orderId}`);
  const tenant = await tenantOf(ctx, o);
  const moneyIn = o.payments.some((p) => p.capturedAmount > 0 || ["authorized", "captured", "partially_refunded"].includes(p.status));
  const paymentStatus = derivePaymentStatus(o, o.payments);
  let status = o.status;
  if (moneyIn && (o.status === "pending" || o.status === "draft")) {
    await move(o, "processing", { ...actor, source: "payment" }, { paymentStatus });
    status = "processing";
    if (!o.needsShipping) {
      await move({ id: o.id, status }, "fulfilled", { ...actor, source: "fulfillment", reason: "Nothing to deliver" });
      status = "fulfilled";
    }
  } else if (paymentStatus !== o.paymentStatus) {
    await ctx.sql.updateTable("Order").set({ paymentStatus, updatedAt: ctx.clock.now() }).where("id", "=", o.id).execute();
  }
  const data = { orderId: o.id, status, paymentStatus, previousStatus: o.status, previousPaymentStatus: o.paymentStatus };
  // order.updated for every paymentStatus change and a status change without its own event; order.fulfilled on entry
  if (paymentStatus !== o.paymentStatus || (status !== o.status && status !== "fulfilled")) await recordEvent(ctx, tenant, "order.updated", data);
  if (status === "fulfilled" && o.status !== "fulfilled") await recordEvent(ctx, tenant, "order.fulfilled", data);
}

const ORDER_EVENTS = new Set(["order.created", "order.updated", "order.fulfilled", "order.cancelled", "order.closed", "order.held", "order.hold_released", "order.comped", "order.comp_reversed"]);

/** The live stream of one order's order.* events (another tenant's id is 404 before anything is subscribed). */
export async function subscribeOrderUpdates(ctx: Ctx, id: string) {
  requireScope(ctx, "orders:read");
  const order = await getOrder(ctx, id);
  const t = requireTenant(ctx);
  const mine = (e: Envelope) => ORDER_EVENTS.has(e.type) && (e.data as { orderId?: string } | null)?.orderId === order.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
