// GET /orders/{id}/timeline: one row per status-history row, payment transaction (of the order's payments) and
// activity row (holds, comps, fulfillments, shipments, returns), newest first. One SQL statement per page: a
// UNION ALL of the three sources with a keyset on (at, rank, seq): seq is each table's insertion order; the rank
// orders rows of one clock tick across tables as they are written (the order's first status row, then payment
// transactions, then later status changes, then activity rows, which services write last).
import { z } from "zod";
import { Prisma } from "../generated/prisma/client";
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
  const keyset = after ? Prisma.sql`WHERE (x.at, x.rank, x.seq) < (${after.at}::timestamptz, ${after.rank}::int, ${after.seq}::int)` : Prisma.empty;
  const rows = await ctx.db.$queryRaw<Raw[]>`
    SELECT x.at, x.rank, x.seq, x.id, x.kind, x.a, x.b, x.title, x.source, x.detail, x.amount, x.currency, x."actorType", x."actorName", x.reason FROM (
      SELECT h."createdAt" AS at, CASE WHEN h."fromStatus" IS NULL THEN 0 ELSE 2 END AS rank, h.seq, h.id::text AS id, 'status' AS kind, h."fromStatus" AS a, h."toStatus" AS b,
             NULL::text AS title, h.source, NULL::text AS detail, NULL::int AS amount, NULL::text AS currency,
             h."actorType", NULL::text AS "actorName", h.reason
      FROM "OrderStatusHistory" h WHERE h."orderId" = ${id}::uuid
      UNION ALL
      SELECT tr."createdAt", 1, tr.seq, tr.id::text, 'payment', tr.type, tr.status,
             NULL, p.method, p.method, tr.amount, tr.currency, NULL, NULL, NULL
      FROM "Transaction" tr JOIN "Payment" p ON p.id = tr."paymentId" WHERE p."orderId" = ${id}::uuid
      UNION ALL
      SELECT a."createdAt", 3, a.seq, a.id::text, a.kind, NULL, NULL,
             a.title, a.source, a.detail, a.amount, a.currency, a."actorType", a."actorName", a.reason
      FROM "OrderActivity" a WHERE a."orderId" = ${id}::uuid
    ) x
    ${keyset}
    ORDER BY x.at DESC, x.rank DESC, x.seq DESC
    LIMIT ${q.limit + 1}`;
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
    return row;
  });
  const last = page[page.length - 1];
  return { items, pagination: { cursor: hasMore ? encode({ at: last.at, rank: Number(last.rank), seq: Number(last.seq) }) : null, hasMore } };
}
