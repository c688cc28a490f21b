// Order holds (commerce.md part 3): a flag, never a status. While held, every status transition, manual payment,
// comp, comp reversal and new fulfillment is refused with 409 order_on_hold (the reason in the message) before
// anything is written; reads, POST /orders/{id}/cancel and a fulfillment's delivered stay open. Placing and
// checking both run under the order's row lock (lockOrder), so a hold racing a status change never lets it through.
import { z } from "zod";
import type { Order } from "../generated/prisma/client";
import { recordEvent } from "../events/events.service";
import { requireScope } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { recordActivity } from "./activity";
import { actorData, actorOf, lockOrder, orderTenant } from "./order-ops.common";

/** 409 order_on_hold when the order is held. Call it on the row read under lockOrder, before writing anything. */
export function assertNotOnHold(order: Pick<Order, "onHold" | "holdReason">) {
  if (order.onHold) {
    throw new DomainError("order_on_hold", `The order is on hold: ${order.holdReason ?? "no reason given"}. Release the hold first`, { holdReason: order.holdReason });
  }
}

const HOLDABLE_STATUSES = ["pending", "processing", "partially_fulfilled", "fulfilled"] as const;

export const holdInput = z.strictObject({ reason: z.string().trim().min(1).max(500) });

/**
 * POST /orders/{id}/hold. The same reason again changes nothing and emits nothing; another reason rewrites the
 * reason and keeps heldAt. Returns the order as it stands when the transaction commits.
 */
export async function placeHold(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "order_holds:write");
  const input = parseInput(holdInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    if (!(HOLDABLE_STATUSES as readonly string[]).includes(o.status)) {
      throw new DomainError("invalid_order_state", `An order that is ${o.status} cannot be put on hold (only ${HOLDABLE_STATUSES.join(", ")})`, { status: o.status });
    }
    if (o.onHold && o.holdReason === input.reason) return o;
    const actor = actorOf(tx);
    const previousHoldReason = o.onHold ? o.holdReason : null;
    const updated = await tx.db.order.update({
      where: { id: o.id },
      data: { onHold: true, holdReason: input.reason, ...(o.onHold ? {} : { heldAt: tx.clock.now(), heldBy: actor.actorId ?? actor.actorType }) },
      include: { lineItems: true, payments: true },
    });
    await recordActivity(tx, o.id, [
      { kind: "hold", title: o.onHold ? "Hold reason changed" : "Order placed on hold", source: "manual", reason: input.reason, actorType: actor.actorType, actorId: actor.actorId },
    ]);
    await recordEvent(tx, await orderTenant(tx, o), "order.held", { orderId: o.id, status: o.status, reason: input.reason, previousHoldReason, heldAt: updated.heldAt?.toISOString(), actor: actorData(tx) });
    return updated;
  });
}

/** POST /orders/{id}/hold/release: 422 order_not_on_hold when there is none. */
export async function releaseHold(ctx: Ctx, id: string) {
  requireScope(ctx, "order_holds:write");
  return withTx(ctx, async (tx) => {
    const o = await lockOrder(tx, id);
    if (!o.onHold) throw new DomainError("order_not_on_hold", "The order is not on hold");
    const actor = actorOf(tx);
    const updated = await tx.db.order.update({ where: { id: o.id }, data: { onHold: false, holdReason: null, heldAt: null, heldBy: null }, include: { lineItems: true, payments: true } });
    await recordActivity(tx, o.id, [{ kind: "hold", title: "Hold released", source: "manual", reason: o.holdReason, actorType: actor.actorType, actorId: actor.actorId }]);
    await recordEvent(tx, await orderTenant(tx, o), "order.hold_released", { orderId: o.id, status: o.status, previousHoldReason: o.holdReason, actor: actorData(tx) });
    return updated;
  });
}
