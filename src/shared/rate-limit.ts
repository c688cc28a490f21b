// One rate limiter for every route that needs one (rate-limiter-flexible): counters live in Redis when REDIS_URL
// is set, else in the database's UNLOGGED "RateLimit" table (PostgreSQL, or the embedded PGlite through a small
// shim), so every process sharing the store enforces one limit together. Limits are named; each has a
// configurable `points/duration` (config.ts RATE_LIMIT_*). A refusal is 429 rate_limited with Retry-After.
//
// Buckets: per credential on authenticated routes; failed authentication per IP; the keyless checkout routes per
// IP and per session; card declines per session and per IP (the card-testing guard). The quote buyer routes and
// the request endpoint add their buckets to LIMITS and call the same consume().
import type { PGlite } from "@electric-sql/pglite";
import Redis from "ioredis";
import type { Pool } from "pg";
import { type RateLimiterAbstract, RateLimiterPostgres, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config";
import { sha256Hex } from "./crypto";
import { DomainError } from "./errors";

export const LIMITS = {
  // The buckets every request of their kind spends are spent in batches (see Batch below): every keyed request, and
  // every keyless checkout request per address (at its default of 300 a minute a batch is 3 points; a store with a
  // high limit, as behind a shared NAT or in the checkout bench, is asked about once in 50 requests). A checkout
  // session's own bucket (120 a minute by default) is never batched.
  credential: { setting: "RATE_LIMIT_PER_CREDENTIAL", what: "requests per credential", batched: true },
  authFailureIp: { setting: "RATE_LIMIT_AUTH_FAILURES_PER_IP", what: "failed authentications per IP address" },
  checkoutIp: { setting: "RATE_LIMIT_CHECKOUT_PER_IP", what: "keyless checkout requests per IP address", batched: true },
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

/**
 * A batched bucket admits requests from this process's own count while the store's last answer leaves plenty of
 * room (more than a tenth of the limit beyond what is pending here), and sends the points to the store at most
 * every batch (1% of the limit, at most BATCH_MAX requests) or BATCH_FLUSH_MS later. Near the limit, and
 * whenever the window the last answer described may have ended, every request asks the store, so a shared limit
 * still holds across processes: the counts are exact and admission can run ahead by at most one batch (1% of the
 * limit) per other process. Limits under 200 points are never batched. This takes the store's round trip off
 * nearly every request (bench/RESULTS.md: the limiter's cost on whoami).
 */
const BATCH_MAX = 50;
const BATCH_FLUSH_MS = 500;
interface Batch {
  pending: number;
  /** the store's last answer and when its window ends */
  known: { consumed: number; resetAt: number } | null;
  timer: NodeJS.Timeout | null;
  flushing: Promise<void> | null;
}

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

export type LimitStore = { kind: "redis"; url: string; namespace: string } | { kind: "pg"; pool: Pool } | { kind: "pglite"; pglite: PGlite };

const TABLE = "RateLimit";

/** PGlite as the library's `client`: object-form query, int8 `expire` as a number, rowCount for SELECTs. */
function pgliteClient(pglite: PGlite) {
  return {
    query: async (q: { text: string; values?: unknown[] }) => {
      const r = await pglite.query<Record<string, unknown>>(q.text, q.values ?? []);
      const rows = r.rows.map((row) => (typeof row.expire === "bigint" ? { ...row, expire: Number(row.expire) } : row));
      return { rows, rowCount: /^\s*select/i.test(q.text) ? rows.length : (r.affectedRows ?? rows.length) };
    },
  };
}

export class RateLimits {
  private readonly limiters = new Map<LimitName, RateLimiterAbstract>();
  /** keys refused recently in this process, so a blocked IP is turned away before any work (see blocked()) */
  private readonly blockedUntil = new Map<string, number>();
  private readonly redis?: Redis;
  private readonly batches = new Map<string, Batch>();

  constructor(
    readonly specs: Record<LimitName, LimitSpec | null>,
    store: LimitStore,
  ) {
    if (store.kind === "redis") this.redis = new Redis(store.url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: true });
    for (const name of Object.keys(LIMITS) as LimitName[]) {
      const spec = specs[name];
      if (!spec) continue;
      const common = { keyPrefix: name, points: spec.points, duration: Math.ceil(spec.durationMs / 1000) };
      const limiter =
        store.kind === "redis"
          ? new RateLimiterRedis({ ...common, keyPrefix: `${store.namespace}:${name}`, storeClient: this.redis })
          : new RateLimiterPostgres({
              ...common,
              tableName: TABLE,
              tableCreated: true,
              clearExpiredByTimeout: name === "credential", // one sweeper per process is enough: they share the table
              ...(store.kind === "pg" ? { storeClient: store.pool, storeType: "pool" } : { storeClient: pgliteClient(store.pglite), storeType: "client" }),
            });
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
    if ("batched" in LIMITS[name]) {
      const admitted = this.admitLocally(name, k, limiter, points);
      if (admitted) return admitted;
    }
    try {
      const batch = this.batches.get(`${name}:${k}`);
      const carried = batch ? takePending(batch) : 0; // points admitted here and not yet sent go with this call
      const res = await limiter.consume(k, points + carried);
      if (batch) batch.known = { consumed: res.consumedPoints, resetAt: Date.now() + res.msBeforeNext };
      else if ("batched" in LIMITS[name] && this.sweepBatches()) this.batches.set(`${name}:${k}`, { pending: 0, known: { consumed: res.consumedPoints, resetAt: Date.now() + res.msBeforeNext }, timer: null, flushing: null });
      return stateOf(limiter.points, res);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e; // the store failed: that is a 5xx, not a refusal
      this.block(`${name}:${k}`, e.msBeforeNext);
      const batch = this.batches.get(`${name}:${k}`);
      if (batch) batch.known = { consumed: e.consumedPoints, resetAt: Date.now() + e.msBeforeNext };
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

  /** Forgets batches whose window ended with nothing pending; true once there is room for another. */
  private sweepBatches() {
    if (this.batches.size < 10_000) return true;
    const now = Date.now();
    for (const [id, b] of this.batches) if (b.pending === 0 && !b.flushing && (!b.known || b.known.resetAt <= now)) this.batches.delete(id);
    return this.batches.size < 10_000;
  }

  /** A batched bucket's local admission: the state to report, or null when the store must decide. */
  private admitLocally(name: LimitName, k: string, limiter: RateLimiterAbstract, points: number): LimitState | null {
    const id = `${name}:${k}`;
    const b = this.batches.get(id);
    const now = Date.now();
    const batchSize = Math.min(BATCH_MAX, Math.floor(limiter.points / 100));
    if (batchSize < 2 || !b?.known || b.known.resetAt <= now || b.pending + points >= batchSize || b.flushing) return null;
    const used = b.known.consumed + b.pending + points;
    if (limiter.points - used <= limiter.points / 10) return null;
    b.pending += points;
    if (!b.timer) {
      b.timer = setTimeout(() => void this.flush(name, k, limiter), BATCH_FLUSH_MS);
      b.timer.unref();
    }
    return { limit: limiter.points, remaining: limiter.points - used, resetSeconds: Math.max(1, Math.ceil((b.known.resetAt - now) / 1000)) };
  }

  /** Sends a batch's pending points to the store (the timer's job; a synchronous consume also carries them). */
  private flush(name: LimitName, k: string, limiter: RateLimiterAbstract) {
    const b = this.batches.get(`${name}:${k}`);
    if (!b || b.flushing) return b?.flushing ?? Promise.resolve();
    const points = takePending(b);
    if (points === 0) return Promise.resolve();
    b.flushing = limiter
      .consume(k, points)
      .then(
        (res) => void (b.known = { consumed: res.consumedPoints, resetAt: Date.now() + res.msBeforeNext }),
        (e) => {
          if (e instanceof RateLimiterRes) b.known = { consumed: e.consumedPoints, resetAt: Date.now() + e.msBeforeNext };
          else console.error("[rate-limit] flushing a batch failed", e); // the store is away: those points are lost, not the requests
        },
      )
      .finally(() => void (b.flushing = null));
    return b.flushing;
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

  /** Sends what batches hold, then lets go of the store. */
  async close() {
    await Promise.all(
      [...this.batches.keys()].map((id) => {
        const [name, k] = id.split(":") as [LimitName, string];
        return this.flush(name, k, this.limiters.get(name)!);
      }),
    );
    for (const b of this.batches.values()) if (b.timer) clearTimeout(b.timer);
    this.redis?.disconnect();
  }
}

function takePending(b: Batch) {
  const n = b.pending;
  b.pending = 0;
  if (b.timer) clearTimeout(b.timer);
  b.timer = null;
  return n;
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

export function storeFor(config: Config, db: { kind: "pg" | "pglite"; pool?: Pool; pglite?: PGlite }, namespace = "rl"): LimitStore {
  if (config.REDIS_URL) return { kind: "redis", url: config.REDIS_URL, namespace };
  if (db.kind === "pg") return { kind: "pg", pool: db.pool! };
  return { kind: "pglite", pglite: db.pglite! };
}
