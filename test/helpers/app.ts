// Starts buildApp() on port 0 against a real database (PGlite in memory, or a fresh PostgreSQL database).
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";
import { buildApp, type App } from "../../src/app";
import { loadConfig } from "../../src/config";
import { type Db, openDb } from "../../src/db/client";
import { type BootstrapResult, bootstrapDemo, ensureWorkspace, mintDashboardToken } from "../../src/platform/bootstrap.service";
import { FixedClock, systemClock, type Clock } from "../../src/shared/clock";
import { type Deps, makeCtx } from "../../src/shared/context";
import { createTestDatabase, reachablePgUrl } from "./db";
import { client } from "./http";
import { EventHub } from "../../src/shared/hub";
import { limitSpecs, RateLimits, storeFor } from "../../src/shared/rate-limit";
import { PrincipalCache } from "../../src/shared/principal-cache";
import type { Resolver } from "../../src/webhooks/url-policy";
import { DeliveryWorker, type WorkerOptions } from "../../src/webhooks/delivery.worker";

/** One SECRET_KEY for every test process, so two "processes" on one database open each other's sealed secrets. */
export const TEST_SECRET_KEY = "test-secret-key-0123456789abcdefghijklmnop";

export interface TestApp {
  url: string;
  /** the PostgreSQL database URL, when on PostgreSQL */
  databaseUrl?: string;
  db: Db;
  deps: Deps;
  app: App;
  kind: "pg" | "pglite";
  deliveries: DeliveryWorker;
  bootstrap(): Promise<BootstrapResult>;
  /** a second, unrelated workspace with its own owner token and sandbox key */
  otherWorkspace(slug: string): Promise<BootstrapLike>;
  close(): Promise<void>;
}

export type BootstrapLike = Pick<BootstrapResult, "workspaceId" | "applicationId" | "environments" | "dashboardToken" | "apiKey">;

export interface StartOptions {
  /** "pg" requires the real server (returns null when none is reachable); "embedded" is PGlite whatever the pass; default follows DATABASE_URL */
  db?: "pg" | "embedded" | "default";
  clock?: Clock | "fixed";
  env?: Record<string, string>;
  /** false: no background delivery worker (tests drive it); otherwise its options */
  worker?: false | WorkerOptions;
  /** Redis for cross-process subscription fan-out */
  redisUrl?: string;
  /** join an existing PostgreSQL database (another TestApp's) instead of creating one: a second "process" */
  databaseUrl?: string;
  /** DNS stub for webhook URLs (save-time and connect-time checks) */
  resolver?: Resolver;
}

const PGLITE_DIST = path.join(__dirname, "../../node_modules/@electric-sql/pglite/dist");
let pgliteShared: Partial<PGliteOptions> | undefined;

/**
 * What the embedded apps of a test file share: PGlite's WebAssembly compiled once (compiling it and tiering it up
 * again cost about 0.4 s of CPU per app) and its file bundle read once. Per file, not per worker: a module compiled
 * in one file's realm breaks PGlite in the next file's (TypeError: e.subarray is not a function).
 * shared_buffers 16 MB instead of 128 MB: a test database is a few MB, and PostgreSQL zeroes the whole pool at
 * start (about 0.3 s of CPU per app).
 */
function pgliteOptions(): Partial<PGliteOptions> {
  pgliteShared ??= {
    pgliteWasmModule: new WebAssembly.Module(readFileSync(path.join(PGLITE_DIST, "pglite.wasm"))),
    initdbWasmModule: new WebAssembly.Module(readFileSync(path.join(PGLITE_DIST, "initdb.wasm"))),
    fsBundle: new Blob([readFileSync(path.join(PGLITE_DIST, "pglite.data"))]),
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  };
  return pgliteShared;
}

