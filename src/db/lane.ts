// The raw-statement lane: `$queryRaw`, `$executeRaw` and their Unsafe forms sent straight to the driver adapter on
// PostgreSQL, outside transactions and inside withTx's.
//
// Prisma's client takes every raw statement through its request pipeline: the arguments through JSON and back, the
// query interpreter, the rows serialised and deserialised again, and inside an interactive transaction a lookup and a
// lock of the transaction per statement. On this project's 2-core machines that is 100-250 µs of this process's CPU
// per statement beyond the driver's own work (bench/prisma-overhead.ts, bench/RESULTS.md twelfth step), and the hot
// paths are made of raw statements. The lane does that work once, equal to Prisma's:
// - the statement goes to the same `@prisma/adapter-pg` adapter Prisma uses (the same pool, statement names, pg type
//   parsers and error conversion), so only Prisma's layers above the adapter are skipped;
// - its arguments are encoded as Prisma encodes raw arguments (serializeRawParameters, then deserializeRawParameters:
//   Dates as UTC timestamps, bigints and Decimals as text, objects as JSON, ...);
// - its rows are decoded as Prisma decodes raw results (int8 as BigInt, numeric as Decimal, timestamps as Date, json
//   parsed, bytea as Uint8Array);
// - a refused statement throws Prisma's own error for a failed raw query (PrismaClientKnownRequestError P2010 with the
//   driver's SQLSTATE in its meta), so callers (pgCode, isUniqueViolation, withTx's retry) see no difference.
// Inside withTx (src/shared/context.ts) the statements must run on the transaction's connection. Prisma opens that
// transaction through our adapter, which wraps every transaction it opens. Before the handle's first raw statement,
// the handle sends a marker (a comment naming its slot) through Prisma's own `$executeRawUnsafe`: Prisma passes it to
// its transaction, whose wrapper takes the marker without sending it to the database and records itself in that slot.
// The handle's raw statements then go to that transaction. (Steps eleven and twelve found the transaction with an
// AsyncLocalStorage around `$transaction`; that turns on Node's promise hooks for every promise of the process: with
// it, a sequential checkout scenario cost 13.8-17.4 ms of CPU against 11.8-13.4 without, bench/RESULTS.md thirteenth
// step.) Prisma's COMMIT or ROLLBACK closes the slot
// before it is sent, so a statement through a handle that outlived its transaction is refused instead of running on a
// connection the pool has handed to someone else. Model queries and transactions stay Prisma's.
// test/sql-lane.e2e.test.ts holds the lane's rows, arguments and errors equal to Prisma's on the same database, and the
// whole suite runs on PostgreSQL through the lane and on PGlite (no lane) through Prisma.
import type {
  ArgType,
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  SqlResultSet,
  Transaction,
} from "@prisma/driver-adapter-utils";
import { ColumnTypeEnum } from "@prisma/driver-adapter-utils";
import { Prisma } from "../generated/prisma/client";

const RAW_METHODS = new Set(["$queryRaw", "$executeRaw", "$queryRawUnsafe", "$executeRawUnsafe"]);

/** `$queryRaw`'s two call forms (a tagged template, or one Prisma.Sql) and `$queryRawUnsafe`'s, as text and values. */
function statementOf(method: string, args: unknown[]): { text: string; values: unknown[] } {
  if (method.endsWith("Unsafe")) {
    const [text, ...values] = args;
    if (typeof text !== "string") throw new TypeError(`${method} takes the statement's text first`);
    return { text, values };
  }
  const [first, ...rest] = args;
  const sql = first instanceof Prisma.Sql ? first : new Prisma.Sql(first as readonly string[], rest);
  return { text: sql.text, values: sql.values };
}

// ---- arguments: Prisma's serializeRawParameters followed by deserializeRawParameters ---------------------------------

function encodeParameter(p: unknown, slow: boolean): unknown {
  if (Array.isArray(p)) return p.map((x) => encodeParameter(x, slow));
  if (typeof p === "bigint") return { prisma__type: "bigint", prisma__value: p.toString() };
  if (p instanceof Date) {
    if (Number.isNaN(p.getTime())) {
      throw new Prisma.PrismaClientValidationError("Provided Date object is invalid", { clientVersion: Prisma.prismaVersion.client });
    }
    return { prisma__type: "date", prisma__value: p.toJSON() };
  }
  if (Prisma.Decimal.isDecimal(p)) return { prisma__type: "decimal", prisma__value: (p as Prisma.Decimal).toJSON() };
  if (Buffer.isBuffer(p)) return { prisma__type: "bytes", prisma__value: p.toString("base64") };
  if (p instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && p instanceof SharedArrayBuffer)) {
    return { prisma__type: "bytes", prisma__value: Buffer.from(p).toString("base64") };
  }
  if (ArrayBuffer.isView(p)) {
    return { prisma__type: "bytes", prisma__value: Buffer.from(p.buffer, p.byteOffset, p.byteLength).toString("base64") };
  }
  if (slow && typeof p === "object" && p !== null) return preprocessObject(p);
  return p;
}

