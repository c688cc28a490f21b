// Every /api/v1 operation a secret key may call checks the key's scopes, generated from the OpenAPI document so a new
// route is covered when it is added: a key holding one unrelated scope (api_keys:read) must be refused with a 403
// on every operation but the few the spec opens to any key, listed below with why. The 403 is insufficient_scopes, or
// forbidden / application_key_workspace_route where the route takes no key at all (platform.md). Resources' own
// files check which scope each route needs; this table makes sure none was left without a check.
import { openApiDocument } from "../src/openapi/document";
import { startWithDemo, type TestApp } from "./helpers/app";
import { mintKeyVia } from "./helpers/http";

/** Operations any secret key may call whatever its scopes (platform.md), and what they answer here. */
const OPEN_TO_ANY_KEY: Record<string, number> = {
  "GET /whoami": 200, // "dashboard session or key; no scope"
  "GET /api-keys": 200, // "dashboard session or secret key"
  "GET /events": 200, // the list holds only the events whose read scope the key has: none here
  "GET /events/{id}": 404, // each event gated by its read scope; an event the key may not read is not found
  "GET /event-types": 200, // the catalogue
};

let t: TestApp;
afterAll(() => t?.close());

test("a key with one unrelated scope is refused with a 403 on every operation but those open to any key", async () => {
  const s = await startWithDemo({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
  t = s.t;
  const key = await mintKeyVia(s.api, s.demo, ["api_keys:read"]);
  const doc = openApiDocument() as { paths: Record<string, Record<string, any>>; security?: Record<string, unknown>[] };
  const seen: Record<string, string> = {};
  let checked = 0;
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const m of ["get", "post", "put", "patch", "delete"].filter((x) => item[x])) {
      const schemes = ((item[m].security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((x) => Object.keys(x));
      if (!schemes.includes("apiKey")) continue;
      const op = `${m.toUpperCase()} ${route}`;
      const url = route.replace(/\{(\w+)\}/g, (_, n: string) => (n === "workspaceId" ? s.demo.workspaceId : "00000000-0000-4000-8000-000000000000"));
      const body = m === "get" || m === "delete" ? undefined : JSON.stringify({});
      const res = await fetch(`${t.url}/api/v1${url}`, { method: m.toUpperCase(), headers: { "x-api-key": key.rawKey, "content-type": "application/json" }, body });
      const answer = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
      seen[op] = `${res.status} ${answer?.error?.code ?? ""}`.trim();
      checked++;
    }
  }
  const expected = Object.fromEntries(
    Object.entries(seen).map(([op, got]) => [op, op in OPEN_TO_ANY_KEY ? String(OPEN_TO_ANY_KEY[op]) : /^403 (insufficient_scopes|forbidden|application_key_workspace_route)$/.test(got) ? got : "403 insufficient_scopes"]),
  );
  expect(Object.fromEntries(Object.entries(seen).map(([op, got]) => [op, op in OPEN_TO_ANY_KEY ? got.split(" ")[0] : got]))).toEqual(expected);
  // Every body is empty: a route whose scope depends on its body (POST /orders/{id}/status) refuses a credential
  // holding none of the scopes it could need before it reads the body, so this is a 403 and not a 422.
  expect(seen["POST /orders/{id}/status"]).toBe("403 insufficient_scopes");
  expect(checked).toBeGreaterThanOrEqual(180);
  expect(Object.values(seen).filter((x) => x === "403 insufficient_scopes").length).toBeGreaterThanOrEqual(140);
}, 120_000);
