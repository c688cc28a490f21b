// Every setting, typed and validated once at start. No other module reads process.env.
import { z } from "zod";

/** A retry schedule (shared/work-queue.ts): a list of waits, or exponential with a cap and jitter. */
export type RetrySchedule = readonly number[] | Exponential;
export interface Exponential {
  baseMs: number;
  capMs: number;
  /** 0..1: each wait is shortened by a random part of up to this fraction, so retries of one burst spread out */
  jitter?: number;
}

const durationList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(",").map((p) => p.trim()).filter(Boolean);
    const out: number[] = [];
    for (const p of parts) {
      const m = /^(\d+)(ms|s|m|h|d)$/.exec(p);
      if (!m) {
        ctx.addIssue({ code: "custom", message: `"${p}" is not a duration like 30s, 5m, 1h or 1d` });
        return z.NEVER;
      }
      const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms"];
      out.push(Number(m[1]) * unit);
    }
    if (out.length === 0) {
      ctx.addIssue({ code: "custom", message: "needs at least one duration" });
      return z.NEVER;
    }
    return out;
  });

/**
 * A retry schedule (shared/work-queue.ts): a list of waits (`5m,15m,1h`: before the 2nd, 3rd… attempt, the last
 * repeating), or exponential `exp(30s,1h)` (30 s doubling per attempt, at most 1 h), optionally with jitter
 * `exp(30s,1h,20%)` (each wait shortened by a random part of up to 20%).
 */
const retrySchedule = z.string().transform((s, ctx): RetrySchedule => {
  const m = /^\s*exp\(\s*([^,\s]+)\s*,\s*([^,\s]+)\s*(?:,\s*(\d{1,2}|100)%\s*)?\)\s*$/.exec(s);
  if (!m) {
    const list = durationList.safeParse(s);
    if (list.success) return list.data;
    for (const i of list.error.issues) ctx.addIssue({ code: "custom", message: i.message });
    return z.NEVER;
  }
  const [base, cap] = [durationList.safeParse(m[1]), durationList.safeParse(m[2])];
  if (!base.success || !cap.success || base.data.length !== 1 || cap.data.length !== 1 || base.data[0] < 1 || cap.data[0] < base.data[0]) {
    ctx.addIssue({ code: "custom", message: `"${s}" is not a schedule like 5m,15m,1h or exp(30s,1h) or exp(30s,1h,20%)` });
    return z.NEVER;
  }
  return { baseMs: base.data[0], capMs: cap.data[0], jitter: m[3] ? Number(m[3]) / 100 : 0 };
});

/** `points/window`, e.g. `6000/1m`; `off` disables the limit. */
const limit = z.string().transform((s, ctx) => {
  if (s.trim() === "off") return null;
  const m = /^\s*(\d+)\s*\/\s*(\d+)(ms|s|m|h|d)\s*$/.exec(s);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) {
    ctx.addIssue({ code: "custom", message: `"${s}" is not a limit like 6000/1m (points per window) or off` });
    return z.NEVER;
  }
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[3] as "ms"];
  return { points: Number(m[1]), durationMs: Math.max(1000, Number(m[2]) * unit) };
});

