// One claim / lease / retry helper for the database work queues (webhook deliveries, emails, install callbacks,
// import passes, subscription renewals). A queue is a table whose due rows a worker claims in one statement:
//
//   UPDATE "T" SET <lease> [, attempts = attempts + 1] [, <set>] WHERE id IN (
//     SELECT id FROM "T" WHERE <due> AND <lease free> ORDER BY <order> LIMIT n FOR UPDATE SKIP LOCKED)
//   RETURNING <columns>
//
// SKIP LOCKED makes concurrent claimers (lanes, processes) take disjoint rows without waiting on each other; the
// lease (an expiry column, and an owner column where the table has one) makes the claim outlive the statement, so a
// worker that died mid-job leaves rows that are claimed again once the lease lapses (at least once). A failed job is
// retried at the next time its schedule gives (a list of delays, or exponential with a cap and jitter), and given up
// (dead-lettered, failed, unpaid: the queue decides what that means) after its last attempt.
//
// Typed over the queue table's columns (src/generated/kysely, from prisma/schema.prisma): a renamed column fails
// `tsc` at the queue that names it. Statements run on whatever Kysely handle the caller passes (ctx.sql / deps.sql /
// a transaction's), so both databases run the same SQL. Counts come from RETURNING "id", which every path reports
// (Prisma's raw query inside withTx returns rows, not a count). No domain imports.
import { type Expression, expressionBuilder, type ExpressionBuilder, type RawBuilder, type Selectable, type SelectType, sql, type SqlBool, type Updateable } from "kysely";
import type { DB } from "../generated/kysely/types";
import type { Sql } from "../db/sql";

/** Tables with a uuid `id`: the ones a queue can be. */
export type QueueTableName = { [T in keyof DB]: DB[T] extends { id: string } ? T : never }[keyof DB] & string;
export type ColumnOf<T extends QueueTableName> = keyof DB[T] & string;
export type Row<T extends QueueTableName> = Selectable<DB[T]>;

/** Waits before the 2nd, 3rd… attempt (the last repeats), or exponential: base × 2^(n-1), capped, minus up to `jitter` of it. */
export type { Exponential, RetrySchedule } from "../config";
import type { RetrySchedule } from "../config";

export interface RetryPolicy {
  schedule: RetrySchedule;
  /** attempts in all; the one that fails at this count is given up */
  maxAttempts: number;
}

/** The wait after failed attempt `attempt` (1-based). */
export function retryDelay(schedule: RetrySchedule, attempt: number, random: () => number = Math.random): number {
  const n = Math.max(1, attempt);
  if (isDelayList(schedule)) return schedule[Math.min(n - 1, schedule.length - 1)];
  const full = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(n - 1, 52));
  return Math.round(full * (1 - (schedule.jitter ?? 0) * random()));
}

/** After failed attempt `attempts`: give up, or try again at `at`. */
export function nextAttempt(policy: RetryPolicy, attempts: number, now: Date, random?: () => number): { giveUp: true } | { giveUp: false; at: Date } {
  if (attempts >= policy.maxAttempts) return { giveUp: true };
  return { giveUp: false, at: new Date(now.getTime() + retryDelay(policy.schedule, attempts, random)) };
}

function isDelayList(s: RetrySchedule): s is readonly number[] {
  return Array.isArray(s);
}

/** How a table holds its lease. */
export type LeaseColumns<T extends QueueTableName> =
  /** `until` holds when the lease lapses; `owner`, when the table has one, who holds it */
  | { until: ColumnOf<T>; owner?: ColumnOf<T> }
  /** `since` holds when the row was claimed; the lease lapses the claim's leaseMs later */
  | { since: ColumnOf<T> };

export interface QueueTable<T extends QueueTableName> {
  table: T;
  lease: LeaseColumns<T>;
  /** counted up by every claim, when the queue counts attempts */
  attempts?: ColumnOf<T>;
}

/** "database": leases are computed on the database's clock (now()), so every process agrees whatever its own clock. */
export type QueueClock = Date | "database";

