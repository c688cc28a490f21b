// Fulfillments: handovers of order lines, with an optional shipment. Every change runs in one transaction under
// the order's row lock, keeps OrderLineItem.fulfilledQuantity, and recomputes the order's status and
// deliveryState (order-lock.ts).
import { sql } from "kysely";
import { z } from "zod";
import { recordEvent, tenantOf } from "../events/events.service";
import { type Fulfillment, type FulfillmentLine, Prisma } from "../generated/prisma/client";
import { recordset } from "../shared/bulk-insert";
import { requireScope, requireTenant } from "../shared/guards";
import { recordActivity } from "../orders/activity";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { activity, bumpLines, customerOf, lineQuantitiesInput, linesOfOrder, type LockedOrder, lockOrder, recomputeOrder, refuseIfHeld } from "./order-lock";
import { isUuid } from "../shared/ids";

const text = (max: number) => z.string().trim().min(1).max(max);
const httpUrl = z.url({ protocol: /^https?$/, message: "Must be an http or https URL" }).max(2000);

const shipmentInput = z.strictObject({
  carrier: text(100).optional(),
  trackingNumber: text(200).optional(),
  trackingUrl: httpUrl.optional(),
});

export const createFulfillmentInput = z.strictObject({
  lineItems: lineQuantitiesInput,
  shipment: shipmentInput.optional(),
  note: z.string().max(1000).optional(),
});

export const updateFulfillmentInput = z.strictObject({
  shipment: z.strictObject({
    carrier: text(100).nullable().optional(),
    trackingNumber: text(200).optional(),
    trackingUrl: httpUrl.nullable().optional(),
  }),
});

type FulfillmentFull = Fulfillment & { lines: Pick<FulfillmentLine, "lineItemId" | "quantity">[] };

export function fulfillmentView(f: FulfillmentFull) {
  return {
    id: f.id,
    orderId: f.orderId,
    status: f.status,
    lineItems: f.lines.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity })),
    shipment: f.hasShipment
      ? { carrier: f.carrier, trackingNumber: f.trackingNumber, trackingUrl: f.trackingUrl, shippedAt: f.shippedAt?.toISOString() ?? null, deliveredAt: f.deliveredAt?.toISOString() ?? null }
      : null,
    note: f.note,
    cancelledAt: f.cancelledAt?.toISOString() ?? null,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}
export type FulfillmentV = ReturnType<typeof fulfillmentView>;

const lineCount = (f: { lines: { quantity: number }[] }) => f.lines.reduce((a, l) => a + l.quantity, 0);
const units = (n: number) => `${n} ${n === 1 ? "item" : "items"}`;
const via = (f: Pick<Fulfillment, "carrier" | "trackingNumber">) => [f.carrier && `via ${f.carrier}`, f.trackingNumber && `tracking ${f.trackingNumber}`].filter(Boolean).join(", ") || null;

/** The payload of every fulfillment.* event. */
const eventData = (o: LockedOrder, f: FulfillmentFull) => ({ fulfillmentId: f.id, orderId: o.id, customer: customerOf(o), fulfillment: fulfillmentView(f) });

