// Subscription.orderEvents: the live list a dashboard's order list view keeps current (order-events.service.ts).
import { liveItem } from "../events/events.service";
import { builder } from "../graphql/builder";
import { OrderPaymentStatusEnum, OrderRef, OrderStatusEnum } from "./orders.schema";
import { type OrderEventItem, subscribeOrderEvents } from "./order-events.service";

const OrderEventRef = builder.objectRef<OrderEventItem>("OrderEvent").implement({
  description: "A change to one of the tenant's orders, with the order as it is after it",
  fields: (t) => ({
    type: t.exposeString("type", { description: "The event's type (order.created, order.fulfilled, …; Query.eventTypes lists them)" }),
    eventId: t.exposeID("eventId", { description: "The event's id (Query.event reads it, webhooks carry the same id)" }),
    occurredAt: t.field({ type: "DateTime", description: "When the event was recorded", resolve: (e) => e.occurredAt }),
    order: t.field({ type: OrderRef, description: "The order, read again when the event arrived", resolve: (e) => e.order }),
  }),
});

const OrderEventsFilterInput = builder.inputType("OrderEventsFilter", {
  description: "Which orders' changes to deliver; every field narrows, none delivers every order of the tenant",
  fields: (t) => ({
    status: t.field({ type: OrderStatusEnum, description: "Only orders in this status after the change" }),
    paymentStatus: t.field({ type: OrderPaymentStatusEnum, description: "Only orders with this payment status after the change" }),
    customerId: t.id({ description: "Only this customer's orders" }),
  }),
});

builder.subscriptionFields((t) => ({
  orderEvents: t.field({
    type: OrderEventRef,
    description: "The tenant's orders as they change: one item per order.* event whose order matches the filter, for a list view (orderUpdated follows one order)",
    authScopes: { scope: "orders:read" },
    args: { filter: t.arg({ type: OrderEventsFilterInput, description: "Narrows the orders delivered" }) },
    subscribe: (_r, a, ctx) =>
      subscribeOrderEvents(ctx, { status: a.filter?.status ?? null, paymentStatus: a.filter?.paymentStatus ?? null, customerId: a.filter?.customerId ? String(a.filter.customerId) : null }),
    resolve: (e) => liveItem(e as OrderEventItem),
  }),
}));
