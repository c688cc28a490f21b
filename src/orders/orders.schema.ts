// GraphQL for orders: reads, status history, capture, and the live orderUpdated(id). Payments are in
// payments.schema.ts; Order.payments and orderPayments reuse its Payment type.
import { compact } from "../graphql/args";
import { LineItemTypeEnum } from "../carts/carts.schema";
import { liveItem } from "../events/events.service";
import type { OrderStatusHistory } from "../generated/prisma/client";
import { builder } from "../graphql/builder";
import { AddressRef, describedEnum, pageOf, pageArgs, pageInput } from "../graphql/shared-types";
import { ShippingRateRef } from "../carts/carts.schema";
import { PaymentRef, type PaymentV } from "../payments/payments.schema";
import { captureOrderPayments, paymentView } from "../payments/payments.service";
import type { Address } from "../shared/address";
import type { SelectedShipping } from "../carts/carts.service";
import type { Actor, ORDER_STATUSES, OrderStatus } from "./order.machine";
import { getOrder, listOrders, orderPayments, orderStatusHistory, orderView, type PAYMENT_STATUSES, subscribeOrderUpdates } from "./orders.service";

export type OrderV = ReturnType<typeof orderView>;
type OrderPaymentStatus = (typeof PAYMENT_STATUSES)[number];
type ChangeSource = "manual" | "state_machine" | "fulfillment" | "payment" | "migration";

export const OrderStatusEnum = describedEnum<(typeof ORDER_STATUSES)[number]>("OrderStatus", "Where an order is in fulfilment", {
  draft: "Being prepared; not yet placed",
  pending: "Placed; payment not settled",
  processing: "Paid (or invoiced) and being fulfilled",
  partially_fulfilled: "Some items delivered",
  fulfilled: "Everything delivered",
  cancelled: "Cancelled before fulfilment",
  closed: "Finished; no further changes",
});

export const OrderPaymentStatusEnum = describedEnum<OrderPaymentStatus>("OrderPaymentStatus", "Where an order's money is, summed over its payments", {
  pending: "Nothing settled yet",
  authorized: "Held (or invoiced), not collected",
  processing: "Waiting on the buyer or processor (e.g. 3-D Secure)",
  partially_paid: "Part collected",
  captured: "Collected in full",
  partially_refunded: "Collected, part refunded",
  refunded: "Refunded in full",
  failed: "The payment failed",
  voided: "The authorization was released",
  disputed: "The buyer disputes a payment",
  expired: "The authorization lapsed",
});

type OrderSource = "checkout" | "draft" | "quote" | "import" | "renewal";
const OrderSourceEnum = describedEnum<OrderSource>("OrderSource", "Where an order came from", {
  checkout: "A completed checkout session",
  draft: "A draft order created by the merchant",
  quote: "An accepted quote's checkout",
  import: "A bulk import",
  renewal: "A subscription renewal",
});

export const ActorTypeEnum = describedEnum<Actor["actorType"]>("ActorType", "Who made a change", {
  user: "A dashboard member",
  system: "The service itself (jobs, state machines)",
  integration: "An API key",
});

const ChangeSourceEnum = describedEnum<ChangeSource>("OrderChangeSource", "What caused an order's status change", {
  manual: "A direct request",
  state_machine: "A rule of the order's life cycle",
  fulfillment: "A fulfilment update",
  payment: "A payment settling",
  migration: "A data import",
});

const StatusChangeRef = builder.objectRef<OrderStatusHistory>("OrderStatusChange").implement({
  description: "One move of an order's status",
  fields: (t) => ({
    fromStatus: t.field({ type: OrderStatusEnum, nullable: true, description: "Before; null for the first entry", resolve: (h) => h.fromStatus as OrderStatus | null }),
    toStatus: t.field({ type: OrderStatusEnum, description: "After", resolve: (h) => h.toStatus as OrderStatus }),
    actorType: t.field({ type: ActorTypeEnum, description: "Who made it", resolve: (h) => h.actorType as Actor["actorType"] }),
    actorId: t.exposeString("actorId", { nullable: true, description: "The member or key id, when there is one" }),
    reason: t.exposeString("reason", { nullable: true, description: "Why, when given" }),
    source: t.field({ type: ChangeSourceEnum, description: "What caused it", resolve: (h) => h.source as ChangeSource }),
    createdAt: t.field({ type: "DateTime", resolve: (h) => h.createdAt }),
  }),
});

