// GraphQL for orders and payments: reads, capture/refund/mark-failed, and the live orderUpdated(id).
import { liveItem } from "../events/events.service";
import { builder, PageInfo } from "../graphql/builder";
import type { OrderStatusHistory, Transaction } from "../generated/prisma/client";
import {
  capturePayment,
  captureOrderPayments,
  getPayment,
  listPayments,
  markPaymentFailed,
  paymentTransactions,
  paymentView,
  refundPayment,
  resolveTestPayment,
} from "../payments/payments.service";
import { compact } from "../carts/carts.schema";
import { getOrder, listOrders, orderPayments, orderStatusHistory, orderView, subscribeOrderUpdates } from "./orders.service";

type OrderV = ReturnType<typeof orderView>;
type PaymentV = ReturnType<typeof paymentView>;

const PaymentRef = builder.objectRef<PaymentV>("Payment").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    orderId: t.exposeID("orderId", { nullable: true }),
    status: t.exposeString("status"),
    amount: t.exposeInt("amount"),
    currency: t.exposeString("currency"),
    method: t.exposeString("method"),
    processor: t.exposeString("processor"),
    authorizedAmount: t.exposeInt("authorizedAmount"),
    capturedAmount: t.exposeInt("capturedAmount"),
    refundedAmount: t.exposeInt("refundedAmount"),
    error: t.field({ type: "JSON", nullable: true, resolve: (p) => p.error }),
    disputed: t.exposeBoolean("disputed"),
    disputeReason: t.exposeString("disputeReason", { nullable: true }),
    disputeOpenedAt: t.field({ type: "DateTime", nullable: true, resolve: (p) => p.disputeOpenedAt }),
    netN: t.int({ nullable: true, description: "Net-N terms in days (REST: net_n)", resolve: (p) => p.net_n }),
    netNSource: t.exposeString("netNSource", { nullable: true }),
    metadata: t.field({ type: "JSON", resolve: (p) => p.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (p) => p.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (p) => p.updatedAt }),
  }),
});

const TransactionRef = builder.objectRef<Transaction>("PaymentTransaction").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    paymentId: t.exposeID("paymentId"),
    type: t.exposeString("type"),
    status: t.exposeString("status"),
    amount: t.exposeInt("amount"),
    currency: t.exposeString("currency"),
    createdAt: t.field({ type: "DateTime", resolve: (x) => x.createdAt }),
  }),
});

const StatusChangeRef = builder.objectRef<OrderStatusHistory>("OrderStatusChange").implement({
  fields: (t) => ({
    fromStatus: t.exposeString("fromStatus", { nullable: true }),
    toStatus: t.exposeString("toStatus"),
    actorType: t.exposeString("actorType"),
    actorId: t.exposeString("actorId", { nullable: true }),
    reason: t.exposeString("reason", { nullable: true }),
    source: t.exposeString("source"),
    createdAt: t.field({ type: "DateTime", resolve: (h) => h.createdAt }),
  }),
});

const OrderLine = builder.objectRef<OrderV["lineItems"][number]>("OrderLineItem").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type"),
    referenceId: t.exposeString("referenceId", { nullable: true }),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    unitPrice: t.exposeInt("unitPrice"),
    quantity: t.exposeInt("quantity"),
    taxAmount: t.exposeInt("taxAmount"),
    discountAmount: t.exposeInt("discountAmount"),
    total: t.exposeInt("total"),
    requiresShipping: t.exposeBoolean("requiresShipping"),
    imageUrl: t.exposeString("imageUrl", { nullable: true }),
    metadata: t.field({ type: "JSON", resolve: (l) => l.metadata }),
  }),
});

const FulfillmentSummary = builder.objectRef<OrderV["fulfillmentSummary"]>("OrderFulfillmentSummary").implement({
  fields: (t) => ({ itemsTotal: t.exposeInt("itemsTotal"), itemsFulfilled: t.exposeInt("itemsFulfilled"), itemsRemaining: t.exposeInt("itemsRemaining") }),
});

const OrderRef = builder.objectRef<OrderV>("Order").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status"),
    paymentStatus: t.exposeString("paymentStatus"),
    displayStatus: t.exposeString("displayStatus"),
    currency: t.exposeString("currency"),
    email: t.exposeString("email", { nullable: true }),
    customerId: t.exposeID("customerId", { nullable: true }),
    checkoutSessionId: t.exposeID("checkoutSessionId", { nullable: true }),
    cartId: t.exposeID("cartId", { nullable: true }),
    lineItems: t.field({ type: [OrderLine], resolve: (o) => o.lineItems }),
    subtotal: t.exposeInt("subtotal"),
    shippingTotal: t.exposeInt("shippingTotal"),
    taxTotal: t.exposeInt("taxTotal"),
    discountTotal: t.exposeInt("discountTotal"),
    total: t.exposeInt("total"),
    compAmount: t.exposeInt("compAmount"),
    fulfillmentSummary: t.field({ type: FulfillmentSummary, resolve: (o) => o.fulfillmentSummary }),
    shippingAddress: t.field({ type: "JSON", nullable: true, resolve: (o) => o.shippingAddress }),
    billingAddress: t.field({ type: "JSON", nullable: true, resolve: (o) => o.billingAddress }),
    selectedShipping: t.field({ type: "JSON", nullable: true, resolve: (o) => o.selectedShipping }),
    notes: t.exposeString("notes", { nullable: true }),
    metadata: t.field({ type: "JSON", resolve: (o) => o.metadata }),
    capturedAmount: t.int({ nullable: true, description: "single-order reads only", resolve: (o) => o.capturedAmount ?? null }),
    refundedAmount: t.int({ nullable: true, description: "single-order reads only", resolve: (o) => o.refundedAmount ?? null }),
    onHold: t.exposeBoolean("onHold"),
    holdReason: t.exposeString("holdReason", { nullable: true }),
    heldAt: t.field({ type: "DateTime", nullable: true, resolve: (o) => o.heldAt }),
    heldBy: t.exposeString("heldBy", { nullable: true }),
    subscriptionId: t.exposeID("subscriptionId", { nullable: true }),
    payments: t.field({ type: [PaymentRef], resolve: async (o, _a, ctx) => (await orderPayments(ctx, o.id)).map(paymentView) }),
    createdAt: t.field({ type: "DateTime", resolve: (o) => o.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (o) => o.updatedAt }),
  }),
});