const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ""));
const optionalUrl = z.preprocess((v) => (v === "" ? undefined : v), url.optional());

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  DATABASE_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL").optional()),
  /** connections this process keeps to PostgreSQL (docs/scaling.md: processes x pool <= the server's budget) */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  /** statement texts sent to PostgreSQL as named (prepared) statements per process (0: none, e.g. behind PgBouncer before 1.21); docs/prisma.md */
  DATABASE_PREPARED_STATEMENTS: z.coerce.number().int().min(0).max(100_000).default(100),
  /** compiled query plans Prisma keeps per process (LRU; 0 turns the cache off); docs/prisma.md */
  PRISMA_PLAN_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(1000),
  /** how long an API key's principal is kept in memory (ms; 0 looks every key up on every request); docs/scaling.md */
  PRINCIPAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  DATA_DIR: z.string().min(1).default("./data"),
  REDIS_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().regex(/^rediss?:\/\//, "must be a redis:// URL").optional()),
  BASE_URL: optionalUrl,
  CHECKOUT_URL: optionalUrl,
  /** the dashboard's origin: invitation emails link to {DASHBOARD_URL}/invites/{token} */
  DASHBOARD_URL: optionalUrl,
  /** webhook deliveries: the waits between attempts (a list, or exp(base,cap[,jitter%])); docs/scaling.md "Work queues" */
  WEBHOOK_RETRY_SCHEDULE: retrySchedule.prefault("5m,15m,1h,6h,24h"),
  CHECKOUT_SESSION_TTL: durationList.prefault("24h"),
  /** extension install callbacks: the waits before the 2nd and 3rd attempts (3 attempts in all) */
  EXTENSION_CALLBACK_RETRY_SCHEDULE: retrySchedule.prefault("30s,2m"),
  /** queued emails: the waits after a failed send, and the attempts in all before the email is failed */
  MAIL_RETRY_SCHEDULE: retrySchedule.prefault("1m,5m,30m,2h"),
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  /** an install is suspended after this many consecutive dead-lettered deliveries to its endpoint */
  EXTENSION_SUSPEND_AFTER_DEAD_LETTERS: z.coerce.number().int().min(1).max(1000).default(3),
  /** subscription dunning: the retry rungs after a declined renewal (then unpaid) */
  DUNNING_SCHEDULE: durationList.prefault("1d,3d,7d"),
  BOT_CHALLENGE_VERIFY_URL: optionalUrl,
  BOT_CHALLENGE_SECRET: z.string().optional(),
  /** the widget on the hosted request form: the site key and the provider's script (Turnstile by default) */
  BOT_CHALLENGE_SITE_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().max(200).optional()),
  BOT_CHALLENGE_SCRIPT_URL: z.url({ protocol: /^https$/ }).default("https://challenges.cloudflare.com/turnstile/v0/api.js"),
  /** a quote request sent sooner than this after its form loaded is refused (422 form_submitted_too_fast) */
  QUOTE_REQUEST_MIN_FILL_MS: z.coerce.number().int().min(0).max(600_000).default(3000),
  /** lifetime of an extension session token (the iframe bridge's RS256 JWT); 10 minutes, shorter only to test refresh */
  EXTENSION_SESSION_TTL_SECONDS: z.coerce.number().int().min(5).max(600).default(600),
  SECRET_KEY: z.preprocess((v) => (v === "" ? undefined : v), z.string().min(32, "must be at least 32 characters").optional()),
  SMTP_URL: z.preprocess((v) => (v === "" ? undefined : v), z.string().regex(/^smtps?:\/\//, "must be an smtp:// URL").optional()),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().positive().default(20),
  /** fields selected, each paged field's selection multiplied by its first/limit (default 20): a page of 50 orders with
   * their customer, payments and a page of fulfillments is about 6,500; two nested pages of 100 are over 30,000 */
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(10000),
  /** the trusted documents' manifest ({ "<sha256>": "<document>" }, scripts/persisted-operations.ts); absent file: none */
  GRAPHQL_PERSISTED_OPERATIONS_FILE: z.string().min(1).default("clients/persisted-operations.json"),
  /** on: dashboard sessions may run persisted operations only (API keys keep sending any document); docs/graphql.md */
  GRAPHQL_DASHBOARD_PERSISTED_ONLY: z.enum(["on", "off"]).default("off"),
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  RATE_LIMIT_PER_CREDENTIAL: limit.prefault("6000/1m"),
  RATE_LIMIT_AUTH_FAILURES_PER_IP: limit.prefault("20/5m"),
  RATE_LIMIT_CHECKOUT_PER_IP: limit.prefault("300/1m"),
  RATE_LIMIT_CHECKOUT_PER_SESSION: limit.prefault("120/1m"),
  RATE_LIMIT_DECLINES_PER_SESSION: limit.prefault("10/1h"),
  RATE_LIMIT_DECLINES_PER_IP: limit.prefault("30/1h"),
  RATE_LIMIT_QUOTE_REQUESTS_PER_IP: limit.prefault("10/1m"),
  RATE_LIMIT_QUOTE_LINKS_PER_IP: limit.prefault("120/1m"),
  RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: limit.prefault("120/1m"),
  RATE_LIMIT_WALLET_PER_TOKEN: limit.prefault("120/1m"),
  RATE_LIMIT_WALLET_PER_IP: limit.prefault("300/1m"),
  RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT: limit.prefault("20/5m"),
  RATE_LIMIT_NAMESPACE: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "letters, digits and _.:- only").default("rl"),
  /** how long an import worker's claim on a pass holds without renewal: a killed worker's pass resumes after it */
  IMPORT_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(120),
  /** data rows per commit transaction (the checkpoint interval) */
  IMPORT_BATCH_ROWS: z.coerce.number().int().min(1).max(10_000).default(500),
  /** most data rows of one CSV/TSV import (commerce.md limits: 500,000); it can only be lowered, as tests do */
  IMPORT_MAX_ROWS: z.coerce.number().int().min(1).max(500_000).default(500_000),
  LOG_LEVEL: z.enum(["silent", "error", "warn", "info", "debug"]).default("info"),
});

type Raw = z.output<typeof schema>;
export interface Config extends Omit<Raw, "BASE_URL" | "CHECKOUT_URL" | "DASHBOARD_URL" | "CHECKOUT_SESSION_TTL"> {
  BASE_URL: string;
  CHECKOUT_URL: string;
  DASHBOARD_URL: string;
  CHECKOUT_SESSION_TTL_MS: number;
  isProduction: boolean;
  /** BASE_URL / CHECKOUT_URL were not set: they follow the port the server actually listens on (PORT=0 included) */
  urlsFollowPort: { base: boolean; checkout: boolean; dashboard: boolean };
}

export class ConfigError extends Error {}

/** Parses settings from an env-like object; throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<Record<keyof Raw, string>> = {}): Config {
  const res = schema.safeParse({ ...pick(env), ...overrides });
  if (!res.success) {
    const lines = res.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const c = res.data;
  const baseUrl = c.BASE_URL ?? `http://localhost:${c.PORT}`;
  return {
    ...c,
    BASE_URL: baseUrl,
    CHECKOUT_URL: c.CHECKOUT_URL ?? baseUrl,
    DASHBOARD_URL: c.DASHBOARD_URL ?? baseUrl,
    CHECKOUT_SESSION_TTL_MS: c.CHECKOUT_SESSION_TTL[0],
    isProduction: c.NODE_ENV === "production",
    urlsFollowPort: { base: c.BASE_URL === undefined, checkout: c.CHECKOUT_URL === undefined, dashboard: c.DASHBOARD_URL === undefined },
  };
}

function pick(env: Record<string, string | undefined>) {
  const out: Record<string, string> = {};
  for (const k of Object.keys(schema.shape)) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
