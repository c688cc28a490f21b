// The order row lock every fulfillment and return change takes first, the quantities they keep on the order's
// lines, and the recompute of the order's status and deliveryState that follows each change.
import { sql } from "kysely";
import { z } from "zod";
import { recordEvent, tenantOf } from "../events/events.service";
import type { OrderLineItem } from "../generated/prisma/client";
import { actorOf } from "../shared/actor";
import { assertNotOnHold } from "../orders/holds.service";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import type { ActivityRow } from "../orders/activity";
import { type Actor, moveOrder, type OrderStatus } from "../orders/order.machine";
import type { Tenant } from "../shared/principal";
import { isUuid } from "../shared/ids";

export interface LockedOrder {
  id: string;
  applicationId: string;
  environmentId: string;
  status: string;
  onHold: boolean;
  holdReason: string | null;
  deliveryState: string | null;
  customerId: string | null;
  customerEmail: string | null;
}

/**
 * SELECT … FOR UPDATE on the order (tenant-checked: another tenant's id is 404), with the customer's email for
 * event payloads. Every change of fulfilled or returned quantities runs under this lock, so two concurrent
 * fulfillments of one order queue here and the second sees the first's quantities.
 */
export async function lockOrder(ctx: Ctx, t: Pick<Tenant, "applicationId" | "environmentId">, id: string): Promise<LockedOrder> {
  if (!isUuid(id)) throw errors.notFound("Order");
  const row = await ctx.sql
    .selectFrom("Order as o")
    .leftJoin("Customer as c", "c.id", "o.customerId")
    .select(["o.id", "o.applicationId", "o.environmentId", "o.status", "o.onHold", "o.holdReason", "o.deliveryState", "o.customerId", "c.email as customerEmail"])
    .where("o.id", "=", id)
    .where("o.applicationId", "=", t.applicationId)
    .where("o.environmentId", "=", t.environmentId)
    .forUpdate("o")
    .executeTakeFirst();
  if (!row) throw errors.notFound("Order");
  return row;
}

export const customerOf = (o: LockedOrder) => (o.customerId ? { id: o.customerId, email: o.customerEmail } : null);

/** 409 order_on_hold, the message repeating the reason (nothing is written): the one check of orders/holds.service.ts. */
export const refuseIfHeld = (o: LockedOrder) => assertNotOnHold(o);

/** Activity rows carry who did it. */
export function activity(ctx: Ctx, row: Omit<ActivityRow, "actorType" | "actorId" | "actorName">): ActivityRow {
  return { ...row, ...actorOf(ctx) };
}

/**
 * Adds `delta` (per line id) to a quantity column of the order's lines in one statement; returns the lines as they
 * are now, computed from `lines` (read under the same order lock, so nothing else changed them).
 */
export async function bumpLines(ctx: Ctx, orderId: string, lines: OrderLineItem[], column: "fulfilledQuantity" | "returnedQuantity", delta: Map<string, number>) {
  if (delta.size) {
    const rows = JSON.stringify([...delta].map(([id, q]) => ({ id, q })));
    await ctx.sql
      .updateTable("OrderLineItem as l")
      .from(sql<{ id: string; q: number }>`jsonb_to_recordset(${rows}::jsonb)`.as<"r">(sql`r(id uuid, q int)`))
      .set((eb) => ({ [column]: eb(eb.ref(`l.${column}`), "+", eb.ref("r.q")) }))
      .whereRef("l.id", "=", "r.id")
      .where("l.orderId", "=", orderId)
      .execute();
  }
  return lines.map((l) => (delta.has(l.id) ? { ...l, [column]: l[column] + delta.get(l.id)! } : l));
}

/** The status the remaining quantities call for, from processing, partially_fulfilled or fulfilled. */
function statusFromQuantities(lines: Pick<OrderLineItem, "requiresShipping" | "quantity" | "fulfilledQuantity">[]): OrderStatus {
  const shippable = lines.filter((l) => l.requiresShipping);
  const remaining = shippable.reduce((a, l) => a + Math.max(0, l.quantity - l.fulfilledQuantity), 0);
  const handed = shippable.reduce((a, l) => a + Math.min(l.fulfilledQuantity, l.quantity), 0);
  if (remaining === 0) return "fulfilled";
  return handed > 0 ? "partially_fulfilled" : "processing";
}

