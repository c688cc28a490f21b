// Extension session tokens: minted by a dashboard member for one active install (POST /installations/{id}/session and
// the createExtensionSession mutation), RS256 verifiable with the public JWKS, 10 minutes, the claims of the bridge
// rules and nothing secret; accepted as Authorization: Bearer on REST and GraphQL within the install's scopes,
// application and environment, and dead at once when the install stops being active.
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import type { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { seedInstalledExtension, setInstallationStatus, SECRET_CONFIG_VALUE } from "./helpers/extension-seed";
import { codeOf, gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { seedOrder } from "./helpers/orders";
import { memberWith } from "./helpers/team";
import { ApplicationDocument, CreateCustomerDocument, CreateExtensionSessionDocument, ExtensionViewerDocument, ExtensionInstallationDocument, OAuthExtensionsDocument } from "./generated/graphql";

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let clock: FixedClock;
let install: Awaited<ReturnType<typeof seedInstalledExtension>>;
let sandboxOrderId: string;

beforeAll(async () => {
  t = (await startTestApp({ clock: "fixed" }))!;
  clock = t.deps.clock as FixedClock;
  demo = await t.bootstrap();
  api = client(t.url);
  gql = gqlClient(t.url);
  install = await seedInstalledExtension(t, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, scopes: ["orders:read", "customers:read"] });
  sandboxOrderId = (await seedOrder(t, demo, { lines: [{ quantity: 1, unitPrice: 2500 }] })).order.id;
  // an order of the same application in production: outside the install's environment
  await seedOrder(t, { applicationId: demo.applicationId, environments: { sandbox: { id: demo.environments.production.id } } }, { lines: [{ quantity: 1 }] });
});
afterAll(async () => {
  await t?.close();
});

async function mint(installationId = install.installation.id, token = demo.dashboardToken) {
  return api("POST", `installations/${installationId}/session`, { token });
}

async function session(installationId = install.installation.id, token = demo.dashboardToken) {
  const r = await mint(installationId, token);
  expect(r.status).toBe(201);
  return r.body.data as { token: string; expiresAt: string; expiresIn: number; context: any };
}

describe("minting", () => {
  test("the token carries the bridge claims, lives 10 minutes, and never config, configSchema, keys or secrets", async () => {
    const r = await mint();
    expect(r.status).toBe(201);
    const s = r.body.data;
    const owner = await t.deps.prisma.user.findUniqueOrThrow({ where: { email: "owner@example.com" } });
    const context = {
      user: { id: owner.id, email: "owner@example.com" },
      workspace: { id: demo.workspaceId, slug: "demo" },
      application: { id: demo.applicationId, slug: "demo-store" },
      environment: { environmentId: demo.environments.sandbox.id, environmentSlug: "sandbox", environmentKind: "non_production", providerEnvironment: "sandbox" },
      installationId: install.installation.id,
      extensionId: install.extension.id,
      versionId: install.version.id,
      version: "1.0.0",
      role: "owner",
      scopes: ["orders:read", "customers:read"],
    };
    expect(s.context).toEqual(context);
    expect(s.tokenType).toBe("Bearer");
    expect(s.expiresIn).toBe(600);
    expect(new Date(s.expiresAt).getTime()).toBe(Math.floor(clock.now().getTime() / 1000) * 1000 + 600_000);

    expect(decodeProtectedHeader(s.token)).toEqual({ alg: "RS256", kid: expect.any(String), typ: "JWT" });
    const claims = decodeJwt(s.token);
    expect(claims).toEqual({
      ...context,
      token_use: "extension_session",
      sid: expect.any(String),
      iss: "service",
      aud: install.extension.id,
      sub: owner.id,
      iat: expect.any(Number),
      exp: expect.any(Number),
      jti: expect.any(String),
    });
    expect(claims.exp! - claims.iat!).toBe(600);

    // nothing of the install's configuration, its schema, keys or secrets, in the token or in the answer
    for (const text of [JSON.stringify(claims), JSON.stringify(decodeProtectedHeader(s.token)), JSON.stringify(r.body)]) {
      expect(text).not.toContain(SECRET_CONFIG_VALUE);
      expect(text).not.toContain("SCHEMA-MARKER");
      expect(text).not.toMatch(/configSchema|"config"|apiKey|secret|whsec_|sk_sandbox|dst_/i);
    }
    expect(Object.keys(claims)).not.toEqual(expect.arrayContaining(["configSchema"]));
  });

  test("the signature verifies with the public JWKS (no private parts); a changed token does not", async () => {
    const s = await session();
    const res = await fetch(`${t.url}/.well-known/extension-jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const jwks = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThanOrEqual(1);
    for (const k of jwks.keys) {
      expect(k).toEqual({ kty: "RSA", n: expect.any(String), e: "AQAB", kid: expect.any(String), alg: "RS256", use: "sig" });
    }
    const keySet = createRemoteJWKSet(new URL(`${t.url}/.well-known/extension-jwks.json`));
    const { payload } = await jwtVerify(s.token, keySet, { issuer: "service", audience: install.extension.id, algorithms: ["RS256"], currentDate: clock.now() });
    expect(payload.installationId).toBe(install.installation.id);

    const [h, p, sig] = s.token.split(".");
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(s.token), scopes: ["*"] })).toString("base64url");
    await expect(jwtVerify(`${h}.${forged}.${sig}`, keySet, { currentDate: clock.now() })).rejects.toThrow();
    // and the API refuses it too
    expect((await api("GET", "whoami", { token: `${h}.${forged}.${sig}` })).status).toBe(401);
    // an unsigned token (alg none)
    const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${p}.`;
    expect((await api("GET", "whoami", { token: none })).status).toBe(401);
    // the private key is stored sealed
    const row = await t.deps.prisma.signingKey.findFirstOrThrow({ where: { purpose: "extensions", retiredAt: null } });
    expect(row.privateSealed.startsWith("sealed:v1:")).toBe(true);
    expect(row.privateSealed).not.toContain("PRIVATE KEY");
  });

  test("GraphQL createExtensionSession mints the same claims", async () => {
    const r = await gql(CreateExtensionSessionDocument, { installationId: install.installation.id }, { token: demo.dashboardToken });
    expect(r.errors).toBeNull();
    const s = r.data!.createExtensionSession;
    expect(s.expiresIn).toBe(600);
    expect(s.context.scopes).toEqual(["orders:read", "customers:read"]);
    expect(s.context.environment.environmentKind).toBe("non_production");
    expect(decodeJwt(s.token!).installationId).toBe(install.installation.id);
  });

  test("refusals: unknown, foreign, inactive installs 404; keys and extension sessions cannot mint; roles and environment grants apply", async () => {
    expect((await mint("inst_nope")).body.error.code).toBe("not_found");
    const other = await t.otherWorkspace("ext-other");
    const foreign = await seedInstalledExtension(t, { workspaceId: other.workspaceId, applicationId: other.applicationId, environmentId: other.environments.sandbox.id });
    const r404 = await mint(foreign.installation.id);
    expect([r404.status, r404.body.error.code]).toEqual([404, "not_found"]);
    // the other workspace's owner may open their own
    expect((await mint(foreign.installation.id, other.dashboardToken)).status).toBe(201);

    const gone = await seedInstalledExtension(t, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.production.id, status: "uninstalled" });
    expect((await mint(gone.installation.id)).status).toBe(404);
    const suspended = await seedInstalledExtension(t, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.production.id, status: "suspended" });
    expect((await mint(suspended.installation.id)).status).toBe(404);

    const byKey = await api("POST", `installations/${install.installation.id}/session`, { key: demo.apiKey });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, "application_key_workspace_route"]);
    const ext = await session();
    const byExt = await mint(install.installation.id, ext.token);
    expect([byExt.status, byExt.body.error.code]).toEqual([403, "application_key_workspace_route"]);

    // a member with no role on the application: like an unknown install
    const outsider = await memberWith(t, demo.workspaceId, { applicationRoles: [] });
    expect((await mint(install.installation.id, outsider.token)).status).toBe(404);
    // a viewer may open it, with their role in the claims
    const viewer = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] });
    const vs = await mint(install.installation.id, viewer.token);
    expect(vs.status).toBe(201);
    expect(vs.body.data.context.role).toBe("viewer");
    expect(decodeJwt(vs.body.data.token).user).toEqual({ id: expect.any(String), email: viewer.email });
    // production-only grants do not reach the sandbox install
    const prodOnly = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "admin" }], environmentGrants: { grantType: "production_only" } });
    const denied = await mint(install.installation.id, prodOnly.token);
    expect([denied.status, denied.body.error.code]).toEqual([403, "permission_denied"]);
  });
});

