// Tenancy and credentials over REST: every error code of issue 2 is produced here.
import { randomToken, sha256Hex } from "../src/shared/crypto";
import { startWithDemo, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => void ({ t, api, demo } = await startWithDemo()));
afterAll(() => t?.close());

const dash = (extra: Record<string, string> = {}) => ({ token: demo.dashboardToken, headers: extra });
const inSandbox = () => dash({ "x-service-environment-id": demo.environments.sandbox.id });

const mintKey = (scopes: string[], envId = demo.environments.sandbox.id, name = "k") => mintKeyVia(api, demo, scopes, envId, name);

describe("whoami", () => {
  test("API key: type, workspace, application, environment, apiKey", async () => {
    const r = await api("GET", "whoami", { key: demo.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      type: "api_key",
      scopes: ["*"],
      workspace: { id: demo.workspaceId, slug: "demo", name: "Demo" },
      application: { id: demo.applicationId, slug: "demo-store" },
      environment: { id: demo.environments.sandbox.id, slug: "sandbox", kind: "non_production", providerEnvironment: "sandbox" },
      apiKey: { keyPrefix: expect.stringMatching(/^sk_sandbox_/) },
    });
  });

  test("dashboard session: clerk_jwt type, all scopes, no apiKey; environment from header", async () => {
    const r = await api("GET", "whoami", inSandbox());
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ type: "clerk_jwt", scopes: ["*"], apiKey: null, environment: { slug: "sandbox" } });
    const prod = await api("GET", "whoami", dash());
    expect(prod.body.data.environment).toMatchObject({ slug: "production", kind: "production", providerEnvironment: "production" });
  });

  test.each([
    ["no credential", {}],
    ["unknown key", { key: "sk_sandbox_doesnotexist000000000000000000" }],
    ["malformed key", { key: "hello" }],
    ["unknown session", { token: "dst_nope" }],
    ["Basic auth", { headers: { authorization: "Basic Zm9vOmJhcg==" } }],
  ])("401 unauthorized: %s", async (_n, cred) => {
    const r = await api("GET", "whoami", cred as any);
    expect(r.status).toBe(401);
    expect(r.body.error).toMatchObject({ code: "unauthorized", status: 401 });
  });
});

