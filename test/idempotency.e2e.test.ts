// Idempotency-Key on POST: replay, reuse with another body, and 20 racing requests on the real PostgreSQL.
import { notStarted, pgTest, startPgApp, startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { requestHash } from "../src/shared/idempotency.service";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

describe("on the default database", () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let demo: BootstrapResult;
  beforeAll(async () => void ({ t, api, demo } = await startWithDemo()));
  afterAll(() => t?.close());

  const count = () => t.deps.prisma.connector.count({ where: { environmentId: demo.environments.sandbox.id } });

  test("same key + same body twice: one resource, the first response replayed with Idempotent-Replayed", async () => {
    const before = await count();
    const body = { kind: "card", provider: "test" };
    const a = await api("POST", "connectors", { key: demo.apiKey, body, idem: "idem-1" });
    const b = await api("POST", "connectors", { key: demo.apiKey, body: { provider: "test", kind: "card" }, idem: "idem-1" });
    expect(a.status).toBe(201);
    expect(a.headers.get("idempotent-replayed")).toBeNull();
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body).toEqual(a.body);
    expect(await count()).toBe(before + 1);
  });

  test("same key + different body: 422 idempotency_key_reused, nothing created", async () => {
    await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" }, idem: "idem-2" });
    const before = await count();
    const r = await api("POST", "connectors", { key: demo.apiKey, body: { kind: "invoice_terms", provider: "test" }, idem: "idem-2" });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("idempotency_key_reused");
    expect(await count()).toBe(before);
  });

  test("keys are per credential: another key may reuse the string", async () => {
    const other = await t.otherWorkspace("idem-other");
    const a = await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" }, idem: "shared" });
    const b = await api("POST", "connectors", { key: other.apiKey, body: { kind: "card", provider: "test" }, idem: "shared" });
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.data.id).not.toBe(a.body.data.id);
  });

  test("error outcomes are replayed too; validation errors release the key", async () => {
    const dash = { token: demo.dashboardToken };
    const path = `workspaces/${demo.workspaceId}/environments`;
    const first = await api("POST", path, { ...dash, body: { slug: "live", name: "x" }, idem: "env-1" });
    expect(first.body.error.code).toBe("reserved_environment_slug");
    const again = await api("POST", path, { ...dash, body: { slug: "live", name: "x" }, idem: "env-1" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const invalid = await api("POST", path, { ...dash, body: { slug: "Bad Slug", name: "x" }, idem: "env-2" });
    expect(invalid.status).toBe(422);
    const fixed = await api("POST", path, { ...dash, body: { slug: "Bad Slug", name: "x" }, idem: "env-2" });
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a stuck in-progress key answers 409 idempotency_in_progress", async () => {
    const body = { kind: "card", provider: "test" };
    const key = await t.deps.prisma.apiKey.findFirstOrThrow({ where: { environmentId: demo.environments.sandbox.id, name: "Bootstrap sandbox key" } });
    await t.deps.prisma.idempotencyKey.create({
      data: { credentialId: `key:${key.id}`, key: "busy", requestHash: requestHash("POST", "/api/v1/connectors", body), expiresAt: new Date(Date.now() + 3600_000) },
    });
    const r = await api("POST", "connectors", { key: demo.apiKey, body, idem: "busy" });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("idempotency_in_progress");
  });

  test("Idempotency-Key longer than 255 characters: 422 naming the header", async () => {
    const r = await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" }, idem: "x".repeat(256) });
    expect(r.status).toBe(422);
    expect(r.body.error.details.issues[0].path).toEqual(["headers", "idempotency-key"]);
  });
});

describe("on the real PostgreSQL", () => {
  let t: TestApp | null;
  beforeAll(async () => {
    t = await startPgApp();
    if (!t) return; // no PostgreSQL: every test below is registered as skipped
  });
  afterAll(() => t?.close());

  pgTest("20 parallel POSTs with one key create exactly one resource", async () => {
    if (!t) throw notStarted();
    expect(t.kind).toBe("pg");
    const demo = await t.bootstrap();
    const api = client(t.url);
    const before = await t.deps.prisma.connector.count();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" }, idem: "race-1" })),
    );
    expect(await t.deps.prisma.connector.count()).toBe(before + 1);
    const created = results.filter((r) => r.status === 201);
    const ids = new Set(created.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    for (const r of results) {
      expect([201, 409]).toContain(r.status);
      if (r.status === 409) expect(r.body.error.code).toBe("idempotency_in_progress");
    }
    const after = await api("POST", "connectors", { key: demo.apiKey, body: { kind: "card", provider: "test" }, idem: "race-1" });
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(ids.has(after.body.data.id)).toBe(true);
  });
});