function preprocessObject(obj: any): unknown {
  if (typeof obj !== "object" || obj === null) return obj;
  if (typeof obj.toJSON === "function") return obj.toJSON();
  const inner = (v: unknown): unknown => (typeof v === "bigint" ? v.toString() : preprocessObject(v));
  if (Array.isArray(obj)) return obj.map(inner);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) out[k] = inner(obj[k]);
  return out;
}

function serialize(values: unknown[]): string {
  try {
    return JSON.stringify(values.map((v) => encodeParameter(v, false)));
  } catch (e) {
    if (e instanceof TypeError) return JSON.stringify(values.map((v) => encodeParameter(v, true)));
    throw e;
  }
}

const TAG_TO_SCALAR: Record<string, ArgType["scalarType"]> = { bigint: "bigint", date: "datetime", decimal: "decimal", bytes: "bytes" };

function decodeParameter(p: unknown): unknown {
  if (Array.isArray(p)) return p.map(decodeParameter);
  if (typeof p === "object" && p !== null && "prisma__value" in p) return `${(p as { prisma__value: unknown }).prisma__value}`;
  if (typeof p === "object" && p !== null) return JSON.stringify(p);
  return p;
}

function scalarType(p: unknown): ArgType["scalarType"] {
  if (typeof p === "object" && p !== null && "prisma__type" in p) {
    const t = (p as { prisma__type: unknown }).prisma__type;
    if (typeof t === "string" && t in TAG_TO_SCALAR) return TAG_TO_SCALAR[t];
  }
  if (typeof p === "number") return "decimal";
  if (typeof p === "string") return "string";
  return "unknown";
}

/** The adapter's query for a statement text and its values, as Prisma builds it for a raw statement. */
export function toSqlQuery(text: string, values: unknown[]): SqlQuery {
  const parsed = JSON.parse(serialize(values)) as unknown[];
  return {
    sql: text,
    args: parsed.map(decodeParameter),
    argTypes: parsed.map((p): ArgType =>
      Array.isArray(p) ? { scalarType: p.length > 0 ? scalarType(p[0]) : "unknown", arity: "list" } : { scalarType: scalarType(p), arity: "scalar" },
    ),
  };
}

// ---- results: Prisma's serializeRawSql followed by deserializeRawResult ----------------------------------------------

const T = ColumnTypeEnum;

function int32(v: unknown): number {
  if (typeof v === "number") return Math.trunc(v);
  if (typeof v === "string") return Math.trunc(Number(v));
  throw new Error(`Cannot serialize value of type ${typeof v} as Int32`);
}
function int64(v: unknown): bigint {
  if (typeof v === "number") return BigInt(Math.trunc(v));
  if (typeof v === "string") return BigInt(v);
  throw new Error(`Cannot serialize value of type ${typeof v} as Int64`);
}
function json(v: unknown): unknown {
  if (typeof v === "string") return JSON.parse(v);
  throw new Error(`Cannot serialize value of type ${typeof v} as Json`);
}
function bool(v: unknown): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") return v === "true" || v === "1";
  if (typeof v === "number") return v === 1;
  throw new Error(`Cannot serialize value of type ${typeof v} as Boolean`);
}
const bytes = (v: unknown) => new Uint8Array(Buffer.from(v as string, "base64"));
const decimal = (v: unknown) => new Prisma.Decimal(v as string);
const date = (v: unknown) => new Date(v as string);
const time = (v: unknown) => new Date(`1970-01-01T${v}Z`);

function each(v: unknown, kind: string, f: (x: unknown) => unknown): unknown[] {
  if (!Array.isArray(v)) throw new Error(`Cannot serialize value of type ${typeof v} as ${kind}`);
  return v.map((x) => (x === null ? null : f(x)));
}

