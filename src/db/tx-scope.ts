// The root query builder refuses to run inside an open transaction. A command's statements go through `tx.sql`
// (bound to its transaction); a statement on the root handle (`deps.sql`) there would run outside the transaction:
// on PostgreSQL not atomic with the command, on PGlite waiting for PGlite's transaction lock, which the command itself
// holds, until the transaction's timeout. withTx and withSqlTx (shared/context.ts) mark the scope; the root Kysely
// carries this plugin (Kysely's public plugin interface), so such a statement throws at once, naming the mistake.
import { AsyncLocalStorage } from "node:async_hooks";
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from "kysely";

const scope = new AsyncLocalStorage<{ open: boolean }>();

/** Runs one transaction's work; until it settles, root statements started from it throw. */
export async function inTransactionScope<T>(run: () => Promise<T>): Promise<T> {
  const state = { open: true };
  try {
    return await scope.run(state, run);
  } finally {
    state.open = false; // work started inside and still running after the transaction ended may use the root again
  }
}

export class RootOutsideTransactions implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (scope.getStore()?.open) {
      throw new Error("a statement on the root query builder (deps.sql) inside an open transaction: use tx.sql, the transaction's own");
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
