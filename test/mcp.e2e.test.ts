// The hosted tool endpoint /mcp, through the MCP SDK's own client (StreamableHTTPClientTransport) with OAuth access
// tokens from our authorization server: tools listed, a quote created then read, scope refusals as tool errors,
// the 401 challenge, tenancy; and no token ever reaches the server's output.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { captureOutput, expectNoSecrets } from "./helpers/output";
import { decodeJwt } from "jose";
import { consent, obtainMcpTokens, obtainTokens, REDIRECT_URI, refresh } from "./helpers/oauth";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

/** Everything the server process prints while this file runs (console and stdout/stderr writes). */
const output = captureOutput();
const secrets: string[] = [];

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo({ env: { LOG_LEVEL: "debug" } }));
});
afterAll(async () => {
  await t?.close();
  output.restore();
});

async function connect(token: string) {
  const c = new Client({ name: "test-agent", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return c;
}

const payload = (r: any) => JSON.parse(r.content[0].text);

describe("/mcp", () => {
  test("no token or a bad one: 401 pointing at the /mcp resource's metadata (RFC 9728), which is served", async () => {
    for (const auth of [undefined, "Bearer nope", `Bearer ${demo.dashboardToken}`]) {
      const res = await fetch(`${t.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status).toBe(401);
      const challenge = res.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    }
    // an API key is not an OAuth token
    const res = await fetch(`${t.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": demo.apiKey }, body: "{}" });
    expect(res.status).toBe(401);
    // the document the challenge names describes /mcp itself, so a client asks for tokens for it
    const prm = await api("GET", "/.well-known/oauth-protected-resource/mcp");
    expect(prm.status).toBe(200);
    expect(prm.body).toMatchObject({ resource: `${t.url}/mcp`, authorization_servers: [t.url] });
  });

  test("only tokens issued for /mcp open it; tokens for /mcp do not open the API (audience, RFC 8707)", async () => {
    const forApi = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const forMcp = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read");
    secrets.push(forApi.tokens.access_token, forApi.tokens.refresh_token!, forMcp.tokens.access_token, forMcp.tokens.refresh_token!);
    expect(decodeJwt(forApi.tokens.access_token).aud).toBe(t.url);
    expect(decodeJwt(forMcp.tokens.access_token).aud).toBe(`${t.url}/mcp`);

    const res = await fetch(`${t.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${forApi.tokens.access_token}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(`resource_metadata="${t.url}/.well-known/oauth-protected-resource/mcp"`);
    await expect(connect(forApi.tokens.access_token)).rejects.toThrow();

    const c = await connect(forMcp.tokens.access_token);
    try {
      expect((await c.callTool({ name: "list_quotes", arguments: {} })).isError).toBeFalsy();
    } finally {
      await c.close();
    }
    // a token for /mcp is refused by REST and GraphQL; its refresh stays a token for /mcp
    const rest = await api("GET", "whoami", { token: forMcp.tokens.access_token });
    expect([rest.status, rest.body.error.code]).toEqual([401, "unauthorized"]);
    const gql = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${forMcp.tokens.access_token}` }, body: JSON.stringify({ query: "{ viewer { type } }" }) });
    expect(((await gql.json()) as any).errors[0].extensions.code).toBe("unauthorized");
    const refreshed = await refresh(forMcp.as, forMcp.client, forMcp.tokens.refresh_token!);
    secrets.push(refreshed.access_token, refreshed.refresh_token!);
    expect(decodeJwt(refreshed.access_token).aud).toBe(`${t.url}/mcp`);
    expect((await api("GET", "whoami", { token: forApi.tokens.access_token })).status).toBe(200);
  });

  test("the SDK client lists the tools, creates a quote and reads it back", async () => {
    const { tokens } = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read quotes:write customers:read customers:write carts:read carts:write orders:read orders:write");
    secrets.push(tokens.access_token, tokens.refresh_token!);
    const c = await connect(tokens.access_token);
    try {
      const { tools } = await c.listTools();
      const names = tools.map((x) => x.name);
      for (const n of ["list_quotes", "get_quote", "create_quote", "update_quote", "list_orders", "get_order", "create_order", "update_order", "get_customer", "create_customer", "get_cart", "create_cart", "update_cart", "add_cart_item"]) {
        expect(names).toContain(n);
      }
      const create = tools.find((x) => x.name === "create_quote")!;
      expect(create.inputSchema).toMatchObject({ type: "object", properties: { customerEmail: expect.any(Object), items: expect.any(Object) } });
      expect(create.description).toContain("quotes:write");

      const created = await c.callTool({ name: "create_quote", arguments: { customerEmail: "mcp@example.com", items: [{ name: "Consulting", quantity: 3, unitPrice: 12000 }] } });
      expect(created.isError).toBeFalsy();
      const quote = payload(created);
      expect(quote).toMatchObject({ id: expect.any(String), status: "draft" });
      const read = await c.callTool({ name: "get_quote", arguments: { id: quote.id } });
      expect(payload(read)).toMatchObject({ id: quote.id });
      // the same quote over REST, in the same tenant
      expect((await api("GET", `quotes/${quote.id}`, { key: demo.apiKey })).status).toBe(200);
      const listed = payload(await c.callTool({ name: "list_quotes", arguments: { limit: 5 } }));
      expect(listed.items.map((q: { id: string }) => q.id)).toContain(quote.id);
      const updated = payload(await c.callTool({ name: "update_quote", arguments: { id: quote.id, changes: { buyerReference: "PO-77" } } }));
      expect(updated).toMatchObject({ id: quote.id, buyerReference: "PO-77" });

      // customers and carts
      const customer = payload(await c.callTool({ name: "create_customer", arguments: { email: "mcp-customer@example.com" } }));
      expect(payload(await c.callTool({ name: "get_customer", arguments: { id: customer.id } }))).toMatchObject({ id: customer.id });
      const cart = await c.callTool({ name: "create_cart", arguments: {} });
      expect(cart.isError).toBeFalsy();
      expect(payload(await c.callTool({ name: "get_cart", arguments: { id: payload(cart).id } }))).toMatchObject({ id: payload(cart).id });
      const order = await c.callTool({ name: "create_order", arguments: { customerEmail: "mcp-order@example.com", lineItems: [{ name: "Widget", quantity: 2, unitPrice: 1500 }] } });
      expect(order.isError).toBeFalsy();
      const orderId = payload(order).id;
      const changed = payload(await c.callTool({ name: "update_order", arguments: { id: orderId, changes: { notes: "call before delivery" } } }));
      expect(changed).toMatchObject({ id: orderId, notes: "call before delivery" });
      expect(payload(await c.callTool({ name: "get_order", arguments: { id: orderId } }))).toMatchObject({ id: orderId, status: "draft" });
      expect(payload(await c.callTool({ name: "list_orders", arguments: {} })).items.map((o: { id: string }) => o.id)).toContain(orderId);
      const withItem = payload(await c.callTool({ name: "add_cart_item", arguments: { id: payload(cart).id, item: { name: "Gadget", unitPrice: 700, quantity: 1 } } }));
      expect(withItem.items ?? withItem.lineItems).toHaveLength(1);

      // bad input: the REST route's validation error, as a tool error naming the field
      const bad = await c.callTool({ name: "create_quote", arguments: { customerEmail: "not-an-email" } });
      expect(bad.isError).toBe(true);
      expect(payload(bad).error).toMatchObject({ code: "validation_error", details: { issues: [expect.objectContaining({ path: ["customerEmail"] })] } });
      // unknown id: not_found
      const missing = await c.callTool({ name: "get_quote", arguments: { id: "00000000-0000-4000-8000-000000000000" } });
      expect(missing.isError).toBe(true);
      expect(payload(missing).error.code).toMatch(/not_found/);
    } finally {
      await c.close();
    }
  });

  test("every tool validates its arguments with the REST schema: a missing or wrong field is a validation_error naming it", async () => {
    const { tokens } = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read quotes:write orders:read orders:write customers:read carts:read carts:write");
    secrets.push(tokens.access_token, tokens.refresh_token!);
    const c = await connect(tokens.access_token);
    const issuesOf = async (name: string, args: Record<string, unknown>) => {
      const r = await c.callTool({ name, arguments: args });
      expect(r.isError).toBe(true);
      const { error } = payload(r);
      expect(error).toMatchObject({ code: "validation_error", status: 422 });
      return (error.details.issues as { path: (string | number)[]; message: string }[]).map((i) => i.path.join("."));
    };
    try {
      for (const name of ["get_quote", "get_order", "get_customer", "get_cart"]) expect(await issuesOf(name, {})).toEqual(["id"]);
      expect(await issuesOf("get_quote", { id: 42 })).toEqual(["id"]);
      expect(await issuesOf("get_quote", { id: "00000000-0000-4000-8000-000000000000", extra: true })).toEqual(["extra"]);
      expect(await issuesOf("update_quote", { id: "00000000-0000-4000-8000-000000000000" })).toEqual(["changes"]);
      expect(await issuesOf("update_order", { changes: { notes: "x" } })).toEqual(["id"]);
      expect(await issuesOf("update_cart", { id: "x", changes: "everything" })).toEqual(["changes"]);
      expect(await issuesOf("add_cart_item", { id: "x" })).toEqual(["item"]);
      expect(await issuesOf("add_cart_item", { id: "x", item: { name: "Gadget", quantity: "two", unitPrice: 700 } })).toEqual(["item.quantity"]);
      expect(await issuesOf("list_quotes", { limit: 0 })).toEqual(["limit"]);
      expect(await issuesOf("create_quote", { customerEmail: "not-an-email" })).toEqual(["customerEmail"]);
    } finally {
      await c.close();
    }
  });

  test("a token without quotes:write is refused on the write tool with the API's code, insufficient_scopes, naming the scope", async () => {
    const { tokens } = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read");
    secrets.push(tokens.access_token, tokens.refresh_token!);
    const c = await connect(tokens.access_token);
    try {
      const r = await c.callTool({ name: "create_quote", arguments: { customerEmail: "x@example.com" } });
      expect(r.isError).toBe(true);
      expect(payload(r).error).toMatchObject({ code: "insufficient_scopes", status: 403, details: { required: ["quotes:write"] } });
      expect(payload(r).error.message).toContain("quotes:write");
      const orders = await c.callTool({ name: "list_orders", arguments: {} });
      expect(payload(orders).error).toMatchObject({ code: "insufficient_scopes", status: 403, details: { required: ["orders:read"] } });
      expect((await c.callTool({ name: "list_quotes", arguments: {} })).isError).toBeFalsy();
    } finally {
      await c.close();
    }
  });

  test("tools reach only the grant's tenant; a revoked grant's token is refused at once", async () => {
    const other = await t.otherWorkspace("mcp-other");
    const foreign = await api("POST", "quotes", { key: other.apiKey, body: { customerEmail: "f@example.com" } });
    expect(foreign.status).toBe(201);
    const { tokens } = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read");
    secrets.push(tokens.access_token, tokens.refresh_token!);
    const c = await connect(tokens.access_token);
    try {
      const r = await c.callTool({ name: "get_quote", arguments: { id: foreign.body.data.id } });
      expect(r.isError).toBe(true);
      expect(payload(r).error.status).toBe(404);
    } finally {
      await c.close();
    }
    const gid = String(decodeJwt(tokens.access_token).gid);
    expect((await api("DELETE", `oauth/grants/${gid}`, { token: demo.dashboardToken })).status).toBe(204);
    await expect(connect(tokens.access_token)).rejects.toThrow();
  });

  test("the SDK's own OAuth client finds the authorization server from the 401, registers, and connects after consent", async () => {
    const store: { client?: any; tokens?: any; verifier?: string; authUrl?: URL } = {};
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return REDIRECT_URI;
      },
      get clientMetadata() {
        return { client_name: "SDK agent", redirect_uris: [REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
      },
      clientInformation: () => store.client,
      saveClientInformation: (c) => void (store.client = c),
      tokens: () => store.tokens,
      saveTokens: (tk) => void (store.tokens = tk),
      redirectToAuthorization: (url) => void (store.authUrl = url),
      saveCodeVerifier: (v) => void (store.verifier = v),
      codeVerifier: () => store.verifier!,
    };
    const url = new URL(`${t.url}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "sdk-agent", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(store.client?.client_id).toBeTruthy();
    expect(store.authUrl!.searchParams.get("code_challenge_method")).toBe("S256");
    // the user approves in the browser (the SDK asks for every scope the resource lists; the user pins the tenant)
    const r = await consent(t.url, { url: store.authUrl!, verifier: "", state: store.authUrl!.searchParams.get("state") ?? "", redirectUri: REDIRECT_URI }, demo.dashboardToken, {
      environmentId: demo.environments.sandbox.id,
    });
    expect(r.redirect?.searchParams.get("code")).toBeTruthy();
    await first.finishAuth(r.redirect!.searchParams.get("code")!);
    secrets.push(store.tokens.access_token, store.tokens.refresh_token);
    // the SDK asked for the resource the challenge's metadata names: the token is for /mcp
    expect(store.authUrl!.searchParams.get("resource")).toBe(`${t.url}/mcp`);
    expect(decodeJwt(store.tokens.access_token).aud).toBe(`${t.url}/mcp`);
    const c = new Client({ name: "sdk-agent", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    try {
      const created = payload(await c.callTool({ name: "create_customer", arguments: { email: "sdk-agent@example.com" } }));
      expect(created.id).toBeTruthy();
    } finally {
      await c.close();
    }
  });

  test("/mcp's protected resource metadata lists the scopes its tools need, and only those (RFC 9728)", async () => {
    const prm = await api("GET", "/.well-known/oauth-protected-resource/mcp");
    expect(prm.body.scopes_supported).toEqual(["carts:read", "carts:write", "customers:read", "customers:write", "orders:read", "orders:write", "quotes:read", "quotes:write"]);
    // the SDK client lists every tool and each names one of those scopes
    const { tokens } = await obtainMcpTokens(t.url, demo.dashboardToken, "quotes:read");
    secrets.push(tokens.access_token, tokens.refresh_token!);
    const c = await connect(tokens.access_token);
    try {
      const { tools } = await c.listTools();
      const named = new Set(tools.map((x) => /Needs the (\S+) scope/.exec(x.description ?? "")?.[1]));
      expect([...named].sort()).toEqual(prm.body.scopes_supported);
    } finally {
      await c.close();
    }
    // the API's own document still lists every grantable scope
    const apiPrm = await api("GET", "/.well-known/oauth-protected-resource");
    expect(apiPrm.body.scopes_supported.length).toBeGreaterThan(prm.body.scopes_supported.length);
  });

  test("failed tokens count against the address's limit: past it, 429 with Retry-After", async () => {
    const strict = await startWithDemo({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3/5m" } });
    try {
      // a good token, obtained first (the consent page's sign-in is under the same address limit)
      const { tokens } = await obtainMcpTokens(strict.t.url, strict.demo.dashboardToken, "quotes:read");
      secrets.push(tokens.access_token, tokens.refresh_token!);
      const statuses: number[] = [];
      let last: Response | null = null;
      for (const auth of ["Bearer nope", `Bearer ${strict.demo.dashboardToken}`, "Bearer a.b.c", "Bearer nope", "Bearer nope"]) {
        last = await fetch(`${strict.t.url}/mcp`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: auth },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        });
        statuses.push(last.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      // the good token from that address is refused too until the window ends
      const good = await fetch(`${strict.t.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(good.status).toBe(429);
    } finally {
      await strict.t.close();
    }
  });

  test("tokens never appear in the server's output", () => {
    expectNoSecrets(output.printed, [...secrets, demo.dashboardToken]);
  });
});