export function decodeValue(type: number, v: unknown): unknown {
  if (v === null) return null;
  switch (type) {
    case T.Int32:
      return int32(v);
    case T.Int64:
      return int64(v);
    case T.Numeric:
      return decimal(v);
    case T.Boolean:
      return bool(v);
    case T.Json:
      return json(v);
    case T.Bytes:
      return bytes(v);
    case T.Date:
    case T.DateTime:
      return date(v);
    case T.Time:
      return time(v);
    case T.Int32Array:
      return each(v, "Int32Array", int32);
    case T.Int64Array:
      return each(v, "Int64Array", int64);
    case T.BooleanArray:
      return each(v, "BooleanArray", bool);
    case T.JsonArray:
      return each(v, "JsonArray", json);
    // Prisma maps these element by element without checking the shape first
    case T.NumericArray:
      return (v as unknown[]).map((x) => (x === null ? null : decimal(x)));
    case T.BytesArray:
      return (v as unknown[]).map((x) => (x === null ? null : bytes(x)));
    case T.DateArray:
    case T.DateTimeArray:
      return (v as unknown[]).map((x) => (x === null ? null : date(x)));
    case T.TimeArray:
      return (v as unknown[]).map((x) => (x === null ? null : time(x)));
    default:
      return v;
  }
}

export function decodeRows(rs: SqlResultSet): Record<string, unknown>[] {
  const { columnNames, columnTypes, rows } = rs;
  const empty: Record<string, unknown> = {};
  for (const c of columnNames) empty[c] = null;
  const out: Record<string, unknown>[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const o = { ...empty };
    for (let j = 0; j < row.length; j++) o[columnNames[j]] = decodeValue(columnTypes[j], row[j]);
    out[i] = o;
  }
  return out;
}

/**
 * The error Prisma throws for a raw statement the database refused (P2010, the driver's error in its meta), with the
 * message Prisma's "minimal" error format gives it.
 */
function rawError(e: unknown, method: string): unknown {
  const cause = (e as { name?: string; cause?: { originalCode?: string; originalMessage?: string; kind?: string } })?.cause;
  if ((e as { name?: string })?.name !== "DriverAdapterError" || !cause) return e;
  const code = cause.originalCode ?? "N/A";
  const message = cause.originalMessage ?? (e as Error).message ?? "N/A";
  return new Prisma.PrismaClientKnownRequestError(`\nInvalid \`prisma.${method}()\` invocation:\n\n\nRaw query failed. Code: \`${code}\`. Message: \`${message}\``, {
    code: "P2010",
    clientVersion: Prisma.prismaVersion.client,
    meta: { driverAdapterError: e },
  });
}

// ---- the lane ----------------------------------------------------------------------------------------------------

/** The adapter transaction behind one Prisma interactive transaction (or a lane transaction), once attached. */
export interface TxSlot {
  tx?: Transaction;
  /** set, before it is sent, by Prisma's COMMIT or ROLLBACK (its own, a failed callback's or a timeout's) */
  closed?: boolean;
  /** a Prisma transaction's handle: attaching it (the marker's round trip through Prisma), once */
  attaching?: Promise<boolean>;
}

/** The start of a slot's marker: a comment, so that if it ever reached PostgreSQL it would do nothing. */
const SLOT_MARK = "/* q2c lane slot ";
let slotSeq = 0;

export class TransactionClosedError extends Error {
  readonly code = "P2028";
}

const COMMIT: SqlQuery = { sql: "COMMIT", args: [], argTypes: [] };
const ROLLBACK: SqlQuery = { sql: "ROLLBACK", args: [], argTypes: [] };

export class SqlLane {
  /**
   * sqlOnly transactions run on the lane, and those that needed a model query and ran again in Prisma's; Prisma
   * transactions whose raw statements went to the lane (attached), and those whose transaction did not take the marker
   * (unattached: their raw statements went through Prisma; none is expected)
   */
  readonly stats = { transactions: 0, fellBack: 0, attached: 0, unattached: 0 };

  constructor(
    private readonly adapter: SqlDriverAdapter,
    /** the adapter's own startTransaction, not the one that wraps Prisma's transactions */
    private readonly begin: (isolationLevel?: IsolationLevel) => Promise<Transaction> = adapter.startTransaction.bind(adapter),
    /** slots whose marker is on its way through Prisma, by marker */
    private readonly waiting: Map<string, TxSlot> = new Map(),
  ) {}

