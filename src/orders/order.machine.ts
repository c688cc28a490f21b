// Order lifecycle (commerce.md part 3) as data; moves write a history row and use compare-and-set.
import { type QueryCreator, type RawBuilder, sql } from "kysely";
import { insertSelect } from "../db/insert-select";
import { slotsOf } from "../db/template";
import type { DB } from "../db/sql";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";
import type { Actor } from "../shared/actor";

export type { Actor };

export const ORDER_STATUSES = ["draft", "pending", "processing", "partially_fulfilled", "fulfilled", "cancelled", "closed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** A status as people read it (the display status, the timeline's titles). */
const ORDER_STATUS_LABEL: Record<OrderStatus, string> = {
  draft: "Draft",
  pending: "Pending",
  processing: "Processing",
  partially_fulfilled: "Partially fulfilled",
  fulfilled: "Fulfilled",
  cancelled: "Cancelled",
  closed: "Closed",
};

export function orderStatusLabel(status: string): string {
  return ORDER_STATUS_LABEL[status as OrderStatus] ?? status;
}

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

type MoveHow = Actor & { source: "manual" | "state_machine" | "fulfillment" | "payment" | "migration"; reason?: string | null; force?: boolean };

function checkMove(order: { status: string }, to: OrderStatus, how: MoveHow) {
  if (!how.force && !ORDER_TRANSITIONS[order.status as OrderStatus]?.includes(to)) {
    throw new DomainError("invalid_order_transition", `An order in ${order.status} cannot move to ${to}`, { from: order.status, to });
  }
}

/** An order move, checked, for a statement to write (writingOrderMoves). */
export interface OrderMove {
  order: { id: string; status: string };
  to: OrderStatus;
  how: MoveHow;
  also: { paymentStatus?: string };
  at: Date;
}

/** A payment change's order roll-up (payments/order-sync.ts) can hand its moves to the caller's next statement. */
declare module "../payments/order-sync" {
  interface OrderSyncOptions {
    /** given: the order's moves are checked and put here, for the caller's next statement to write (writingOrderMoves) */
    orderMoves?: OrderMove[];
  }
}

/** The move checked now (409 invalid_order_transition), not written: moveOrder writes it, or a statement composing it. */
export function orderMove(ctx: Ctx, order: { id: string; status: string }, to: OrderStatus, how: MoveHow, also: { paymentStatus?: string } = {}): OrderMove {
  checkMove(order, to, how);
  return { order: { ...order }, to, how, also, at: ctx.clock.now() };
}

export async function moveOrder(
  ctx: Ctx,
  order: { id: string; status: string },
  to: OrderStatus,
  how: MoveHow,
  /** other columns written in the same statement */
  also: { paymentStatus?: string } = {},
) {
  // The compare-and-set and the history row in one statement: no history row unless the order moved.
  const { qc, moved } = writingOrderMoves(ctx.sql, [orderMove(ctx, order, to, how, also)]);
  const row = await qc.selectNoFrom(moved.as("moved")).executeTakeFirstOrThrow();
  assertMoved(row.moved);
}

/** 409 order_state_changed unless the statement that wrote the moves (writingOrderMoves) moved every order. */
export function assertMoved(moved: boolean | null | undefined) {
  if (!moved) throw new DomainError("order_state_changed", "The order changed while this request ran; retry");
}


/**
 * `qc` with the CTEs that write `moves` (none: unchanged), and `moved`: true in that statement when every order moved
 * (pass it to assertMoved). Consecutive moves of one order become one compare-and-set from the first status to the
 * last (a statement updates a row once) and a history row each, in order.
 */
export function writingOrderMoves<Q extends QueryCreator<any>>(qc: Q, moves: readonly OrderMove[]): { qc: Q; moved: RawBuilder<boolean> } {
  return writingOrderMoveRows(qc, orderMoveRows(moves));
}

/** Moves as the rows their CTEs write, one per order (plain values, so a statement template can bind them). */
export interface OrderMoveRow {
  id: string;
  from: string;
  to: string;
  /** absent: the payment status is not written */
  paymentStatus?: string;
  at: Date;
  history: { fromStatus: string; toStatus: string; actorType: string; actorId: string | null; reason: string | null; source: string; createdAt: Date }[];
}

export function orderMoveRows(moves: readonly OrderMove[]): OrderMoveRow[] {
  const byOrder = new Map<string, OrderMove[]>();
  for (const m of moves) byOrder.set(m.order.id, [...(byOrder.get(m.order.id) ?? []), m]);
  return [...byOrder].map(([id, chain]) => {
    for (let k = 1; k < chain.length; k++) {
      if (chain[k].order.status !== chain[k - 1].to) throw new Error(`moves of order ${id} do not chain: ${chain[k - 1].to} then from ${chain[k].order.status}`);
    }
    const last = chain[chain.length - 1];
    const paymentStatus = chain.map((m) => m.also.paymentStatus).filter((x) => x !== undefined).at(-1);
    const history = chain.map((m) => ({ fromStatus: m.order.status, toStatus: m.to, actorType: m.how.actorType, actorId: m.how.actorId ?? null, reason: m.how.reason ?? null, source: m.how.source, createdAt: m.at }));
    return { id, from: chain[0].order.status, to: last.to, ...(paymentStatus !== undefined ? { paymentStatus } : {}), at: last.at, history };
  });
}

/** What of the moves changes a statement's text, for a template's key. */
export function orderMovesShape(rows: readonly OrderMoveRow[]): string {
  return `om${rows.map((r) => `${r.history.length}${r.paymentStatus !== undefined ? "p" : ""}`).join(",")}`;
}

/** The rows as template slots (src/db/template.ts), at `path` in the template's values. */
export function orderMoveSlots(rows: readonly OrderMoveRow[], path: string): OrderMoveRow[] {
  return rows.map((r, i) => ({ ...slotsOf(r, `${path}.${i}`), history: r.history.map((h, k) => slotsOf(h, `${path}.${i}.history.${k}`)) }));
}

/** writingOrderMoves from the moves' rows (or their slots). */
export function writingOrderMoveRows<Q extends QueryCreator<any>>(qc: Q, rows: readonly OrderMoveRow[]): { qc: Q; moved: RawBuilder<boolean> } {
  let q = qc as QueryCreator<any>;
  const names: string[] = [];
  for (const r of rows) {
    const u = `om_${names.length}`;
    names.push(u);
    q = q
      .with(u, (db) =>
        (db as QueryCreator<DB>)
          .updateTable("Order")
          .set({ status: r.to, ...(r.paymentStatus !== undefined ? { paymentStatus: r.paymentStatus } : {}), updatedAt: r.at })
          .where("id", "=", r.id)
          .where("status", "=", r.from)
          .returning("id"),
      )
      .with(`${u}_h`, (db) =>
        insertSelect(db, "OrderStatusHistory", {
          data: r.history,
          set: { id: sql`gen_random_uuid()`, orderId: sql.ref(`${u}.id`) },
          from: [u],
          ordered: true,
        }),
      );
  }
  const moved = names.length ? sql<boolean>`${sql.join(names.map((n) => sql`EXISTS (SELECT 1 FROM ${sql.table(n)})`), sql` AND `)}` : sql<boolean>`true`;
  return { qc: q as unknown as Q, moved };
}
