// Per-request batching for GraphQL field resolvers (the DataLoader pattern, without the dependency): the keys a
// resolver asks for while the executor walks one level of a list are gathered and fetched in one query. Nothing is
// cached past a batch, so a long-lived context (a WebSocket connection's) never serves stale rows, and a mutation
// followed by a read in one request reads what the mutation wrote.
import type { Ctx } from "./context";

type Pending<K, V> = { keys: K[]; waiters: Map<K, { resolve: (v: V) => void; reject: (e: unknown) => void }[]> };

/** A loader: `load(key)` resolves with `fetch`'s value for it, `fetch` running once for every key asked in a tick. */
export function batchLoader<K, V>(fetch: (keys: K[]) => Promise<Map<K, V>>, missing: V) {
  let pending: Pending<K, V> | null = null;
  const dispatch = async (batch: Pending<K, V>) => {
    try {
      const found = await fetch(batch.keys);
      for (const [key, ws] of batch.waiters) for (const w of ws) w.resolve(found.get(key) ?? missing);
    } catch (e) {
      for (const ws of batch.waiters.values()) for (const w of ws) w.reject(e);
    }
  };
  return (key: K): Promise<V> =>
    new Promise<V>((resolve, reject) => {
      if (!pending) {
        const batch: Pending<K, V> = { keys: [], waiters: new Map() };
        pending = batch;
        // after the promise jobs already queued (the sibling resolvers of this list level), as DataLoader does
        void Promise.resolve().then(() =>
          process.nextTick(() => {
            pending = null;
            void dispatch(batch);
          }),
        );
      }
      const ws = pending.waiters.get(key);
      if (ws) ws.push({ resolve, reject });
      else {
        pending.keys.push(key);
        pending.waiters.set(key, [{ resolve, reject }]);
      }
    });
}

const loaders = new WeakMap<Ctx, Map<string, unknown>>();

/** The request's loader named `name`, made on first use (one per context: a GraphQL request or connection). */
export function loaderOf<K, V>(ctx: Ctx, name: string, make: () => (key: K) => Promise<V>): (key: K) => Promise<V> {
  let byName = loaders.get(ctx);
  if (!byName) loaders.set(ctx, (byName = new Map()));
  let loader = byName.get(name) as ((key: K) => Promise<V>) | undefined;
  if (!loader) byName.set(name, (loader = make()));
  return loader;
}