export interface ClaimOptions<T extends QueueTableName, R extends ColumnOf<T>, A extends Record<string, Expression<unknown>>> {
  /** which rows are due, besides a free lease */
  due: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>;
  /** the order of the claim among due rows (ignored when claiming by id) */
  order?: ColumnOf<T>;
  limit: number;
  leaseMs: number;
  now: QueueClock;
  /** written to the lease owner column (queues whose table has one) */
  owner?: string;
  /** other columns set by the claim (a status, updatedAt) */
  set?: Updateable<DB[T]>;
  returning: readonly R[];
  /** more values computed per claimed row (a scalar subquery) */
  also?: A;
}

type Also<A extends Record<string, Expression<unknown>>> = { [K in keyof A]: A[K] extends Expression<infer V> ? V : never };
export type Claimed<T extends QueueTableName, R extends ColumnOf<T>, A extends Record<string, Expression<unknown>> = Record<never, never>> = { [K in R]: SelectType<DB[T][K]> } & Also<A>;

export class WorkQueue<T extends QueueTableName> {
  constructor(readonly spec: QueueTable<T>) {}

  /** The due expression builder of this table, for `due` conditions written outside a claim. */
  get eb(): ExpressionBuilder<DB, T> {
    return expressionBuilder<DB, T>();
  }

  /** Claims up to `limit` due rows whose lease is free, skipping rows another claimer holds locked. */
  async claim<R extends ColumnOf<T>, A extends Record<string, Expression<unknown>> = Record<never, never>>(db: Sql, o: ClaimOptions<T, R, A>): Promise<Claimed<T, R, A>[]> {
    const t = sql.table(this.spec.table);
    const order = o.order ? sql`ORDER BY ${sql.ref(o.order)}` : sql``;
    const picked = sql`SELECT "id" FROM ${t} WHERE ${o.due(this.eb)} AND ${this.leaseFree(o.now, o.leaseMs)} ${order} LIMIT ${o.limit} FOR UPDATE SKIP LOCKED`;
    return this.update<R, A>(db, o, sql`"id" IN (${picked})`);
  }

  /** Claims one row by id when it is due and its lease is free; null otherwise (held, or not due). */
  async claimId<R extends ColumnOf<T>, A extends Record<string, Expression<unknown>> = Record<never, never>>(db: Sql, id: string, o: Omit<ClaimOptions<T, R, A>, "limit" | "order">): Promise<Claimed<T, R, A> | null> {
    const [row] = await this.update<R, A>(db, o, sql`"id" = ${id} AND ${o.due(this.eb)} AND ${this.leaseFree(o.now, o.leaseMs)}`);
    return row ?? null;
  }

  /**
   * Extends `owner`'s lease on one row while `still` holds (e.g. the status the pass started in); false when the
   * lease was lost (another worker, or a verb, took the row).
   */
  async renew(db: Sql, id: string, o: { owner: string; leaseMs: number; now: QueueClock; still?: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool> }): Promise<boolean> {
    const lease = this.spec.lease;
    if (!("until" in lease) || !lease.owner) throw new Error(`${this.spec.table}: renew needs a lease owner column`);
    const still = o.still ? sql`AND ${o.still(this.eb)}` : sql``;
    const r = await sql`UPDATE ${sql.table(this.spec.table)} SET ${sql.ref(lease.until)} = ${this.until(o.now, o.leaseMs)}
      WHERE "id" = ${id} AND ${sql.ref(lease.owner)} = ${o.owner} ${still} RETURNING "id"`.execute(db);
    return r.rows.length === 1;
  }

  /**
   * Ends the claim of `ids` (done, retried, given up: `set` says which) and frees their lease. With `owner`, only rows
   * that owner still holds; returns how many rows were updated.
   */
  async finish(db: Sql, ids: readonly string[], set: Updateable<DB[T]>, o: { owner?: string; where?: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool> } = {}): Promise<number> {
    if (!ids.length) return 0;
    const r = await sql`UPDATE ${sql.table(this.spec.table)} SET ${this.assignments({ ...this.clearLease(), ...set })}
      WHERE "id" = ANY(${[...ids]}::uuid[]) ${this.ownedBy(o.owner)} ${o.where ? sql`AND ${o.where(this.eb)}` : sql``} RETURNING "id"`.execute(db);
    return r.rows.length;
  }

