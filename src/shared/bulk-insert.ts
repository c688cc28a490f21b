// Many rows in one INSERT … SELECT FROM unnest(…) statement: one array parameter per column, so a batch of 500
// rows costs one statement, one round trip and no per-row query compilation (Prisma's createMany builds and
// compiles a VALUES list per call, which dominated the import commit's CPU). Column types are SQL casts written
// here, never taken from input; values are always parameters.
import type { DbHandle } from "./context";

type SqlType = "uuid" | "text" | "int" | "timestamptz" | "jsonb" | "bool";

export interface BulkColumn<R> {
  name: string;
  type: SqlType;
  value: (row: R) => unknown;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Inserts `rows` into `table`; `onConflictDoNothing` skips rows that hit a unique constraint. Returns rows inserted. */
export async function bulkInsert<R>(db: DbHandle, table: string, columns: BulkColumn<R>[], rows: R[], opts: { onConflictDoNothing?: boolean } = {}): Promise<number> {
  if (!rows.length) return 0;
  if (!IDENT.test(table) || columns.some((c) => !IDENT.test(c.name))) throw new Error("bulkInsert: bad identifier");
  const arrays = columns.map((c) =>
    rows.map((r) => {
      const v = c.value(r);
      if (v === undefined || v === null) return null;
      if (c.type === "jsonb") return JSON.stringify(v);
      if (c.type === "timestamptz") return (v as Date).toISOString();
      return v;
    }),
  );
  const cols = columns.map((c) => `"${c.name}"`).join(", ");
  // jsonb and timestamptz travel as text arrays and are cast per element
  const unnest = columns.map((c, i) => `$${i + 1}::${c.type === "jsonb" || c.type === "timestamptz" ? "text" : c.type}[]`).join(", ");
  const select = columns.map((c, i) => (c.type === "jsonb" || c.type === "timestamptz" ? `c${i}::${c.type}` : `c${i}`)).join(", ");
  const aliases = columns.map((_c, i) => `c${i}`).join(", ");
  const sql = `INSERT INTO "${table}" (${cols}) SELECT ${select} FROM unnest(${unnest}) AS t(${aliases})${opts.onConflictDoNothing ? " ON CONFLICT DO NOTHING" : ""}`;
  return db.$executeRawUnsafe(sql, ...arrays);
}

