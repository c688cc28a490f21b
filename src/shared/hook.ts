// A lower layer's call up to a higher one (docs/architecture.md, "Layers"): the lower layer declares the hook and
// calls it where the work belongs (same transaction, same place in its order of effects); the composition root
// (src/hooks.ts, run by buildApp and openRuntime) registers the higher layer's handler at start-up, so the lower
// layer names no module above it.
export interface Hook<F extends (...args: any[]) => any> {
  register(handler: F): void;
  /** the registered handler; throws when start-up registered none */
  readonly call: F;
}

export function hook<F extends (...args: any[]) => any>(name: string): Hook<F> {
  let handler: F | null = null;
  const call = (...args: Parameters<F>): ReturnType<F> => {
    if (!handler) throw new Error(`No ${name} registered: the composition root registers it at start-up (src/hooks.ts registerHooks)`);
    return handler(...args);
  };
  return {
    register: (h) => {
      handler = h;
    },
    call: call as F,
  };
}
