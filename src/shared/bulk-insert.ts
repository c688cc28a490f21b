// Many rows in one statement: the rows travel as one jsonb parameter and PostgreSQL turns them into records of the
// table's own row type (jsonb_populate_recordset), so a batch of 500 rows costs one statement, one round trip, one
// parameter and no per-row query compilation (Prisma's createMany builds and compiles a VALUES list per call, which
// dominated the import commit's CPU). The column types are the table's, never written here nor taken from input;
// the column names are Kysely's, typed from prisma/schema.prisma, so a renamed or new required column fails `tsc`.
import { type Insertable, type Selectable, sql } from "kysely";
import type { DB, Sql } from "../db/sql";

type Table = keyof DB & string;

/**
 * `jsonb_populate_recordset(NULL::"Table", $1) AS alias`: `rows` as records of `table`'s row type, for a FROM list
 * (an INSERT … SELECT, an UPDATE … FROM). Keys a row leaves out read as NULL. Dates travel as ISO strings in UTC,
 * which a `timestamp(3)` column reads as UTC.
 */
export function recordset<T extends Table, A extends string>(table: T, rows: readonly Partial<Selectable<DB[T]>>[], alias: A) {
  return sql<Selectable<DB[T]>>`jsonb_populate_recordset(NULL::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`.as(alias);
}

/**
 * Inserts `rows` into `table` in one statement; `onConflictDoNothing` skips rows that hit a unique constraint.
 * Every row names the same columns (the first row's keys): a key one row left out would be NULL, not its default.
 * Returns the number of rows inserted.
 */
export async function bulkInsert<T extends Table>(db: Sql, table: T, rows: readonly Insertable<DB[T]>[], opts: { onConflictDoNothing?: boolean } = {}): Promise<number> {
  if (!rows.length) return 0;
  const names = Object.keys(rows[0]!);
  if (rows.some((r) => Object.keys(r).length !== names.length)) throw new Error(`bulkInsert into ${table}: every row must name the same columns`);
  const columns = names.map((c) => sql.ref(`r.${c}`));
  // the column names come from the typed rows (Insertable<DB[T]>): Kysely cannot type a list of a generic table's columns
  let q = db
    .insertInto(table)
    .columns(names as never[])
    .expression(sql`SELECT ${sql.join(columns)} FROM ${recordset(table, rows as never[], "r")}`);
  if (opts.onConflictDoNothing) q = q.onConflict((oc) => oc.doNothing());
  const result = await q.executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
