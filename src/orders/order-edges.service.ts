// Batch reads behind the order edges of the graph (Payment.order, Customer.orders, Subscription.orders): every read
// checks orders:read, filters by the caller's application and environment, and answers all parents in one go.
import { z } from "zod";
import { sql } from "kysely";
import type { Order, OrderLineItem } from "../generated/prisma/client";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { parseInput } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { type Page, pageAfter, pageQuery, pagesByParent } from "../shared/pagination";
import { ORDER_STATUSES } from "./order.machine";
import { DELIVERY_MATCH, orderDateRange, PAYMENT_STATUSES } from "./orders.service";

export type OrderWithLines = Order & { lineItems: OrderLineItem[] };

/** The filters of an order list under a parent (Customer.orders, Subscription.orders): state, delivery, date range. */
export const orderEdgeFilters = pageQuery.extend({
  status: z.enum(ORDER_STATUSES).optional(),
  paymentStatus: z.enum(PAYMENT_STATUSES).optional(),
  delivery: z.enum(["not_shipped", "in_transit", "delivered", "returned"]).optional(),
  ...orderDateRange,
});

async function withLines(ctx: Ctx, t: { applicationId: string; environmentId: string }, ids: string[]): Promise<OrderWithLines[]> {
  if (ids.length === 0) return [];
  // one statement: relationJoins loads the lines in the same query
  return ctx.db.order.findMany({ where: { id: { in: ids }, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lineItems: true } });
}

/** Payment.order and other single-order edges: the tenant's orders among `ids` (another tenant's are absent). */
export async function ordersByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, OrderWithLines>> {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const rows = await withLines(ctx, t, ids.filter(isUuid));
  return new Map(rows.map((o) => [o.id, o]));
}

type Parent = "customerId" | "subscriptionId";

/**
 * A page of orders under each parent (a customer or a subscription), newest first, filtered: ONE window-function
 * statement picks at most limit + 1 orders per parent, a second reads them with their lines, whatever the number of
 * parents. `query` is the edge's filters and page (orderEdgeFilters); a cursor belongs to one parent's list.
 */
export async function orderPagesOf(ctx: Ctx, parent: Parent, parentIds: readonly string[], query: unknown): Promise<Map<string, Page<OrderWithLines>>> {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const q = parseInput(orderEdgeFilters, query ?? {}, ["query"]);
  const ids = parent === "customerId" ? parentIds.filter(isUuid) : parentIds.filter((p) => p.length > 0 && p.length <= 200);
  if (ids.length === 0) return pagesByParent(parentIds, [], () => null, q);
  const after = pageAfter(q);
  const ranked = ctx.sql
    .selectFrom("Order as o")
    .select((eb) => [
      "o.id",
      "o.createdAt",
      eb.ref(`o.${parent}`).as("parent"),
      sql<number>`row_number() over (partition by ${eb.ref(`o.${parent}`)} order by ${eb.ref("o.createdAt")} desc, ${eb.ref("o.id")} desc)`.as("rn"),
    ])
    .where("o.applicationId", "=", t.applicationId)
    .where("o.environmentId", "=", t.environmentId)
    .where(`o.${parent}`, "in", ids)
    .$if(Boolean(q.status), (qb) => qb.where("o.status", "=", q.status!))
    .$if(Boolean(q.paymentStatus), (qb) => qb.where("o.paymentStatus", "=", q.paymentStatus!))
    .$if(q.delivery === "not_shipped", (qb) => qb.where("o.deliveryState", "is", null))
    .$if(Boolean(q.delivery && q.delivery !== "not_shipped"), (qb) => qb.where("o.deliveryState", "in", [...DELIVERY_MATCH[q.delivery as keyof typeof DELIVERY_MATCH]]))
    .$if(Boolean(q.createdAfter), (qb) => qb.where("o.createdAt", ">=", q.createdAfter!))
    .$if(Boolean(q.createdBefore), (qb) => qb.where("o.createdAt", "<", q.createdBefore!))
    .$if(after !== null, (qb) => qb.where((eb) => eb.or([eb("o.createdAt", "<", after!.createdAt), eb.and([eb("o.createdAt", "=", after!.createdAt), eb("o.id", "<", after!.id)])])));
  const picked = await ctx.sql.selectFrom(ranked.as("r")).select(["r.id", "r.parent"]).where("r.rn", "<=", q.limit + 1).execute();
  const rows = await withLines(ctx, t, picked.map((p) => p.id));
  rows.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return pagesByParent(parentIds, rows, (o) => o[parent], q);
}