  /** Gives back every lease `owner` holds (shutdown, or a job that threw part-way), or those of `ids`. */
  async release(db: Sql, by: { owner: string } | { ids: readonly string[] }): Promise<number> {
    const where = "owner" in by ? sql`TRUE ${this.ownedBy(by.owner)}` : sql`"id" = ANY(${[...by.ids]}::uuid[])`;
    if ("ids" in by && !by.ids.length) return 0;
    const r = await sql`UPDATE ${sql.table(this.spec.table)} SET ${this.assignments(this.clearLease())} WHERE ${where} RETURNING "id"`.execute(db);
    return r.rows.length;
  }

  private async update<R extends ColumnOf<T>, A extends Record<string, Expression<unknown>>>(db: Sql, o: Omit<ClaimOptions<T, R, A>, "limit" | "order">, where: RawBuilder<unknown>) {
    const lease = this.spec.lease;
    const set: Record<string, unknown> = { ...(o.set as Record<string, unknown> | undefined) };
    if ("since" in lease) set[lease.since] = this.now(o.now);
    else {
      set[lease.until] = this.until(o.now, o.leaseMs);
      if (lease.owner) {
        if (o.owner === undefined) throw new Error(`${this.spec.table}: a claim names its lease owner`);
        set[lease.owner] = o.owner;
      }
    }
    if (this.spec.attempts) set[this.spec.attempts] = sql`${sql.ref(this.spec.attempts)} + 1`;
    const also = Object.entries(o.also ?? {}).map(([k, e]) => sql`${e} AS ${sql.ref(k)}`);
    const returning = sql.join([...o.returning.map((c) => sql.ref(c)), ...also]);
    const r = await sql<Claimed<T, R, A>>`UPDATE ${sql.table(this.spec.table)} SET ${this.assignments(set)} WHERE ${where} RETURNING ${returning}`.execute(db);
    return r.rows;
  }

  /** The lease is free: never taken, or lapsed. */
  private leaseFree(now: QueueClock, leaseMs: number): RawBuilder<unknown> {
    const lease = this.spec.lease;
    if ("since" in lease) {
      const cutoff = now === "database" ? sql`now() - make_interval(secs => ${leaseMs / 1000})` : sql`${new Date(now.getTime() - leaseMs)}`;
      return sql`(${sql.ref(lease.since)} IS NULL OR ${sql.ref(lease.since)} < ${cutoff})`;
    }
    return sql`(${sql.ref(lease.until)} IS NULL OR ${sql.ref(lease.until)} <= ${this.now(now)})`;
  }

  private now(now: QueueClock) {
    return now === "database" ? sql`now()` : sql`${now}`;
  }

  private until(now: QueueClock, leaseMs: number) {
    return now === "database" ? sql`now() + make_interval(secs => ${leaseMs / 1000})` : sql`${new Date(now.getTime() + leaseMs)}`;
  }

  private clearLease(): Record<string, null> {
    const lease = this.spec.lease;
    if ("since" in lease) return { [lease.since]: null };
    return { [lease.until]: null, ...(lease.owner ? { [lease.owner]: null } : {}) };
  }

  private ownedBy(owner: string | undefined) {
    const lease = this.spec.lease;
    if (owner === undefined) return sql``;
    if (!("until" in lease) || !lease.owner) throw new Error(`${this.spec.table}: no lease owner column`);
    return sql`AND ${sql.ref(lease.owner)} = ${owner}`;
  }

  private assignments(set: Record<string, unknown>) {
    return sql.join(Object.entries(set).filter(([, v]) => v !== undefined).map(([k, v]) => sql`${sql.ref(k)} = ${v}`));
  }
}
