// Opens the database the config names and builds the process dependencies. Shared by main, CLIs and tests.
import path from "node:path";
import type { Config } from "./config";
import { type Db, openDb } from "./db/client";
import { EventHub } from "./shared/hub";
import { PrincipalCache } from "./shared/principal-cache";
import { type Clock, systemClock } from "./shared/clock";
import type { Deps } from "./shared/context";
import { limitSpecs, RateLimits, storeFor } from "./shared/rate-limit";
import { sealLegacySigningSecrets } from "./webhooks/endpoints.service";
import { placeSubscriptionOrder } from "./orders/order-row";
import { registerSubscriptionOrderWriter } from "./subscriptions/charge";

interface Runtime {
  db: Db;
  deps: Deps;
}

export async function openRuntime(config: Config, opts: { clock?: Clock; pgliteDir?: string; migrate?: boolean; principalCache?: boolean } = {}): Promise<Runtime> {
  const db = await openDb({
    url: config.DATABASE_URL,
    pgliteDir: opts.pgliteDir ?? path.join(config.DATA_DIR, "pglite"),
    migrate: opts.migrate,
    poolMax: config.DATABASE_POOL_MAX,
    planCacheSize: config.PRISMA_PLAN_CACHE_SIZE,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
  const hub = new EventHub({ redisUrl: config.REDIS_URL });
  const limits = new RateLimits(limitSpecs(config), storeFor(config, db, config.RATE_LIMIT_NAMESPACE));
  const deps: Deps = { prisma: db.prisma, sql: db.sql, dbKind: db.kind, clock: opts.clock ?? systemClock, config, hub, limits };
  // The API server keeps key principals in memory; CLIs and job workers do not authenticate requests.
  if (opts.principalCache && config.PRINCIPAL_CACHE_TTL_MS > 0) {
    deps.principals = new PrincipalCache(config.PRINCIPAL_CACHE_TTL_MS, db.kind === "pg" ? config.DATABASE_URL : undefined);
    await deps.principals.start();
  }
  if (opts.migrate !== false) await sealLegacySigningSecrets(deps);
  // a subscription charge's order is written by orders (the higher layer); the job workers renew without buildApp
  registerSubscriptionOrderWriter(placeSubscriptionOrder);
  return { db, deps };
}
