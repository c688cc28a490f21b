// The OAuth 2.1 authorization server, driven by a real client library (oauth4webapi): discovery, dynamic
// registration, authorize with PKCE S256 and consent (dashboard session), token, REST and GraphQL calls with the
// token, refresh rotation and reuse detection, revocation, the errors a bad request gets, scopes and the pinned
// application on every route, and no token, code or session in the server's output.
import { startTestApp, startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { memberWith } from "./helpers/team";
import { codeOf, gqlClient } from "./helpers/gql";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import { authorizationUrl, browse, consent, CookieJar, discover, exchange, follow, insecure, oauth, obtainTokens, optionValues, refresh, register } from "./helpers/oauth";
import { captureOutput, expectNoSecrets } from "./helpers/output";
import {
  ApplicationDocument,
  AuthorizedAppsDocument,
  OAuthAcceptInviteDocument,
  OAuthExtensionClientCredentialsDocument,
  OAuthExtensionsDocument,
  OAuthUploadExtensionIconDocument,
  OAuthViewerDocument,
  RevokeAuthorizedAppDocument,
  UpdateApplicationDocument,
} from "./generated/graphql";
import { createExtension } from "./helpers/extensions";
import { randomToken } from "../src/shared/crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { rotateSigningKey } from "../src/platform/signing-keys";
import { findJob } from "../jobs/registry";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let gql: ReturnType<typeof gqlClient>;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
  gql = gqlClient(t.url);
});
afterAll(() => t?.close());

describe("metadata", () => {
  test("authorization server metadata: endpoints, S256 only, public clients, scopes from the registry", async () => {
    const as = await discover(t.url);
    expect(as).toMatchObject({
      issuer: t.url,
      authorization_endpoint: `${t.url}/oauth/authorize`,
      token_endpoint: `${t.url}/oauth/token`,
      registration_endpoint: `${t.url}/oauth/register`,
      revocation_endpoint: `${t.url}/oauth/revoke`,
      jwks_uri: `${t.url}/oauth/jwks`,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      response_types_supported: ["code"],
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(["quotes:read", "quotes:write", "orders:read"]));
    for (const s of ["*", "admin:read", "team_members:read", "billing:write", "shipping_quotes:write", "tax_calculations:write"]) expect(as.scopes_supported).not.toContain(s);
  });

  test("protected resource metadata names the authorization server", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const r = await api("GET", path);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ authorization_servers: [t.url], bearer_methods_supported: ["header"] });
      expect(r.body.scopes_supported).toContain("quotes:write");
    }
  });

  test("JWKS: RS256 public keys only", async () => {
    const r = await api("GET", "/oauth/jwks");
    expect(r.status).toBe(200);
    expect(r.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of r.body.keys) {
      expect(k).toMatchObject({ kty: "RSA", alg: "RS256", use: "sig" });
      expect(k.d).toBeUndefined();
    }
  });
});

