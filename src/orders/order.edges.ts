// The order's edges in the graph (issue 37), declared here because orders sit above customers, payments and
// subscriptions: Order.customer / .payments / .invoices / .subscription / .timeline, Payment.order, Customer.orders,
// Subscription.orders. Each edge is nullable with its target's read scope (a credential without it gets null and a
// per-field insufficient_scopes error, the rest of the query answers), loads through a per-request DataLoader and
// reads in the target's service, filtered by the caller's tenant. A page of 50 orders costs one statement per edge.
import { CustomerRef, customerEdge } from "../customers/customers.schema";
import { builder } from "../graphql/builder";
import { loader, pagedLoad } from "../graphql/loaders";
import { pageArgs, pageInput } from "../graphql/shared-types";
import { canReadInvoices, invoicesOfOrders, paymentsOfOrders } from "../payments/payment-edges.service";
import { PaymentRef } from "../payments/payments.schema";
import { paymentView } from "../payments/payments.service";
import type { Ctx } from "../shared/context";
import type { Page } from "../shared/pagination";
import { SubscriptionRef } from "../subscriptions/subscriptions.schema";
import { subscriptionsByIds } from "../subscriptions/subscription-edges.service";
import { orderPagesOf, ordersByIds } from "./order-edges.service";
import { TimelinePage } from "./order-reports.schema";
import { OrderPage, OrderRef, orderFilterInput, orderStateFilterArgs, type OrderV } from "./orders.schema";
import { orderView } from "./orders.service";
import { orderTimeline } from "./timeline.service";

/** The edge to an order from a parent holding its id (Payment.order): batched per request. */
export async function orderEdge(ctx: Ctx, id: string | null | undefined): Promise<OrderV | null> {
  if (!id) return null;
  const o = await loader(ctx, "orderById", (ids: string[]) => ordersByIds(ctx, ids)).load(id);
  return o ? orderView(o) : null;
}

type Filters = Record<string, unknown>;

/**
 * A page of orders under a customer or a subscription. The parents of one tick that ask the same filters and page
 * share one read (orderPagesOf: one window-function statement and one for the lines, whatever the parent count).
 */
function ordersUnder(ctx: Ctx, parent: "customerId" | "subscriptionId", id: string, filters: Filters): Promise<Page<OrderV>> {
  return pagedLoad(ctx, `ordersBy:${parent}`, (ids, q: Filters) => orderPagesOf(ctx, parent, ids, q), id, filters).then((p) => ({ items: p.items.map((o) => orderView(o)), pagination: p.pagination }));
}

/** An edge's filter and page arguments as orderPagesOf takes them (dates as ISO strings, nulls dropped). */
function edgeFilters(a: Record<string, unknown>): Filters {
  const { first, after, limit, cursor, ...rest } = a as { first?: number | null; after?: string | null; limit?: number | null; cursor?: string | null } & Record<string, unknown>;
  return { ...orderFilterInput(rest), ...pageInput({ first, after, limit, cursor }) };
}

builder.objectFields(OrderRef, (t) => ({
  customer: t.field({
    type: CustomerRef,
    nullable: true,
    description: "The linked customer (needs customers:read; without it this field alone errors)",
    authScopes: { scope: "customers:read" },
    resolve: (o, _a, ctx) => customerEdge(ctx, o.customerId),
  }),
  payments: t.field({
    type: [PaymentRef],
    nullable: true,
    description: "Its payments, newest first (needs payments:read; without it this field alone errors)",
    authScopes: { scope: "payments:read" },
    resolve: async (o, _a, ctx) => ((await loader(ctx, "paymentsByOrder", (ids: string[]) => paymentsOfOrders(ctx, ids)).load(o.id)) ?? []).map(paymentView),
  }),
  invoices: t.field({
    type: [PaymentRef],
    nullable: true,
    description: "Its issued Net-N invoices (net30 payments with an invoiceNumber), newest first (needs payments:read or invoices:read)",
    authScopes: (_o, _a, ctx) => canReadInvoices(ctx) || { scope: "invoices:read" },
    resolve: async (o, _a, ctx) => ((await loader(ctx, "invoicesByOrder", (ids: string[]) => invoicesOfOrders(ctx, ids)).load(o.id)) ?? []).map(paymentView),
  }),
  subscription: t.field({
    type: SubscriptionRef,
    nullable: true,
    description: "The subscription that renewed into it, if any (needs subscriptions:read)",
    authScopes: { scope: "subscriptions:read" },
    resolve: (o, _a, ctx) => (o.subscriptionId ? loader(ctx, "subscriptionById", (ids: string[]) => subscriptionsByIds(ctx, ids)).load(o.subscriptionId) : null),
  }),
  timeline: t.field({
    type: TimelinePage,
    nullable: true,
    description:
      "Its timeline, newest first (the orderTimeline query; needs orders:read). Costs two statements per order: ask it on one order, not on a list",
    authScopes: { scope: "orders:read" },
    args: pageArgs(t),
    resolve: (o, a, ctx) => orderTimeline(ctx, o.id, pageInput(a)),
  }),
}));

builder.objectFields(PaymentRef, (t) => ({
  order: t.field({
    type: OrderRef,
    nullable: true,
    description: "The order it pays for (needs orders:read; without it this field alone errors)",
    authScopes: { scope: "orders:read" },
    resolve: (p, _a, ctx) => orderEdge(ctx, p.orderId),
  }),
}));

builder.objectFields(CustomerRef, (t) => ({
  orders: t.field({
    type: OrderPage,
    nullable: true,
    description: "The customer's orders, newest first, filtered (needs orders:read); one statement for a whole page of customers",
    authScopes: { scope: "orders:read" },
    args: { ...orderStateFilterArgs(), ...pageArgs(t) },
    resolve: (c, a, ctx) => ordersUnder(ctx, "customerId", c.id, edgeFilters(a)),
  }),
}));

builder.objectFields(SubscriptionRef, (t) => ({
  orders: t.field({
    type: OrderPage,
    nullable: true,
    description: "The orders its renewals made, newest first, filtered (needs orders:read)",
    authScopes: { scope: "orders:read" },
    args: { ...orderStateFilterArgs(), ...pageArgs(t) },
    resolve: (s, a, ctx) => ordersUnder(ctx, "subscriptionId", s.id, edgeFilters(a)),
  }),
}));
