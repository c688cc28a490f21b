// Graph edges to orders (Quote.order, ...): the tenant's orders among `ids`, with their lines, in one statement.
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { orderView } from "./orders.service";

/** The tenant's orders among `ids`, by id (as the orders list shows them); other ids are simply absent. Checks orders:read. */
export async function ordersByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof orderView>>> {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.order.findMany({ where: { id: { in: [...ids] }, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lineItems: true } });
  return new Map(rows.map((r) => [r.id, orderView(r)]));
}
