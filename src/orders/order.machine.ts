// Order lifecycle (commerce.md part 3) as data; moves write a history row and use compare-and-set.
import { Prisma } from "../generated/prisma/client";
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

type MoveHow = Actor & { source: "manual" | "state_machine" | "fulfillment" | "payment" | "migration"; reason?: string | null; force?: boolean };

function checkMove(order: { status: string }, to: OrderStatus, how: MoveHow) {
  if (!how.force && !ORDER_TRANSITIONS[order.status as OrderStatus]?.includes(to)) {
    throw new DomainError("invalid_order_transition", `An order in ${order.status} cannot move to ${to}`, { from: order.status, to });
  }
}

export async function moveOrder(
  ctx: Ctx,
  order: { id: string; status: string },
  to: OrderStatus,
  how: MoveHow,
  /** other columns written in the same statement */
  also: { paymentStatus?: string } = {},
) {
  checkMove(order, to, how);
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
  if (moved !== 1) throw new DomainError("order_state_changed", "The order changed while this request ran; retry");
}

// ---- deferred moves --------------------------------------------------------------------------------------------------

/** An order move checked and waiting for a statement to carry it (deferOrderMoves). */
export interface DeferredOrderMove {
  order: { id: string; status: string };
  to: OrderStatus;
  how: MoveHow;
  also: { paymentStatus?: string };
  at: Date;
}

declare module "../shared/context" {
  interface Ctx {
    /**
     * set by deferOrderMoves: order moves waiting to ride in the transaction's next statement that takes them
     * (takeOrderMoves), or written in one statement before it commits
     */
    orderMoves?: DeferredOrderMove[];
  }
}

/**
 * From now on in this transaction, moveOrderSoon() records moves instead of sending them: the transaction's next
 * statement that calls takeOrderMoves() carries them (one statement fewer: a checkout's capture moves its order in
 * the statement that completes the session), and any not taken are written in one statement before it commits. Only
 * for a command that reads nothing of the order's status after the move: a deferred move is not in the database
 * until that statement.
 */
export function deferOrderMoves(ctx: Ctx) {
  if (ctx.orderMoves || !ctx.beforeCommit) return;
  ctx.orderMoves = [];
  ctx.beforeCommit.push(async (tx) => {
    const taken = takeOrderMoves(tx);
    if (!taken) return;
    const [row] = await tx.db.$queryRaw<{ _orderMoved: boolean }[]>(Prisma.sql`WITH ${taken.ctes} SELECT ${taken.moved} AS "_orderMoved"`);
    taken.verify(row._orderMoved);
  });
}

/** moveOrder, or, after deferOrderMoves, the same move checked now and recorded for a later statement. */
export async function moveOrderSoon(ctx: Ctx, order: { id: string; status: string }, to: OrderStatus, how: MoveHow, also: { paymentStatus?: string } = {}) {
  if (!ctx.orderMoves) return moveOrder(ctx, order, to, how, also);
  checkMove(order, to, how);
  ctx.orderMoves.push({ order: { ...order }, to, how, also, at: ctx.clock.now() });
}

/**
 * The deferred moves as CTEs for a statement to carry (with no WITH and no leading comma), `moved`: a boolean
 * expression for that statement's result, true when every order moved; the caller passes it to `verify`, which throws
 * order_state_changed as moveOrder does otherwise (the transaction then rolls back). Consecutive moves of one order
 * become one compare-and-set from the first status to the last (a statement updates a row once) and a history row
 * each. Null when nothing is deferred.
 */
export function takeOrderMoves(ctx: Ctx): { ctes: Prisma.Sql; moved: Prisma.Sql; verify: (moved: boolean) => void } | null {
  const moves = ctx.orderMoves?.splice(0);
  if (!moves?.length) return null;
  const byOrder = new Map<string, DeferredOrderMove[]>();
  for (const m of moves) byOrder.set(m.order.id, [...(byOrder.get(m.order.id) ?? []), m]);
  const ctes: Prisma.Sql[] = [];
  const names: string[] = [];
  let i = 0;
  for (const [id, chain] of byOrder) {
    for (let k = 1; k < chain.length; k++) {
      if (chain[k].order.status !== chain[k - 1].to) throw new Error(`deferred moves of order ${id} do not chain: ${chain[k - 1].to} then from ${chain[k].order.status}`);
    }
    const first = chain[0];
    const last = chain[chain.length - 1];
    const paymentStatus = chain.map((m) => m.also.paymentStatus).filter((x) => x !== undefined).at(-1) ?? null;
    const u = `om_${i}`;
    names.push(u);
    const history = chain.map(
      (m, n) => Prisma.sql`(${m.order.status}, ${m.to}, ${m.how.actorType}, ${m.how.actorId ?? null}, ${m.how.reason ?? null}, ${m.how.source}, ${m.at}::timestamptz, ${n}::int)`,
    );
    ctes.push(Prisma.sql`${Prisma.raw(u)} AS (
      UPDATE "Order" SET status = ${last.to}, "paymentStatus" = COALESCE(${paymentStatus}, "paymentStatus"), "updatedAt" = ${last.at}
      WHERE id = ${id}::uuid AND status = ${first.order.status}
      RETURNING id
    ), ${Prisma.raw(`${u}_h`)} AS (
      INSERT INTO "OrderStatusHistory" (id, "orderId", "fromStatus", "toStatus", "actorType", "actorId", reason, source, "createdAt")
      SELECT gen_random_uuid(), u.id, h.f, h.t, h.a, h.ai, h.r, h.s, h.c
      FROM ${Prisma.raw(u)} u, (VALUES ${Prisma.join(history)}) AS h(f, t, a, ai, r, s, c, n)
      ORDER BY h.n
    )`);
    i++;
  }
  const moved = Prisma.raw(names.map((n) => `EXISTS (SELECT 1 FROM ${n})`).join(" AND "));
  return {
    ctes: Prisma.join(ctes, ", "),
    moved,
    verify: (ok) => {
      if (!ok) throw new DomainError("order_state_changed", "The order changed while this request ran; retry");
    },
  };
}
