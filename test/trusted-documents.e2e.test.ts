// Trusted documents (issue 37 item 6): first-party clients send the sha256 of an operation of the manifest built
// from clients/ (scripts/persisted-operations.ts); ad hoc documents from API keys stay allowed; with
// GRAPHQL_DASHBOARD_PERSISTED_ONLY=on a dashboard session may send persisted operations only.
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildManifest, loadManifest, sha256 } from "../src/graphql/trusted-documents";
import { schema } from "../src/server/graphql-schema";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { manifestText } from "../scripts/persisted-operations";
import { loadConfig } from "../src/config";
import { createYogaServer } from "../src/server/yoga";
import type { Deps } from "../src/shared/context";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { startTestApp, type TestApp } from "./helpers/app";

const ROOT = path.join(__dirname, "..");
const MANIFEST = path.join(ROOT, "clients/persisted-operations.json");
const manifest = loadManifest(MANIFEST);
/** The hash of a manifest operation, by name. */
const hashOf = (name: string) => [...manifest].find(([, doc]) => new RegExp(`^(query|mutation|subscription) ${name}\\b`).test(doc))![0];
const persisted = (name: string, variables: Record<string, unknown> = {}) => ({ operationName: name, variables, extensions: { persistedQuery: { version: 1, sha256Hash: hashOf(name) } } });
const AD_HOC = { query: "{ viewer { type } }" };

type Post = (body: unknown, headers: Record<string, string>) => Promise<{ status: number; body: any }>;
const poster =
  (t: TestApp): Post =>
  async (body, headers) => {
    const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };

test("the committed manifest is what the script builds from clients/ (regenerate: npx tsx scripts/persisted-operations.ts)", () => {
  expect(readFileSync(MANIFEST, "utf8")).toBe(manifestText());
  expect(manifest.size).toBeGreaterThanOrEqual(6);
  for (const [hash, doc] of manifest) expect(sha256(doc)).toBe(hash);
});

test("the manifest build refuses an unnamed operation, a duplicate and a document the schema does not answer", () => {
  expect(() => buildManifest([{ name: "a.graphql", body: "{ viewer { type } }" }], schema)).toThrow(/needs a name/);
  expect(() => buildManifest([{ name: "a.graphql", body: "query A { viewer { type } } query A { viewer { type } }" }], schema)).toThrow(/twice/);
  expect(() => buildManifest([{ name: "a.graphql", body: "query A { viewer { nope } }" }], schema)).toThrow(/nope/);
  // an operation carries only the fragments it uses, sorted
  const m = buildManifest([{ name: "a.graphql", body: "query A { viewer { ...V } } fragment W on Viewer { scopes } fragment V on Viewer { type ...W }" }], schema);
  expect(Object.values(m)).toEqual(["query A {\n  viewer {\n    ...V\n  }\n}\n\nfragment V on Viewer {\n  type\n  ...W\n}\n\nfragment W on Viewer {\n  scopes\n}"]);
});

describe("default settings: persisted operations and ad hoc documents both run", () => {
  let t: TestApp;
  let demo: BootstrapResult;
  let post: Post;
  beforeAll(async () => {
    t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
    demo = await t.bootstrap();
    post = poster(t);
  });
  afterAll(() => t?.close());

  test("an API key sends a persisted operation by its hash, or any document as text", async () => {
    const key = { "x-api-key": demo.apiKey };
    const byHash = await post(persisted("DashboardQuotes", { first: 5 }), key);
    expect(byHash.body).toEqual({ data: { quotes: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } } });
    const adHoc = await post(AD_HOC, key);
    expect(adHoc.body).toEqual({ data: { viewer: { type: "api_key" } } });
    // GET works too (the hash in extensions), as CDN-cacheable first-party reads use it
    const q = new URLSearchParams({ operationName: "DashboardOrders", variables: "{}", extensions: JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hashOf("DashboardOrders") } }) });
    const get = await fetch(`${t.url}/graphql?${q}`, { headers: { ...key, accept: "application/json" } });
    expect(((await get.json()) as any).data.orders.edges).toEqual([]);
  });

  test("an unknown hash is PersistedQueryNotFound; neither a document nor a hash is the usual missing-query error", async () => {
    const unknown = await post({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256("query Nope { viewer { type } }") } } }, { "x-api-key": demo.apiKey });
    expect(unknown.body.data).toBeUndefined();
    expect(unknown.body.errors).toEqual([expect.objectContaining({ message: "PersistedQueryNotFound", extensions: expect.objectContaining({ code: "PERSISTED_QUERY_NOT_IN_LIST" }) })]);
    const none = await post({ variables: {} }, { "x-api-key": demo.apiKey });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].message).toBe("Must provide query string.");
  });

  test("a dashboard session may send ad hoc documents while the switch is off", async () => {
    const adHoc = await post(AD_HOC, { authorization: `Bearer ${demo.dashboardToken}` });
    expect(adHoc.body.errors).toBeUndefined();
  });
});

