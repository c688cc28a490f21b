// What the bench drivers (bench/*.ts) share: the code version a figure belongs to, percentiles, a fresh database
// with an optional statement counter, the app on a loopback port with the demo workspace, a pool of workers over a
// prepared list, and the child processes of the drivers that start `src/main.ts` themselves (scale.ts, whoami.ts).
// Not a bench itself. The bare references (bare-*.ts) do not use it: they stay node:http + pg, without the app.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import readline from "node:readline";
import type { Pool, PoolClient } from "pg";
import { type App, buildApp } from "../src/app";
import { registerHooks } from "../src/hooks";
import { type Config, loadConfig } from "../src/config";
import { type Db, openDb } from "../src/db/client";
import { applyMigrations, pgDriver } from "../src/db/migrate";
import { EventHub } from "../src/shared/hub";
import { type BootstrapResult, bootstrapDemo } from "../src/platform/bootstrap.service";
import { systemClock } from "../src/shared/clock";
import { type Deps, makeCtx } from "../src/shared/context";
import { limitSpecs, RateLimits, storeFor } from "../src/shared/rate-limit";
import { createTestDatabase, DEFAULT_PG_URL } from "../test/helpers/db";

const ROOT = path.resolve(__dirname, "..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** An integer setting of at least `min` from the environment; `fallback` when unset or empty. */
export function intEnv(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

/**
 * HEAD and the uncommitted files under `dirs` (src/ and prisma/ unless a bench measures more), so a figure can be tied
 * to the code it measured.
 */
export function codeVersion(dirs: string[] = ["src", "prisma"]): string {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const head = git("rev-parse", "--short", "HEAD").trim();
    const dirty = git("status", "--porcelain", "--", ...dirs).split("\n").filter(Boolean).map((l) => l.slice(3));
    const named = dirs.map((d) => `${d}/`);
    const clean = named.length > 1 ? `${named.slice(0, -1).join(", ")} and ${named[named.length - 1]}` : named.join("");
    return dirty.length ? `${head} + uncommitted ${dirty.join(", ")}` : `${head} (${clean} clean)`;
  } catch {
    return "unknown (no git)";
  }
}

// ---- stats ------------------------------------------------------------------------------------------------

/** The p-th percentile of an ascending list (NaN when it is empty). */
export function pct(sorted: number[], p: number) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}
export const median = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 50);
/** `d` decimals; "-" for what could not be measured (NaN, an empty phase) */
export const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");

// ---- the database -----------------------------------------------------------------------------------------

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;

export interface BenchDb {
  db: Db;
  /** the fresh PostgreSQL database, dropped by closeBenchDb; null on PGlite */
  created: TestDatabase | null;
}

interface BenchDbOptions {
  /** PGlite in memory instead of a fresh PostgreSQL database; default: BENCH_EMBEDDED is set */
  embedded?: boolean;
  /** the pg pool's size (default 20) */
  poolMax?: number;
  /** called with the SQL (a string or a query config) of every statement sent on PostgreSQL, migrations included */
  onStatement?: (sql: unknown) => void;
}

/**
 * Counts statements: wraps `query` on every client the pool connects from now on, so install it before the pool's
 * first connection. pool.query itself calls client.query, so it is not wrapped a second time; BEGIN and COMMIT are
 * statements and are counted.
 */
export function countStatements(pool: Pool, onStatement: (sql: unknown) => void) {
  pool.on("connect", (client: PoolClient) => {
    const q = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as any).query = (...a: unknown[]) => {
      onStatement(a[0]);
      return q(...a);
    };
  });
}

/**
 * A fresh PostgreSQL database on BENCH_DATABASE_URL (or the local default), or PGlite in memory, migrated. There is
 * no pg Pool on PGlite (its Prisma adapter calls the in-process instance), so onStatement only runs on PostgreSQL.
 */
export async function openBenchDb(opts: BenchDbOptions & { embedded: false }): Promise<BenchDb & { created: TestDatabase }>;
export async function openBenchDb(opts?: BenchDbOptions): Promise<BenchDb>;
export async function openBenchDb(opts: BenchDbOptions = {}): Promise<BenchDb> {
  const embedded = opts.embedded ?? Boolean(process.env.BENCH_EMBEDDED);
  registerHooks(); // a bench may call services (workers, commands) before or without startBenchApp
  const created = embedded ? null : await createTestDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_PG_URL);
  // Open without migrating so the counter is on the pool before its first connection; then migrate.
  const db = await openDb({ url: created?.url, pgliteDir: "memory://", poolMax: opts.poolMax ?? 20, migrate: embedded });
  if (db.pool) {
    if (opts.onStatement) countStatements(db.pool, opts.onStatement);
    await applyMigrations(pgDriver(db.pool));
  }
  return { db, created };
}

/** Closes the database, then drops the fresh one. */
export async function closeBenchDb({ db, created }: BenchDb) {
  await db.close();
  if (!created) return;
  // pool.end() resolves before the idle sockets are closed; let them go before DROP DATABASE ... WITH (FORCE).
  await sleep(250);
  await created.drop();
}

