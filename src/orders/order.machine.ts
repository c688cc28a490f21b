// Order lifecycle (commerce.md part 3) as data; moves write a history row and use compare-and-set.
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const ORDER_STATUSES = ["draft", "pending", "processing", "partially_fulfilled", "fulfilled", "cancelled", "closed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TRANSITIONS: Record<OrderStatus, OrderStatus[]> = {
  draft: ["pending", "processing", "cancelled"],
  pending: ["processing", "cancelled"],
  processing: ["partially_fulfilled", "fulfilled", "cancelled"],
  partially_fulfilled: ["fulfilled", "cancelled", "partially_fulfilled"],
  fulfilled: ["closed"],
  cancelled: ["closed"],
  closed: [],
};

export interface Actor {
  actorType: "user" | "system" | "integration";
  actorId?: string | null;
}

export async function moveOrder(
  ctx: Ctx,
  order: { id: string; status: string },
  to: OrderStatus,
  how: Actor & { source: "manual" | "state_machine" | "fulfillment" | "payment" | "migration"; reason?: string | null; force?: boolean },
  /** other columns written in the same statement */
  also: { paymentStatus?: string } = {},
) {
  if (!how.force && !ORDER_TRANSITIONS[order.status as OrderStatus]?.includes(to)) {
    throw new DomainError("invalid_order_transition", 409, `An order in ${order.status} cannot move to ${to}`, { from: order.status, to });
  }
  const res = await ctx.db.order.updateMany({ where: { id: order.id, status: order.status }, data: { ...also, status: to } });
  if (res.count !== 1) throw new DomainError("order_state_changed", 409, "The order changed while this request ran; retry");
  await ctx.db.orderStatusHistory.create({
    data: { orderId: order.id, fromStatus: order.status, toStatus: to, actorType: how.actorType, actorId: how.actorId ?? null, reason: how.reason ?? null, source: how.source, createdAt: ctx.clock.now() },
  });
}