/** POST /orders/{id}/fulfillments */
export async function createFulfillment(ctx: Ctx, orderId: string, body: unknown) {
  requireScope(ctx, "fulfillments:write");
  const t = requireTenant(ctx);
  const input = parseInput(createFulfillmentInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, t, orderId);
    refuseIfHeld(o);
    if (o.status !== "processing" && o.status !== "partially_fulfilled") {
      throw new DomainError("invalid_order_state", `Fulfillments need the order in processing or partially_fulfilled; it is ${o.status}`, { status: o.status });
    }
    const lines = await tx.db.orderLineItem.findMany({ where: { orderId: o.id } });
    const byId = linesOfOrder(input.lineItems, lines);
    const issues: { path: (string | number)[]; message: string }[] = [];
    input.lineItems.forEach((l, i) => {
      const line = byId.get(l.lineItemId)!;
      const remaining = Math.max(0, line.quantity - line.fulfilledQuantity);
      if (!line.requiresShipping) issues.push({ path: ["lineItems", i, "lineItemId"], message: `Line ${line.id} (${line.name}) has nothing to deliver` });
      else if (l.quantity > remaining) issues.push({ path: ["lineItems", i, "quantity"], message: `Line ${line.id} (${line.name}) has ${remaining} left to fulfil; asked for ${l.quantity}` });
    });
    if (issues.length) throw errors.validation(issues);

    const now = tx.clock.now();
    const s = input.shipment;
    const shipped = Boolean(s?.trackingNumber);
    // the fulfillment and its lines in one statement
    const fulfillmentColumns = Object.values(Prisma.FulfillmentScalarFieldEnum);
    const row = await tx.sql
      .with("f", (db) =>
        db
          .insertInto("Fulfillment")
          .values({
            id: sql<string>`gen_random_uuid()`,
            applicationId: o.applicationId,
            environmentId: o.environmentId,
            orderId: o.id,
            status: !s || shipped ? "completed" : "pending",
            note: input.note ?? null,
            hasShipment: Boolean(s),
            carrier: s?.carrier ?? null,
            trackingNumber: s?.trackingNumber ?? null,
            trackingUrl: s?.trackingUrl ?? null,
            shippedAt: shipped ? now : null,
            createdAt: now,
            updatedAt: now,
          })
          .returning(fulfillmentColumns),
      )
      .with("l", (db) =>
        db
          .insertInto("FulfillmentLine")
          .columns(["id", "fulfillmentId", "lineItemId", "quantity"])
          .expression((eb) =>
            eb
              .selectFrom(["f", recordset("FulfillmentLine", input.lineItems, "r")])
              .select([sql<string>`gen_random_uuid()`.as("id"), "f.id as fulfillmentId", "r.lineItemId", "r.quantity"]),
          ),
      )
      .selectFrom("f")
      .select(fulfillmentColumns)
      .executeTakeFirstOrThrow();
    const f: FulfillmentFull = { ...row, lines: input.lineItems.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity })) };
    const after = await bumpLines(tx, o.id, lines, "fulfilledQuantity", new Map(input.lineItems.map((l) => [l.lineItemId, l.quantity])));
    await recordEvent(tx, await tenantOf(tx, o), "fulfillment.created", eventData(o, f));
    if (f.status === "completed") await recordEvent(tx, await tenantOf(tx, o), "fulfillment.completed", eventData(o, f));
    if (shipped) await recordEvent(tx, await tenantOf(tx, o), "fulfillment.shipment.shipped", eventData(o, f));
    await recomputeOrder(tx, o, after, { quantitiesChanged: true });
    // activity last: rows of one clock tick read back status change first, then what the request did
    await recordActivity(tx, o.id, [
      activity(tx, { kind: "fulfillment", title: s ? `Shipment of ${units(lineCount(f))} created` : `${units(lineCount(f))} handed over`, source: "fulfillment", detail: input.note ?? null }),
      ...(shipped ? [activity(tx, { kind: "fulfillment", title: "Shipment handed to the carrier", source: "fulfillment", detail: via(f) })] : []),
    ]);
    return f;
  });
}

export async function findFulfillment(ctx: Ctx, id: string) {
  const t = requireTenant(ctx);
  const f = isUuid(id)
    ? await ctx.db.fulfillment.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lines: true } })
    : null;
  if (!f) throw errors.notFound("Fulfillment");
  return f;
}

/** The fulfillment under its order's lock (re-read after the lock, so it is current). */
async function lockFulfillment(ctx: Ctx, id: string) {
  const t = requireTenant(ctx);
  const first = await findFulfillment(ctx, id);
  const o = await lockOrder(ctx, t, first.orderId);
  const f = await ctx.db.fulfillment.findUniqueOrThrow({ where: { id: first.id }, include: { lines: true } });
  return { o, f };
}

export async function getFulfillment(ctx: Ctx, id: string) {
  requireScope(ctx, "fulfillments:read");
  return findFulfillment(ctx, id);
}

