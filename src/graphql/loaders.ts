// Batched loading for graph edges (Quote.customer, Order.payments, Customer.orders, ...): every resolver of one edge
// that runs in the same tick asks one DataLoader, which hands the whole set of keys to a service's batch read, so a
// page of 50 parents costs one statement per edge, not one per parent.
//
// Loaders live per GraphQL context (one per HTTP request, one per subscription operation) and do not cache across
// batches (`cache: false`): a subscription re-runs its selection on every event and must read fresh rows. Keys are
// deduplicated inside a batch instead, so 50 quotes of one customer still read that customer once.
import DataLoader from "dataloader";
import type { Ctx } from "../shared/context";
import type { Page } from "../shared/pagination";

const perContext = new WeakMap<object, Map<string, DataLoader<unknown, unknown>>>();

/**
 * The loader `name` of this request: `batch` receives the distinct keys of one tick and answers a Map from key to
 * value; a key it leaves out resolves to `missing` (null by default: an edge whose row is gone, or another tenant's).
 * `keyOf` turns a structured key (parent id plus the edge's arguments) into the string that deduplicates it.
 */
export function loader<K, V>(
  ctx: Ctx,
  name: string,
  batch: (keys: K[]) => Promise<Map<string, V>>,
  options: { keyOf?: (key: K) => string; missing?: () => V } = {},
): DataLoader<K, V | null> {
  let loaders = perContext.get(ctx);
  if (!loaders) perContext.set(ctx, (loaders = new Map()));
  let l = loaders.get(name) as DataLoader<K, V | null> | undefined;
  if (!l) {
    const keyOf = options.keyOf ?? ((k: K) => String(k));
    l = new DataLoader<K, V | null>(
      async (keys) => {
        const distinct = new Map<string, K>();
        for (const k of keys) distinct.set(keyOf(k), k);
        const found = await batch([...distinct.values()]);
        return keys.map((k) => found.get(keyOf(k)) ?? (options.missing ? options.missing() : null));
      },
      { cache: false },
    );
    loaders.set(name, l as DataLoader<unknown, unknown>);
  }
  return l;
}

/** A batch answer keyed by each row's id (or another key): the shape `loader` expects from a list of rows. */
export function keyedBy<V>(rows: readonly V[], keyOf: (row: V) => string): Map<string, V> {
  return new Map(rows.map((r) => [keyOf(r), r]));
}

/** A batch answer of lists: every row under its parent's key, every asked key present (empty list when none). */
export function groupedBy<V>(keys: readonly string[], rows: readonly V[], parentOf: (row: V) => string | null): Map<string, V[]> {
  const out = new Map<string, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) out.get(parentOf(r) ?? "")?.push(r);
  return out;
}

const EMPTY_PAGE = () => ({ items: [], pagination: { cursor: null, hasMore: false } });

/**
 * A paged edge (Customer.orders, Quote.activity, ...): each parent asks for its page with the field's arguments; the
 * parents of one tick that asked with the same arguments share one `read` (one statement or two for all of them,
 * pagesByParent in shared/pagination.ts), and an alias with other arguments gets its own.
 */
export function pagedLoad<T, Q>(ctx: Ctx, name: string, read: (parentIds: string[], query: Q) => Promise<Map<string, Page<T>>>, parentId: string, query: Q): Promise<Page<T>> {
  const keyOf = (k: { id: string; q: string }) => `${k.q}\u0000${k.id}`;
  const l = loader<{ id: string; q: string }, Page<T>>(
    ctx,
    name,
    async (keys) => {
      const byQuery = new Map<string, string[]>();
      for (const k of keys) byQuery.set(k.q, [...(byQuery.get(k.q) ?? []), k.id]);
      const out = new Map<string, Page<T>>();
      for (const [q, ids] of byQuery) for (const [id, page] of await read(ids, JSON.parse(q) as Q)) out.set(keyOf({ id, q }), page);
      return out;
    },
    { keyOf, missing: EMPTY_PAGE },
  );
  return l.load({ id: parentId, q: JSON.stringify(query) }) as Promise<Page<T>>;
}