// ---- the app ----------------------------------------------------------------------------------------------

export interface BenchApp {
  app: App;
  deps: Deps;
  config: Config;
  /** http://127.0.0.1:<port> */
  base: string;
  demo: BootstrapResult;
  /** closes the app, the hub, the limiter and the principal cache, then the database (closeBenchDb) */
  close(): Promise<void>;
}

interface BenchAppOptions {
  /** CHECKOUT_URL follows the port too (links a buyer opens: quote links, hosted checkout) */
  checkoutUrl?: boolean;
  /** runs on the deps before the app is built on them (to add a principal cache) */
  beforeBuild?: (deps: Deps) => Promise<void>;
}

/**
 * The app in this process on a free 127.0.0.1 port, with the settings `env` over the bench's (test mode, errors only,
 * the database's URL), and the demo workspace bootstrapped (demo.apiKey). BASE_URL follows the port, as `npm start`
 * sets it. The webhook delivery worker is not started.
 */
export async function startBenchApp(bench: BenchDb, env: Record<string, string> = {}, opts: BenchAppOptions = {}): Promise<BenchApp> {
  const { db, created } = bench;
  // REDIS_URL passes through, as `npm start` reads it: with it set the rate limiter counts in Redis, not in the database
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "error", DATABASE_URL: created?.url ?? "", REDIS_URL: process.env.REDIS_URL ?? "", ...env });
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock: systemClock, config, hub: new EventHub(), limits: new RateLimits(limitSpecs(config), storeFor(config, db)) };
  await opts.beforeBuild?.(deps);
  const app = buildApp(deps, db);
  await new Promise<void>((r) => app.server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  config.BASE_URL = base;
  if (opts.checkoutUrl) config.CHECKOUT_URL = base;
  const demo = await bootstrapDemo(makeCtx(deps), config);
  const close = async () => {
    await app.close();
    await deps.hub.close();
    await deps.limits.close();
    await deps.principals?.close();
    await closeBenchDb(bench);
  };
  return { app, deps, config, base, demo, close };
}

// ---- phases -----------------------------------------------------------------------------------------------

/**
 * `workers` loops take the next item of `items` until none is left and run `scenario` on it; a scenario that throws
 * adds its message (200 characters) to `problems` instead of a result. The wall time starts here, after the items
 * were prepared; results are in the order they finished.
 */
export async function runPhase<T, R>(items: T[], workers: number, scenario: (item: T) => Promise<R>, problems: string[]): Promise<{ results: R[]; wallMs: number }> {
  const results: R[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < items.length) {
        const item = items[next++];
        try {
          results.push(await scenario(item));
        } catch (e) {
          problems.push(String(e).slice(0, 200));
        }
      }
    }),
  );
  return { results, wallMs: performance.now() - t0 };
}

// ---- child processes (the service started as `npm start` would) --------------------------------------------

export interface Child {
  name: string;
  proc: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<void>;
}

/** `tsx <args>` in the repository root; its output is kept line by line. */
export function spawnTsx(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  // Own process group (detached): tsx runs node underneath, and the group signal reaches both.
  const proc = spawn(TSX, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const child: Child = {
    name,
    proc,
    stdout: [],
    stderr: [],
    exited: new Promise<void>((resolve) => proc.once("exit", () => resolve())),
  };
  readline.createInterface({ input: proc.stdout! }).on("line", (l) => child.stdout.push(l));
  readline.createInterface({ input: proc.stderr! }).on("line", (l) => child.stderr.push(l));
  return child;
}

export const isRunning = (c: Child) => c.proc.exitCode === null && c.proc.signalCode === null;

export function signalGroup(c: Child, signal: NodeJS.Signals) {
  if (!c.proc.pid) return;
  try {
    process.kill(-c.proc.pid, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the child's group, SIGKILL when it has not exited `graceMs` later; `tag` prefixes the message. */
export async function stopChild(c: Child, graceMs: number, tag: string) {
  if (!isRunning(c)) return;
  signalGroup(c, "SIGTERM");
  const exited = await Promise.race([c.exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!exited) {
    console.error(`[${tag}] ${c.name} did not exit within ${graceMs / 1000} s of SIGTERM, sending SIGKILL`);
    signalGroup(c, "SIGKILL");
    await Promise.race([c.exited, sleep(2_000)]);
  }
}

export function describeExit(c: Child) {
  const tail = [...c.stdout, ...c.stderr].slice(-30).join("\n");
  return `${c.name} exited (code ${c.proc.exitCode}, signal ${c.proc.signalCode}). Last output:\n${tail}`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const addr = s.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` every 250 ms until it gives a value; fails when the child exits or `timeoutMs` passes. */
export async function waitFor<T>(what: string, c: Child, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!isRunning(c)) throw new Error(`while waiting for ${what}: ${describeExit(c)}`);
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what} (${c.name})`);
    await sleep(250);
  }
}

/** true when `url` answers 200 within 2 s (a probe for waitFor) */
export async function httpOk(url: string): Promise<true | undefined> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.arrayBuffer();
  return res.status === 200 ? true : undefined;
}
