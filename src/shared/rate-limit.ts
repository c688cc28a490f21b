// One rate limiter for every route that needs one (rate-limiter-flexible): counters live in Redis when REDIS_URL
// is set, else in PostgreSQL's UNLOGGED "RateLimit" table (one statement per counted request), so every process
// sharing the store enforces one limit together. On the embedded database (PGlite, whose data folder one process
// opens) they live in that process's memory: the same limits, exact for the only process there is, at no statement
// per request; they start again from zero when the process restarts. Limits are named; each has a
// configurable `points/duration` (config.ts RATE_LIMIT_*). A refusal is 429 rate_limited with Retry-After.
//
// Buckets: per credential on authenticated routes; failed authentication per IP; the keyless checkout routes per
// IP and per session; card declines per session and per IP (the card-testing guard). The quote buyer routes and
// the request endpoint add their buckets to LIMITS and call the same consume().
import Redis from "ioredis";
import type { Pool } from "pg";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config";
import { sha256Hex } from "./crypto";
import { DomainError } from "./errors";

export const LIMITS = {
  credential: { setting: "RATE_LIMIT_PER_CREDENTIAL", what: "requests per credential" },
  authFailureIp: { setting: "RATE_LIMIT_AUTH_FAILURES_PER_IP", what: "failed authentications per IP address" },
  checkoutIp: { setting: "RATE_LIMIT_CHECKOUT_PER_IP", what: "keyless checkout requests per IP address" },
  checkoutSession: { setting: "RATE_LIMIT_CHECKOUT_PER_SESSION", what: "requests per checkout session" },
  declineSession: { setting: "RATE_LIMIT_DECLINES_PER_SESSION", what: "declined payments per checkout session" },
  declineIp: { setting: "RATE_LIMIT_DECLINES_PER_IP", what: "declined payments per IP address" },
  quoteRequestIp: { setting: "RATE_LIMIT_QUOTE_REQUESTS_PER_IP", what: "quote requests per IP address" },
  quoteLinkIp: { setting: "RATE_LIMIT_QUOTE_LINKS_PER_IP", what: "quote link requests per IP address" },
  quoteLinkToken: { setting: "RATE_LIMIT_QUOTE_LINKS_PER_TOKEN", what: "requests per quote link" },
  // The buyer's wallet: /me/* (X-Service-PM-Token) and the hosted update-card page /billing/{token}, one bucket per
  // client token (the API and the page share it) and one per address, before the token is even looked up.
  walletToken: { setting: "RATE_LIMIT_WALLET_PER_TOKEN", what: "requests per wallet client token" },
  walletIp: { setting: "RATE_LIMIT_WALLET_PER_IP", what: "wallet requests per IP address" },
  // the token endpoint's bad codes, refresh tokens and client credentials, per client id (per address: authFailureIp)
  oauthClientFailures: { setting: "RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT", what: "failed token requests per OAuth client" },
} as const;
export type LimitName = keyof typeof LIMITS;

export interface LimitSpec {
  points: number;
  durationMs: number;
}

/** What a response reports in RateLimit-Limit / -Remaining / -Reset. */
export interface LimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export type LimitStore = { kind: "redis"; url: string; namespace: string } | { kind: "pg"; pool: Pool } | { kind: "memory" };

const TABLE = "RateLimit";

export class RateLimits {
  private readonly limiters = new Map<LimitName, RateLimiterAbstract>();
  /** keys refused recently in this process, so a blocked IP is turned away before any work (see blocked()) */
  private readonly blockedUntil = new Map<string, number>();
  private readonly redis?: Redis;