describe("using the token", () => {
  test("whoami reports extension_session pinned to the install's application, environment and scopes", async () => {
    const s = await session();
    const r = await api("GET", "whoami", { token: s.token });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      type: "extension_session",
      scopes: ["orders:read", "customers:read"],
      application: { id: demo.applicationId },
      environment: { id: demo.environments.sandbox.id, slug: "sandbox", kind: "non_production" },
      apiKey: null,
      extension: { installationId: install.installation.id, extensionId: install.extension.id, version: "1.0.0", role: "owner", user: { email: "owner@example.com" } },
    });
    expect(r.body.data.member).toBeUndefined();
    // headers naming another environment change nothing: the token is pinned
    const pinned = await api("GET", "whoami", { token: s.token, headers: { "x-service-environment-id": demo.environments.production.id } });
    expect(pinned.body.data.environment.id).toBe(demo.environments.sandbox.id);
  });

  test("REST: reads within its scopes see only the install's environment; anything beyond its scopes is 403", async () => {
    const s = await session();
    const list = await api("GET", "orders", { token: s.token });
    expect(list.status).toBe(200);
    expect(list.body.data.map((o: any) => o.id)).toEqual([sandboxOrderId]);
    expect((await api("GET", `orders/${sandboxOrderId}`, { token: s.token })).status).toBe(200);

    const write = await api("POST", "customers", { token: s.token, body: { email: "x@example.com" } });
    expect([write.status, write.body.error.code]).toEqual([403, "insufficient_scopes"]);
    const carts = await api("POST", "carts", { token: s.token, body: { applicationId: demo.applicationId } });
    expect([carts.status, carts.body.error.code]).toEqual([403, "insufficient_scopes"]);
    // no key minting and no workspace routes
    const keys = await api("POST", "api-keys", { token: s.token, body: { name: "x", scopes: ["orders:read"] } });
    expect([keys.status, keys.body.error.code]).toEqual([403, "forbidden"]);
    const envs = await api("GET", `workspaces/${demo.workspaceId}/environments`, { token: s.token });
    expect([envs.status, envs.body.error.code]).toEqual([403, "application_key_workspace_route"]);
  });

  test("GraphQL: viewer type extension_session, orders of its environment, a mutation beyond its scopes refused", async () => {
    const s = await session();
    const r = await gql(ExtensionViewerDocument, {}, { token: s.token });
    expect(r.errors).toBeNull();
    expect(r.data!.viewer.type).toBe("extension_session");
    expect(r.data!.viewer.extension).toMatchObject({ installationId: install.installation.id, role: "owner", version: "1.0.0" });
    expect(r.data!.viewer.apiKey).toBeNull();
    expect(r.data!.orders.nodes.map((o) => o.id)).toEqual([sandboxOrderId]);
    const denied = await gql(CreateCustomerDocument, { email: "y@example.com" }, { token: s.token });
    expect(codeOf(denied)).toBe("insufficient_scopes");
  });

  test("uninstalling or suspending the install ends its tokens at once; so does signing out", async () => {
    const extra = await seedInstalledExtension(t, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, name: "Second" });
    const s = await session(extra.installation.id);
    expect((await api("GET", "orders", { token: s.token })).status).toBe(200);
    await setInstallationStatus(t, extra.installation.id, "suspended");
    const r1 = await api("GET", "orders", { token: s.token });
    expect([r1.status, r1.body.error.code]).toEqual([401, "unauthorized"]);
    await setInstallationStatus(t, extra.installation.id, "active");
    expect((await api("GET", "orders", { token: s.token })).status).toBe(200);
    await setInstallationStatus(t, extra.installation.id, "uninstalled");
    expect((await api("GET", "orders", { token: s.token })).status).toBe(401);
    expect((await gql(ExtensionViewerDocument, {}, { token: s.token })).errors?.[0]?.extensions?.code).toBe("unauthorized");

    // the dashboard session it was opened from is revoked (sign out): its extension tokens die with it
    const m = await memberWith(t, demo.workspaceId, { workspaceRole: "workspace_admin" });
    const ms = await session(install.installation.id, m.token);
    expect((await api("GET", "orders", { token: ms.token })).status).toBe(200);
    await t.deps.prisma.dashboardSession.updateMany({ where: { memberId: m.memberId }, data: { revokedAt: new Date() } });
    expect((await api("GET", "orders", { token: ms.token })).status).toBe(401);
  });

  test("the token expires after 10 minutes", async () => {
    const s = await session();
    clock.advance(599_000);
    expect((await api("GET", "whoami", { token: s.token })).status).toBe(200);
    clock.advance(2_000);
    const r = await api("GET", "whoami", { token: s.token });
    expect([r.status, r.body.error.code]).toEqual([401, "unauthorized"]);
  });
});