const OrderLine = builder.objectRef<OrderV["lineItems"][number]>("OrderLineItem").implement({
  description: "One line of an order, copied from the cart when it was placed",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.field({ type: LineItemTypeEnum, description: "What the line sells", resolve: (l) => l.type as never }),
    referenceId: t.exposeString("referenceId", { nullable: true, description: "Your product or SKU id" }),
    name: t.exposeString("name", { description: "What the buyer saw" }),
    description: t.exposeString("description", { nullable: true, description: "Longer text under the name" }),
    unitPrice: t.exposeInt("unitPrice", { description: "Price of one unit in minor units" }),
    quantity: t.exposeInt("quantity", { description: "Units" }),
    taxAmount: t.exposeInt("taxAmount", { description: "Tax on this line in minor units" }),
    discountAmount: t.exposeInt("discountAmount", { description: "Discount on this line in minor units" }),
    total: t.exposeInt("total", { description: "unitPrice × quantity, in minor units" }),
    requiresShipping: t.exposeBoolean("requiresShipping", { description: "Whether it is shipped" }),
    imageUrl: t.exposeString("imageUrl", { nullable: true, description: "Absolute image URL" }),
    metadata: t.field({ type: "JSON", resolve: (l) => l.metadata }),
  }),
});

const FulfillmentSummary = builder.objectRef<OrderV["fulfillmentSummary"]>("OrderFulfillmentSummary").implement({
  description: "How many units are delivered",
  fields: (t) => ({
    itemsTotal: t.exposeInt("itemsTotal", { description: "Units ordered" }),
    itemsFulfilled: t.exposeInt("itemsFulfilled", { description: "Units delivered" }),
    itemsRemaining: t.exposeInt("itemsRemaining", { description: "Units still to deliver" }),
  }),
});

export const OrderRef = builder.objectRef<OrderV>("Order").implement({
  description: "What a buyer bought: lines, totals and payments, made by completing a checkout session",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: OrderStatusEnum, description: "Where it is in fulfilment", resolve: (o) => o.status as OrderStatus }),
    paymentStatus: t.field({ type: OrderPaymentStatusEnum, description: "Where its money is", resolve: (o) => o.paymentStatus as OrderPaymentStatus }),
    displayStatus: t.exposeString("displayStatus", { description: "A human label: the status and at most one qualifier (comp, then money, then goods), e.g. \"Fulfilled · Delivered\"; not for logic" }),
    currency: t.exposeString("currency"),
    email: t.exposeString("email", { nullable: true, description: "The buyer's email" }),
    customerId: t.exposeID("customerId", { nullable: true, description: "The linked customer" }),
    checkoutSessionId: t.exposeID("checkoutSessionId", { nullable: true, description: "The session that made it" }),
    cartId: t.exposeID("cartId", { nullable: true, description: "The cart it was made from" }),
    lineItems: t.field({ type: [OrderLine], description: "Lines, in cart order", resolve: (o) => o.lineItems }),
    subtotal: t.exposeInt("subtotal", { description: "Sum of unitPrice × quantity, minor units" }),
    shippingTotal: t.exposeInt("shippingTotal", { description: "Shipping, minor units" }),
    taxTotal: t.exposeInt("taxTotal", { description: "Tax, minor units" }),
    discountTotal: t.exposeInt("discountTotal", { description: "Discounts, minor units" }),
    total: t.exposeInt("total", { description: "subtotal - discountTotal + shippingTotal + taxTotal" }),
    compAmount: t.exposeInt("compAmount", { description: "Amount given free of charge, minor units" }),
    fulfillmentSummary: t.field({ type: FulfillmentSummary, description: "Units handed over so far (lines with nothing to deliver excluded)", resolve: (o) => o.fulfillmentSummary }),
    deliveryState: t.string({
      nullable: true,
      description: "Where the goods are, derived from shipments and returns: in_transit, delivered, partially_returned, returned; null when nothing shipped or nothing is left",
      resolve: (o) => o.deliveryState,
    }),
    compReason: t.exposeString("compReason", { nullable: true, description: "Why the balance was waived (when compAmount > 0)" }),
    compedAt: t.field({ type: "DateTime", nullable: true, description: "When the balance was waived", resolve: (o) => o.compedAt }),
    discountCode: t.exposeString("discountCode", { nullable: true, description: "The discount code this order redeemed" }),
    shippingAddress: t.field({ type: AddressRef, nullable: true, description: "Where it ships", resolve: (o) => o.shippingAddress as Address | null }),
    billingAddress: t.field({ type: AddressRef, nullable: true, description: "Billing address", resolve: (o) => o.billingAddress as Address | null }),
    selectedShipping: t.field({ type: ShippingRateRef, nullable: true, description: "The shipping rate chosen at checkout", resolve: (o) => o.selectedShipping as SelectedShipping | null }),
    notes: t.exposeString("notes", { nullable: true, description: "Free text" }),
    metadata: t.field({ type: "JSON", resolve: (o) => o.metadata }),
    capturedAmount: t.int({ nullable: true, description: "Collected over its payments, minor units (single-order reads only, null in lists)", resolve: (o) => o.capturedAmount ?? null }),
    refundedAmount: t.int({ nullable: true, description: "Refunded over its payments, minor units (single-order reads only, null in lists)", resolve: (o) => o.refundedAmount ?? null }),
    onHold: t.exposeBoolean("onHold", { description: "Whether fulfilment is paused" }),
    holdReason: t.exposeString("holdReason", { nullable: true, description: "Why it is on hold" }),
    heldAt: t.field({ type: "DateTime", nullable: true, description: "When it was put on hold", resolve: (o) => o.heldAt }),
    heldBy: t.exposeString("heldBy", { nullable: true, description: "Who put it on hold" }),
    subscriptionId: t.exposeID("subscriptionId", { nullable: true, description: "The subscription that renewed into it, if any" }),
    source: t.field({ type: OrderSourceEnum, nullable: true, description: "Where it came from; null for orders placed before this was recorded", resolve: (o) => (o.source as OrderSource | null) ?? null }),
    cancelledAt: t.field({ type: "DateTime", nullable: true, description: "When it was cancelled", resolve: (o) => o.cancelledAt }),
    closedAt: t.field({ type: "DateTime", nullable: true, description: "When it was closed", resolve: (o) => o.closedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (o) => o.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (o) => o.updatedAt }),
  }),
});

