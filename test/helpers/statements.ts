// Counts the SQL statements this process sends to PostgreSQL: every pg Client's query() is wrapped (the pool,
// Prisma's adapter and pool.query all end there), so BEGIN and COMMIT count as the statements they are.
import { Client } from "pg";

export interface Recorded {
  sql: string;
  /** sent while the connection was still busy with another statement (pg queues it; pg 9 will refuse it) */
  busy: boolean;
}

const proto = Client.prototype as unknown as { query: (...args: unknown[]) => unknown; __counted?: boolean };
const log: Recorded[] = [];
let recording = false;

if (!proto.__counted) {
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (recording) {
      const a = args[0] as string | { text?: string };
      const c = this as { _activeQuery?: unknown; _queryQueue?: unknown[] };
      log.push({ sql: typeof a === "string" ? a : (a?.text ?? String(a)), busy: Boolean(c._activeQuery) || (c._queryQueue?.length ?? 0) > 0 });
    }
    return original.apply(this, args);
  };
  proto.__counted = true;
}

/** Runs `fn` and returns the statements sent while it ran (nothing else may run in this process meanwhile). */
export async function statementsOf<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[]; busy: string[] }> {
  log.length = 0;
  recording = true;
  try {
    const result = await fn();
    return { result, statements: log.map((r) => r.sql), busy: log.filter((r) => r.busy).map((r) => r.sql) };
  } finally {
    recording = false;
  }
}

/** "BEGIN", "SELECT ApiKey", "INSERT Event", "WITH … INSERT" …: a statement's kind, for messages. */
export function kindOf(sql: string): string {
  const s = sql.trim().replace(/^\/\*.*?\*\/\s*/s, "");
  const verb = (s.split(/\s+/)[0] ?? "").toUpperCase();
  const table = (re: RegExp) => re.exec(s)?.[1] ?? "?";
  switch (verb) {
    case "SELECT":
      return /\bFROM\s+"/i.test(s) ? `SELECT ${table(/\bFROM\s+(?:"public"\.)?"(\w+)"/i)}` : `SELECT ${s.slice(7, 47)}`;
    case "INSERT":
      return `INSERT ${table(/INSERT\s+INTO\s+(?:"public"\.)?"(\w+)"/i)}`;
    case "UPDATE":
      return `UPDATE ${table(/UPDATE\s+(?:"public"\.)?"(\w+)"/i)}`;
    case "DELETE":
      return `DELETE ${table(/DELETE\s+FROM\s+(?:"public"\.)?"(\w+)"/i)}`;
    case "WITH":
      return `WITH … ${[...s.matchAll(/\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:"public"\.)?"(\w+)"/gi)].map((m) => `${m[1].split(/\s/)[0].toUpperCase()} ${m[2]}`).join(", ") || "SELECT"}`;
    default:
      return verb;
  }
}
