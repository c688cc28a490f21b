// Polling for something that happens after a request returns (a webhook delivered, a job run): calls `fn` every
// 50 ms until `ok` accepts its value, and fails with the last value once `ms` have passed.
export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() - start > ms) throw new Error(`condition not met in ${ms} ms: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