describe("held to its scopes and its install, like the install's key", () => {
  test("the application, the extension catalog and client credentials need their scopes (REST and GraphQL)", async () => {
    const s = await session(); // orders:read customers:read
    for (const r of [
      await api("GET", `applications/${demo.applicationId}`, { token: s.token }),
      await api("PATCH", `applications/${demo.applicationId}`, { token: s.token, body: { brandColor: "#123456" } }),
      await api("GET", "extensions", { token: s.token }),
      await api("GET", `extensions/${install.extension.id}`, { token: s.token }),
      await api("POST", `extensions/${install.extension.id}/client-credentials`, { token: s.token, body: {} }),
    ]) {
      expect([r.status, r.body.error?.code]).toEqual([403, "insufficient_scopes"]);
    }
    expect(codeOf(await gql(ApplicationDocument, { id: demo.applicationId }, { token: s.token }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(OAuthExtensionsDocument, {}, { token: s.token }))).toBe("insufficient_scopes");
    expect((await t.deps.prisma.extension.findUniqueOrThrow({ where: { id: install.extension.id } })).clientSecretHash).toBeNull();
  });

  test("with extension scopes it reads and manages only its own install, never its neighbours'", async () => {
    const sandbox = { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
    const self = await seedInstalledExtension(t, { ...sandbox, name: "Installs viewer", scopes: ["applications:read", "extensions:read", "extensions:install"] });
    const neighbour = await seedInstalledExtension(t, { ...sandbox, name: "Neighbour" });
    const s = await session(self.installation.id);
    expect((await api("GET", `applications/${demo.applicationId}`, { token: s.token })).status).toBe(200);
    expect((await api("GET", `installations/${self.installation.id}`, { token: s.token })).status).toBe(200);
    const foreign = await api("GET", `installations/${neighbour.installation.id}`, { token: s.token });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, "not_found"]);
    expect(codeOf(await gql(ExtensionInstallationDocument, { id: neighbour.installation.id }, { token: s.token }))).toBe("not_found");
    const list = await api("GET", "extension-installations?limit=100", { token: s.token });
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([self.installation.id]);
    const suspend = await api("POST", `extensions/${neighbour.extension.id}/suspend`, { token: s.token });
    expect([suspend.status, suspend.body.error?.code]).toEqual([403, "forbidden"]);
    const uninstall = await api("POST", `installations/${neighbour.installation.id}/uninstall`, { token: s.token, body: {} });
    expect([uninstall.status, uninstall.body.error?.code]).toEqual([403, "forbidden"]);
    expect((await t.deps.prisma.installation.findUniqueOrThrow({ where: { id: neighbour.installation.id } })).status).toBe("active");
  });
});

