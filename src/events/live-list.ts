// Live lists for dashboards (quoteEvents, orderEvents): a tenant's event stream turned into items a list view
// can apply, each read again (scope- and tenant-checked) when its event arrives and dropped when a filter rules
// it out. Kept an iterator rather than an async generator, as whileCredentialLive is, so an unsubscribing client
// releases the hub's topic (and its Redis channel) at once instead of after the next event.

/**
 * Maps each item of `source` through `read`; items `read` answers null for are skipped. Symbols (the end marker
 * of whileCredentialLive) pass through untouched, so the field's resolver still answers `unauthorized` with them.
 */
export function liveList<E, T>(source: AsyncIterator<E | symbol>, read: (item: E) => Promise<T | null>): AsyncIterableIterator<T | symbol> {
  let ended = false;
  const close = async () => {
    ended = true;
    await source.return?.();
  };
  return {
    async next(): Promise<IteratorResult<T | symbol>> {
      for (;;) {
        if (ended) return { done: true, value: undefined };
        const r = await source.next();
        if (r.done || ended) return { done: true, value: undefined };
        if (typeof r.value === "symbol") return { done: false, value: r.value };
        const item = await read(r.value);
        if (item !== null) return { done: false, value: item };
      }
    },
    async return() {
      await close();
      return { done: true, value: undefined };
    },
    async throw(e?: unknown) {
      await close();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
