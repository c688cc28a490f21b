// Kysely inside Prisma's interactive transaction: each compiled statement goes through the transaction client's
// public `$queryRawUnsafe` / `$executeRawUnsafe`, so a command mixing model queries and hand-written SQL runs in one
// transaction that Prisma's transaction manager owns (shared/context.ts withTx).
//
// Prisma decodes raw rows by its own rules; they are brought to the values the other paths give (sql-values.ts):
// int8 (BigInt) and numeric (Prisma's Decimal) as numbers. Timestamps already arrive as Dates, json parsed.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  DeleteQueryNode,
  type Dialect,
  type Driver,
  InsertQueryNode,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  UpdateQueryNode,
} from "kysely";
import type { Prisma } from "../generated/prisma/client";
import type { DB } from "../generated/kysely/types";
import { sqlParams } from "./sql-values";

type TxClient = Pick<Prisma.TransactionClient, "$queryRawUnsafe" | "$executeRawUnsafe">;

/** A Kysely bound to one Prisma transaction (or to Prisma's client outside one). */
export function sqlInPrisma(tx: TxClient): Kysely<DB> {
  return new Kysely<DB>({ dialect: new PrismaTxDialect(tx) });
}

class PrismaTxDialect implements Dialect {
  constructor(private readonly tx: TxClient) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    const connection = new PrismaTxConnection(this.tx);
    const nested = async () => {
      throw new Error("already inside the command's transaction (withTx): run the statements directly");
    };
    return {
      init: async () => {},
      acquireConnection: async () => connection,
      beginTransaction: nested,
      commitTransaction: nested,
      rollbackTransaction: nested,
      releaseConnection: async () => {},
      destroy: async () => {},
    };
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PrismaTxConnection implements DatabaseConnection {
  constructor(private readonly tx: TxClient) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const node = q.query;
    const params = sqlParams(q.parameters);
    const countOnly =
      (InsertQueryNode.is(node) || UpdateQueryNode.is(node) || DeleteQueryNode.is(node)) && !node.returning;
    if (countOnly) {
      const n = await this.tx.$executeRawUnsafe(q.sql, ...params);
      return { rows: [], numAffectedRows: BigInt(n) };
    }
    const rows = await this.tx.$queryRawUnsafe<Record<string, unknown>[]>(q.sql, ...params);
    for (const row of rows) {
      for (const k in row) {
        const v = row[k];
        if (typeof v === "bigint") row[k] = Number(v);
        else if (isDecimal(v)) row[k] = v.toNumber();
      }
    }
    return { rows: rows as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported inside a Prisma transaction");
  }
}

function isDecimal(v: unknown): v is { toNumber(): number } {
  return typeof v === "object" && v !== null && !(v instanceof Date) && typeof (v as { toNumber?: unknown }).toNumber === "function";
}
