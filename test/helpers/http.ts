// A tiny REST client for e2e tests: returns status, headers and parsed body. Every /api/v1 response is checked
// against the OpenAPI document (./openapi.ts); `validate: false` opts out for deliberate garbage.
import { assertDocumented } from "./openapi";
export interface Cred {
  key?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function client(base: string) {
  return async function call<T = any>(method: string, path: string, opts: Cred & { body?: unknown; raw?: string; idem?: string; validate?: boolean } = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers["x-api-key"] = opts.key;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.idem !== undefined) headers["idempotency-key"] = opts.idem;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
    const res = await fetch(`${base}${path.startsWith("/") ? path : `/api/v1/${path}`}`, { method, headers, body });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    const apiPath = path.startsWith("/") ? (path.startsWith("/api/v1/") ? path.slice("/api/v1".length) : null) : `/${path}`;
    const isJson = (res.headers.get("content-type") ?? "").includes("json");
    if (apiPath !== null && opts.validate !== false && (isJson || res.status === 204)) {
      assertDocumented(method, apiPath, res.status, res.status === 204 ? null : parsed);
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** Mints a key through the dashboard route, as a merchant would (sandbox unless envId says otherwise). */
export async function mintKeyVia(
  call: ReturnType<typeof client>,
  demo: { dashboardToken: string; environments: { sandbox: { id: string } } },
  scopes: string[],
  envId = demo.environments.sandbox.id,
  name = "k",
) {
  const r = await call("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": envId }, body: { name, scopes } });
  if (r.status !== 201) throw new Error(`minting a key failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data as { id: string; rawKey: string; keyPrefix: string; scopes: string[]; type: string };
}
