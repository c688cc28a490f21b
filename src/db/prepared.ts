// Named (prepared) statements for Prisma's statements on PostgreSQL.
//
// pg sends a statement without a name as the unnamed statement: PostgreSQL parses and plans it on every execution.
// With a name, pg parses it once per connection and then only binds and executes it, and PostgreSQL reuses its plan
// (a generic plan after five executions when that costs no more than the custom ones: plan_cache_mode auto). For the
// checkout scenario that halves PostgreSQL's CPU per order (bench/RESULTS.md, eleventh step): its raw statements
// with CTEs are expensive to plan.
//
// The adapter asks for a name per statement (`statementNameGenerator` of @prisma/adapter-pg). This decides:
// - A statement text is named on its second execution, so one-off texts (start-up checks, rare admin reads) do not
//   take a slot; at most `max` texts are named per process, the first to repeat. The rest stay unnamed, as before.
// - Never a statement that expands `*` into a table's columns (`RETURNING *`, `SELECT t.*`). PostgreSQL refuses to
//   run a prepared statement whose result columns changed ("cached plan must not change result type", 0A000), so a
//   migration adding a column would break such statements in every process started before it (a rolling deploy)
//   until their connections closed. Statements that list their columns are re-planned silently instead. The hot
//   paths' raw statements list theirs (`columns()` below); Prisma's own always do.
// Costs (docs/prisma.md): each connection keeps the statements it has run, and PostgreSQL their plans, until the
// connection closes (pg's pool closes idle ones after 10 s). PgBouncer in transaction mode needs 1.21 or later with
// `max_prepared_statements` set, or `DATABASE_PREPARED_STATEMENTS=0` (docs/scaling.md).
import type { EventEmitter } from "node:events";
import type { Pool } from "pg";
import { Prisma } from "../generated/prisma/client";

/**
 * True when the statement's own result columns come from a table's definition: a `*` in its outermost select list or
 * RETURNING clause (`RETURNING *`, `SELECT t.*`, `SELECT * FROM (…)`). A `*` inside parentheses (a CTE, a subquery
 * whose columns the outer select names, `count(*)`, `row_to_json(t.*)`) does not decide the result's columns; Prisma's
 * relation joins use such inner stars. Quoted text and comments are skipped.
 */
export function expandsStar(sql: string): boolean {
  let depth = 0;
  let prev = ""; // the last token at depth 0: a keyword in upper case, or one punctuation character
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      if (end < 0) return true; // unbalanced: do not name it
      i = end;
      if (depth === 0) prev = "identifier";
    } else if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) return true;
      i = end + 1;
    } else if (ch === "(") {
      depth++;
    } else if (ch === ")") {
      depth--;
      if (depth === 0) prev = ")";
    } else if (depth === 0) {
      if (ch === "*") {
        if (prev === "SELECT" || prev === "RETURNING" || prev === "DISTINCT" || prev === "," || prev === ".") return true;
        prev = "*";
      } else if (/[A-Za-z_$]/.test(ch)) {
        let j = i + 1;
        while (j < sql.length && /[\w$]/.test(sql[j])) j++;
        prev = sql.slice(i, j).toUpperCase();
        i = j - 1;
      } else if (!/\s/.test(ch)) {
        prev = ch;
      }
    }
  }
  return false;
}

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
    if (expandsStar(sql)) {
      if (this.decided.size < this.max * 4) this.decided.set(sql, null);
      return "";
    }
    const name = `${this.prefix}${this.count++}`;
    this.decided.set(sql, name);
    return name;
  };

  /** how many statement texts have a name */
  get size(): number {
    return this.count;
  }
}

/**
 * A model's columns for a raw statement's select list or RETURNING clause, from the generated client's field enum
 * (`Prisma.CartScalarFieldEnum`), optionally qualified by a table alias: `"id", "workspaceId", …` or `c."id", …`.
 * The list is the one this build knows, so a later migration's columns do not change what the statement returns.
 */
export function columns(fields: Record<string, string>, alias = ""): Prisma.Sql {
  let byAlias = columnCache.get(fields);
  if (!byAlias) columnCache.set(fields, (byAlias = new Map()));
  let sql = byAlias.get(alias);
  if (!sql) {
    const q = alias ? `${alias}.` : "";
    sql = Prisma.raw(Object.values(fields).map((f) => `${q}"${f}"`).join(", "));
    byAlias.set(alias, sql);
  }
  return sql;
}
const columnCache = new WeakMap<object, Map<string, Prisma.Sql>>();

/**
 * A named statement whose result columns changed under it (a migration altered the type of a column it returns)
 * fails with 0A000 "cached plan must not change result type", and keeps failing on that connection, since pg sends
 * it by name there until the connection closes. Outside a transaction the pool drops a connection whose statement
 * failed anyway; a transaction's connection goes back to the pool after its rollback. So a connection that saw the
 * error is closed when it is released: only the statement (and its transaction) that met the change fails, and the
 * next use parses the statement afresh on another connection.
 */
export function closeConnectionsWithStalePlans(pool: Pool) {
  const stale = new WeakSet<object>();
  pool.on("connect", (client) => {
    // pg's protocol connection reports every ErrorResponse before the query's promise settles
    (client as unknown as { connection?: EventEmitter }).connection?.on("errorMessage", (msg: { code?: string; message?: string }) => {
      if (msg.code === "0A000" && msg.message?.includes("cached plan must not change result type")) stale.add(client);
    });
  });
  pool.on("release", (_err, client) => {
    // pg-pool emits this before deciding whether to keep the client; an ending client is removed
    if (stale.has(client)) void client.end().catch(() => {});
  });
}
