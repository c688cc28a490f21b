// GET /orders/{id}/timeline: one row per status-history row, payment transaction (of the order's payments) and
// activity row (holds, comps, fulfillments, shipments, returns), newest first. One SQL statement per page: a
// UNION ALL of the three sources with a keyset on (at, rank, seq): seq is each table's insertion order; the rank
// orders rows of one clock tick across tables as they are written (the order's first status row, then payment
// transactions, then later status changes, then activity rows, which services write last).
import { z } from "zod";
import { type SqlBool, sql } from "kysely";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { orderStatusLabel } from "./order.machine";

export const timelineQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(200).optional(),
});

export type TimelineKind = "status" | "payment" | "fulfillment" | "hold";

export interface TimelineRow {
  id: string;
  at: string;
  kind: TimelineKind;
  title: string;
  source: string;
  detail?: string;
  amount?: number;
  currency?: string;
  actorType?: string;
  actorName?: string;
  reason?: string;
  subscriptionId?: string;
}

interface Raw {
  at: Date;
  rank: number;
  seq: number;
  id: string;
  kind: string;
  a: string | null;
  b: string | null;
  title: string | null;
  source: string;
  detail: string | null;
  amount: number | null;
  currency: string | null;
  actorType: string | null;
  actorName: string | null;
  reason: string | null;
}

type Key = { at: Date; rank: number; seq: number };
const encode = (k: Key) => Buffer.from(JSON.stringify([k.at.toISOString(), k.rank, k.seq])).toString("base64url");
function decode(cursor: string): Key {
  try {
    const [a, rank, seq] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    const at = new Date(a);
    if (typeof a !== "string" || Number.isNaN(at.getTime()) || ![0, 1, 2, 3].includes(rank) || !Number.isSafeInteger(seq) || seq < 0 || seq > 2 ** 31) throw new Error("bad");
    return { at, rank, seq };
  } catch {
    throw errors.validation([{ path: ["query", "cursor"], message: "Invalid cursor" }]);
  }
}

/** Each row's own cursor (GraphQL edges), kept beside the row so the REST row's shape stays as it is. */
const cursors = new WeakMap<TimelineRow, string>();
export function timelineCursor(row: TimelineRow): string {
  const c = cursors.get(row);
  if (!c) throw new Error("timelineCursor: a row not read by this service");
  return c;
}

const label = orderStatusLabel;

const PAYMENT_TITLE: Record<string, string> = {
  "authorization:succeeded": "Payment authorized",
  "authorization:pending": "Payment waiting on the buyer or processor",
  "authorization:failed": "Payment declined",
  "capture:succeeded": "Payment captured",
  "capture:failed": "Capture failed",
  "refund:succeeded": "Refund issued",
  "refund:pending": "Refund pending",
  "refund:failed": "Refund failed",
  "void:succeeded": "Authorization voided",
  "void:failed": "Void failed",
  "expiry:succeeded": "Authorization expired",
};

function titleOf(r: Raw): string {
  if (r.kind === "status") return r.a ? `Status changed from ${label(r.a)} to ${label(r.b!)}` : `Order created as ${label(r.b!)}`;
  if (r.kind === "payment") return PAYMENT_TITLE[`${r.a}:${r.b}`] ?? `Payment ${r.a} ${r.b}`.replace(/_/g, " ");
  return r.title ?? "";
}

const METHOD: Record<string, string> = { card: "Card", net30: "Net terms invoice", manual: "Manual payment" };