  /**
   * The adapter factory to give Prisma, and the lane over it. The factory's adapter wraps each transaction it starts:
   * the wrapper takes a slot's marker (see `attach`) without sending it, records itself in that slot, and marks the
   * slot closed when Prisma sends the transaction's COMMIT or ROLLBACK, so the lane never sends a statement on a
   * connection the transaction released.
   */
  static wrap(factory: SqlDriverAdapterFactory): { factory: SqlDriverAdapterFactory; lane: Promise<SqlLane> } {
    let resolve!: (l: SqlLane) => void;
    const lane = new Promise<SqlLane>((r) => (resolve = r));
    const wrapped: SqlDriverAdapterFactory = {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: async () => {
        const adapter = await factory.connect();
        const start = adapter.startTransaction.bind(adapter);
        const waiting = new Map<string, TxSlot>();
        adapter.startTransaction = async (isolationLevel) => {
          const tx = await start(isolationLevel);
          let slot: TxSlot | undefined;
          const execute = tx.executeRaw.bind(tx);
          tx.executeRaw = (q: SqlQuery) => {
            if (q.sql.startsWith(SLOT_MARK)) {
              const s = waiting.get(q.sql);
              if (s && !s.tx && !slot) {
                slot = s;
                s.tx = tx;
              }
              return Promise.resolve(0);
            }
            if (slot && (q.sql === "COMMIT" || q.sql === "ROLLBACK")) slot.closed = true;
            return execute(q);
          };
          const [commit, rollback] = [tx.commit.bind(tx), tx.rollback.bind(tx)];
          tx.commit = () => (slot && (slot.closed = true), commit());
          tx.rollback = () => (slot && (slot.closed = true), rollback());
          return tx;
        };
        resolve(new SqlLane(adapter, start, waiting));
        return adapter;
      },
    };
    return { factory: wrapped, lane };
  }

  /**
   * withTx's `sqlOnly` transaction: BEGIN, `fn`'s statements and COMMIT on one pooled connection, without Prisma's
   * interactive transaction; ROLLBACK when `fn` throws (its error is rethrown). Prisma's two limits as withTx gives
   * them: no connection within `maxWaitMs` fails it, and after `timeoutMs` its statements are refused and it is rolled
   * back once `fn` returns (Prisma's rolls back at the deadline; here the connection stays with `fn` until then).
   */
  async transaction<T>(fn: (slot: TxSlot) => Promise<T>, opts: { isolationLevel?: IsolationLevel; maxWaitMs: number; timeoutMs: number }): Promise<T> {
    this.stats.transactions++;
    const tx = await this.start(opts);
    const slot: TxSlot = { tx };
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      slot.closed = true;
    }, opts.timeoutMs);
    timer.unref();
    let result: T;
    try {
      result = await fn(slot);
      if (expired) throw new TransactionClosedError(`Transaction already closed: it ran longer than its timeout (${opts.timeoutMs} ms) and was rolled back`);
    } catch (e) {
      clearTimeout(timer);
      slot.closed = true;
      try {
        await tx.executeRaw(ROLLBACK);
      } catch {
        // a broken connection or a transaction the server already ended: the connection is released either way
      } finally {
        await tx.rollback();
      }
      throw e;
    }
    clearTimeout(timer);
    slot.closed = true;
    try {
      await tx.executeRaw(COMMIT);
    } catch (e) {
      await tx.rollback();
      throw rawError(e, "$transaction");
    }
    await tx.commit();
    return result;
  }

  private async start(opts: { isolationLevel?: IsolationLevel; maxWaitMs: number }): Promise<Transaction> {
    const started = this.begin(opts.isolationLevel);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TransactionClosedError(`Transaction API error: no connection within ${opts.maxWaitMs} ms to start a transaction`)), opts.maxWaitMs);
    });
    try {
      return await Promise.race([started, gaveUp]);
    } catch (e) {
      // a connection that arrives after all goes back to the pool
      started.then((t) => t.executeRaw(ROLLBACK).finally(() => t.rollback())).catch(() => {});
      throw rawError(e, "$transaction");
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Records the adapter transaction behind Prisma's interactive transaction client `itx` in `slot`: the slot's marker
   * goes through Prisma's own `$executeRawUnsafe` to that transaction, whose wrapper (see `wrap`) takes it without a
   * round trip to the database. Once per slot; false if the transaction did not take it (then the handle's raw
   * statements stay Prisma's). A transaction that has ended refuses it with Prisma's own error.
   */
  attach(itx: { $executeRawUnsafe(sql: string): Promise<number> }, slot: TxSlot): Promise<boolean> {
    slot.attaching ??= (async () => {
      const mark = `${SLOT_MARK}${++slotSeq} */`;
      this.waiting.set(mark, slot);
      try {
        await itx.$executeRawUnsafe(mark);
      } finally {
        this.waiting.delete(mark);
      }
      if (slot.tx) this.stats.attached++;
      else this.stats.unattached++;
      return Boolean(slot.tx);
    })();
    return slot.attaching;
  }

  async query<T = unknown>(slot: TxSlot | null, text: string, values: unknown[], method = "$queryRaw"): Promise<T[]> {
    const q = toSqlQuery(text, values);
    let rs: SqlResultSet;
    try {
      rs = await this.on(slot).queryRaw(q);
    } catch (e) {
      throw rawError(e, method);
    }
    return decodeRows(rs) as T[];
  }

  async execute(slot: TxSlot | null, text: string, values: unknown[], method = "$executeRaw"): Promise<number> {
    const q = toSqlQuery(text, values);
    try {
      return await this.on(slot).executeRaw(q);
    } catch (e) {
      throw rawError(e, method);
    }
  }

  /** The transaction's connection, checked open in the same tick the statement is queued on it. */
  private on(slot: TxSlot | null): SqlQueryable {
    if (!slot) return this.adapter;
    if (slot.closed || !slot.tx) throw new TransactionClosedError("Transaction already closed: a raw statement was sent after its COMMIT or ROLLBACK");
    return slot.tx;
  }
}

/**
 * The four raw-statement methods on the lane. `itx`: Prisma's interactive transaction client whose transaction `slot`
 * is to hold; the first statement attaches it (`SqlLane.attach`), and if that fails the statements go through `itx`.
 */
function rawMethods(lane: SqlLane, slot: TxSlot | null, itx?: object): Record<string, (...args: unknown[]) => Promise<unknown>> {
  const methods: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const m of RAW_METHODS) {
    const exec = m.startsWith("$execute");
    const run = (args: unknown[]) => {
      const { text, values } = statementOf(m, args);
      return exec ? lane.execute(slot, text, values, m) : lane.query(slot, text, values, m);
    };
    methods[m] = (...args: unknown[]) => {
      try {
        if (itx && slot && !slot.tx) {
          return lane.attach(itx as { $executeRawUnsafe(sql: string): Promise<number> }, slot).then((attached) =>
            attached ? run(args) : (Reflect.get(itx, m, itx) as (...a: unknown[]) => Promise<unknown>).apply(itx, args),
          );
        }
        return run(args);
      } catch (e) {
        return Promise.reject(e);
      }
    };
  }
  return methods;
}

