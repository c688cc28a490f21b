// GraphQL mirrors the REST routes over the same services: same results, same codes in extensions.code.
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { startTestApp, startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { codeOf, gqlClient } from "./helpers/gql";
import {
  ApiKeysDocument,
  ArchiveEnvironmentDocument,
  ConnectorDocument,
  ConnectorsDocument,
  CreateApiKeyDocument,
  CreateConnectorDocument,
  CreateEnvironmentDocument,
  DeactivateConnectorDocument,
  EnvironmentsDocument,
  RevokeApiKeyDocument,
  ViewerDocument,
} from "./generated/graphql";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
  gql = gqlClient(t.url);
});
afterAll(() => t?.close());

const sandboxDash = () => ({ token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });

test("GraphiQL: a browser's GET /graphql gets the page (its renderer loads on first use), with the subscriptions protocol set", async () => {
  const r = await fetch(`${t.url}/graphql`, { headers: { accept: "text/html" } });
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/html");
  const html = await r.text();
  expect(html).toContain("<title>Quote-to-cash GraphQL</title>");
  expect(html).toContain('"subscriptionsProtocol":"WS"');
});

test("viewer equals GET /whoami", async () => {
  const rest = await api("GET", "whoami", { key: demo.apiKey });
  const g = await gql(ViewerDocument, {}, { key: demo.apiKey });
  expect(g.errors).toBeNull();
  const { member: _m, ...restView } = rest.body.data;
  expect(g.data!.viewer).toEqual({
    ...restView,
    application: { id: restView.application.id, slug: restView.application.slug },
  });
});

test("unauthenticated and bad credentials: unauthorized in extensions.code (HTTP 401 for a bad key)", async () => {
  const none = await gql(ViewerDocument, {});
  expect(codeOf(none)).toBe("unauthorized");
  const bad = await gql(ViewerDocument, {}, { key: "sk_sandbox_nope" });
  expect(bad.status).toBe(401);
  expect(codeOf(bad)).toBe("unauthorized");
});

test("createApiKey: same rules and codes as POST /api-keys", async () => {
  const created = await gql(CreateApiKeyDocument, { name: "g", scopes: ["quotes:read"] }, sandboxDash());
  expect(created.errors).toBeNull();
  expect(created.data!.createApiKey.rawKey).toMatch(/^sk_sandbox_/);
  expect(created.data!.createApiKey.apiKey).toMatchObject({ name: "g", type: "secret", scopes: ["quotes:read"] });
  const who = await api("GET", "whoami", { key: created.data!.createApiKey.rawKey! });
  expect(who.body.data.apiKey.id).toBe(created.data!.createApiKey.apiKey.id);

  const cases: [any, Parameters<typeof gql>[2], string][] = [
    [{ name: "x", scopes: ["*"] }, { key: demo.apiKey }, "forbidden"],
    [{ name: "x", scopes: ["nope:nope"] }, sandboxDash(), "invalid_scope"],
    [{ name: "x", scopes: ["admin:read"] }, sandboxDash(), "invalid_scope"],
    [{ name: "", scopes: ["*"] }, sandboxDash(), "validation_error"],
    [{ name: "x", scopes: ["*"] }, { token: demo.dashboardToken }, "validation_error"],
  ];
  for (const [vars, cred, code] of cases) {
    const g = await gql(CreateApiKeyDocument, vars, cred);
    const r = await api("POST", "api-keys", { ...cred, body: vars });
    expect({ vars, code: codeOf(g) }).toEqual({ vars, code });
    expect({ vars, code: r.body.error?.code }).toEqual({ vars, code });
    expect(g.errors![0].extensions!.status).toBe(r.status);
  }
});