/** One page of an order's timeline, newest first. */
export async function orderTimeline(ctx: Ctx, orderId: string, query: unknown) {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const q = parseInput(timelineQuery, query ?? {}, ["query"]);
  const after = q.cursor ? decode(q.cursor) : null;
  const order = isUuid(orderId)
    ? await ctx.db.order.findFirst({ where: { id: orderId, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true, subscriptionId: true } })
    : null;
  if (!order) throw errors.notFound("Order");
  const id = order.id;
  const text = sql<string | null>`NULL::text`;
  const int = sql<number | null>`NULL::int`;
  const rows: Raw[] = await ctx.sql
    .selectFrom((db) =>
      db
        .selectFrom("OrderStatusHistory as h")
        .select((eb) => [
          eb.ref("h.createdAt").as("at"),
          sql<number>`CASE WHEN ${eb.ref("h.fromStatus")} IS NULL THEN 0 ELSE 2 END`.as("rank"),
          "h.seq",
          sql<string>`${eb.ref("h.id")}::text`.as("id"),
          sql<string>`'status'`.as("kind"),
          eb.ref("h.fromStatus").as("a"),
          eb.ref("h.toStatus").as("b"),
          text.as("title"),
          "h.source",
          text.as("detail"),
          int.as("amount"),
          text.as("currency"),
          "h.actorType",
          text.as("actorName"),
          "h.reason",
        ])
        .where("h.orderId", "=", id)
        .$castTo<Raw>() // the union's row: the three sources below are checked against it
        .unionAll((eb) =>
          eb
            .selectFrom("Transaction as tr")
            .innerJoin("Payment as p", "p.id", "tr.paymentId")
            .select((eb) => [
              eb.ref("tr.createdAt").as("at"),
              sql<number>`1`.as("rank"),
              "tr.seq",
              sql<string>`${eb.ref("tr.id")}::text`.as("id"),
              sql<string>`'payment'`.as("kind"),
              eb.ref("tr.type").as("a"),
              eb.ref("tr.status").as("b"),
              sql<null>`NULL`.as("title"),
              eb.ref("p.method").as("source"),
              eb.ref("p.method").as("detail"),
              "tr.amount",
              "tr.currency",
              sql<null>`NULL`.as("actorType"),
              sql<null>`NULL`.as("actorName"),
              sql<null>`NULL`.as("reason"),
            ])
            .where("p.orderId", "=", id)
            .where("p.applicationId", "=", t.applicationId)
            .where("p.environmentId", "=", t.environmentId),
        )
        .unionAll((eb) =>
          eb
            .selectFrom("OrderActivity as a")
            .select((eb) => [
              eb.ref("a.createdAt").as("at"),
              sql<number>`3`.as("rank"),
              "a.seq",
              sql<string>`${eb.ref("a.id")}::text`.as("id"),
              "a.kind",
              sql<null>`NULL`.as("a"),
              sql<null>`NULL`.as("b"),
              "a.title",
              "a.source",
              "a.detail",
              "a.amount",
              "a.currency",
              "a.actorType",
              "a.actorName",
              "a.reason",
            ])
            .where("a.orderId", "=", id),
        )
        .as("x"),
    )
    .select(["x.at", "x.rank", "x.seq", "x.id", "x.kind", "x.a", "x.b", "x.title", "x.source", "x.detail", "x.amount", "x.currency", "x.actorType", "x.actorName", "x.reason"])
    .$if(after !== null, (qb) =>
      qb.where((eb) => sql<SqlBool>`(${eb.ref("x.at")}, ${eb.ref("x.rank")}, ${eb.ref("x.seq")}) < (${after!.at}::timestamptz, ${after!.rank}::int, ${after!.seq}::int)`),
    )
    .orderBy("x.at", "desc")
    .orderBy("x.rank", "desc")
    .orderBy("x.seq", "desc")
    .limit(q.limit + 1)
    .execute();
  const hasMore = rows.length > q.limit;
  const page = hasMore ? rows.slice(0, q.limit) : rows;
  const items: TimelineRow[] = page.map((r) => {
    const row: TimelineRow = { id: r.id, at: r.at.toISOString(), kind: r.kind as TimelineKind, title: titleOf(r), source: r.kind === "payment" ? "payment" : r.source };
    const detail = r.kind === "payment" ? (METHOD[r.detail ?? ""] ?? r.detail) : r.detail;
    if (detail) row.detail = detail;
    if (r.amount !== null) row.amount = Number(r.amount);
    if (r.currency) row.currency = r.currency;
    if (r.actorType) row.actorType = r.actorType;
    if (r.actorName) row.actorName = r.actorName;
    if (r.reason) row.reason = r.reason;
    if (r.kind === "payment" && r.a === "refund" && order.subscriptionId) row.subscriptionId = order.subscriptionId;
    cursors.set(row, encode({ at: r.at, rank: Number(r.rank), seq: Number(r.seq) }));
    return row;
  });
  const last = page[page.length - 1];
  return { items, pagination: { cursor: hasMore ? encode({ at: last.at, rank: Number(last.rank), seq: Number(last.seq) }) : null, hasMore } };
}