/** GET /orders/{id}/fulfillments: oldest first (an order has few). */
export async function orderFulfillments(ctx: Ctx, orderId: string) {
  requireScope(ctx, "fulfillments:read");
  const t = requireTenant(ctx);
  const o = isUuid(orderId) ? await ctx.db.order.findFirst({ where: { id: orderId, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true } }) : null;
  if (!o) throw errors.notFound("Order");
  return ctx.db.fulfillment.findMany({ where: { orderId: o.id }, include: { lines: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

function refuseCancelled(f: Fulfillment) {
  if (f.status === "cancelled") throw new DomainError("invalid_fulfillment_state", "The fulfillment is cancelled", { status: f.status });
}

/** PATCH /fulfillments/{id} { shipment }: the first tracking number completes a pending shipment (shipped). */
export async function updateFulfillment(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "fulfillments:write");
  const input = parseInput(updateFulfillmentInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const { o, f } = await lockFulfillment(tx, id);
    refuseCancelled(f);
    const s = input.shipment;
    const now = tx.clock.now();
    const trackingNumber = s.trackingNumber ?? f.trackingNumber;
    const shipsNow = Boolean(trackingNumber) && !f.shippedAt;
    const completesNow = shipsNow && (f.status === "pending" || f.status === "processing");
    const updated = await tx.db.fulfillment.update({
      where: { id: f.id },
      data: {
        hasShipment: true,
        carrier: s.carrier === undefined ? f.carrier : s.carrier,
        trackingNumber,
        trackingUrl: s.trackingUrl === undefined ? f.trackingUrl : s.trackingUrl,
        ...(shipsNow ? { shippedAt: now } : {}),
        ...(completesNow ? { status: "completed" } : {}),
        updatedAt: now,
      },
      include: { lines: true },
    });
    if (shipsNow) {
      if (completesNow) await recordEvent(tx, await tenantOf(tx, o), "fulfillment.completed", eventData(o, updated));
      await recordEvent(tx, await tenantOf(tx, o), "fulfillment.shipment.shipped", eventData(o, updated));
      await recomputeOrder(tx, o, await tx.db.orderLineItem.findMany({ where: { orderId: o.id } }));
      await recordActivity(tx, o.id, [activity(tx, { kind: "fulfillment", title: "Shipment handed to the carrier", source: "fulfillment", detail: via(updated) })]);
    }
    return updated;
  });
}

/** POST /fulfillments/{id}/delivered: records arrival, completing a pending or processing one first; not blocked by a hold. */
export async function markDelivered(ctx: Ctx, id: string) {
  requireScope(ctx, "fulfillments:write");
  return withTx(ctx, async (tx) => {
    const { o, f } = await lockFulfillment(tx, id);
    refuseCancelled(f);
    if (f.deliveredAt) return f; // already recorded: nothing changes, nothing is emitted
    const now = tx.clock.now();
    const completesNow = f.status === "pending" || f.status === "processing";
    const updated = await tx.db.fulfillment.update({
      where: { id: f.id },
      data: { hasShipment: true, deliveredAt: now, shippedAt: f.shippedAt ?? now, status: "completed", updatedAt: now },
      include: { lines: true },
    });
    if (completesNow) await recordEvent(tx, await tenantOf(tx, o), "fulfillment.completed", eventData(o, updated));
    if (!f.shippedAt) await recordEvent(tx, await tenantOf(tx, o), "fulfillment.shipment.shipped", eventData(o, updated));
    await recordEvent(tx, await tenantOf(tx, o), "fulfillment.shipment.delivered", eventData(o, updated));
    await recomputeOrder(tx, o, await tx.db.orderLineItem.findMany({ where: { orderId: o.id } }));
    await recordActivity(tx, o.id, [activity(tx, { kind: "fulfillment", title: "Shipment delivered", source: "fulfillment", detail: via(updated) })]);
    return updated;
  });
}

/**
 * POST /fulfillments/{id}/cancel: frees its quantities and recomputes the order's status (a held order refuses,
 * since the status would move). A delivered fulfillment, or one whose units are being returned, cannot be cancelled.
 */
export async function cancelFulfillment(ctx: Ctx, id: string) {
  requireScope(ctx, "fulfillments:write");
  return withTx(ctx, async (tx) => {
    const { o, f } = await lockFulfillment(tx, id);
    refuseCancelled(f);
    if (f.deliveredAt) throw new DomainError("invalid_fulfillment_state", "A delivered fulfillment cannot be cancelled; record a return instead", { status: f.status });
    refuseIfHeld(o);
    if (!["processing", "partially_fulfilled", "fulfilled"].includes(o.status)) {
      throw new DomainError("invalid_order_state", `Fulfillments of a ${o.status} order cannot be cancelled`, { status: o.status });
    }
    const lines = await tx.db.orderLineItem.findMany({ where: { orderId: o.id } });
    const requested = await tx.db.returnLine.findMany({ where: { orderReturn: { orderId: o.id, status: "requested" } }, select: { lineItemId: true, quantity: true } });
    const held = new Map<string, number>();
    for (const r of requested) held.set(r.lineItemId, (held.get(r.lineItemId) ?? 0) + r.quantity);
    for (const l of f.lines) {
      const line = lines.find((x) => x.id === l.lineItemId);
      if (line && line.fulfilledQuantity - l.quantity < line.returnedQuantity + (held.get(line.id) ?? 0)) {
        throw new DomainError("invalid_fulfillment_state", `Units of line ${line.id} (${line.name}) are returned or being returned; cancel the return first`, { lineItemId: line.id });
      }
    }
    const now = tx.clock.now();
    const moved = await tx.db.fulfillment.updateManyAndReturn({ where: { id: f.id, status: f.status }, data: { status: "cancelled", cancelledAt: now, updatedAt: now } });
    if (moved.length !== 1) throw new DomainError("fulfillment_state_changed", "The fulfillment changed while this request ran; retry");
    const updated = { ...moved[0], lines: f.lines };
    const after = await bumpLines(tx, o.id, lines, "fulfilledQuantity", new Map(f.lines.map((l) => [l.lineItemId, -l.quantity])));
    await recordEvent(tx, await tenantOf(tx, o), "fulfillment.cancelled", eventData(o, updated));
    await recomputeOrder(tx, o, after, { quantitiesChanged: true });
    await recordActivity(tx, o.id, [activity(tx, { kind: "fulfillment", title: `Fulfillment of ${units(lineCount(f))} cancelled`, source: "fulfillment" })]);
    return updated;
  });
}
