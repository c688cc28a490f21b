// GraphQL for fulfillments and returns: thin callers over fulfillments.service.ts and returns.service.ts; every
// mutation returns the re-read resource (read without the :read scope: the write implies seeing what it wrote).
import { compact, withClears } from "../graphql/args";
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { cancelFulfillment, createFulfillment, findFulfillment, fulfillmentView, type FulfillmentV, getFulfillment, markDelivered, orderFulfillments, updateFulfillment } from "./fulfillments.service";
import { cancelReturn, createReturn, findReturn, getReturn, orderReturns, receiveReturn, returnView, type ReturnV } from "./returns.service";

type FStatus = "pending" | "processing" | "completed" | "cancelled";
type RStatus = "requested" | "received" | "cancelled";

const FulfillmentStatusEnum = describedEnum<FStatus>("FulfillmentStatus", "Where a fulfillment is", {
  pending: "A shipment waiting for its tracking number",
  processing: "Being prepared",
  completed: "Handed over (to the buyer, or to the carrier with a tracking number)",
  cancelled: "Cancelled; its units are free to fulfil again",
});

const ReturnStatusEnum = describedEnum<RStatus>("OrderReturnStatus", "Where a return is", {
  requested: "Asked for; the units have not come back yet",
  received: "The units came back",
  cancelled: "Called off",
});

const LineQuantityRef = builder.objectRef<{ lineItemId: string; quantity: number }>("OrderLineQuantity").implement({
  description: "Units of one order line",
  fields: (t) => ({
    lineItemId: t.exposeID("lineItemId", { description: "The order line" }),
    quantity: t.exposeInt("quantity", { description: "Units" }),
  }),
});

const ShipmentRef = builder.objectRef<NonNullable<FulfillmentV["shipment"]>>("Shipment").implement({
  description: "A fulfillment's shipment: it has left once it has a tracking number, arrived once delivered",
  fields: (t) => ({
    carrier: t.exposeString("carrier", { nullable: true, description: "The carrier's name" }),
    trackingNumber: t.exposeString("trackingNumber", { nullable: true, description: "The carrier's tracking number" }),
    trackingUrl: t.exposeString("trackingUrl", { nullable: true, description: "Where the buyer can follow it" }),
    shippedAt: t.field({ type: "DateTime", nullable: true, description: "When it was handed to the carrier", resolve: (s) => s.shippedAt }),
    deliveredAt: t.field({ type: "DateTime", nullable: true, description: "When it arrived", resolve: (s) => s.deliveredAt }),
  }),
});

export const FulfillmentRef = builder.objectRef<FulfillmentV>("Fulfillment").implement({
  description: "A handover of order units, with an optional shipment",
  fields: (t) => ({
    id: t.exposeID("id"),
    orderId: t.exposeID("orderId", { description: "The order" }),
    status: t.field({ type: FulfillmentStatusEnum, description: "Where it is", resolve: (f) => f.status as FStatus }),
    lineItems: t.field({ type: [LineQuantityRef], description: "Units handed over, per order line", resolve: (f) => f.lineItems }),
    shipment: t.field({ type: ShipmentRef, nullable: true, description: "null for a handover without a shipment", resolve: (f) => f.shipment }),
    note: t.exposeString("note", { nullable: true, description: "Free text" }),
    cancelledAt: t.field({ type: "DateTime", nullable: true, description: "When it was cancelled", resolve: (f) => f.cancelledAt }),
    createdAt: t.field({ type: "DateTime", resolve: (f) => f.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (f) => f.updatedAt }),
  }),
});