const page = <T>(name: string, node: any) =>
  builder.objectRef<{ items: T[]; pagination: { cursor: string | null; hasMore: boolean } }>(name).implement({
    fields: (t) => ({ nodes: t.field({ type: [node], resolve: (p) => p.items as any }), pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pagination }) }),
  });
const OrderPage = page<OrderV>("OrderPage", OrderRef);
const PaymentPage = page<PaymentV>("PaymentPage", PaymentRef);

builder.queryFields((t) => ({
  order: t.field({ type: OrderRef, authScopes: { scope: "orders:read" }, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => orderView(await getOrder(ctx, String(a.id)), { single: true }) }),
  orders: t.field({
    type: OrderPage,
    authScopes: { scope: "orders:read" },
    args: { status: t.arg.string(), paymentStatus: t.arg.string(), q: t.arg.string(), customerId: t.arg.id(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => {
      const p = await listOrders(ctx, compact({ ...a, customerId: a.customerId ? String(a.customerId) : null }));
      return { items: p.items.map((o) => orderView(o)), pagination: p.pagination };
    },
  }),
  orderPayments: t.field({
    type: [PaymentRef],
    description: "Newest first (also Order.payments)",
    authScopes: { scope: "payments:read" },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => (await orderPayments(ctx, String(a.orderId))).map(paymentView),
  }),
  orderStatusHistory: t.field({
    type: [StatusChangeRef],
    description: "Oldest first",
    authScopes: { scope: "orders:read" },
    args: { orderId: t.arg.id({ required: true }) },
    resolve: (_r, a, ctx) => orderStatusHistory(ctx, String(a.orderId)),
  }),
  paymentTransactions: t.field({
    type: [TransactionRef],
    description: "Oldest first",
    authScopes: { scope: "payments:read" },
    args: { paymentId: t.arg.id({ required: true }) },
    resolve: (_r, a, ctx) => paymentTransactions(ctx, String(a.paymentId)),
  }),
  payment: t.field({ type: PaymentRef, authScopes: { scope: "payments:read" }, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => paymentView(await getPayment(ctx, String(a.id))) }),
  payments: t.field({
    type: PaymentPage,
    authScopes: { scope: "payments:read" },
    args: { method: t.arg.string(), status: t.arg.stringList(), orderId: t.arg.id(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, a, ctx) => {
      const p = await listPayments(ctx, compact({ method: a.method, status: a.status, order_id: a.orderId ? String(a.orderId) : null, limit: a.limit, cursor: a.cursor }));
      return { items: p.items.map(paymentView), pagination: p.pagination };
    },
  }),
}));

builder.mutationFields((t) => ({
  captureOrder: t.field({
    type: OrderRef,
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => orderView(await getOrder(ctx, await captureOrderPayments(ctx, String(a.id))), { single: true }),
  }),
  capturePayment: t.field({ type: PaymentRef, authScopes: { scope: "payments:write" }, args: { id: t.arg.id({ required: true }), amount: t.arg.int() }, resolve: async (_r, a, ctx) => paymentView(await capturePayment(ctx, String(a.id), compact({ amount: a.amount }))) }),
  refundPayment: t.field({ type: PaymentRef, authScopes: { scope: "payment_refunds:write" }, args: { id: t.arg.id({ required: true }), amount: t.arg.int() }, resolve: async (_r, a, ctx) => paymentView(await refundPayment(ctx, String(a.id), compact({ amount: a.amount }))) }),
  resolveTestPayment: t.field({
    type: PaymentRef,
    description: "Test processor, non-production only: settles a processing (3-D Secure) payment",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true }), outcome: t.arg.string({ required: true, description: "authorized | captured | failed" }) },
    resolve: async (_r, a, ctx) => paymentView(await resolveTestPayment(ctx, String(a.id), { outcome: a.outcome })),
  }),
  markPaymentFailed: t.field({ type: PaymentRef, authScopes: { scope: "payments:write" }, args: { id: t.arg.id({ required: true }), reason: t.arg.string({ required: true }) }, resolve: async (_r, a, ctx) => paymentView(await markPaymentFailed(ctx, String(a.id), { reason: a.reason })) }),
}));

builder.subscriptionFields((t) => ({
  orderUpdated: t.field({
    type: OrderRef,
    description: "The order: its current state first, then re-read after each of its order.* events",
    authScopes: { scope: "orders:read" },
    args: { id: t.arg.id({ required: true }) },
    subscribe: (_r, a, ctx) => subscribeOrderUpdates(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return orderView(await getOrder(ctx, String(a.id)), { single: true });
    },
  }),
}));
