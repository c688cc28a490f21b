// Returns: a request to take units back (requested), then received (the units came back: returnedQuantity and
// the order's deliveryState move) or cancelled. Under the order's row lock like fulfillments.
import { z } from "zod";
import { recordEvent, tenantOf } from "../events/events.service";
import type { OrderReturn, ReturnLine } from "../generated/prisma/client";
import { requireScope, requireTenant } from "../shared/guards";
import { recordActivity } from "../orders/activity";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { activity, bumpLines, customerOf, lineQuantitiesInput, linesOfOrder, type LockedOrder, lockOrder, recomputeOrder } from "./order-lock";
import { isUuid } from "../shared/ids";

export const createReturnInput = z.strictObject({
  lineItems: lineQuantitiesInput,
  reason: z.string().trim().min(1).max(500).optional(),
});

type ReturnFull = OrderReturn & { lines: ReturnLine[] };

export function returnView(r: ReturnFull) {
  return {
    id: r.id,
    orderId: r.orderId,
    status: r.status,
    reason: r.reason,
    lineItems: r.lines.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity })),
    receivedAt: r.receivedAt?.toISOString() ?? null,
    cancelledAt: r.cancelledAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
export type ReturnV = ReturnType<typeof returnView>;

const units = (n: number) => `${n} ${n === 1 ? "item" : "items"}`;
const count = (r: { lines: { quantity: number }[] }) => r.lines.reduce((a, l) => a + l.quantity, 0);

/** The payload of return.created and return.updated. */
const eventData = (o: LockedOrder, r: ReturnFull, previousStatus?: string) => ({ returnId: r.id, orderId: o.id, status: r.status, ...(previousStatus ? { previousStatus } : {}), customer: customerOf(o), return: returnView(r) });

/** Units of each line that may still be asked back: handed over, minus received and still-requested returns. */
async function returnable(ctx: Ctx, orderId: string) {
  const lines = await ctx.db.orderLineItem.findMany({ where: { orderId } });
  const open = await ctx.db.returnLine.findMany({ where: { orderReturn: { orderId, status: "requested" } }, select: { lineItemId: true, quantity: true } });
  const pending = new Map<string, number>();
  for (const r of open) pending.set(r.lineItemId, (pending.get(r.lineItemId) ?? 0) + r.quantity);
  return { lines, left: (id: string) => { const l = lines.find((x) => x.id === id)!; return l.fulfilledQuantity - l.returnedQuantity - (pending.get(id) ?? 0); } };
}

/** POST /orders/{id}/returns */
export async function createReturn(ctx: Ctx, orderId: string, body: unknown) {
  requireScope(ctx, "order_returns:write");
  const t = requireTenant(ctx);
  const input = parseInput(createReturnInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, t, orderId);
    const { lines, left } = await returnable(tx, o.id);
    const byId = linesOfOrder(input.lineItems, lines);
    const issues: { path: (string | number)[]; message: string }[] = [];
    input.lineItems.forEach((l, i) => {
      const line = byId.get(l.lineItemId)!;
      const can = Math.max(0, left(line.id));
      if (l.quantity > can) issues.push({ path: ["lineItems", i, "quantity"], message: `Line ${line.id} (${line.name}) has ${can} fulfilled and not returned; asked for ${l.quantity}` });
    });
    if (issues.length) throw errors.validation(issues);
    const now = tx.clock.now();
    const r = await tx.db.orderReturn.create({
      data: {
        applicationId: o.applicationId,
        environmentId: o.environmentId,
        orderId: o.id,
        status: "requested",
        reason: input.reason ?? null,
        createdAt: now,
        updatedAt: now,
        lines: { createMany: { data: input.lineItems.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity })) } },
      },
      include: { lines: true },
    });
    await recordActivity(tx, o.id, [activity(tx, { kind: "fulfillment", title: `Return of ${units(count(r))} requested`, source: "return", reason: input.reason ?? null })]);
    await recordEvent(tx, await tenantOf(tx, o), "return.created", eventData(o, r));
    return r;
  });
}

export async function findReturn(ctx: Ctx, id: string) {
  const t = requireTenant(ctx);
  const r = isUuid(id)
    ? await ctx.db.orderReturn.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lines: true } })
    : null;
  if (!r) throw errors.notFound("Return");
  return r;
}

export async function getReturn(ctx: Ctx, id: string) {
  requireScope(ctx, "order_returns:read");
  return findReturn(ctx, id);
}

export async function orderReturns(ctx: Ctx, orderId: string) {
  requireScope(ctx, "order_returns:read");
  const t = requireTenant(ctx);
  const o = isUuid(orderId) ? await ctx.db.order.findFirst({ where: { id: orderId, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true } }) : null;
  if (!o) throw errors.notFound("Order");
  return ctx.db.orderReturn.findMany({ where: { orderId: o.id }, include: { lines: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

async function moveReturn(ctx: Ctx, id: string, to: "received" | "cancelled") {
  requireScope(ctx, "order_returns:write");
  const t = requireTenant(ctx);
  return withTx(ctx, async (tx) => {
    const first = await findReturn(tx, id);
    const o = await lockOrder(tx, t, first.orderId);
    const r = await tx.db.orderReturn.findUniqueOrThrow({ where: { id: first.id }, include: { lines: true } });
    if (r.status !== "requested") throw new DomainError("invalid_return_state", `A ${r.status} return cannot become ${to}`, { status: r.status });
    const now = tx.clock.now();
    const moved = await tx.db.orderReturn.updateManyAndReturn({
      where: { id: r.id, status: "requested" },
      data: { status: to, ...(to === "received" ? { receivedAt: now } : { cancelledAt: now }), updatedAt: now },
    });
    if (moved.length !== 1) throw new DomainError("invalid_return_state", "The return changed while this request ran; retry");
    const updated = { ...moved[0], lines: r.lines };
    if (to === "received") {
      const after = await bumpLines(tx, o.id, await tx.db.orderLineItem.findMany({ where: { orderId: o.id } }), "returnedQuantity", new Map(r.lines.map((l) => [l.lineItemId, l.quantity])));
      await recomputeOrder(tx, o, after, { quantitiesChanged: true });
    }
    await recordActivity(tx, o.id, [activity(tx, { kind: "fulfillment", title: to === "received" ? `Return of ${units(count(r))} received` : `Return of ${units(count(r))} cancelled`, source: "return" })]);
    await recordEvent(tx, await tenantOf(tx, o), "return.updated", eventData(o, updated, r.status));
    return updated;
  });
}

export const receiveReturn = (ctx: Ctx, id: string) => moveReturn(ctx, id, "received");
export const cancelReturn = (ctx: Ctx, id: string) => moveReturn(ctx, id, "cancelled");