/**
 * `client` (Prisma's client; or, with `slot`, an interactive transaction's client, attached to the slot on its first
 * raw statement) with its four raw-statement methods sent through the lane. Model queries and everything else are
 * Prisma's, unchanged.
 */
export function withRawLane<C extends object>(client: C, lane: SqlLane, slot: TxSlot | null = null): C {
  const methods = rawMethods(lane, slot, slot ? client : undefined);
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(client, {
    get(target, prop) {
      if (typeof prop === "string" && prop in methods) return methods[prop];
      let v = bound.get(prop);
      if (v !== undefined) return v;
      v = Reflect.get(target, prop, target);
      if (typeof v === "function") {
        v = (v as (...a: unknown[]) => unknown).bind(target);
        bound.set(prop, v);
      }
      return v;
    },
  });
}

/** Thrown by a sqlOnly transaction's handle for anything but a raw statement; withTx then runs the command in Prisma's. */
export class SqlOnlyError extends Error {}

/**
 * The handle of a sqlOnly lane transaction: raw statements run in it; anything else (a model query, `$transaction`)
 * is recorded in `touched` and throws SqlOnlyError. withTx looks at `touched` once the command has finished, not at the
 * error, so a command that catches the error still runs again in Prisma's transaction. `client` only lends its type.
 */
export function sqlOnlyHandle<C extends object>(client: C, lane: SqlLane, slot: TxSlot, touched: { model?: string }): C {
  const methods = rawMethods(lane, slot);
  return new Proxy(client, {
    get(_target, prop) {
      if (typeof prop === "string" && prop in methods) return methods[prop];
      if (typeof prop === "symbol" || prop === "then") return undefined;
      touched.model ??= prop;
      throw new SqlOnlyError(`\`${prop}\` is not a raw statement: this command runs again in Prisma's transaction`);
    },
  });
}