describe("browser access", () => {
  test("CORS: the iframe origin may read answers; another origin may not; a 401 is readable so the bridge can refresh", async () => {
    const s = await session();
    const iframeOrigin = "https://extension.example.com";
    const pre = await fetch(`${t.url}/api/v1/orders`, { method: "OPTIONS", headers: { origin: iframeOrigin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(iframeOrigin);
    expect(pre.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    expect(pre.headers.get("access-control-allow-credentials")).toBeNull();

    const own = await fetch(`${t.url}/api/v1/orders`, { headers: { origin: iframeOrigin, authorization: `Bearer ${s.token}` } });
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-allow-origin")).toBe(iframeOrigin);
    const refused = await fetch(`${t.url}/api/v1/customers`, { method: "POST", headers: { origin: iframeOrigin, authorization: `Bearer ${s.token}`, "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBe(iframeOrigin);

    const evil = await fetch(`${t.url}/api/v1/orders`, { headers: { origin: "https://evil.example.net", authorization: `Bearer ${s.token}` } });
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    const expired = await fetch(`${t.url}/api/v1/orders`, { headers: { origin: iframeOrigin, authorization: `Bearer ${s.token.slice(0, -4)}AAAA` } });
    expect(expired.status).toBe(401);
    expect(expired.headers.get("access-control-allow-origin")).toBe(iframeOrigin);
    // a dashboard session or an API key gets no CORS grant
    const dash = await fetch(`${t.url}/api/v1/whoami`, { headers: { origin: iframeOrigin, authorization: `Bearer ${demo.dashboardToken}` } });
    expect(dash.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the bridge modules are served as cacheable JavaScript any origin may import", async () => {
    for (const path of ["/extension-bridge.js", "/extension-host.js"]) {
      const r = await fetch(`${t.url}${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(r.headers.get("access-control-allow-origin")).toBe("*");
      expect(r.headers.get("cache-control")).toMatch(/max-age=300/);
      const body = await r.text();
      expect(body).toMatch(/^\/\/ extension-(bridge|host)\.js/);
      expect(body).not.toMatch(/^\s*import\s/m); // no dependencies
      const again = await fetch(`${t.url}${path}`, { headers: { "if-none-match": r.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
  });
});