export async function startTestApp(opts: StartOptions = {}): Promise<TestApp | null> {
  const wantPg = opts.db === "pg" || (opts.db !== "embedded" && Boolean(process.env.DATABASE_URL));
  let dropDb: (() => Promise<void>) | undefined;
  let url: string | undefined;
  if (opts.databaseUrl) {
    url = opts.databaseUrl;
  } else if (wantPg) {
    const server = await reachablePgUrl();
    if (!server) {
      if (opts.db === "pg") return null;
      throw new Error("DATABASE_URL is set but the server does not answer");
    }
    const created = await createTestDatabase(server);
    url = created.url;
    dropDb = created.drop;
  }
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "error", SECRET_KEY: TEST_SECRET_KEY, ...opts.env, DATABASE_URL: url ?? "", REDIS_URL: opts.redisUrl ?? "" });
  const db = await openDb({ url, pgliteDir: "memory://", poolMax: 20, preparedStatements: config.DATABASE_PREPARED_STATEMENTS, pgliteTemplate: process.env.Q2C_PGLITE_TEMPLATE, pgliteOptions: url ? undefined : pgliteOptions() });
  const clock = opts.clock === "fixed" ? new FixedClock() : (opts.clock ?? systemClock);
  const hub = new EventHub({ redisUrl: opts.redisUrl });
  const limits = new RateLimits(limitSpecs(config), storeFor(config, db, config.RATE_LIMIT_NAMESPACE));
  // Like the server (src/main.ts): API-key principals cached, dropped in every "process" on revoke.
  const principals = config.PRINCIPAL_CACHE_TTL_MS > 0 ? new PrincipalCache(config.PRINCIPAL_CACHE_TTL_MS, db.kind === "pg" ? url : undefined) : undefined;
  await principals?.start();
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock, config, hub, limits, resolver: opts.resolver, principals };
  const deliveries = new DeliveryWorker(deps, opts.worker || {});
  if (opts.worker !== false) deliveries.start();
  const app = buildApp(deps, db);
  await new Promise<void>((r) => app.server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  config.BASE_URL = base;
  config.CHECKOUT_URL = base;
  if (config.urlsFollowPort.dashboard) config.DASHBOARD_URL = base;
  return {
    url: base,
    databaseUrl: url,
    db,
    deps,
    app,
    kind: db.kind,
    bootstrap: () => bootstrapDemo(makeCtx(deps), config),
    otherWorkspace: async (slug) => {
      const ctx = makeCtx(deps);
      // live like the demo, so tenancy tests can use either workspace's production environment
      const w = await ensureWorkspace(ctx, { slug, name: slug, ownerEmail: `owner@${slug}.test`, appSlug: "store", appName: "Store", live: true });
      const dashboardToken = await mintDashboardToken(ctx, w.owner.id);
      const res = await fetch(`${base}/api/v1/api-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${dashboardToken}`, "x-service-environment-id": w.sandbox.id, "content-type": "application/json" },
        body: JSON.stringify({ name: "other", scopes: ["*"] }),
      });
      const body = (await res.json()) as any;
      return {
        workspaceId: w.ws.id,
        applicationId: w.app.id,
        environments: { production: { id: w.production.id }, sandbox: { id: w.sandbox.id } },
        dashboardToken,
        apiKey: body.data.rawKey,
      };
    },
    deliveries,
    close: async () => {
      await deliveries.stop();
      await app.close();
      await hub.close();
      await limits.close();
      await principals?.close();
      await db.close();
      await dropDb?.();
    },
  };
}

/**
 * `test` when a PostgreSQL server answers (test/global-setup.ts checked), else `test.skip`: for tests that need the
 * real server (a second process on the same database), so Jest reports them skipped, never passed, without one.
 */
export const pgTest: jest.It = process.env.Q2C_TEST_PG_REACHABLE === "1" ? test : test.skip;

/**
 * `test` when the suite runs on PostgreSQL (DATABASE_URL set: the apps of the file are on it), else `test.skip`: for a
 * test of the file's own app that only means something there (statement counts through the pg driver, row-lock
 * races that PGlite's single connection cannot have). The embedded run reports it skipped instead of passing it
 * without an assertion; CI's PostgreSQL pass runs it.
 */
export const postgresPassTest: jest.It = process.env.DATABASE_URL ? test : test.skip;

/**
 * `test` when a Redis server and a PostgreSQL server both answer (test/global-setup.ts checked REDIS_URL, else the
 * local default), else `test.skip`: for the two-process tests on the Redis store, whose processes share a PostgreSQL
 * database.
 */
export const pgRedisTest: jest.It = process.env.Q2C_TEST_REDIS_REACHABLE === "1" ? pgTest : test.skip;

/**
 * For a block whose tests are all `pgTest`: its app on the real PostgreSQL, or null when no server answered the
 * global setup (the tests are then reported skipped and never read it). When a server answered but the app does not
 * start, it throws, so the block's tests fail rather than pass without running.
 */
export async function startPgApp(opts: Omit<StartOptions, "db"> = {}): Promise<TestApp | null> {
  if (process.env.Q2C_TEST_PG_REACHABLE !== "1") return null;
  const t = await startTestApp({ ...opts, db: "pg" });
  if (!t) throw new Error("PostgreSQL answered at global setup but the app on it did not start");
  return t;
}

/** In a `pgTest` body whose block's app is missing: its beforeAll threw, so Jest reports that; this only narrows types. */
export function notStarted() {
  return new Error("the block's app did not start on PostgreSQL (see its beforeAll)");
}


/** An app with the demo tenant bootstrapped and a REST client on it. */
export async function startWithDemo(opts: StartOptions = {}) {
  const t = (await startTestApp(opts))!;
  return { t, api: client(t.url), demo: await t.bootstrap() };
}

/** An app with the demo tenant bootstrapped, and the ids of its sandbox environment's tenant (for services called directly). */
export async function startWithSandbox(opts: StartOptions = {}) {
  const base = await startWithDemo(opts);
  return { ...base, tenant: { applicationId: base.demo.applicationId, environmentId: base.demo.environments.sandbox.id } };
}

/** The same plus a second workspace, for files whose every test needs both. */
export async function startWithTwoTenants(otherSlug: string) {
  const base = await startWithDemo();
  return { ...base, other: await base.t.otherWorkspace(otherSlug) };
}