test("apiKeys list and revokeApiKey", async () => {
  const created = await gql(CreateApiKeyDocument, { name: "to-revoke", scopes: ["*"] }, sandboxDash());
  const id = created.data!.createApiKey.apiKey.id;
  const page = await gql(ApiKeysDocument, { limit: 100 }, { key: demo.apiKey });
  expect(page.data!.apiKeys.nodes.map((k) => k.id)).toContain(id);
  expect(JSON.stringify(page.data)).not.toContain(created.data!.createApiKey.rawKey);
  expect((await gql(RevokeApiKeyDocument, { id }, { token: demo.dashboardToken })).data!.revokeApiKey).toBe(true);
  expect(codeOf(await gql(RevokeApiKeyDocument, { id }, { token: demo.dashboardToken }))).toBe("not_found");
  expect(codeOf(await gql(ApiKeysDocument, {}, { key: created.data!.createApiKey.rawKey! }))).toBe("unauthorized");
});

test("environments: create, reserved, taken, locked, not found, key on workspace route", async () => {
  const cred = { token: demo.dashboardToken };
  const ws = demo.workspaceId;
  const created = await gql(CreateEnvironmentDocument, { workspaceId: ws, slug: "gql-env", name: "G" }, cred);
  expect(created.data!.createEnvironment).toMatchObject({ slug: "gql-env", kind: "non_production", isSystem: false, status: "active" });
  expect(codeOf(await gql(CreateEnvironmentDocument, { workspaceId: ws, slug: "live-2", name: "x" }, cred))).toBe("reserved_environment_slug");
  expect(codeOf(await gql(CreateEnvironmentDocument, { workspaceId: ws, slug: "gql-env", name: "x" }, cred))).toBe("environment_slug_taken");
  expect(codeOf(await gql(ArchiveEnvironmentDocument, { workspaceId: ws, environmentId: demo.environments.production.id }, cred))).toBe("system_environment_locked");
  expect(codeOf(await gql(ArchiveEnvironmentDocument, { workspaceId: ws, environmentId: "00000000-0000-4000-8000-000000000000" }, cred))).toBe("environment_not_found");
  expect(codeOf(await gql(EnvironmentsDocument, { workspaceId: ws }, { key: demo.apiKey }))).toBe("application_key_workspace_route");
  const archived = await gql(ArchiveEnvironmentDocument, { workspaceId: ws, environmentId: created.data!.createEnvironment.id }, cred);
  expect(archived.data!.archiveEnvironment.status).toBe("archived");
  const active = await gql(EnvironmentsDocument, { workspaceId: ws }, cred);
  expect(active.data!.environments.map((e) => e.slug)).not.toContain("gql-env");
  const all = await gql(EnvironmentsDocument, { workspaceId: ws, includeArchived: true }, cred);
  expect(all.data!.environments.map((e) => e.slug)).toContain("gql-env");
});

test("connectors: tenant-scoped, same 404 as REST for a foreign id", async () => {
  const other = await t.otherWorkspace("gql-other");
  const c = await gql(CreateConnectorDocument, { kind: "invoice_terms", provider: "test" }, { key: other.apiKey });
  expect(c.data!.createConnector).toMatchObject({ kind: "invoice_terms", status: "active" });
  const foreign = await gql(ConnectorDocument, { id: c.data!.createConnector.id }, { key: demo.apiKey });
  expect(codeOf(foreign)).toBe("not_found");
  expect(codeOf(await gql(DeactivateConnectorDocument, { id: c.data!.createConnector.id }, { key: demo.apiKey }))).toBe("not_found");
  const mine = await gql(ConnectorsDocument, {}, { key: demo.apiKey });
  expect(mine.data!.connectors.nodes.map((n) => n.id)).not.toContain(c.data!.createConnector.id);
  const d = await gql(DeactivateConnectorDocument, { id: c.data!.createConnector.id }, { key: other.apiKey });
  expect(d.data!.deactivateConnector.status).toBe("inactive");
});

test("insufficient_scopes and publishable keys over GraphQL", async () => {
  const limited = await gql(CreateApiKeyDocument, { name: "q", scopes: ["quotes:read"] }, sandboxDash());
  expect(codeOf(await gql(ConnectorsDocument, {}, { key: limited.data!.createApiKey.rawKey! }))).toBe("insufficient_scopes");
  const pk = await gql(CreateApiKeyDocument, { name: "p", scopes: ["publishable", "tax_calculations:write"] }, sandboxDash());
  expect(pk.data!.createApiKey.rawKey).toMatch(/^pk_sandbox_/);
  expect(codeOf(await gql(ConnectorsDocument, {}, { key: pk.data!.createApiKey.rawKey! }))).toBe("forbidden");
});

