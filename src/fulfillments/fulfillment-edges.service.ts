// Batch reads behind Order.fulfillments and Order.returns: every order of a page in one statement, oldest first
// (as GET /orders/{id}/fulfillments and /returns), scope-checked and filtered by the caller's tenant.
import type { Fulfillment, FulfillmentLine, OrderReturn, ReturnLine } from "../generated/prisma/client";
import { groupedBy } from "../graphql/loaders";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { isUuid } from "../shared/ids";

const oldestFirst = [{ createdAt: "asc" as const }, { id: "asc" as const }];

/** Order.fulfillments (fulfillments:read). */
export async function fulfillmentsOfOrders(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, (Fulfillment & { lines: FulfillmentLine[] })[]>> {
  requireScope(ctx, "fulfillments:read");
  const t = requireTenant(ctx);
  const ids = orderIds.filter(isUuid);
  const rows = ids.length
    ? await ctx.db.fulfillment.findMany({ where: { orderId: { in: ids }, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lines: true }, orderBy: oldestFirst })
    : [];
  return groupedBy(orderIds, rows, (f) => f.orderId);
}

/** Order.returns (order_returns:read). */
export async function returnsOfOrders(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, (OrderReturn & { lines: ReturnLine[] })[]>> {
  requireScope(ctx, "order_returns:read");
  const t = requireTenant(ctx);
  const ids = orderIds.filter(isUuid);
  const rows = ids.length
    ? await ctx.db.orderReturn.findMany({ where: { orderId: { in: ids }, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lines: true }, orderBy: oldestFirst })
    : [];
  return groupedBy(orderIds, rows, (r) => r.orderId);
}
