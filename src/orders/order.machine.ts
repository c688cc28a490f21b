// Order lifecycle (commerce.md part 3) as data; moves write a history row and use compare-and-set.
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const ORDER_STATUSES = ["draft", "pending", "processing", "partially_fulfilled", "fulfilled", "cancelled", "closed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TRANSITIONS: Record<OrderStatus, OrderStatus[]> = {
  draft: ["pending", "processing", "cancelled"],
  pending: ["processing", "cancelled"],
  processing: ["partially_fulfilled", "fulfilled", "cancelled"],
  // back to processing or partially_fulfilled when a fulfillment is cancelled (status follows remaining quantities)
  partially_fulfilled: ["fulfilled", "cancelled", "partially_fulfilled", "processing"],
  fulfilled: ["closed", "partially_fulfilled", "processing"],
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
  // The compare-and-set and the history row in one statement: no history row unless the order moved.
  const at = ctx.clock.now();
  const moved = await ctx.db.$executeRaw`
    WITH u AS (
      UPDATE "Order" SET status = ${to}, "paymentStatus" = COALESCE(${also.paymentStatus ?? null}, "paymentStatus"), "updatedAt" = ${at}
      WHERE id = ${order.id}::uuid AND status = ${order.status}
      RETURNING id
    )
    INSERT INTO "OrderStatusHistory" (id, "orderId", "fromStatus", "toStatus", "actorType", "actorId", reason, source, "createdAt")
    SELECT gen_random_uuid(), u.id, ${order.status}, ${to}, ${how.actorType}, ${how.actorId ?? null}, ${how.reason ?? null}, ${how.source}, ${at} FROM u`;
  if (moved !== 1) throw new DomainError("order_state_changed", 409, "The order changed while this request ran; retry");
}
