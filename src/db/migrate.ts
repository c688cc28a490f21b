// Applies prisma/migrations/*/migration.sql at startup, on real Postgres (pg) or embedded PGlite.
// Bookkeeping is Prisma-compatible (_prisma_migrations, checksum = sha256(file)), so `prisma migrate status`
// / `deploy` (online, native engine) would recognise what this applied.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Pool, PoolClient } from "pg";
import { PROJECT_ROOT } from "../paths";

export interface SqlConn {
  exec(sql: string): Promise<void>; // multi-statement, simple protocol
  query<T = any>(sql: string, params?: unknown[]): Promise<T[]>;
}
export interface SqlDriver {
  withLock<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>; // exclusive across processes
  transaction(c: SqlConn, fn: (tx: SqlConn) => Promise<void>): Promise<void>;
}

const LOCK_ID = 72707369; // same advisory-lock key Prisma uses
const CREATE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`;

export function pgDriver(pool: Pool): SqlDriver {
  const wrap = (c: PoolClient): SqlConn => ({
    exec: async (sql) => { await c.query(sql); },
    query: async (sql, params) => (await c.query(sql, params as any[])).rows,
  });
  return {
    async withLock(fn) {
      const c = await pool.connect();
      try { await c.query("SELECT pg_advisory_lock($1)", [LOCK_ID]); return await fn(wrap(c)); }
      finally { await c.query("SELECT pg_advisory_unlock($1)", [LOCK_ID]).catch(() => {}); c.release(); }
    },
    async transaction(conn, fn) {
      await conn.exec("BEGIN");
      try { await fn(conn); await conn.exec("COMMIT"); } catch (e) { await conn.exec("ROLLBACK"); throw e; }
    },
  };
}

export function pgliteDriver(db: PGlite): SqlDriver {
  const wrap = (c: PGlite | Transaction): SqlConn => ({
    exec: async (sql) => { await c.exec(sql); },
    query: async (sql, params) => (await c.query<any>(sql, params)).rows,
  });
  return {
    withLock: (fn) => fn(wrap(db)), // single process owns the data dir
    transaction: (_c, fn) => db.transaction((tx) => fn(wrap(tx))),
  };
}

// Under the project root, whether this runs from src/ or compiled into dist/ (src/paths.ts).
export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, "prisma", "migrations");

export function migrationNames(dir = MIGRATIONS_DIR) {
  return existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(path.join(dir, d, "migration.sql"))).sort() : [];
}

export async function applyMigrations(driver: SqlDriver, dir = MIGRATIONS_DIR) {
  const files = migrationNames(dir);
  return driver.withLock(async (conn) => {
    await conn.exec(CREATE);
    const rows = await conn.query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"`);
    const applied: string[] = [];
    for (const name of files) {
      const sql = readFileSync(path.join(dir, name, "migration.sql"));
      const checksum = createHash("sha256").update(sql).digest("hex");
      const prev = rows.filter((r) => r.migration_name === name && !r.rolled_back_at);
      if (prev.some((r) => !r.finished_at)) throw new Error(`Migration ${name} previously failed; resolve it first`);
      if (prev.length) {
        if (prev[0].checksum !== checksum) console.warn(`[migrate] ${name} was modified after being applied`);
        continue;
      }
      await driver.transaction(conn, async (tx) => {
        await tx.exec(sql.toString("utf8"));
        await tx.query(`INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
                        VALUES ($1, $2, $3, now(), 1)`, [randomUUID(), checksum, name]);
      });
      applied.push(name);
    }
    return applied;
  });
}
