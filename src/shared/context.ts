// The request context every service takes first: who is calling, in which tenant, with which clock and
// database handle. Services open one transaction per command with withTx.
import type { Config } from "../config";
import type { Prisma, PrismaClient } from "../generated/prisma/client";
import type { Principal } from "./principal";
import type { EventHub } from "./hub";
import type { Clock } from "./clock";
import type { LimitState, RateLimits } from "./rate-limit";
import type { LookupAddress } from "node:dns";
import type { PrincipalCache } from "./principal-cache";
import type { DomainError } from "./errors";
import type { Sql } from "../db/sql";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { inTransactionScope } from "../db/tx-scope";

export type Tx = Prisma.TransactionClient;

/** DNS lookup of every address a host name resolves to (webhooks/url-policy.ts checks outbound URLs with it). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;
export type DbHandle = PrismaClient | Tx;

/** Long-lived process dependencies, built once by main.ts or a test. */
export interface Deps {
  prisma: PrismaClient;
  /** hand-written SQL (Kysely) on the same connections as `prisma` (db/sql.ts) */
  sql: Sql;
  dbKind: "pg" | "pglite";
  clock: Clock;
  config: Config;
  /** after-commit fan-out of events (subscriptions, delivery worker) */
  hub: EventHub;
  /** the shared rate limiter (Redis or the database) */
  limits: RateLimits;
  /** DNS for webhook URLs (save-time check and connect-time guard); the system resolver unless a test stubs it */
  resolver?: Resolver;
  /** API-key principals kept in memory, dropped in every process on revoke (shared/principal-cache.ts); absent: no cache */
  principals?: PrincipalCache;
  /** outbound HTTP for extension install callbacks (global fetch unless a test injects one trusting its CA) */
  fetch?: typeof fetch;
}

/**
 * A domain that keeps its own per-request or per-transaction value on the context declares the field where it lives,
 * by augmenting this interface (`declare module "../shared/context" { interface Ctx { … } }`), so shared/ names no
 * domain type: `wallet` (wallet/pm-tokens.service.ts), `orderMoves` (orders/order.machine.ts).
 */
export interface Ctx {
  deps: Deps;
  /** Prisma: the client or the open transaction */
  db: DbHandle;
  /** Kysely: bound to the same connection as `db` (the root, Prisma's open transaction, or withSqlTx's transaction) */
  sql: Sql;
  clock: Clock;
  principal: Principal | null;
  /**
   * The user behind a dashboard session (set with the principal, and alone for the session of a user who is no
   * workspace's member yet: that session can only accept an invitation, platform/invitations.service.ts)
   */
  sessionUser?: { id: string; email: string; sessionId: string; memberId: string | null };
  /** GraphQL: the live gate's 402 for this credential, enforced per operation (billing/live-gate.ts) */
  liveGate?: DomainError | null;
  /** set for a request carrying valid Basic extension client credentials (platform/auth.service.ts) */
  extensionClient?: import("./principal").ExtensionClient;
  /** the caller's address (REST, GraphQL and pages set it): keyless routes are limited per IP */
  ip?: string;
  /** GraphQL: the request's Idempotency-Key, and the secrets its result reveals (kept out of the stored result) */
  idempotencyKey?: string;
  revealedSecrets?: Set<string>;
  /** the rate-limit bucket a response reports in RateLimit-* headers; shared by every copy of this ctx */
  rate?: { state?: LimitState | null };
  /** set inside withTx: callbacks that run once the transaction commits */
  afterCommit?: (() => void | Promise<void>)[];
  /** emails queued in this transaction, written at commit (mail/mail.service.ts) */
  pendingEmails?: unknown[];
  /** set inside withTx: the events recorded by this transaction, written in one statement before it commits */
  pendingEvents?: PendingEvent[];
  /** set inside withTx: runs once the command's work is done, still inside the transaction (writes the events) */
  beforeCommit?: ((tx: Ctx) => Promise<void>)[];
}

/** An event recorded in a transaction, not yet written (events.service flushes them at the end of the transaction). */
export interface PendingEvent {
  id: string;
  workspaceId: string;
  applicationId: string;
  environmentId: string;
  environmentKind: string;
  type: string;
  data: unknown;
  createdAt: string;
  /** deliver to this endpoint only (a ping), whatever it subscribes to */
  onlyEndpointId: string | null;
}

export function makeCtx(deps: Deps, principal: Principal | null = null, ip?: string): Ctx {
  return { deps, db: deps.prisma, sql: deps.sql, clock: deps.clock, principal, ip, rate: {} };
}

/** Keeps the tighter of two bucket states for the RateLimit-* headers. */
export function reportLimit(ctx: Ctx, state: LimitState | null | undefined) {
  if (!state || !ctx.rate) return;
  const cur = ctx.rate.state;
  if (!cur || state.remaining < cur.remaining) ctx.rate.state = state;
}

const RETRYABLE = new Set(["40001", "40P01"]); // serialization failure, deadlock
const MAX_ATTEMPTS = 4;

/**
 * One transaction per command, in Prisma's transaction manager, retried on serialization failures and deadlocks.
 * Nested calls (withTx or withSqlTx) join the outer transaction. afterCommit callbacks run only after a successful
 * commit. `ctx.sql` inside is Kysely bound to the same transaction (db/prisma-tx-dialect.ts).
 */