type ShipmentFacts = { hasShipment: boolean; trackingNumber: string | null; deliveredAt: Date | null; status: string };

/**
 * The order's location qualifier: returned when every unit handed over came back, partially_returned when some
 * did; otherwise delivered when every shipment has arrived, in_transit when at least one has left (has a
 * tracking number) and one has not arrived; null when nothing shipped or nothing is left.
 */
export function deliveryStateOf(lines: Pick<OrderLineItem, "fulfilledQuantity" | "returnedQuantity">[], fulfillments: ShipmentFacts[]): string | null {
  const handed = lines.reduce((a, l) => a + l.fulfilledQuantity, 0);
  const back = lines.reduce((a, l) => a + l.returnedQuantity, 0);
  if (back > 0) return back >= handed ? "returned" : "partially_returned";
  const shipments = fulfillments.filter((f) => f.status !== "cancelled" && f.hasShipment);
  const departed = shipments.filter((f) => f.trackingNumber || f.deliveredAt);
  if (!departed.length) return null;
  return shipments.every((f) => f.deliveredAt) ? "delivered" : "in_transit";
}

/**
 * After any fulfillment or return change, inside its transaction and under the order lock: the status from the
 * remaining quantities (through moveOrder, source fulfillment) and deliveryState; order.fulfilled when the order
 * enters fulfilled, order.updated for any other change (quantities included).
 */
export async function recomputeOrder(ctx: Ctx, o: LockedOrder, lines: OrderLineItem[], opts: { quantitiesChanged?: boolean } = {}) {
  const fulfillments = await ctx.db.fulfillment.findMany({ where: { orderId: o.id, status: { not: "cancelled" }, hasShipment: true }, select: { hasShipment: true, trackingNumber: true, deliveredAt: true, status: true } });
  const deliveryState = deliveryStateOf(lines, fulfillments);
  let status = o.status;
  // the status follows quantities only when they change (a shipment's tracking or arrival never moves it, so a held
  // order's delivered mark writes no status)
  if (opts.quantitiesChanged && ["processing", "partially_fulfilled", "fulfilled"].includes(o.status)) {
    const want = statusFromQuantities(lines);
    if (want !== o.status) {
      await moveOrder(ctx, o, want, { ...actorOf(ctx), source: "fulfillment" });
      status = want;
    }
  }
  if (deliveryState !== o.deliveryState) {
    await ctx.db.order.update({ where: { id: o.id }, data: { deliveryState, updatedAt: ctx.clock.now() } });
  }
  // handed-over or returned units changed the order (fulfillmentSummary) even when its status and deliveryState did not
  if (status !== o.status || deliveryState !== o.deliveryState || opts.quantitiesChanged) {
    const tenant = await tenantOf(ctx, o);
    const data = { orderId: o.id, status, previousStatus: o.status, deliveryState, previousDeliveryState: o.deliveryState, customer: customerOf(o) };
    if (status === "fulfilled" && o.status !== "fulfilled") await recordEvent(ctx, tenant, "order.fulfilled", data);
    else await recordEvent(ctx, tenant, "order.updated", data);
  }
  return { status, deliveryState };
}

/** Line quantities in a request: each line once, a line of this order (422 naming the line otherwise). */
export function linesOfOrder(input: { lineItemId: string; quantity: number }[], lines: OrderLineItem[]) {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const seen = new Set<string>();
  const issues: { path: (string | number)[]; message: string }[] = [];
  input.forEach((l, i) => {
    if (seen.has(l.lineItemId)) issues.push({ path: ["lineItems", i, "lineItemId"], message: `Line ${l.lineItemId} is listed twice` });
    else if (!byId.has(l.lineItemId)) issues.push({ path: ["lineItems", i, "lineItemId"], message: `Line ${l.lineItemId} is not a line of this order` });
    seen.add(l.lineItemId);
  });
  if (issues.length) throw errors.validation(issues);
  return byId;
}

export const lineQuantitiesInput = z
  .array(z.strictObject({ lineItemId: z.uuid(), quantity: z.number().int().min(1).max(1_000_000) }))
  .min(1)
  .max(500);

export type { Actor };
