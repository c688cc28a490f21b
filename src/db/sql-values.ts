// The JavaScript values hand-written SQL reads and sends, the same on every path (sql.ts).

/** PostgreSQL type ids whose text form every path parses the same way. */
export const OID = { int8: 20, numeric: 1700, timestamp: 1114, timestamptz: 1184 } as const;

/** A `timestamp without time zone` read as UTC, as Prisma writes DateTime columns. */
function utcTimestamp(text: string): Date {
  return new Date(`${text.replace(" ", "T")}Z`);
}

/** Text parsers for the values Kysely reads (pg's Pool `types`, PGlite's `parsers`). */
export const PARSERS: Record<number, (text: string) => unknown> = {
  [OID.int8]: Number,
  [OID.numeric]: Number,
  [OID.timestamp]: utcTimestamp,
  [OID.timestamptz]: (text) => new Date(text),
};

/** Parameters as every path sends them: a Date as its ISO string (UTC), the rest unchanged. */
export function sqlParams(values: readonly unknown[]): unknown[] {
  return values.map((v) => (v instanceof Date ? v.toISOString() : v));
}

/**
 * pg's Pool `types` option: the parsers above for the queries that do not bring their own (Prisma's adapter passes its
 * own per query, so this changes only Kysely's results).
 */
export function pgTypes(fallback: { getTypeParser: (oid: number, format?: any) => any }) {
  return {
    getTypeParser: (oid: number, format?: any) => (format !== "binary" && PARSERS[oid]) || fallback.getTypeParser(oid, format),
  };
}
