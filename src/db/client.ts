import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import lockfile from "proper-lockfile";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { Pool, types as pgDefaultTypes } from "pg";
import { PrismaClient } from "../generated/prisma/client";
import { applyMigrations, migrationNames, pgDriver, pgliteDriver } from "./migrate";
import { StatementNames } from "./prepared";
import { type Sql, sqlOnPg, sqlOnPglite } from "./sql";
import { pgTypes } from "./sql-values";

export type { PrismaClient };

export interface Db {
  prisma: PrismaClient;
  kind: "pg" | "pglite";
  pglite?: PGlite;
  pool?: Pool;
  /** hand-written SQL (Kysely) on the same connections (src/db/sql.ts) */
  sql: Sql;
  /** true once every migration in prisma/migrations is applied */
  migrationsApplied(): Promise<boolean>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** PostgreSQL URL; unset -> embedded PGlite */
  url?: string;
  /** PGlite data folder, or "memory://" */
  pgliteDir?: string;
  migrate?: boolean;
  /** pg pool size */
  poolMax?: number;
  /** PostgreSQL only: statement texts sent as named (prepared) statements (0 = none; default 100); src/db/prepared.ts */
  preparedStatements?: number;
  /** Prisma's query-plan cache (LRU entries; 0 = off; default 1000, Prisma's own default) */
  planCacheSize?: number;
  /**
   * PGlite only, for "memory://": start from this dump (PGlite.dumpDataDir, uncompressed tar) instead of an empty
   * cluster. Creating a cluster and migrating it costs seconds of WebAssembly; the test suite builds one migrated
   * dump before its workers start (test/global-setup.ts). Migrations still run after loading: a stale dump is
   * brought up to date, a current one costs one query.
   */
  pgliteTemplate?: string;
  /**
   * PGlite only: more options for PGlite.create (the test suite hands every app of a process one compiled WebAssembly
   * module and file bundle, and a smaller shared_buffers, instead of compiling and zeroing them per app).
   */
  pgliteOptions?: Partial<PGliteOptions>;
}

/**
 * Prisma's error messages without the caller's code frame, in every mode (Prisma's own default is this only when
 * NODE_ENV is production). For the frame, Prisma builds an Error, and so a stack trace, on every query before it runs:
 * in a CPU profile of the checkout scenario, Prisma's share of the process fell from 20.0 % to 16.4 % without it
 * (bench/RESULTS.md, eleventh step). Node's async stack traces still name the caller of a query that failed.
 */
const ERROR_FORMAT = "minimal";

/** DATABASE_URL set -> PostgreSQL through pg; unset -> PGlite in a data folder. One code path above this. */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (opts.url) {
    // Kysely's statements use the pool's parsers (sql-values.ts); Prisma's adapter passes its own with each query
    const pool = new Pool({ connectionString: opts.url, max: opts.poolMax ?? 10, types: pgTypes(pgDefaultTypes) });
    pool.on("error", (e) => console.error("[db] idle client error", e.message));
    const named = opts.preparedStatements ?? 100;
    const driver = pgDriver(pool);
    if (opts.migrate !== false) await applyMigrations(driver);
    const pgAdapter = new PrismaPg(pool, named > 0 ? { statementNameGenerator: new StatementNames(named).name } : undefined);
    const prisma = new PrismaClient({ adapter: pgAdapter, queryPlanCacheMaxSize: opts.planCacheSize ?? 1000, errorFormat: ERROR_FORMAT });
    const sql = sqlOnPg(pool, named > 0 ? new StatementNames(named, "k_") : null);
    return {
      prisma,
      kind: "pg",
      pool,
      sql,
      migrationsApplied: () => pendingMigrations((sql) => pool.query(sql).then((r) => r.rows)).then((p) => p === 0),
      ping: async () => void (await pool.query("SELECT 1")),
      close: async () => {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  }
  const dir = opts.pgliteDir ?? "./data/pglite";
  let unlock: (() => Promise<void>) | null = null;
  if (!dir.includes("://")) {
    mkdirSync(path.resolve(dir), { recursive: true });
    unlock = await lockDataFolder(path.resolve(dir));
  }
  let pglite: PGlite;
  try {
    pglite = opts.pgliteTemplate && dir === "memory://"
      ? await PGlite.create({ ...opts.pgliteOptions, dataDir: dir, loadDataDir: new Blob([readFileSync(opts.pgliteTemplate)]) })
      : await PGlite.create({ ...opts.pgliteOptions, dataDir: dir });
  } catch (e) {
    await unlock?.();
    throw e;
  }
  if (opts.migrate !== false) await applyMigrations(pgliteDriver(pglite));
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite), queryPlanCacheMaxSize: opts.planCacheSize ?? 1000, errorFormat: ERROR_FORMAT });
  return {
    prisma,
    kind: "pglite",
    pglite,
    sql: sqlOnPglite(pglite),
    migrationsApplied: () => pendingMigrations((sql) => pglite.query<any>(sql).then((r) => r.rows)).then((p) => p === 0),
    ping: async () => void (await pglite.query("SELECT 1")),
    close: async () => {
      await prisma.$disconnect();
      if (!pglite.closed) await pglite.close();
      await unlock?.().catch(() => {});
    },
  };
}

async function pendingMigrations(query: (sql: string) => Promise<{ migration_name: string }[]>) {
  const applied = new Set(
    (await query(`SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`).catch(() => []))
      .map((r) => r.migration_name),
  );
  return migrationNames().filter((n) => !applied.has(n)).length;
}

export class DataFolderInUseError extends Error {}

/**
 * PGlite is one session in one process: a second process opening the same folder would see a stale copy and lose
 * what it writes. The folder is locked for the life of the process (proper-lockfile: a lock directory whose mtime
 * the holder keeps fresh, so a lock left by a killed process goes stale after 10 s); a second process is refused.
 */
async function lockDataFolder(dir: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dir, { lockfilePath: path.join(dir, ".lock"), stale: 10_000, update: 2_000, realpath: false, onCompromised: (e) => console.error("[db] the data folder lock was lost:", e.message) });
  } catch (e: any) {
    if (e?.code !== "ELOCKED") throw e;
    throw new DataFolderInUseError(
      `The embedded database in ${dir} is in use by another process (a running \`npm start\`?). ` +
        "Stop the server first: CLI commands such as `npm run bootstrap` need the data folder to themselves. " +
        "Or set DATA_DIR to another folder, or DATABASE_URL to share a PostgreSQL server between processes.",
    );
  }
}