describe("authorization code + PKCE, end to end", () => {
  test("register, consent, token; REST and GraphQL with the token; whoami; refresh rotation; reuse kills the grant", async () => {
    const sandbox = demo.environments.sandbox.id;
    const { as, client: c, tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read quotes:write customers:read", { environmentId: sandbox });
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope?.split(" ").sort()).toEqual(["customers:read", "quotes:read", "quotes:write"]);
    expect(tokens.refresh_token).toBeTruthy();
    const at = tokens.access_token;
    const header = JSON.parse(Buffer.from(at.split(".")[0], "base64url").toString());
    expect(header).toMatchObject({ alg: "RS256", typ: "at+jwt" });

    // REST: whoami and a scoped write + read
    const who = await api("GET", "whoami", { token: at });
    expect(who.status).toBe(200);
    expect(who.body.data).toMatchObject({
      type: "oauth",
      application: { id: demo.applicationId },
      environment: { id: sandbox, slug: "sandbox" },
      apiKey: null,
      oauth: { clientId: c.client_id, clientName: "Test Agent" },
    });
    expect(who.body.data.scopes.sort()).toEqual(["customers:read", "quotes:read", "quotes:write"]);
    const created = await api("POST", "quotes", { token: at, body: { customerEmail: "buyer@example.com", items: [{ name: "Widget", quantity: 2, unitPrice: 1500 }] } });
    expect(created.status).toBe(201);
    const read = await api("GET", `quotes/${created.body.data.id}`, { token: at });
    expect(read.status).toBe(200);
    // the quote lives in the grant's tenant: the sandbox key sees it
    expect((await api("GET", `quotes/${created.body.data.id}`, { key: demo.apiKey })).status).toBe(200);
    // scopes: no orders:read in this grant
    const orders = await api("GET", "orders", { token: at });
    expect(orders.status).toBe(403);
    expect(orders.body.error.code).toBe("insufficient_scopes");
    // workspace routes stay dashboard-only
    expect((await api("GET", "api-keys", { token: at })).status).toBe(403);

    // GraphQL viewer
    const v = await gql(OAuthViewerDocument, {}, { token: at });
    expect(v.errors).toBeNull();
    expect(v.data!.viewer).toMatchObject({ type: "oauth", oauth: { clientId: c.client_id } });

    // refresh rotates; the new access token works
    const r1 = await refresh(as, c, tokens.refresh_token!);
    expect(r1.refresh_token).toBeTruthy();
    expect(r1.refresh_token).not.toBe(tokens.refresh_token);
    expect((await api("GET", "whoami", { token: r1.access_token })).status).toBe(200);

    // reusing the rotated refresh token: invalid_grant, and every token of the grant dies
    await expect(refresh(as, c, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    for (const token of [at, r1.access_token]) {
      const r = await api("GET", "whoami", { token });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("unauthorized");
    }
    await expect(refresh(as, c, r1.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    const g = await t.deps.prisma.oAuthGrant.findFirst({ where: { clientId: c.client_id } });
    expect(g).toMatchObject({ revokedReason: "refresh_token_reuse" });
    expect(g!.revokedAt).not.toBeNull();
  });
});

/** Opens the authorize URL and follows the browser to the client's redirect (or a page). */
async function authorizeOnly(started: { url: URL }) {
  const jar = new CookieJar();
  const f = await follow(jar, t.url, await browse(jar, started.url.href));
  return { redirect: f.redirect, status: f.res.status, text: f.redirect ? "" : await f.res.text() };
}

describe("bad requests", () => {
  test("PKCE is required, and only S256", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const plain = new URL(started.url);
    plain.searchParams.set("code_challenge_method", "plain");
    plain.searchParams.set("code_challenge", started.verifier);
    const r1 = await authorizeOnly({ url: plain });
    expect(r1.redirect?.searchParams.get("error")).toBe("invalid_request");
    const none = new URL(started.url);
    none.searchParams.delete("code_challenge");
    none.searchParams.delete("code_challenge_method");
    const r2 = await authorizeOnly({ url: none });
    expect(r2.redirect?.searchParams.get("error")).toBe("invalid_request");
    expect(r2.redirect?.searchParams.get("error_description")).toMatch(/PKCE|code_challenge/i);
  });

  test("wrong code_verifier: invalid_grant", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const { redirect } = await consent(t.url, started, demo.dashboardToken);
    await expect(exchange(as, c, { ...started, verifier: oauth.generateRandomCodeVerifier() }, redirect!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  test("wrong redirect_uri and unknown client: an error page, never a redirect", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const wrong = new URL(started.url);
    wrong.searchParams.set("redirect_uri", "https://evil.example/callback");
    const r1 = await authorizeOnly({ url: wrong });
    expect(r1.redirect).toBeNull();
    expect(r1.status).toBe(400);
    expect(r1.text).toContain("redirect_uri");
    const unknown = new URL(started.url);
    unknown.searchParams.set("client_id", "no-such-client");
    const r2 = await authorizeOnly({ url: unknown });
    expect(r2.redirect).toBeNull();
    expect(r2.status).toBe(400);
    expect(r2.text).toContain("invalid_client");
  });

  test.each([["admin:read quotes:read"], ["team_members:read"], ["billing:write"], ["shipping_quotes:write"], ["*"], ["quotes:read no_such:scope"], ["openid"]])("scope %p: invalid_scope back to the client", async (scope) => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, scope);
    const r = await consent(t.url, started, demo.dashboardToken);
    expect(r.redirect?.searchParams.get("error")).toBe("invalid_scope");
    expect(r.redirect?.searchParams.get("state")).toBe(started.state);
  });

  test("registration: public clients only, registry scopes only", async () => {
    const as = await discover(t.url);
    await expect(register(as, { token_endpoint_auth_method: "client_secret_basic" })).rejects.toMatchObject({ error: "invalid_client_metadata" });
    await expect(register(as, { scope: "quotes:read admin:read" })).rejects.toMatchObject({ error: "invalid_client_metadata" });
    const ok = await register(as, { scope: "quotes:read orders:read" });
    expect(ok.client_id).toBeTruthy();
    expect(ok.client_secret).toBeUndefined();
  });

  test("codes: single use (a replay kills the grant's tokens), and dead after 10 minutes", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const { redirect } = await consent(t.url, started, demo.dashboardToken);
    const code = redirect!.searchParams.get("code")!;
    const row = await t.deps.prisma.oAuthRecord.findFirst({ where: { kind: "AuthorizationCode", id: code } });
    expect(Math.round((row!.expiresAt!.getTime() - Date.now()) / 1000)).toBeGreaterThan(590);
    expect(Math.round((row!.expiresAt!.getTime() - Date.now()) / 1000)).toBeLessThanOrEqual(600);
    const tokens = await exchange(as, c, started, redirect!);
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(200);
    await expect(exchange(as, c, started, redirect!)).rejects.toMatchObject({ error: "invalid_grant" });
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(401);

    const s2 = await authorizationUrl(as, c.client_id, "quotes:read");
    const r2 = await consent(t.url, s2, demo.dashboardToken);
    await t.deps.prisma.oAuthRecord.updateMany({ where: { kind: "AuthorizationCode", id: r2.redirect!.searchParams.get("code")! }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expect(exchange(as, c, s2, r2.redirect!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  test("deny: access_denied back to the client", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const r = await consent(t.url, started, demo.dashboardToken, { decision: "deny" });
    expect(r.redirect?.searchParams.get("error")).toBe("access_denied");
  });

  test("the login step refuses what is not a member's dashboard session", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const jar = new CookieJar();
    const res = await browse(jar, started.url.href);
    const consentUrl = new URL(res.headers.get("location")!, t.url).href;
    for (const token of [demo.apiKey, "dst_nope", ""]) {
      const r = await browse(jar, `${consentUrl}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token }).toString() });
      expect(r.status).toBe(401);
      expect(await r.text()).toContain('id="error"');
    }
  });

  test("failed sign-ins count against the address's limit: guessing ends in 429 with Retry-After", async () => {
    const strict = await startWithDemo({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: "2/5m" } });
    try {
      const as = await discover(strict.t.url);
      const c = await register(as);
      const started = await authorizationUrl(as, c.client_id, "quotes:read");
      const jar = new CookieJar();
      const consentUrl = new URL((await browse(jar, started.url.href)).headers.get("location")!, strict.t.url).href;
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 4; i++) {
        last = await browse(jar, `${consentUrl}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: `dst_guess${i}guessguess` }).toString() });
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 2)).toEqual([401, 401]);
      expect(statuses[3]).toBe(429);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0); // every 429 says when to come back
    } finally {
      await strict.t.close();
    }
  });

  test("the consent page cannot be framed or cached; an unknown or expired sign-in request is a 400 page", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const jar = new CookieJar();
    const consentUrl = new URL((await browse(jar, started.url.href)).headers.get("location")!, t.url).href;
    const page = await browse(jar, consentUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const stranger = await fetch(consentUrl); // no interaction cookie
    expect(stranger.status).toBe(400);
    expect(await stranger.text()).toContain("expired");
    expect((await fetch(`${t.url}/oauth/consent/not-a-request`)).status).toBe(400);
  });

  test("a forged consent post (no csrf) is refused", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const jar = new CookieJar();
    const res = await browse(jar, started.url.href);
    const consentUrl = new URL(res.headers.get("location")!, t.url).href;
    await browse(jar, `${consentUrl}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: demo.dashboardToken }).toString() });
    const page = await (await browse(jar, consentUrl)).text();
    const r = await browse(jar, consentUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ decision: "approve", applicationId: optionValues(page, "applicationId")[0], environmentId: optionValues(page, "environmentId")[0], csrf: "x" }).toString(),
    });
    expect(r.status).toBe(403);
  });
});

describe("tenancy, scopes and revocation", () => {
  test("a token reaches only its grant's application and environment", async () => {
    const other = await t.otherWorkspace("oauth-other");
    const { tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read quotes:write", { environmentId: demo.environments.sandbox.id });
    const body = { customerEmail: "x@example.com", items: [{ name: "A", quantity: 1, unitPrice: 100 }] };
    const foreign = await api("POST", "quotes", { key: other.apiKey, body });
    expect(foreign.status).toBe(201);
    const r = await api("GET", `quotes/${foreign.body.data.id}`, { token: tokens.access_token });
    expect(r.status).toBe(404);
    const listed = await api("GET", "quotes", { token: tokens.access_token });
    expect(listed.body.data.map((q: { id: string }) => q.id)).not.toContain(foreign.body.data.id);
    // another environment of the same application is another tenant too
    expect((await api("POST", "quotes", { token: tokens.access_token, body })).status).toBe(201);
    const sandboxQuote = (await api("GET", "quotes", { token: tokens.access_token })).body.data;
    expect(sandboxQuote.length).toBeGreaterThan(0);
    const prodToken = (await obtainTokens(t.url, demo.dashboardToken, "quotes:read", { environmentId: demo.environments.production.id })).tokens.access_token;
    const prodList = await api("GET", "quotes", { token: prodToken });
    expect(prodList.status).toBe(200);
    for (const q of sandboxQuote) expect((await api("GET", `quotes/${q.id}`, { token: prodToken })).status).toBe(404);
    // headers cannot move a token to another environment
    const moved = await api("GET", "whoami", { token: tokens.access_token, headers: { "x-service-environment-id": demo.environments.production.id } });
    expect(moved.body.data.environment.id).toBe(demo.environments.sandbox.id);
    // the consent page does not pin a grant to another workspace's environment
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const r2 = await consent(t.url, started, demo.dashboardToken, { environmentId: other.environments.sandbox.id });
    expect(r2.redirect).toBeNull();
    expect(r2.status).toBe(422);
  });

  test("a write tool needs the write scope; read-only tokens are refused with insufficient_scopes", async () => {
    const { tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const r = await api("POST", "quotes", { token: tokens.access_token, body: { customerEmail: "x@example.com" } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("insufficient_scopes");
  });

  test("authorized apps: listed over REST and GraphQL; revoking kills the tokens at once; other members get 404", async () => {
    const { tokens, client: c } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read customers:read");
    const list = await api("GET", "oauth/grants", { token: demo.dashboardToken });
    expect(list.status).toBe(200);
    const app = list.body.data.find((g: { clientId: string }) => g.clientId === c.client_id);
    expect(app).toMatchObject({ clientName: "Test Agent", scopes: ["quotes:read", "customers:read"], application: { id: demo.applicationId }, revokedAt: null });
    const g = await gql(AuthorizedAppsDocument, {}, { token: demo.dashboardToken });
    expect(g.data!.authorizedApps.map((a) => a.id)).toContain(app.id);
    // tokens and keys cannot manage authorized apps
    expect((await api("GET", "oauth/grants", { token: tokens.access_token })).body.error.code).toBe("application_key_workspace_route");
    expect((await api("GET", "oauth/grants", { key: demo.apiKey })).status).toBe(403);
    const other = await t.otherWorkspace("oauth-other2");
    expect((await api("DELETE", `oauth/grants/${app.id}`, { token: other.dashboardToken })).status).toBe(404);

    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(200);
    const del = await api("DELETE", `oauth/grants/${app.id}`, { token: demo.dashboardToken });
    expect(del.status).toBe(204);
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(401);
    expect((await gql(OAuthViewerDocument, {}, { token: tokens.access_token })).errors?.[0].extensions?.code).toBe("unauthorized");
    expect((await api("DELETE", `oauth/grants/${app.id}`, { token: demo.dashboardToken })).status).toBe(404);
    const after = await api("GET", "oauth/grants", { token: demo.dashboardToken });
    expect(after.body.data.map((x: { id: string }) => x.id)).not.toContain(app.id);

    // GraphQL revoke
    const second = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const gid = (await api("GET", "whoami", { token: second.tokens.access_token })).body.data.oauth.grantId;
    const m = await gql(RevokeAuthorizedAppDocument, { id: gid }, { token: demo.dashboardToken });
    expect(m.data!.revokeAuthorizedApp).toMatchObject({ id: gid, revokedAt: expect.any(String) });
    expect((await api("GET", "whoami", { token: second.tokens.access_token })).status).toBe(401);
  });

  test("the approving member's role and grants still bound the token; removing the member kills it", async () => {
    const viewer = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }], environmentGrants: { grantType: "all_non_production" } });
    const { tokens } = await obtainTokens(t.url, viewer.token, "quotes:read quotes:write");
    const who = await api("GET", "whoami", { token: tokens.access_token });
    // only non-production was offered: the grant is pinned to sandbox
    expect(who.body.data).toMatchObject({ type: "oauth", environment: { id: demo.environments.sandbox.id }, member: { email: viewer.email } });
    expect((await api("GET", "quotes", { token: tokens.access_token })).status).toBe(200);
    const write = await api("POST", "quotes", { token: tokens.access_token, body: { customerEmail: "v@example.com" } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("permission_denied");
    // the viewer's consent page never offers production
    const as = await discover(t.url);
    const c = await register(as);
    const r = await consent(t.url, await authorizationUrl(as, c.client_id, "quotes:read"), viewer.token, { environmentId: demo.environments.production.id });
    expect(r.redirect).toBeNull();
    expect(r.status).toBe(422);
    // removed member: the token dies
    const removed = await api("DELETE", `workspaces/${demo.workspaceId}/members/${viewer.memberId}`, { token: demo.dashboardToken });
    expect(removed.status).toBe(204);
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(401);
  });

  test("revocation endpoint: revoking the refresh token ends the grant", async () => {
    const { as, client: c, tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const res = await oauth.revocationRequest(as, c, oauth.None(), tokens.refresh_token!, insecure);
    await oauth.processRevocationResponse(res);
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(401);
    await expect(refresh(as, c, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  test("graphql-ws accepts the token in connectionParams", async () => {
    const { tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${tokens.access_token}` }, retryAttempts: 0, lazy: true });
    try {
      const result = await new Promise<any>((resolve, reject) => {
        ws.subscribe({ query: "{ viewer { type oauth { clientId } } }" }, { next: resolve, error: reject, complete: () => undefined });
      });
      expect(result.data.viewer.type).toBe("oauth");
    } finally {
      await ws.dispose();
    }
  });

  test("two processes on one database: a token works on both, and a revoke in one refuses it in the other at once", async () => {
    if (!t.databaseUrl) return; // one process owns the embedded database
    const t2 = (await startTestApp({ databaseUrl: t.databaseUrl }))!;
    try {
      t2.deps.config.BASE_URL = t.url; // one public address for every process, as behind a load balancer
      const api2 = client(t2.url);
      const { tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
      expect((await api2("GET", "whoami", { token: tokens.access_token })).status).toBe(200);
      const gid = (await api("GET", "whoami", { token: tokens.access_token })).body.data.oauth.grantId;
      expect((await api("DELETE", `oauth/grants/${gid}`, { token: demo.dashboardToken })).status).toBe(204);
      expect((await api2("GET", "whoami", { token: tokens.access_token })).status).toBe(401);
    } finally {
      await t2.close();
    }
  });

  test("a garbage or foreign-signed JWT is 401", async () => {
    const fake = `${Buffer.from(JSON.stringify({ alg: "RS256", typ: "at+jwt" })).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: "x", gid: "x", client_id: "x", exp: 9999999999 })).toString("base64url")}.c2ln`;
    const r = await api("GET", "whoami", { token: fake });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthorized");
  });
});