export const OrderReturnRef = builder.objectRef<ReturnV>("OrderReturn").implement({
  description: "Units of an order asked back, then received or cancelled",
  fields: (t) => ({
    id: t.exposeID("id"),
    orderId: t.exposeID("orderId", { description: "The order" }),
    status: t.field({ type: ReturnStatusEnum, description: "Where it is", resolve: (r) => r.status as RStatus }),
    reason: t.exposeString("reason", { nullable: true, description: "Why" }),
    lineItems: t.field({ type: [LineQuantityRef], description: "Units asked back, per order line", resolve: (r) => r.lineItems }),
    receivedAt: t.field({ type: "DateTime", nullable: true, description: "When the units came back", resolve: (r) => r.receivedAt }),
    cancelledAt: t.field({ type: "DateTime", nullable: true, description: "When it was cancelled", resolve: (r) => r.cancelledAt }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

const LineQuantityInput = builder.inputType("OrderLineQuantityInput", {
  description: "Units of one order line",
  fields: (t) => ({
    lineItemId: t.id({ required: true, description: "The order line" }),
    quantity: t.int({ required: true, description: "Units, at least 1" }),
  }),
});

const ShipmentInput = builder.inputType("ShipmentInput", {
  description: "A shipment; a tracking number means it has left",
  fields: (t) => ({
    carrier: t.string({ description: "The carrier's name" }),
    trackingNumber: t.string({ description: "The carrier's tracking number" }),
    trackingUrl: t.string({ description: "http(s) URL where the buyer can follow it" }),
  }),
});

const lines = (l: { lineItemId: string | number; quantity: number }[]) => l.map((x) => ({ lineItemId: String(x.lineItemId), quantity: x.quantity }));
const orderId = "The order's id";

builder.queryFields((t) => ({
  fulfillment: t.field({
    type: FulfillmentRef,
    description: "A fulfillment",
    authScopes: { scope: "fulfillments:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => fulfillmentView(await getFulfillment(ctx, String(a.id))),
  }),
  orderFulfillments: t.field({
    type: [FulfillmentRef],
    description: "An order's fulfillments, oldest first",
    authScopes: { scope: "fulfillments:read" },
    args: { orderId: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => (await orderFulfillments(ctx, String(a.orderId))).map(fulfillmentView),
  }),
  orderReturn: t.field({
    type: OrderReturnRef,
    description: "A return",
    authScopes: { scope: "order_returns:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => returnView(await getReturn(ctx, String(a.id))),
  }),
  orderReturns: t.field({
    type: [OrderReturnRef],
    description: "An order's returns, oldest first",
    authScopes: { scope: "order_returns:read" },
    args: { orderId: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => (await orderReturns(ctx, String(a.orderId))).map(returnView),
  }),
}));

builder.mutationFields((t) => ({
  createFulfillment: t.field({
    type: FulfillmentRef,
    description: "Hands over units of an order (completed), or ships them (pending until the shipment has a tracking number)",
    authScopes: { scope: "fulfillments:write" },
    args: {
      orderId: t.arg.id({ required: true, description: orderId }),
      lineItems: t.arg({ type: [LineQuantityInput], required: true, description: "Units per order line" }),
      shipment: t.arg({ type: ShipmentInput, description: "Ship instead of hand over" }),
      note: t.arg.string({ description: "Free text" }),
    },
    resolve: async (_r, a, ctx) => {
      const f = await createFulfillment(ctx, String(a.orderId), compact({ lineItems: lines(a.lineItems), shipment: a.shipment ? compact(a.shipment) : null, note: a.note }));
      return fulfillmentView(await findFulfillment(ctx, f.id));
    },
  }),
  updateFulfillment: t.field({
    type: FulfillmentRef,
    description: "Changes the shipment; the first tracking number completes it (shipped). null clears carrier or trackingUrl",
    authScopes: { scope: "fulfillments:write" },
    args: { id: t.arg.id({ required: true }), shipment: t.arg({ type: ShipmentInput, required: true, description: "What changes" }) },
    resolve: async (_r, a, ctx) => {
      const f = await updateFulfillment(ctx, String(a.id), { shipment: withClears(a.shipment as Record<string, unknown>, ["carrier", "trackingUrl"]) });
      return fulfillmentView(await findFulfillment(ctx, f.id));
    },
  }),
  markFulfillmentDelivered: t.field({
    type: FulfillmentRef,
    description: "Records arrival (completing a pending shipment first); allowed on a held order",
    authScopes: { scope: "fulfillments:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => fulfillmentView(await findFulfillment(ctx, (await markDelivered(ctx, String(a.id))).id)),
  }),
  cancelFulfillment: t.field({
    type: FulfillmentRef,
    description: "Cancels a fulfillment: its units are free to fulfil again and the order's status follows",
    authScopes: { scope: "fulfillments:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => fulfillmentView(await findFulfillment(ctx, (await cancelFulfillment(ctx, String(a.id))).id)),
  }),
  createOrderReturn: t.field({
    type: OrderReturnRef,
    description: "Asks back fulfilled units of an order (requested)",
    authScopes: { scope: "order_returns:write" },
    args: {
      orderId: t.arg.id({ required: true, description: orderId }),
      lineItems: t.arg({ type: [LineQuantityInput], required: true, description: "Units per order line" }),
      reason: t.arg.string({ description: "Why" }),
    },
    resolve: async (_r, a, ctx) => returnView(await findReturn(ctx, (await createReturn(ctx, String(a.orderId), compact({ lineItems: lines(a.lineItems), reason: a.reason }))).id)),
  }),
  receiveOrderReturn: t.field({
    type: OrderReturnRef,
    description: "The units came back (requested -> received)",
    authScopes: { scope: "order_returns:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => returnView(await findReturn(ctx, (await receiveReturn(ctx, String(a.id))).id)),
  }),
  cancelOrderReturn: t.field({
    type: OrderReturnRef,
    description: "Cancels a requested return",
    authScopes: { scope: "order_returns:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => returnView(await findReturn(ctx, (await cancelReturn(ctx, String(a.id))).id)),
  }),
}));
