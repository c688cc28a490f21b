// Helpers for paged graph edges (Customer.carts, Cart.checkoutSessions, WorkspaceMember.invitations): the keyset of a
// page as a Kysely filter, the window function that pages each parent's children in one statement, and a loader
// batch that groups keys by their page arguments. Here, in the lowest of the folders that use them (platform), so
// carts, checkout and extensions can import them; they belong to src/graphql and src/shared/pagination.ts once the
// streams of issue 37 are merged.
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import { keyset, type PageQuery } from "../shared/pagination";

/**
 * The (createdAt, id) a keyset page resumes after, or null on the first page: read from keyset()'s own fragment, so
 * the cursor is decoded and checked in one place (src/shared/pagination.ts).
 */
export function afterKeyOf(page: PageQuery): { createdAt: Date; id: string } | null {
  const w = keyset(page).where as { OR?: [unknown, { createdAt: Date; id: { lt: string } }] };
  return w.OR ? { createdAt: w.OR[1].createdAt, id: w.OR[1].id.lt } : null;
}

/** The keyset condition of a page on a table's createdAt and id, as a Kysely filter. */
export function afterCondition(eb: ExpressionBuilder<any, any>, alias: string, after: { createdAt: Date; id: string }): Expression<SqlBool> {
  return eb.or([eb(`${alias}.createdAt`, "<", after.createdAt), eb.and([eb(`${alias}.createdAt`, "=", after.createdAt), eb(`${alias}.id`, "<", after.id)])]);
}

/** row_number() within each parent, newest first: `<= limit + 1` keeps each parent's page and tells whether more follow. */
export function rankWithin(eb: ExpressionBuilder<any, any>, alias: string, parentColumn: string) {
  return sql<number>`row_number() over (partition by ${eb.ref(`${alias}.${parentColumn}`)} order by ${eb.ref(`${alias}.createdAt`)} desc, ${eb.ref(`${alias}.id`)} desc)`;
}

/** A paged edge's loader key: the parent and the page arguments (services' { limit, cursor }, plus any filter). */
export type PageKey = { parentId: string; page: { limit?: number; cursor?: string; [filter: string]: unknown } };
export const pageKeyOf = (k: PageKey) => `${k.parentId}|${JSON.stringify(k.page)}`;

/**
 * A loader batch for a paged edge: the keys of one tick grouped by their page arguments (aliases may ask for
 * different pages), one read per group; `read` answers a page per parent id.
 */
export function byPageArgs<V>(read: (parentIds: string[], page: PageKey["page"]) => Promise<Map<string, V>>) {
  return async (keys: PageKey[]) => {
    const groups = new Map<string, PageKey[]>();
    for (const k of keys) {
      const g = JSON.stringify(k.page);
      groups.set(g, [...(groups.get(g) ?? []), k]);
    }
    const out = new Map<string, V>();
    for (const ks of groups.values()) {
      const found = await read(ks.map((k) => k.parentId), ks[0].page);
      for (const k of ks) {
        const v = found.get(k.parentId);
        if (v !== undefined) out.set(pageKeyOf(k), v);
      }
    }
    return out;
  };
}