describe("API keys", () => {
  test("dashboard creates a sandbox key: sk_sandbox_ prefix, rawKey once, keyPrefix after", async () => {
    const k = await mintKey(["quotes:read", "quotes:write"]);
    expect(k.rawKey).toMatch(/^sk_sandbox_[A-Za-z0-9]{32}$/);
    expect(k.rawKey.startsWith(k.keyPrefix)).toBe(true);
    expect(k.keyPrefix.length).toBeLessThan(k.rawKey.length);
    const list = await api("GET", "api-keys", { key: demo.apiKey, headers: {} });
    expect(list.status).toBe(200);
    const listed = list.body.data.find((x: any) => x.id === k.id);
    expect(listed).toMatchObject({ name: "k", scopes: ["quotes:read", "quotes:write"], keyPrefix: k.keyPrefix });
    expect(JSON.stringify(list.body)).not.toContain(k.rawKey);
    expect((await api("GET", "whoami", { key: k.rawKey })).status).toBe(200);
  });

  test("production keys carry the live segment; custom environments their slug", async () => {
    const live = await mintKey(["*"], demo.environments.production.id);
    expect(live.rawKey).toMatch(/^sk_live_/);
    const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { ...dash(), body: { slug: "staging-eu", name: "Staging EU" } });
    expect(env.status).toBe(201);
    const k = await mintKey(["*"], env.body.data.id);
    expect(k.rawKey).toMatch(/^sk_staging-eu_/);
    const who = await api("GET", "whoami", { key: k.rawKey });
    expect(who.body.data.environment).toMatchObject({ slug: "staging-eu", kind: "non_production", providerEnvironment: "sandbox" });
  });

  test("keys are stored hashed: the raw key is nowhere in the database", async () => {
    const k = await mintKey(["orders:read"]);
    const row = await t.deps.prisma.apiKey.findUniqueOrThrow({ where: { id: k.id } });
    expect(row.keyHash).toBe(sha256Hex(k.rawKey));
    const dump = JSON.stringify(await t.deps.prisma.apiKey.findMany());
    expect(dump).not.toContain(k.rawKey);
    const secretPart = k.rawKey.slice(k.keyPrefix.length);
    expect(dump).not.toContain(secretPart);
  });

  test("403 forbidden: a secret key cannot create keys", async () => {
    const r = await api("POST", "api-keys", { key: demo.apiKey, body: { name: "x", scopes: ["*"] } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("forbidden");
  });

  test.each([
    ["unknown scope", ["quotes:fly"]],
    ["staff-only scope", ["admin:read"]],
    ["publishable with a secret scope", ["publishable", "orders:read"]],
    ["publishable with nothing", ["publishable"]],
  ])("400 invalid_scope: %s", async (_n, scopes) => {
    const r = await api("POST", "api-keys", { ...inSandbox(), body: { name: "x", scopes } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("invalid_scope");
  });

  test("publishable keys: pk_ prefix, compute scopes only, cannot reach secret routes", async () => {
    const pk = await mintKey(["publishable", "shipping_quotes:write", "tax_calculations:write"]);
    expect(pk.rawKey).toMatch(/^pk_sandbox_/);
    expect(pk.type).toBe("publishable");
    expect(pk.scopes).toEqual(["shipping_quotes:write", "tax_calculations:write"]);
    for (const [m, p] of [["GET", "api-keys"], ["GET", "connectors"], ["POST", "connectors"]] as const) {
      const r = await api(m, p, { key: pk.rawKey, body: m === "POST" ? { kind: "card", provider: "test" } : undefined });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("forbidden");
    }
  });

  test("403 insufficient_scopes: a key without the route's scope", async () => {
    const k = await mintKey(["quotes:read"]);
    const r = await api("GET", "connectors", { key: k.rawKey });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: "insufficient_scopes", details: { required: ["connectors:read"] } });
    const w = await api("POST", "connectors", { key: k.rawKey, body: { kind: "card", provider: "test" } });
    expect(w.body.error.code).toBe("insufficient_scopes");
  });

  test("POST /api-keys without X-Service-Environment-Id: 422 naming the header", async () => {
    const r = await api("POST", "api-keys", { ...dash(), body: { name: "x", scopes: ["*"] } });
    expect(r.status).toBe(422);
    expect(r.body.error.details.issues[0].path).toEqual(["headers", "x-service-environment-id"]);
  });

  test("404 environment_not_found: unknown environment header", async () => {
    const r = await api("POST", "api-keys", { ...dash({ "x-service-environment-id": "00000000-0000-4000-8000-000000000000" }), body: { name: "x", scopes: ["*"] } });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("environment_not_found");
  });

  test("DELETE revokes: 204, then the key is 401 and gone from the list; unknown id 404", async () => {
    const k = await mintKey(["*"]);
    expect((await api("DELETE", `api-keys/${k.id}`, dash())).status).toBe(204);
    const who = await api("GET", "whoami", { key: k.rawKey });
    expect(who.status).toBe(401);
    const list = await api("GET", "api-keys", { key: demo.apiKey });
    expect(list.body.data.map((x: any) => x.id)).not.toContain(k.id);
    const again = await api("DELETE", `api-keys/${k.id}`, dash());
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe("not_found");
    expect((await api("DELETE", `api-keys/${k.id}`, { key: demo.apiKey })).body.error.code).toBe("forbidden");
  });

  test("cursor pagination over keys", async () => {
    for (let i = 0; i < 5; i++) await mintKey(["orders:read"], demo.environments.sandbox.id, `page-${i}`);
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `api-keys?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const r = await api("GET", q, { key: demo.apiKey });
      expect(r.status).toBe(200);
      expect(r.body.data.length).toBeLessThanOrEqual(2);
      for (const k of r.body.data) {
        expect(seen.has(k.id)).toBe(false);
        seen.add(k.id);
      }
      cursor = r.body.meta.pagination.cursor;
      expect(r.body.meta.pagination.hasMore).toBe(cursor !== null);
      pages++;
    } while (cursor);
    const total = await t.deps.prisma.apiKey.count({ where: { environmentId: demo.environments.sandbox.id, revokedAt: null } });
    expect(seen.size).toBe(total);
    expect(pages).toBe(Math.ceil(total / 2));
  });
});

describe("environments", () => {
  const path = () => `workspaces/${demo.workspaceId}/environments`;

  test("system production and sandbox exist; custom ones are non-production, sandbox-routed", async () => {
    const r = await api("GET", path(), dash());
    expect(r.status).toBe(200);
    const bySlug = Object.fromEntries(r.body.data.map((e: any) => [e.slug, e]));
    expect(bySlug.production).toMatchObject({ kind: "production", providerEnvironment: "production", isSystem: true, status: "active" });
    expect(bySlug.sandbox).toMatchObject({ kind: "non_production", providerEnvironment: "sandbox", isSystem: true });
    const c = await api("POST", path(), { ...dash(), body: { slug: "qa", name: "QA" } });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ slug: "qa", kind: "non_production", providerEnvironment: "sandbox", isSystem: false, status: "active" });
  });

  test.each(["production", "live", "production-1", "live-2"])("400 reserved_environment_slug: %s", async (slug) => {
    const r = await api("POST", path(), { ...dash(), body: { slug, name: "x" } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("reserved_environment_slug");
  });

  test.each(["productionish", "livemode"])("allowed slug: %s", async (slug) => {
    const r = await api("POST", path(), { ...dash(), body: { slug, name: slug } });
    expect(r.status).toBe(201);
  });

  test("409 environment_slug_taken, including a system slug", async () => {
    expect((await api("POST", path(), { ...dash(), body: { slug: "dup", name: "a" } })).status).toBe(201);
    const r = await api("POST", path(), { ...dash(), body: { slug: "dup", name: "b" } });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("environment_slug_taken");
    expect((await api("POST", path(), { ...dash(), body: { slug: "sandbox", name: "b" } })).body.error.code).toBe("environment_slug_taken");
  });

  test("400 system_environment_locked for production and sandbox", async () => {
    for (const id of [demo.environments.production.id, demo.environments.sandbox.id]) {
      const r = await api("DELETE", `${path()}/${id}`, dash());
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe("system_environment_locked");
    }
  });

  test("404 environment_not_found for an unknown or malformed id", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "nope"]) {
      const r = await api("DELETE", `${path()}/${id}`, dash());
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("environment_not_found");
    }
  });

  test("archive: 200 archived, hidden unless includeArchived, its keys stop working, history keeps the id", async () => {
    const c = await api("POST", path(), { ...dash(), body: { slug: "temp", name: "Temp" } });
    const k = await mintKey(["*"], c.body.data.id);
    expect((await api("GET", "whoami", { key: k.rawKey })).status).toBe(200);
    const a = await api("DELETE", `${path()}/${c.body.data.id}`, dash());
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({ id: c.body.data.id, status: "archived" });
    expect((await api("GET", path(), dash())).body.data.map((e: any) => e.id)).not.toContain(c.body.data.id);
    const all = await api("GET", `${path()}?includeArchived=true`, dash());
    expect(all.body.data.find((e: any) => e.id === c.body.data.id)).toMatchObject({ status: "archived" });
    expect((await api("GET", "whoami", { key: k.rawKey })).status).toBe(401);
    expect((await api("POST", "api-keys", { ...dash({ "x-service-environment-id": c.body.data.id }), body: { name: "x", scopes: ["*"] } })).body.error.code).toBe("environment_not_found");
    const re = await api("POST", path(), { ...dash(), body: { slug: "temp", name: "again" } });
    expect(re.body.error.code).toBe("environment_slug_taken");
  });

  test("403 application_key_workspace_route for every environment route with an API key", async () => {
    for (const [m, p] of [["GET", path()], ["POST", path()], ["DELETE", `${path()}/${demo.environments.sandbox.id}`]] as const) {
      const r = await api(m, p, { key: demo.apiKey, body: m === "POST" ? { slug: "x1", name: "x" } : undefined });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("application_key_workspace_route");
    }
  });

  test("another workspace's id answers 404", async () => {
    const other = await t.otherWorkspace("envs-other");
    const r = await api("GET", `workspaces/${other.workspaceId}/environments`, dash());
    expect(r.status).toBe(404);
    const d = await api("DELETE", `workspaces/${demo.workspaceId}/environments/${other.environments.sandbox.id}`, dash());
    expect(d.status).toBe(404);
    expect(d.body.error.code).toBe("environment_not_found");
  });
});

describe("connectors", () => {
  test("bootstrap made an active card and invoice_terms connector in sandbox", async () => {
    const r = await api("GET", "connectors", { key: demo.apiKey });
    expect(r.body.data.map((c: any) => `${c.kind}:${c.provider}:${c.status}`).sort()).toEqual(["card:test:active", "invoice_terms:test:active"]);
  });

  test("create, read, deactivate", async () => {
    const c = await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" } });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ kind: "card", provider: "test", status: "active" });
    expect((await api("GET", `connectors/${c.body.data.id}`, { key: demo.apiKey })).body.data.id).toBe(c.body.data.id);
    const d = await api("DELETE", `connectors/${c.body.data.id}`, { key: demo.apiKey });
    expect(d.status).toBe(200);
    expect(d.body.data.status).toBe("inactive");
  });

  test("a key of environment A gets 404 for environment B's connector; a new custom environment has none", async () => {
    const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { ...dash(), body: { slug: "env-b", name: "B" } });
    const keyB = await mintKey(["*"], env.body.data.id);
    expect((await api("GET", "connectors", { key: keyB.rawKey })).body.data).toEqual([]);
    const inB = await api("POST", "connectors", { key: keyB.rawKey, body: { kind: "invoice_terms", provider: "test" } });
    expect(inB.status).toBe(201);
    for (const [m, p] of [["GET", `connectors/${inB.body.data.id}`], ["DELETE", `connectors/${inB.body.data.id}`]] as const) {
      const r = await api(m, p, { key: demo.apiKey });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    expect((await api("GET", "connectors", { key: demo.apiKey })).body.data.map((c: any) => c.id)).not.toContain(inB.body.data.id);
    const still = await api("GET", `connectors/${inB.body.data.id}`, { key: keyB.rawKey });
    expect(still.body.data.status).toBe("active");
  });

  test("another workspace's key sees none of ours", async () => {
    const other = await t.otherWorkspace("conn-other");
    const mine = await api("GET", "connectors", { key: demo.apiKey });
    for (const c of mine.body.data) {
      expect((await api("GET", `connectors/${c.id}`, { key: other.apiKey })).status).toBe(404);
    }
    expect((await api("GET", "connectors", { key: other.apiKey })).body.data).toEqual([]);
    expect((await api("GET", "api-keys", { key: other.apiKey })).body.data.every((k: any) => k.environmentId === other.environments.sandbox.id)).toBe(true);
  });
});

describe("member roles", () => {
  test("a viewer member cannot mint keys (403 permission_denied); grants limit environments", async () => {
    const user = await t.deps.prisma.user.create({ data: { email: `viewer-${randomToken(6)}@example.com` } });
    const member = await t.deps.prisma.member.create({
      data: {
        workspaceId: demo.workspaceId,
        userId: user.id,
        workspaceRole: null,
        applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }],
        environmentGrants: { grantType: "all_non_production" },
      },
    });
    const token = `dst_${randomToken(40)}`;
    await t.deps.prisma.dashboardSession.create({ data: { memberId: member.id, tokenHash: sha256Hex(token) } });
    const r = await api("POST", "api-keys", { token, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "x", scopes: ["*"] } });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("permission_denied");
    const prod = await api("GET", "whoami", { token, headers: { "x-service-environment-id": demo.environments.production.id } });
    expect(prod.status).toBe(403);
    expect(prod.body.error.code).toBe("permission_denied");
    // without a header such a member lands in the sandbox rather than in a production it may not use
    const plain = await api("GET", "whoami", { token });
    expect([plain.status, plain.body.data?.environment?.id]).toEqual([200, demo.environments.sandbox.id]);
    expect((await api("GET", `workspaces/${demo.workspaceId}/environments`, { token })).status).toBe(200);
    const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { slug: "nope-x", name: "x" } });
    expect(env.body.error.code).toBe("permission_denied");
  });

  test("a member with no role on the application reads none of its data (403 permission_denied)", async () => {
    const user = await t.deps.prisma.user.create({ data: { email: `norole-${randomToken(6)}@example.com` } });
    const member = await t.deps.prisma.member.create({
      data: { workspaceId: demo.workspaceId, userId: user.id, workspaceRole: null, applicationRoles: [], environmentGrants: { grantType: "all" } },
    });
    const token = `dst_${randomToken(40)}`;
    await t.deps.prisma.dashboardSession.create({ data: { memberId: member.id, tokenHash: sha256Hex(token) } });
    const headers = { "x-service-environment-id": demo.environments.sandbox.id };
    for (const path of ["connectors", "api-keys", "orders", "payments", "events"]) {
      const r = await api("GET", path, { token, headers });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 403, "permission_denied"]);
    }
    // the owner, on the same routes, is let through
    expect((await api("GET", "connectors", { token: demo.dashboardToken, headers })).status).toBe(200);
  });
});

test("unknown routes answer 404 not_found", async () => {
  for (const [m, p] of [["GET", "nope"], ["POST", "whoami"], ["GET", "/nothing-here"]] as const) {
    const r = await api(m, p, { key: demo.apiKey });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("not_found");
  }
});

test("/healthz and /readyz answer without a key", async () => {
  expect((await api("GET", "/healthz")).body).toEqual({ status: "ok" });
  expect((await api("GET", "/readyz")).body).toEqual({ status: "ready" });
});