describe("a token is held to its scopes and its application on every route, like a key", () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 1)]);
  const upload = (extensionId: string, token: string) =>
    fetch(`${t.url}/api/v1/extensions/icon-upload?extensionId=${extensionId}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "image/png" }, body: new Uint8Array(png) });
  const sandbox = () => ({ applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id });

  test("applications: a quotes-only token may not read or change the application (REST and GraphQL)", async () => {
    const at = (await obtainTokens(t.url, demo.dashboardToken, "quotes:read", sandbox())).tokens.access_token;
    for (const r of [await api("GET", `applications/${demo.applicationId}`, { token: at }), await api("PATCH", `applications/${demo.applicationId}`, { token: at, body: { brandColor: "#123456" } })]) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: "insufficient_scopes", details: { required: [expect.stringMatching(/^applications:/)] } });
    }
    expect(codeOf(await gql(ApplicationDocument, { id: demo.applicationId }, { token: at }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(UpdateApplicationDocument, { id: demo.applicationId, brandColor: "#123456" }, { token: at }))).toBe("insufficient_scopes");
    expect((await api("GET", `applications/${demo.applicationId}`, { key: demo.apiKey })).body.data.brandColor).not.toBe("#123456");
  });

  test("applications: a token reaches only the application its grant is pinned to, though its member sees others", async () => {
    const second = await t.deps.prisma.application.create({ data: { workspaceId: demo.workspaceId, slug: `second-${randomToken(4).toLowerCase()}`, name: "Second" } });
    try {
      await pinnedToItsApplication(second.id);
    } finally {
      // the demo workspace goes back to one application (a dashboard session without the header picks it)
      await t.deps.prisma.application.delete({ where: { id: second.id } });
    }
  });

  async function pinnedToItsApplication(secondId: string) {
    const second = { id: secondId };
    // the owner's own session sees both applications
    expect((await api("GET", `applications/${second.id}`, { token: demo.dashboardToken })).status).toBe(200);
    const at = (await obtainTokens(t.url, demo.dashboardToken, "applications:read applications:write", sandbox())).tokens.access_token;
    expect((await api("GET", `applications/${demo.applicationId}`, { token: at })).status).toBe(200);
    const read = await api("GET", `applications/${second.id}`, { token: at });
    expect([read.status, read.body.error?.code]).toEqual([404, "not_found"]);
    const write = await api("PATCH", `applications/${second.id}`, { token: at, body: { name: "Taken over" } });
    expect([write.status, write.body.error?.code]).toEqual([404, "not_found"]);
    expect(codeOf(await gql(ApplicationDocument, { id: second.id }, { token: at }))).toBe("not_found");
    expect(codeOf(await gql(UpdateApplicationDocument, { id: second.id, brandColor: "#654321" }, { token: at }))).toBe("not_found");
    expect(await t.deps.prisma.application.findUniqueOrThrow({ where: { id: second.id } })).toMatchObject({ name: "Second" });
  }

  test("extensions: reading needs extensions:read, and rotating client credentials or uploading images extensions:write (REST and GraphQL)", async () => {
    const ext = await createExtension(api, demo.dashboardToken, { scopes: ["orders:read"] });
    const at = (await obtainTokens(t.url, demo.dashboardToken, "quotes:read", sandbox())).tokens.access_token;
    const refused = [
      await api("GET", "extensions", { token: at }),
      await api("GET", `extensions/${ext.id}`, { token: at }),
      await api("POST", `extensions/${ext.id}/client-credentials`, { token: at, body: {} }),
    ];
    for (const r of refused) expect([r.status, r.body.error?.code]).toEqual([403, "insufficient_scopes"]);
    const up = await upload(ext.id, at);
    expect([up.status, ((await up.json()) as any).error?.code]).toEqual([403, "insufficient_scopes"]);
    expect(codeOf(await gql(OAuthExtensionsDocument, {}, { token: at }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(OAuthExtensionClientCredentialsDocument, { extensionId: ext.id }, { token: at }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(OAuthUploadExtensionIconDocument, { extensionId: ext.id, dataBase64: png.toString("base64") }, { token: at }))).toBe("insufficient_scopes");
    const row = await t.deps.prisma.extension.findUniqueOrThrow({ where: { id: ext.id } });
    expect([row.clientSecretHash, row.iconKey]).toEqual([null, null]);

    // with the scopes (and the owner's role), the same calls work
    const rw = (await obtainTokens(t.url, demo.dashboardToken, "extensions:read extensions:write", sandbox())).tokens.access_token;
    expect((await api("GET", `extensions/${ext.id}`, { token: rw })).status).toBe(200);
    expect((await api("POST", `extensions/${ext.id}/client-credentials`, { token: rw, body: {} })).status).toBe(201);
    expect((await upload(ext.id, rw)).status).toBe(201);
    // extensions:write alone does not read
    const wo = (await obtainTokens(t.url, demo.dashboardToken, "extensions:write", sandbox())).tokens.access_token;
    expect((await api("GET", "extensions", { token: wo })).body.error?.code).toBe("insufficient_scopes");
  });

  test("extensions:write is bounded by the member's role too", async () => {
    const viewer = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }], environmentGrants: { grantType: "all_non_production" } });
    const ext = await createExtension(api, demo.dashboardToken, { scopes: ["orders:read"] });
    const at = (await obtainTokens(t.url, viewer.token, "extensions:write")).tokens.access_token;
    const r = await api("POST", `extensions/${ext.id}/client-credentials`, { token: at, body: {} });
    expect([r.status, r.body.error?.code]).toEqual([403, "permission_denied"]);
  });

  test("accepting an invitation is a dashboard route: a token gets 403 application_key_workspace_route", async () => {
    const at = (await obtainTokens(t.url, demo.dashboardToken, "quotes:read", sandbox())).tokens.access_token;
    const r = await api("POST", "invites/accept", { token: at, body: { token: "inv_whatever" } });
    expect([r.status, r.body.error?.code]).toEqual([403, "application_key_workspace_route"]);
    expect(codeOf(await gql(OAuthAcceptInviteDocument, { token: "inv_whatever" }, { token: at }))).toBe("application_key_workspace_route");
  });
});

describe("logs", () => {
  test("no access token, refresh token, authorization code or dashboard token reaches the server's output", async () => {
    // its own app with debug logging, so every log line the server can print is printed
    const output = captureOutput();
    const secrets: string[] = [];
    let logged: Awaited<ReturnType<typeof startWithDemo>> | null = null;
    try {
      logged = await startWithDemo({ env: { LOG_LEVEL: "debug" } });
      const { t: lt, api: lapi, demo: ldemo } = logged;
      const lgql = gqlClient(lt.url);
      secrets.push(ldemo.dashboardToken);
      // authorization code flow: sign-in with the dashboard token, consent, code, exchange
      const as = await discover(lt.url);
      const c = await register(as);
      const started = await authorizationUrl(as, c.client_id, "quotes:read quotes:write");
      const { redirect } = await consent(lt.url, started, ldemo.dashboardToken);
      secrets.push(redirect!.searchParams.get("code")!);
      const tokens = await exchange(as, c, started, redirect!);
      secrets.push(tokens.access_token, tokens.refresh_token!);
      // GraphQL and REST with the token, including refusals
      expect((await lgql(OAuthViewerDocument, {}, { token: tokens.access_token })).data!.viewer.type).toBe("oauth");
      expect(codeOf(await lgql(ApplicationDocument, { id: ldemo.applicationId }, { token: tokens.access_token }))).toBe("insufficient_scopes");
      expect((await lapi("POST", "quotes", { token: tokens.access_token, body: { customerEmail: "logs@example.com" } })).status).toBe(201);
      // refresh, then reuse of the spent refresh token (invalid_grant, the grant dies)
      const r1 = await refresh(as, c, tokens.refresh_token!);
      secrets.push(r1.access_token, r1.refresh_token!);
      expect((await lgql(OAuthViewerDocument, {}, { token: r1.access_token })).errors).toBeNull();
      await expect(refresh(as, c, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
      expect(codeOf(await lgql(OAuthViewerDocument, {}, { token: r1.access_token }))).toBe("unauthorized");
      // a second grant: a replayed code, then revocation of its refresh token
      const s2 = await authorizationUrl(as, c.client_id, "quotes:read");
      const r2 = (await consent(lt.url, s2, ldemo.dashboardToken)).redirect!;
      secrets.push(r2.searchParams.get("code")!);
      const t2 = await exchange(as, c, s2, r2);
      secrets.push(t2.access_token, t2.refresh_token!);
      const s3 = await authorizationUrl(as, c.client_id, "quotes:read");
      const r3 = (await consent(lt.url, s3, ldemo.dashboardToken)).redirect!;
      secrets.push(r3.searchParams.get("code")!);
      const t3 = await exchange(as, c, s3, r3);
      secrets.push(t3.access_token, t3.refresh_token!);
      await expect(exchange(as, c, s3, r3)).rejects.toMatchObject({ error: "invalid_grant" });
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, oauth.None(), t2.refresh_token!, insecure));
      expect((await lapi("GET", "whoami", { token: t2.access_token })).status).toBe(401);
      expect(codeOf(await lgql(OAuthViewerDocument, {}, { token: t2.access_token }))).toBe("unauthorized");
      await expect(refresh(as, c, t2.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    } finally {
      output.restore();
      await logged?.t.close();
    }
    // the capture did see the server: debug logging prints on every GraphQL request
    expect(output.printed.join("").length).toBeGreaterThan(0);
    expectNoSecrets(output.printed, secrets);
  });
});

describe("signing keys and housekeeping", () => {
  test("the key is stored sealed; a rotation signs new tokens with the new key while old tokens still verify", async () => {
    const before = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    const row = await t.deps.prisma.signingKey.findFirst({ where: { purpose: "oauth", retiredAt: null } });
    expect(row!.privateSealed).toMatch(/^sealed:v1:/);
    expect(row!.privateSealed).not.toContain("PRIVATE KEY");
    const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[0], "base64url").toString()).kid as string;
    expect(kidOf(before.tokens.access_token)).toBe(row!.kid);
    const { kid: newKid } = await rotateSigningKey(t.deps, "oauth", { retiredTtlSeconds: 7200 });
    const jwks = (await api("GET", "/oauth/jwks")).body.keys.map((k: { kid: string }) => k.kid);
    expect(jwks).toEqual(expect.arrayContaining([row!.kid, newKid]));
    const after = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    expect(kidOf(after.tokens.access_token)).toBe(newKid);
    for (const token of [before.tokens.access_token, after.tokens.access_token]) expect((await api("GET", "whoami", { token })).status).toBe(200);
    // a refresh of the old grant is signed with the new key
    expect(kidOf((await refresh(before.as, before.client, before.tokens.refresh_token!)).access_token)).toBe(newKid);
  });

  test("the oauth-cleanup job deletes expired authorization-server rows", async () => {
    await t.deps.prisma.oAuthRecord.create({ data: { kind: "AuthorizationCode", id: "expired-test-code", payload: {}, expiresAt: new Date(Date.now() - 2 * 3600_000) } });
    const summary = await findJob("oauth-cleanup")!.run({ deps: t.deps, deliveries: t.deliveries });
    expect(summary).toMatch(/^deleted [1-9]\d* expired/);
    expect(await t.deps.prisma.oAuthRecord.findFirst({ where: { id: "expired-test-code" } })).toBeNull();
  });
});