  constructor(
    readonly specs: Record<LimitName, LimitSpec | null>,
    store: LimitStore,
  ) {
    if (store.kind === "redis") this.redis = new Redis(store.url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
    for (const name of Object.keys(LIMITS) as LimitName[]) {
      const spec = specs[name];
      if (!spec) continue;
      // inMemoryBlockOnConsumed: once a key has spent its last point, this process refuses it without asking the
      // store until the window ends (the library's own in-memory block)
      const common = { keyPrefix: name, points: spec.points, duration: Math.ceil(spec.durationMs / 1000), inMemoryBlockOnConsumed: spec.points };
      const limiter =
        store.kind === "redis"
          ? new RateLimiterRedis({ ...common, keyPrefix: `${store.namespace}:${name}`, storeClient: this.redis })
          : store.kind === "pg"
            ? new RateLimiterPostgres({
                ...common,
                tableName: TABLE,
                tableCreated: true,
                clearExpiredByTimeout: name === "credential", // one sweeper per process is enough: they share the table
                storeClient: store.pool,
                storeType: "pool",
              })
            : new RateLimiterMemory({ keyPrefix: name, points: spec.points, duration: common.duration });
      this.limiters.set(name, limiter);
    }
  }

  /**
   * Takes one point from `name`'s bucket for `key`; over the limit it throws 429 rate_limited (and remembers
   * the refusal in this process until the window ends). Keys are hashed: they may be session ids or addresses.
   */
  async consume(name: LimitName, key: string, points = 1): Promise<LimitState | null> {
    const limiter = this.limiters.get(name);
    if (!limiter) return null;
    const k = hashKey(key);
    try {
      return stateOf(limiter.points, await limiter.consume(k, points));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e; // the store failed: that is a 5xx, not a refusal
      this.block(`${name}:${k}`, e.msBeforeNext);
      throw rateLimited(name, stateOf(limiter.points, e));
    }
  }

  /** Remembers a refusal until its window ends; expired ones are forgotten once the memory grows. */
  private block(id: string, ms: number) {
    if (this.blockedUntil.size >= 10_000) {
      const now = Date.now();
      for (const [k, until] of this.blockedUntil) if (until <= now) this.blockedUntil.delete(k);
    }
    this.blockedUntil.set(id, Date.now() + ms);
  }

  /**
   * Spends a point and, once the bucket is empty, refuses the key in this process for the rest of the window
   * (no throw for this call: it already happened). For events counted after the fact, such as card declines,
   * whose next attempt blocked() then turns away without a store round trip.
   */
  async spend(name: LimitName, key: string): Promise<void> {
    const limiter = this.limiters.get(name);
    if (!limiter) return;
    try {
      const state = await this.consume(name, key);
      if (state && state.remaining <= 0) this.block(`${name}:${hashKey(key)}`, state.resetSeconds * 1000);
    } catch (e) {
      if (!(e instanceof DomainError && e.code === "rate_limited")) throw e; // consume() has remembered the refusal
    }
  }

  /**
   * Free check against this process's memory of recent refusals: a key refused here stays refused until its
   * window ends, without a store round trip. (Another process learns of the refusal on its own next consume.)
   */
  blocked(name: LimitName, key: string) {
    if (!this.limiters.has(name)) return;
    const id = `${name}:${hashKey(key)}`;
    const until = this.blockedUntil.get(id);
    if (until === undefined) return;
    const ms = until - Date.now();
    if (ms <= 0) {
      this.blockedUntil.delete(id);
      return;
    }
    const limiter = this.limiters.get(name)!;
    throw rateLimited(name, { limit: limiter.points, remaining: 0, resetSeconds: Math.ceil(ms / 1000) });
  }

  /** Lets go of the store. */
  async close() {
    this.redis?.disconnect();
  }
}

// Keys repeat (a credential makes many requests) and each request checks and consumes: remember recent hashes.
const hashed = new Map<string, string>();
function hashKey(key: string) {
  let h = hashed.get(key);
  if (h === undefined) {
    h = sha256Hex(key).slice(0, 40);
    if (hashed.size >= 10_000) hashed.clear();
    hashed.set(key, h);
  }
  return h;
}

function stateOf(limit: number, res: RateLimiterRes): LimitState {
  return { limit, remaining: Math.max(0, res.remainingPoints), resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
}

export function rateLimited(name: LimitName, state: LimitState) {
  return new DomainError("rate_limited", `Too many ${LIMITS[name].what}; retry in ${state.resetSeconds} s`, {
    limit: name,
    limitPoints: state.limit,
    retryAfterSeconds: state.resetSeconds,
  });
}

/** The RateLimit-* state a 429 reports, from the refusal's details (what rateLimited() put there). */
export function refusedState(e: DomainError): LimitState {
  const d = e.details as { limitPoints?: number; retryAfterSeconds?: number } | undefined;
  return { limit: d?.limitPoints ?? 0, remaining: 0, resetSeconds: Math.max(1, d?.retryAfterSeconds ?? 60) };
}

/**
 * The headers every 429 carries, whoever answers it (the REST error handler, pages, GraphQL over HTTP, /mcp,
 * /oauth/token): Retry-After and RateLimit-*, from a rate_limited refusal; {} for anything else, so a handler can
 * spread it into any error response: `res.set(refusalHeaders(e))`.
 */
export function refusalHeaders(e: unknown): Record<string, string> {
  if (!(e instanceof DomainError) || e.code !== "rate_limited") return {};
  return limitHeaders(refusedState(e), true);
}

/** RateLimit-* and (on a refusal) Retry-After, for REST responses and the GraphQL HTTP response alike. */
export function limitHeaders(state: LimitState | null | undefined, refused = false): Record<string, string> {
  if (!state) return {};
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
    ...(refused ? { "Retry-After": String(state.resetSeconds) } : {}),
  };
}

/** The limits the settings name; "off" (or RATE_LIMITS=off) disables one or all. */
export function limitSpecs(config: Config): Record<LimitName, LimitSpec | null> {
  const out = {} as Record<LimitName, LimitSpec | null>;
  for (const [name, { setting }] of Object.entries(LIMITS) as [LimitName, (typeof LIMITS)[LimitName]][]) {
    out[name] = config.RATE_LIMITS === "off" ? null : (config[setting] as LimitSpec | null);
  }
  return out;
}

export function storeFor(config: Config, db: { kind: "pg" | "pglite"; pool?: Pool }, namespace = "rl"): LimitStore {
  if (config.REDIS_URL) return { kind: "redis", url: config.REDIS_URL, namespace };
  if (db.kind === "pg") return { kind: "pg", pool: db.pool! };
  return { kind: "memory" };
}
