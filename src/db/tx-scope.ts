// The root query builder refuses to run inside an open transaction. A command's statements go through `tx.sql`
// (bound to its transaction); a statement on the root handle (`deps.sql`) there would run outside the transaction:
// on PostgreSQL not atomic with the command, on PGlite waiting for PGlite's transaction lock, which the command itself
// holds, until the transaction's timeout. withTx and withSqlTx (shared/context.ts) mark the scope once their
// transaction is open; the root handle's drivers (sql.ts's pool, pglite-dialect.ts) check it when a statement asks
// for a connection, so such a statement throws at once, naming the mistake. The transaction's own statements run
// on the connection it already holds, or through Prisma's.
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<{ open: boolean }>();

/** Runs one open transaction's work; until it settles, root statements started from it throw. */
export async function inTransactionScope<T>(run: () => Promise<T>): Promise<T> {
  const state = { open: true };
  try {
    return await scope.run(state, run);
  } finally {
    state.open = false; // work started inside and still running after the transaction ended may use the root again
  }
}

/** Called where the root handle takes a connection. */
export function assertOutsideTransaction() {
  if (scope.getStore()?.open) {
    throw new Error("a statement on the root query builder (deps.sql) inside an open transaction: use tx.sql, the transaction's own");
  }
}
