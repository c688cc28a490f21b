// Batched reads for the graph's checkout edges (Cart.checkoutSessions): one statement for the sessions of every cart
// on a page, keyset-paged per cart with a window function, tenant-filtered.
import { Prisma, type CheckoutSession } from "../generated/prisma/client";
import type { DB } from "../db/sql";
import type { Ctx } from "../shared/context";
import { requireScope, requireTenant } from "../shared/guards";
import { type Page, pagesByParent, parsePage, pageAfter } from "../shared/pagination";
import { afterCondition, rankWithin } from "../db/keyset";

const SESSION_COLUMNS = Object.values(Prisma.CheckoutSessionScalarFieldEnum) as (keyof DB["CheckoutSession"] & string)[];

/**
 * Cart.checkoutSessions: the tenant's sessions of each cart, newest first, one page each. checkout:write, the scope
 * every merchant read of a session takes today (getCheckoutSession, checkoutSessionUpdated).
 */
export async function sessionPagesByCart(ctx: Ctx, cartIds: readonly string[], query: unknown): Promise<Map<string, Page<CheckoutSession>>> {
  requireScope(ctx, "checkout:write");
  const t = requireTenant(ctx);
  const page = parsePage(query);
  if (cartIds.length === 0) return new Map();
  const after = pageAfter(page);
  const rows = await ctx.sql
    .with("r", (db) =>
      db
        .selectFrom("CheckoutSession as s")
        .select((eb) => ["s.id", rankWithin(eb, "s", "cartId").as("rn")])
        .where("s.cartId", "in", [...cartIds])
        .where("s.applicationId", "=", t.applicationId)
        .where("s.environmentId", "=", t.environmentId)
        .$if(after !== null, (q) => q.where((eb) => afterCondition(eb, "s", after!))),
    )
    .selectFrom("r")
    .innerJoin("CheckoutSession as s", "s.id", "r.id")
    .select(SESSION_COLUMNS.map((k) => `s.${k}` as const))
    .where("r.rn", "<=", page.limit + 1)
    .orderBy("s.createdAt", "desc")
    .orderBy("s.id", "desc")
    .execute();
  return pagesByParent(cartIds, rows as unknown as CheckoutSession[], (s) => s.cartId, page);
}