test("depth and alias limits reject abusive documents with a GraphQL error, not a 5xx", async () => {
  const aliases = Array.from({ length: 60 }, (_, i) => `a${i}: viewer { type }`).join(" ");
  const res = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": demo.apiKey },
    body: JSON.stringify({ query: `{ ${aliases} }` }),
  });
  expect(res.status).toBeLessThan(500);
  const body = (await res.json()) as any;
  expect(body.errors[0].message).toMatch(/alias/i);
});

test("depth limit: a valid query deeper than GRAPHQL_MAX_DEPTH is refused, the same query within it runs", async () => {
  // The schema has no cycles, so a valid deep query needs a low limit to cross it.
  const shallow = (await startTestApp({ env: { GRAPHQL_MAX_DEPTH: "2" } }))!;
  try {
    const key = (await shallow.bootstrap()).apiKey;
    const query = "{ orders { nodes { payments { id } } } }";
    const post = (url: string, k: string) =>
      fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": k }, body: JSON.stringify({ query }) });
    const refused = await post(shallow.url, key);
    expect(refused.status).toBeLessThan(500);
    const body = (await refused.json()) as any;
    expect(body.data ?? null).toBeNull();
    expect(body.errors[0].message).toMatch(/depth/i);
    // Fields count, fragment spreads do not (flattenFragments): the same depth hidden in fragments is refused too,
    // and fragments alone never push a shallow query over.
    const viaFragments = "{ orders { ...O } } fragment O on OrderPage { nodes { ...P } } fragment P on Order { payments { id } }";
    const hidden = (await (await fetch(`${shallow.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ query: viaFragments }) })).json()) as any;
    expect(hidden.errors[0].message).toMatch(/depth/i);
    const flat = (await (await fetch(`${shallow.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ query: "{ ...Q } fragment Q on Query { viewer { ...V } } fragment V on Viewer { type }" }) })).json()) as any;
    expect(flat.errors).toBeUndefined();
    const ok = (await (await post(t.url, demo.apiKey)).json()) as any;
    expect(ok.errors).toBeUndefined();
    expect(ok.data.orders.nodes).toEqual([]);
  } finally {
    await shallow.close();
  }
});

describe("graphql-ws shares HTTP auth", () => {
  function wsClient(connectionParams: Record<string, string>) {
    return createClient({ url: t.url.replace("http", "ws") + "/graphql", webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true });
  }

  test("a key in connectionParams runs operations with the same principal", async () => {
    const c = wsClient({ "x-api-key": demo.apiKey });
    const it = c.iterate({ query: "{ viewer { type environment { slug } } }" });
    const first = await it.next();
    expect(first.value).toEqual({ data: { viewer: { type: "api_key", environment: { slug: "sandbox" } } } });
    await c.dispose();
  });

  test("a dashboard token in connectionParams works too", async () => {
    const c = wsClient({ authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id });
    const it = c.iterate({ query: "{ viewer { type environment { slug } } }" });
    expect((await it.next()).value).toEqual({ data: { viewer: { type: "clerk_jwt", environment: { slug: "sandbox" } } } });
    await c.dispose();
  });

  test("a malformed document gets a GraphQL error and the socket stays usable", async () => {
    const c = wsClient({ "x-api-key": demo.apiKey });
    await expect(c.iterate({ query: "{ viewer {" }).next()).rejects.toEqual([expect.objectContaining({ message: expect.stringMatching(/Syntax Error/) })]);
    const again = await c.iterate({ query: "{ viewer { type } }" }).next();
    expect(again.value).toEqual({ data: { viewer: { type: "api_key" } } });
    await c.dispose();
  });

  test("a bad key is refused at connect time", async () => {
    const c = wsClient({ "x-api-key": "sk_sandbox_nope" });
    const it = c.iterate({ query: "{ viewer { type } }" });
    await expect(it.next()).rejects.toMatchObject({ code: 4403 });
    await c.dispose();
  });
});
