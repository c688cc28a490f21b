// Named (prepared) statements on PostgreSQL: Prisma's (the `statementNameGenerator` option of @prisma/adapter-pg) and
// Kysely's (sql.ts sends pg's `name` with the query), each decided by a StatementNames.
//
// pg sends a statement without a name as the unnamed statement: PostgreSQL parses and plans it on every execution.
// With a name, pg parses it once per connection and then only binds and executes it, and PostgreSQL reuses its plan
// (a generic plan after five executions when that costs no more than the custom ones: plan_cache_mode auto). For the
// checkout scenario that halves PostgreSQL's CPU per order (bench/RESULTS.md, eleventh step): its statements with
// CTEs are expensive to plan.
// - A statement text is named on its second execution, so one-off texts (start-up checks, rare admin reads) do not
//   take a slot; at most `max` texts are named per process, the first to repeat. The rest stay unnamed.
// - No statement may expand `*` into a table's columns (`RETURNING *`, `SELECT t.*`): PostgreSQL refuses to run a
//   prepared statement whose result columns changed ("cached plan must not change result type", 0A000), so a
//   migration adding a column would break it in every process started before it (a rolling deploy). Prisma's own
//   statements list their columns; hand-written ones must too: the lint forbids Kysely's selectAll and returningAll
//   (a model's columns come from the generated client's field enum, e.g. `Prisma.SubscriptionScalarFieldEnum`).
// Costs (docs/prisma.md): each connection keeps the statements it has run, and PostgreSQL their plans, until the
// connection closes (pg's pool closes idle ones after 10 s). PgBouncer in transaction mode needs 1.21 or later with
// `max_prepared_statements` set, or `DATABASE_PREPARED_STATEMENTS=0` (docs/scaling.md).
export class StatementNames {
  /** text -> name, or null for a text that is never named */
  private readonly decided = new Map<string, string | null>();
  /** texts seen once (bounded: cleared when it reaches 8 x max) */
  private seen = new Set<string>();
  private count = 0;

  constructor(
    readonly max: number,
    private readonly prefix = "q2c_",
  ) {}

  /** The name for this statement, or "" to send it unnamed (pg treats "" as no name). */
  readonly name = (query: { sql: string }): string => {
    const sql = query.sql;
    const known = this.decided.get(sql);
    if (known !== undefined) return known ?? "";
    if (this.count >= this.max) return "";
    if (!this.seen.has(sql)) {
      if (this.seen.size >= this.max * 8) this.seen = new Set();
      this.seen.add(sql);
      return "";
    }
    this.seen.delete(sql);
    const name = `${this.prefix}${this.count++}`;
    this.decided.set(sql, name);
    return name;
  };

  /** how many statement texts have a name */
  get size(): number {
    return this.count;
  }
}
