// Kysely on PGlite (the embedded default), through Kysely's public Dialect interface.
//
// PGlite is one session shared by everything in the process (Prisma's adapter too). A Kysely transaction runs inside
// PGlite's own `transaction()`, which holds PGlite's transaction lock until it ends: no other statement of the
// process can slip into it. Statements outside a transaction go through `query()`, which waits for that lock.
import type { PGlite, Transaction } from "@electric-sql/pglite";
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import { PARSERS, sqlParams } from "./sql-values";
import { assertOutsideTransaction } from "./tx-scope";

export class PGliteDialect implements Dialect {
  constructor(private readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.pglite);
  }
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  constructor(private readonly pglite: PGlite) {}
  async init() {}
  async acquireConnection(): Promise<DatabaseConnection> {
    assertOutsideTransaction();
    return new PGliteConnection(this.pglite);
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await (connection as PGliteConnection).begin(settings);
  }
  async commitTransaction(connection: DatabaseConnection) {
    await (connection as PGliteConnection).end(true);
  }
  async rollbackTransaction(connection: DatabaseConnection) {
    await (connection as PGliteConnection).end(false);
  }
  async releaseConnection() {}
  async destroy() {}
}

class PGliteConnection implements DatabaseConnection {
  private tx: Transaction | null = null;
  private finish: ((commit: boolean) => void) | null = null;
  private done: Promise<void> | null = null;

  constructor(private readonly pglite: PGlite) {}

  async executeQuery<R>(q: CompiledQuery): Promise<QueryResult<R>> {
    const r = await (this.tx ?? this.pglite).query<R>(q.sql, sqlParams(q.parameters), { parsers: PARSERS });
    return { rows: r.rows, numAffectedRows: r.affectedRows === undefined ? undefined : BigInt(r.affectedRows) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported on PGlite");
  }

  /** Opens PGlite's transaction and keeps it open (and the lock held) until end() settles it. */
  begin(settings: TransactionSettings): Promise<void> {
    return new Promise<void>((started, failed) => {
      this.done = this.pglite.transaction(async (tx) => {
        if (settings.isolationLevel) await tx.exec(`SET TRANSACTION ISOLATION LEVEL ${settings.isolationLevel.toUpperCase()}`);
        this.tx = tx;
        const commit = await new Promise<boolean>((resolve) => {
          this.finish = resolve;
          started();
        });
        if (!commit) await tx.rollback();
      });
      this.done.catch(failed); // failing before it started; after that, end() reports
    });
  }

  /** Commits (PGlite commits when the callback returns) or rolls back, and waits for it. */
  async end(commit: boolean) {
    const finish = this.finish;
    this.finish = null;
    finish?.(commit);
    try {
      await this.done;
    } finally {
      this.tx = null;
      this.done = null;
    }
  }
}