describe("GRAPHQL_DASHBOARD_PERSISTED_ONLY=on", () => {
  let t: TestApp;
  let demo: BootstrapResult;
  let post: Post;
  beforeAll(async () => {
    t = (await startTestApp({ env: { GRAPHQL_DASHBOARD_PERSISTED_ONLY: "on", RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
    demo = await t.bootstrap();
    post = poster(t);
  });
  afterAll(() => t?.close());

  test("a dashboard session's ad hoc document is refused, its persisted operations run; API keys keep sending any document", async () => {
    const session = { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id };
    const refused = await post(AD_HOC, session);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_ONLY");
    // sending the text beside a known hash does not get around it
    const both = await post({ ...persisted("DashboardQuotes"), query: "{ viewer { type } }" }, session);
    expect(both.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_ONLY");
    const ok = await post(persisted("DashboardQuotes", { first: 5 }), session);
    expect(ok.body).toEqual({ data: { quotes: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } } });
    expect((await post(AD_HOC, { "x-api-key": demo.apiKey })).body).toEqual({ data: { viewer: { type: "api_key" } } });
  });

  test("graphql-ws holds to the same rules: a dashboard session subscribes by hash only, an API key by text too", async () => {
    const url = `${t.url.replace("http", "ws")}/graphql`;
    const subscribe = (params: Record<string, string>, payload: { query?: string; extensions?: Record<string, unknown>; variables?: Record<string, unknown>; operationName?: string }) => {
      const c = createClient({ url, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0, lazy: true });
      const got: { data?: any; errors?: any[] }[] = [];
      const errors: unknown[] = [];
      const dispose = c.subscribe(payload as any, { next: (v) => void got.push(v as any), error: (e) => void errors.push(e), complete: () => {} });
      return { got, errors, close: async () => (dispose(), await c.dispose()) };
    };
    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 25));
    };
    const session = { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id };
    const text = "subscription { quoteEvents { type quote { id } } }";
    const refused = subscribe(session, { query: text });
    await until(() => refused.errors.length > 0);
    expect(JSON.stringify(refused.errors)).toContain("PERSISTED_QUERY_ONLY");
    // graphql-ws requires `query` to be a string: a persisted subscribe message sends it empty beside the hash
    const unknown = subscribe(session, { query: "", extensions: { persistedQuery: { version: 1, sha256Hash: "0".repeat(64) } } });
    await until(() => unknown.errors.length > 0);
    expect(JSON.stringify(unknown.errors)).toContain("PERSISTED_QUERY_NOT_IN_LIST");
    const byHash = subscribe(session, { query: "", ...persisted("DashboardQuoteEvents") });
    const byKey = subscribe({ "x-api-key": demo.apiKey }, { query: text });
    await new Promise((r) => setTimeout(r, 300)); // both subscribed
    const created = await fetch(`${t.url}/api/v1/quotes`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": demo.apiKey },
      body: JSON.stringify({ customerEmail: "ws@example.com", items: [{ name: "x", unitPrice: 100 }] }),
    });
    const id = ((await created.json()) as any).data.id;
    const issued = await fetch(`${t.url}/api/v1/quotes/${id}/issue`, { method: "POST", headers: { "x-api-key": demo.apiKey } });
    expect(issued.status).toBe(200);
    await until(() => byHash.got.length > 0 && byKey.got.length > 0);
    expect(byHash.errors).toEqual([]);
    expect(byHash.got[0].data.quoteEvents).toMatchObject({ type: "quote.proposed", quote: { id } });
    expect(byKey.got[0].data.quoteEvents).toEqual({ type: "quote.proposed", quote: { id } });
    await Promise.all([refused, unknown, byHash, byKey].map((s) => s.close()));
  });

  test("the switch without a manifest does not start", () => {
    const config = loadConfig({ NODE_ENV: "test", GRAPHQL_DASHBOARD_PERSISTED_ONLY: "on", GRAPHQL_PERSISTED_OPERATIONS_FILE: path.join(ROOT, "clients/none.json") });
    expect(() => createYogaServer({ config } as Deps)).toThrow(/needs the trusted documents' manifest/);
  });
});
