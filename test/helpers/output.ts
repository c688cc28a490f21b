// Everything the server process prints (console and stdout/stderr writes), for the "no secret in the logs" checks.

/** Starts capturing; `restore()` puts console and the streams back. Output still reaches the terminal. */
export function captureOutput() {
  const printed: string[] = [];
  const restores: (() => void)[] = [];
  for (const m of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const orig = console[m];
    console[m] = (...args: unknown[]) => {
      printed.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : safeJson(a))).join(" "));
      orig.apply(console, args as []);
    };
    restores.push(() => (console[m] = orig));
  }
  for (const stream of [process.stdout, process.stderr]) {
    const orig = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      printed.push(Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk));
      return (orig as any)(chunk, ...rest);
    }) as typeof stream.write;
    restores.push(() => (stream.write = orig));
  }
  return { printed, restore: () => restores.splice(0).reverse().forEach((r) => r()) };
}

function safeJson(a: unknown) {
  try {
    return JSON.stringify(a) ?? String(a);
  } catch {
    return String(a);
  }
}

/** No secret, and no JWT-shaped string at all, in what was printed. */
export function expectNoSecrets(printed: string[], secrets: string[]) {
  expect(secrets.length).toBeGreaterThan(0);
  const all = printed.join("\n");
  for (const s of secrets) {
    expect(s.length).toBeGreaterThan(8);
    expect(all.includes(s)).toBe(false);
  }
  expect(all).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{20,}/);
}