export const OrderPage = pageOf<OrderV>("OrderPage", OrderRef, "orders");
const orderId = "The order's id";

const DeliveryEnum = describedEnum<"not_shipped" | "in_transit" | "delivered" | "returned">("DeliveryState", "Where an order's shipments are", {
  not_shipped: "Nothing shipped yet",
  in_transit: "A shipment is on its way",
  delivered: "Shipments delivered",
  returned: "Shipments came back",
});

/** The state and date filters of every order list (orders, ordersExport, Customer.orders, Subscription.orders). */
export const orderStateFilterArgs = () =>
  builder.args((t) => ({
    status: t.field({ type: OrderStatusEnum, description: "Only this status" }),
    paymentStatus: t.field({ type: OrderPaymentStatusEnum, description: "Only this payment status" }),
    delivery: t.field({ type: DeliveryEnum, description: "Only orders whose shipments are here" }),
    createdAfter: t.field({ type: "DateTime", description: "Only orders created at or after this time" }),
    createdBefore: t.field({ type: "DateTime", description: "Only orders created before this time" }),
  }));

/** Filter arguments as the services' query takes them: nulls dropped, DateTimes as ISO strings, ids as strings. */
export function orderFilterInput(a: Record<string, unknown>): Record<string, unknown> {
  const out = compact(a) as Record<string, unknown>;
  for (const [k, v] of Object.entries(out)) if (v instanceof Date) out[k] = v.toISOString();
  if (out.customerId !== undefined) out.customerId = String(out.customerId);
  return out;
}

/** The orders query's filters (ordersExport takes the same), built afresh for each field that declares them. */
export const orderFilterArgs = () => ({
  ...orderStateFilterArgs(),
  ...builder.args((t) => ({
    q: t.string({ description: "Search: email or line name contains it, or the order id" }),
    customerId: t.id({ description: "Only this customer's" }),
  })),
});

builder.queryFields((t) => ({
  order: t.field({
    type: OrderRef,
    description: "One order, with its captured and refunded amounts",
    authScopes: { scope: "orders:read" },
    args: { id: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => orderView(await getOrder(ctx, String(a.id)), { single: true }),
  }),
  orders: t.field({
    type: OrderPage,
    description: "Orders, newest first, filtered",
    authScopes: { scope: "orders:read" },
    args: {
      ...orderFilterArgs(),
      ...pageArgs(t),
    },
    resolve: async (_r, { first, after, limit, cursor, ...a }, ctx) => {
      const p = await listOrders(ctx, { ...orderFilterInput(a), ...pageInput({ first, after, limit, cursor }) });
      return { items: p.items.map((o) => orderView(o)), pagination: p.pagination };
    },
  }),
  orderPayments: t.field({
    type: [PaymentRef],
    description: "An order's payments, newest first (also Order.payments)",
    authScopes: { scope: "payments:read" },
    args: { orderId: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx): Promise<PaymentV[]> => (await orderPayments(ctx, String(a.orderId))).map(paymentView),
  }),
  orderStatusHistory: t.field({
    type: [StatusChangeRef],
    description: "An order's status changes, oldest first",
    authScopes: { scope: "orders:read" },
    args: { orderId: t.arg.id({ required: true, description: orderId }) },
    resolve: (_r, a, ctx) => orderStatusHistory(ctx, String(a.orderId)),
  }),
}));

builder.mutationFields((t) => ({
  captureOrder: t.field({
    type: OrderRef,
    description: "Captures every authorized payment of the order",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => orderView(await getOrder(ctx, await captureOrderPayments(ctx, String(a.id))), { single: true }),
  }),
}));

builder.subscriptionFields((t) => ({
  orderUpdated: t.field({
    type: OrderRef,
    description: "The order: its current state first, then re-read after each of its order.* events",
    authScopes: { scope: "orders:read" },
    args: { id: t.arg.id({ required: true, description: orderId }) },
    subscribe: (_r, a, ctx) => subscribeOrderUpdates(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return orderView(await getOrder(ctx, String(a.id)), { single: true });
    },
  }),
}));
