// GraphQL for the order timeline and the CSV export: orderTimeline pages like every list (pageOf); ordersExport
// checks the filters and answers the relative URL of GET /orders/export.csv for them (a CSV file is not a
// GraphQL value: fetch the URL with the same credential).
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { EXPORT_COLUMNS, EXPORT_MAX_ROWS, exportUrl, prepareExport } from "./export.service";
import type { Actor } from "./order.machine";
import { ActorTypeEnum, orderFilterArgs, orderFilterInput } from "./orders.schema";
import { orderTimeline, timelineCursor, type TimelineKind, type TimelineRow } from "./timeline.service";

const TimelineKindEnum = describedEnum<TimelineKind>("OrderTimelineKind", "What a timeline row records", {
  status: "A status change",
  payment: "A payment transaction (authorization, capture, refund, ...)",
  fulfillment: "A fulfillment, shipment or return change",
  hold: "A hold or a comp",
});

const TimelineRowRef = builder.objectRef<TimelineRow>("OrderTimelineRow").implement({
  description: "One thing that happened to an order",
  fields: (t) => ({
    id: t.exposeID("id"),
    at: t.field({ type: "DateTime", description: "When", resolve: (r) => r.at }),
    kind: t.field({ type: TimelineKindEnum, description: "What it records", resolve: (r) => r.kind }),
    title: t.exposeString("title", { description: "A short English sentence" }),
    source: t.exposeString("source", { description: "What caused it (manual, payment, fulfillment, return, ...)" }),
    detail: t.string({ nullable: true, description: "More about it", resolve: (r) => r.detail ?? null }),
    amount: t.int({ nullable: true, description: "Minor units, on money rows", resolve: (r) => r.amount ?? null }),
    currency: t.string({ nullable: true, resolve: (r) => r.currency ?? null }),
    actorType: t.field({ type: ActorTypeEnum, nullable: true, description: "Who did it", resolve: (r) => (r.actorType ?? null) as Actor["actorType"] | null }),
    actorName: t.string({ nullable: true, description: "The member's email or the key's name", resolve: (r) => r.actorName ?? null }),
    reason: t.string({ nullable: true, description: "Why, when given", resolve: (r) => r.reason ?? null }),
    subscriptionId: t.string({ nullable: true, description: "Refund rows of a subscription's order", resolve: (r) => r.subscriptionId ?? null }),
  }),
});

export const TimelinePage = pageOf<TimelineRow>("OrderTimelinePage", TimelineRowRef, "timeline rows", timelineCursor);

const ExportRef = builder.objectRef<{ url: string; columns: string[]; maxRows: number }>("OrdersExport").implement({
  description: "Where to download the CSV export of orders",
  fields: (t) => ({
    url: t.exposeString("url", { description: "Relative URL of GET /orders/export.csv with these filters; fetch it with the same credential" }),
    columns: t.exposeStringList("columns", { description: "The CSV's columns, in order" }),
    maxRows: t.exposeInt("maxRows", { description: "At most this many rows, newest first" }),
  }),
});

builder.queryFields((t) => ({
  orderTimeline: t.field({
    type: TimelinePage,
    description: "An order's timeline, newest first: status changes, payment transactions, fulfillments, shipments, returns, holds and comps",
    authScopes: { scope: "orders:read" },
    args: { id: t.arg.id({ required: true, description: "The order's id" }), ...pageArgs(t) },
    resolve: (_r, a, ctx) => orderTimeline(ctx, String(a.id), compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) })),
  }),
  ordersExport: t.field({
    type: ExportRef,
    description: "The CSV export of the orders these filters select (the orders query's filters)",
    authScopes: { scope: "orders:read" },
    args: orderFilterArgs(),
    resolve: (_r, a, ctx) => {
      const p = prepareExport(ctx, orderFilterInput(a));
      return { url: exportUrl(p.q), columns: [...EXPORT_COLUMNS], maxRows: EXPORT_MAX_ROWS };
    },
  }),
}));
