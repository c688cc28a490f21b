// Batched reads for the graph's cart edges (Customer.carts): one statement for the carts of every customer on a page,
// keyset-paged per customer with a window function, tenant-filtered, each cart with its lines and linked customer.
import { sql } from "kysely";
import type { Cart } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { requireScope, requireTenant } from "../shared/guards";
import { type Page, pagesByParent, parsePage, pageAfter } from "../shared/pagination";
import { afterCondition, rankWithin } from "../db/keyset";
import { CART_COLUMNS, type CartWithItems, cartLinesJson, shapeCartLines } from "./carts.service";

/** Customer.carts: the tenant's carts of each customer, newest first, one page each (carts:read). */
export async function cartPagesByCustomer(ctx: Ctx, customerIds: readonly string[], query: unknown): Promise<Map<string, Page<CartWithItems>>> {
  requireScope(ctx, "carts:read");
  const t = requireTenant(ctx);
  const page = parsePage(query);
  if (customerIds.length === 0) return new Map();
  const after = pageAfter(page);
  const rows = await ctx.sql
    .with("r", (db) =>
      db
        .selectFrom("Cart as c")
        .select((eb) => ["c.id", rankWithin(eb, "c", "customerId").as("rn")])
        .where("c.customerId", "in", [...customerIds])
        .where("c.applicationId", "=", t.applicationId)
        .where("c.environmentId", "=", t.environmentId)
        .$if(after !== null, (q) => q.where((eb) => afterCondition(eb, "c", after!))),
    )
    .selectFrom("r")
    .innerJoin("Cart as c", "c.id", "r.id")
    .leftJoin("Customer as cu", (j) => j.onRef("cu.id", "=", "c.customerId").onRef("cu.applicationId", "=", "c.applicationId").onRef("cu.environmentId", "=", "c.environmentId"))
    .select(CART_COLUMNS.map((k) => `c.${k}` as const))
    .select((eb) => [
      eb.case().when("cu.id", "is", null).then(null).else(eb.fn<{ id: string; email: string | null }>("json_build_object", [sql.lit("id"), "cu.id", sql.lit("email"), "cu.email"])).end().as("customer"),
      cartLinesJson(eb.ref("c.id")).as("lineItems"),
    ])
    .where("r.rn", "<=", page.limit + 1)
    .orderBy("c.createdAt", "desc")
    .orderBy("c.id", "desc")
    .execute();
  const carts = rows.map((row) => ({ ...(row as unknown as Cart), lineItems: shapeCartLines(row.lineItems), customer: row.customer }) as CartWithItems);
  return pagesByParent(customerIds, carts, (c) => c.customerId, page);
}
