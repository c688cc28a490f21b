// INSERT … SELECT with a typed row: the statement shape the hot writes need (a row inserted only if other CTEs of
// the same statement found what they needed, lines read from a JSON array), with its column list a typed object.
//
// `data` holds the plain values (one object per row, or one row), typed as the table's Insertable row less the
// columns `set` computes: a column the table requires that neither names fails tsc, as does a renamed one. The plain
// values reach PostgreSQL as one jsonb parameter read by `jsonb_populate_recordset(NULL::"Table", …)`, so each value
// takes its column's own type (no hand-kept casts or column-definition lists). `set` holds SQL expressions for the
// columns computed in the statement (an id from another CTE, gen_random_uuid()).
import { type AliasedExpression, type Expression, expressionBuilder, type Insertable, type InsertQueryBuilder, type InsertResult, type QueryCreator, type SqlBool, sql } from "kysely";
import type { DB } from "../generated/kysely/types";

export type Table = keyof DB & string;
type Columns<T extends Table> = keyof Insertable<DB[T]> & string;
export type Computed<T extends Table> = Partial<Record<Columns<T>, Expression<unknown>>>;

export interface InsertSelect<T extends Table, S extends Computed<T>> {
  /**
   * plain values, one object per row (every row names the same columns); null: one row of `set` only, which then
   * names every column the table requires
   */
  data: Omit<Insertable<DB[T]>, keyof S> | readonly Omit<Insertable<DB[T]>, keyof S>[] | (Record<never, never> extends Omit<Insertable<DB[T]>, keyof S> ? null : never);
  /** the columns computed in SQL, for every row */
  set?: S;
  /** other relations the row is selected from (CTE names, `Table as t`, a LATERAL): no row unless each has one */
  from?: readonly (string | AliasedExpression<any, any>)[];
  /** and only if this holds */
  where?: Expression<SqlBool>;
  /** how the rows are ordered when inserted (a serial column's order); default: as given */
  ordered?: boolean;
}

/**
 * `INSERT INTO "T" (<columns>) SELECT <values> FROM jsonb_populate_recordset(NULL::"T", $rows) r[, <from>] [WHERE …]`,
 * on `qc` (the root, a transaction, or a QueryCreator carrying CTEs). The caller chains onConflict / returning.
 */
export function insertSelect<T extends Table, S extends Computed<T> = Record<never, never>>(
  qc: QueryCreator<any>,
  table: T,
  spec: InsertSelect<T, S>,
): InsertQueryBuilder<DB, T, InsertResult> {
  const rows = (spec.data === null ? [] : Array.isArray(spec.data) ? spec.data : [spec.data]) as Record<string, unknown>[];
  const set = (spec.set ?? {}) as Record<string, Expression<unknown>>;
  const plain = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((c) => !(c in set));
  const columns = [...plain, ...Object.keys(set)];
  const json = JSON.stringify(rows);
  const ordinality = spec.ordered && rows.length > 1 ? sql` WITH ORDINALITY` : sql``;
  const recs = sql`jsonb_populate_recordset(NULL::${sql.table(table)}, ${json}::jsonb)${ordinality}`.as("r");
  // the SELECT is built apart from `qc`, whose CTEs belong to the statement, not to its INSERT's source
  let select = expressionBuilder<any, never>().selectFrom([...(spec.data === null ? [] : [recs]), ...(spec.from ?? [])] as any).select([
    ...plain.map((c) => sql.ref(`r.${c}`).as(c)),
    ...Object.entries(set).map(([c, e]) => sql`${e}`.as(c)),
  ] as any);
  if (spec.where) select = select.where(spec.where as any);
  if (spec.ordered && rows.length > 1) select = select.orderBy(sql.ref("r.ordinality")) as any;
  return (qc as unknown as QueryCreator<DB>).insertInto(table).columns(columns as any).expression(select as any) as unknown as InsertQueryBuilder<DB, T, InsertResult>;
}
