// Response shapes of orders, their status history, fulfillments, returns and timeline (see ./schemas.ts).
import { z } from "zod";
import { Address, lineFields, metadata, orNull as nullable, ShippingRate, totals } from "./common-schemas";

const id = z.uuid();
const ts = z.iso.datetime();
const money = z.number().int();

export const Order = z
  .object({
    id,
    status: z.string(),
    paymentStatus: z.string(),
    displayStatus: z.string(),
    currency: z.string(),
    customerId: id.nullable(),
    email: z.string().nullable(),
    checkoutSessionId: id.nullable(),
    cartId: id.nullable(),
    lineItems: z.array(z.object(lineFields)),
    ...totals,
    compAmount: money,
    fulfillmentSummary: z.object({ itemsTotal: z.number().int(), itemsFulfilled: z.number().int(), itemsRemaining: z.number().int() }),
    deliveryState: z.enum(["in_transit", "delivered", "partially_returned", "returned"]).nullable(),
    compReason: z.string().nullable(),
    compedAt: ts.nullable(),
    discountCode: z.string().nullable(),
    shippingAddress: nullable(Address),
    billingAddress: nullable(Address),
    selectedShipping: nullable(ShippingRate),
    notes: z.string().nullable(),
    metadata,
    onHold: z.boolean(),
    holdReason: z.string().nullable(),
    heldAt: ts.nullable(),
    heldBy: z.string().nullable(),
    subscriptionId: z.string().nullable(),
    source: z.string().nullable().meta({ description: "Where the order came from: checkout, draft, import, subscription, ..." }),
    cancelledAt: ts.nullable(),
    closedAt: ts.nullable(),
    capturedAmount: money.optional().meta({ description: "single-order reads only" }),
    refundedAmount: money.optional().meta({ description: "single-order reads only" }),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Order" });

export const StatusChange = z
  .object({ fromStatus: z.string().nullable(), toStatus: z.string(), actorType: z.string(), actorId: z.string().nullable(), reason: z.string().nullable(), source: z.string(), createdAt: ts })
  .meta({ id: "OrderStatusChange" });

const lineQuantity = z.object({ lineItemId: id, quantity: z.number().int().min(1) });

export const Fulfillment = z
  .object({
    id,
    orderId: id,
    status: z.enum(["pending", "processing", "completed", "cancelled"]),
    lineItems: z.array(lineQuantity),
    shipment: z
      .object({ carrier: z.string().nullable(), trackingNumber: z.string().nullable(), trackingUrl: z.string().nullable(), shippedAt: ts.nullable(), deliveredAt: ts.nullable() })
      .nullable()
      .meta({ description: "null for a handover without a shipment" }),
    note: z.string().nullable(),
    cancelledAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Fulfillment" });

export const OrderReturn = z
  .object({
    id,
    orderId: id,
    status: z.enum(["requested", "received", "cancelled"]),
    reason: z.string().nullable(),
    lineItems: z.array(lineQuantity),
    receivedAt: ts.nullable(),
    cancelledAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "OrderReturn" });

export const TimelineRow = z
  .object({
    id,
    at: ts,
    kind: z.enum(["status", "payment", "fulfillment", "hold"]),
    title: z.string().meta({ description: "A short English sentence" }),
    source: z.string(),
    detail: z.string().optional(),
    amount: money.optional(),
    currency: z.string().optional(),
    actorType: z.string().optional(),
    actorName: z.string().optional(),
    reason: z.string().optional(),
    subscriptionId: z.string().optional().meta({ description: "refund rows of a subscription's order" }),
  })
  .strict()
  .meta({ id: "OrderTimelineRow" });