export async function withTx<T>(
  ctx: Ctx,
  fn: (tx: Ctx) => Promise<T>,
  opts: { isolationLevel?: Prisma.TransactionIsolationLevel } = {},
): Promise<T> {
  return inTransaction(ctx, fn, (run) =>
    ctx.deps.prisma.$transaction((db) => run(db, sqlInPrisma(db)), { maxWait: TX_MAX_WAIT_MS, timeout: TX_TIMEOUT_MS, isolationLevel: opts.isolationLevel }),
  );
}

/**
 * One transaction per command whose statements are all Kysely's (the hot checkout writes): Kysely's own transaction
 * on one pooled connection (PGlite: PGlite's transaction), without Prisma's interactive transaction, which costs this
 * process more than the statements themselves (bench/RESULTS.md). `tx.db` is not available inside: a Prisma model
 * query there is a programming error and throws (tests catch it). Retried, nested and committed as withTx.
 */
export async function withSqlTx<T>(
  ctx: Ctx,
  fn: (tx: Ctx) => Promise<T>,
  opts: { isolationLevel?: Prisma.TransactionIsolationLevel } = {},
): Promise<T> {
  return inTransaction(ctx, fn, (run) => {
    let tx = ctx.deps.sql.transaction();
    if (opts.isolationLevel) tx = tx.setIsolationLevel(ISOLATION[opts.isolationLevel]);
    return tx.execute((sql) => run(NO_PRISMA, sql));
  });
}

/**
 * What withTx and withSqlTx share: a nested call joins the open transaction; otherwise `open` runs the command in a
 * new one (retried whole on serialization failures and deadlocks), in the transaction's ctx, then its before-commit
 * hooks (the outbox, queued emails), and its afterCommit hooks once it committed.
 */
async function inTransaction<T>(ctx: Ctx, fn: (tx: Ctx) => Promise<T>, open: (run: (db: DbHandle, sql: Sql) => Promise<T>) => Promise<T>): Promise<T> {
  if (ctx.afterCommit) return fn(ctx);
  return retried(async () => {
    const hooks: (() => void | Promise<void>)[] = [];
    const result = await open((db, sql) =>
      // while the transaction is open, the root query builder refuses statements (db/tx-scope.ts)
      inTransactionScope(async () => {
        const txCtx: Ctx = { ...ctx, db, sql, afterCommit: hooks, beforeCommit: [] };
        const r = await fn(txCtx);
        for (const h of txCtx.beforeCommit!) await h(txCtx);
        return r;
      }),
    );
    await runAfterCommit(hooks);
    return result;
  });
}

async function retried<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt < MAX_ATTEMPTS && RETRYABLE.has(pgCode(e) ?? "")) {
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
        continue;
      }
      throw e;
    }
  }
}

/** `tx.db` inside withSqlTx: any use names the mistake instead of running outside the transaction. */
const NO_PRISMA = new Proxy({} as DbHandle, {
  get(_target, prop) {
    throw new Error(`withSqlTx: Prisma's \`${String(prop)}\` cannot run in a Kysely transaction; use tx.sql, or withTx`);
  },
});

const TX_MAX_WAIT_MS = 15_000;
const TX_TIMEOUT_MS = 30_000;
const ISOLATION = {
  ReadUncommitted: "read uncommitted",
  ReadCommitted: "read committed",
  RepeatableRead: "repeatable read",
  Serializable: "serializable",
} as const satisfies Record<Prisma.TransactionIsolationLevel, string>;

/** Runs a committed command's afterCommit callbacks; one that fails is logged and does not stop the others. */
async function runAfterCommit(hooks: (() => void | Promise<void>)[]) {
  for (const h of hooks) {
    try {
      await h();
    } catch (e) {
      console.error("[afterCommit] hook failed", e);
    }
  }
}

/** The PostgreSQL SQLSTATE behind a Prisma or driver error, if any. */
export function pgCode(e: unknown): string | undefined {
  const anyE = e as any;
  return (
    anyE?.meta?.driverAdapterError?.cause?.originalCode ??
    anyE?.cause?.originalCode ??
    anyE?.code?.match?.(/^[0-9A-Z]{5}$/)?.[0] ??
    (anyE?.code === "P2034" ? "40001" : undefined)
  );
}

/**
 * True when PostgreSQL refused a value as text for its column: a NUL byte or invalid UTF-8 (22021), text that is not
 * a UUID (22P02), or Prisma's own refusal of a malformed UUID (P2023). Only ids reach the database unchecked (bodies
 * and query strings are parsed first), so the REST and GraphQL error mappers answer these as an unknown id (404).
 */
export function isInvalidTextInput(e: unknown): boolean {
  const anyE = e as any;
  const code = pgCode(e) ?? /Code: `(22021|22P02)`/.exec(String(anyE?.message ?? ""))?.[1];
  return code === "22021" || code === "22P02" || anyE?.code === "P2023";
}

/** True for a unique-constraint violation (Prisma P2002 or SQLSTATE 23505). */
export function isUniqueViolation(e: unknown): boolean {
  const anyE = e as any;
  return anyE?.code === "P2002" || pgCode(e) === "23505";
}
