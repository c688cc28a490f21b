// Keyset paging in hand-written SQL (Kysely): the condition that resumes a list after a (createdAt, id), and the
// window function that pages each parent's children in one statement (graph edges under a page of parents; the
// cursor comes from shared/pagination.ts pageAfter, the rows go back through its pagesByParent).
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";

/** The keyset condition of a page on a table's createdAt and id, as a Kysely filter. */
export function afterCondition(eb: ExpressionBuilder<any, any>, alias: string, after: { createdAt: Date; id: string }): Expression<SqlBool> {
  return eb.or([eb(`${alias}.createdAt`, "<", after.createdAt), eb.and([eb(`${alias}.createdAt`, "=", after.createdAt), eb(`${alias}.id`, "<", after.id)])]);
}

/** row_number() within each parent, newest first: `<= limit + 1` keeps each parent's page and tells whether more follow. */
export function rankWithin(eb: ExpressionBuilder<any, any>, alias: string, parentColumn: string) {
  return sql<number>`row_number() over (partition by ${eb.ref(`${alias}.${parentColumn}`)} order by ${eb.ref(`${alias}.createdAt`)} desc, ${eb.ref(`${alias}.id`)} desc)`;
}
