// Graph edges to checkout sessions (Quote.checkoutSession, ...): the tenant's sessions among `ids` in one statement.
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { sessionView } from "./checkout.service";

/**
 * The tenant's checkout sessions among `ids`, by id; another tenant's ids, or ids of no session, are simply absent.
 * Checks checkout:write, the scope the merchant's session reads take (checkoutSessionUpdated).
 */
export async function checkoutSessionsByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof sessionView>>> {
  requireScope(ctx, "checkout:write");
  const t = requireTenant(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.checkoutSession.findMany({ where: { id: { in: [...ids] }, applicationId: t.applicationId, environmentId: t.environmentId } });
  return new Map(rows.map((r) => [r.id, sessionView(r, ctx.deps.config.CHECKOUT_URL)]));
}
