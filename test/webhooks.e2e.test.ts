// Webhook endpoints and delivery: Stripe-verifiable signatures, rotation windows, retries, dead letters,
// replay, alerts, URL and scope rules, event reads gated by scope.
import { until } from "./helpers/until";
import Stripe from "stripe";
import { EVENT_TYPES } from "../src/events/catalog";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { emit } from "./helpers/events";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";

const stripe = new Stripe("sk_test_unused");
const verify = (rawBody: string, header: string, secret: string) => stripe.webhooks.constructEvent(rawBody, header, secret);

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let tenant: { workspaceId: string; applicationId: string; environmentId: string };

beforeAll(async () => {
  t = (await startTestApp({ env: { WEBHOOK_RETRY_SCHEDULE: "150ms,150ms,150ms,150ms,150ms" }, worker: { timeoutMs: 1_000, idleMs: 200 } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  tenant = { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.setResponder(() => ({ status: 200, body: "ok" }));
});

async function endpoint(path: string, enabledEvents = ["order.created"], key = demo.apiKey) {
  const r = await api("POST", "webhook-endpoints", { key, body: { url: `${receiver.url}${path}`, enabledEvents } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; secret: string; url: string };
}
const at = (path: string) => receiver.received.filter((r) => r.path === path);
async function deliveries(endpointId: string) {
  const r = await api("GET", `webhook-endpoints/${endpointId}/deliveries?limit=100`, { key: demo.apiKey });
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

test("create returns the whsec_ secret once; list and read never show it", async () => {
  const ep = await endpoint("/once");
  expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
  const list = await api("GET", "webhook-endpoints", { key: demo.apiKey });
  expect(list.body.data.find((e: any) => e.id === ep.id)).toMatchObject({ url: ep.url, enabledEvents: ["order.created"], isActive: true });
  const read = await api("GET", `webhook-endpoints/${ep.id}`, { key: demo.apiKey });
  expect(JSON.stringify([list.body, read.body])).not.toContain(ep.secret);
});

test("a delivery carries the four headers and verifies with stripe.webhooks.constructEvent; a wrong secret fails", async () => {
  const ep = await endpoint("/sig");
  const ev = await emit(t, tenant, "order.created", { orderId: "o_1", total: 1200 });
  const [r] = await receiver.waitFor(() => at("/sig").length === 1).then(() => at("/sig"));
  expect(r.headers["content-type"]).toBe("application/json");
  expect(r.headers["x-service-event-id"]).toBe(ev.id);
  expect(r.headers["x-service-event-type"]).toBe("order.created");
  const sig = String(r.headers["x-service-signature"]);
  expect(sig).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  const verified = verify(r.rawBody, sig, ep.secret) as any;
  expect(verified).toMatchObject({ id: ev.id, type: "order.created", version: "1", workspaceId: demo.workspaceId, environmentId: tenant.environmentId, environmentKind: "non_production", data: { orderId: "o_1", total: 1200 } });
  expect(verified.createdAt).toBe(ev.createdAt.toISOString());
  expect(() => verify(r.rawBody, sig, "whsec_wrongwrongwrongwrongwrongwrongwr")).toThrow();
  expect(() => verify(r.rawBody.replace("1200", "1"), sig, ep.secret)).toThrow();
  const d = await until(() => deliveries(ep.id), (ds) => ds[0]?.status === "succeeded");
  expect(d[0]).toMatchObject({ eventId: ev.id, eventType: "order.created", attempts: 1, lastStatusCode: 200 });
});

test("rotation: both secrets verify during the grace window; after graceSeconds 0 only the new one", async () => {
  const ep = await endpoint("/rot");
  const rot = await api("POST", `webhook-endpoints/${ep.id}/rotate-secret`, { key: demo.apiKey, body: { graceSeconds: 3600 } });
  expect(rot.status).toBe(200);
  expect(rot.body.data.secret).toMatch(/^whsec_/);
  expect(rot.body.data.secret).not.toBe(ep.secret);
  expect(new Date(rot.body.data.previousSecretExpiresAt).getTime()).toBeGreaterThan(Date.now() + 3500_000);
  await emit(t, tenant, "order.created", { n: 1 });
  await receiver.waitFor(() => at("/rot").length === 1);
  const first = at("/rot")[0];
  const header = String(first.headers["x-service-signature"]);
  expect(header.match(/v1=/g)).toHaveLength(2);
  expect(verify(first.rawBody, header, ep.secret)).toBeTruthy();
  expect(verify(first.rawBody, header, rot.body.data.secret)).toBeTruthy();

  const rot2 = await api("POST", `webhook-endpoints/${ep.id}/rotate-secret`, { key: demo.apiKey, body: { graceSeconds: 0 } });
  expect(rot2.body.data.previousSecretExpiresAt).toBeNull();
  await emit(t, tenant, "order.created", { n: 2 });
  await receiver.waitFor(() => at("/rot").length === 2);
  const second = at("/rot")[1];
  const header2 = String(second.headers["x-service-signature"]);
  expect(header2.match(/v1=/g)).toHaveLength(1);
  expect(verify(second.rawBody, header2, rot2.body.data.secret)).toBeTruthy();
  expect(() => verify(second.rawBody, header2, rot.body.data.secret)).toThrow();
  expect(() => verify(second.rawBody, header2, ep.secret)).toThrow();
  for (const g of [-1, 604_801, "1"]) {
    expect((await api("POST", `webhook-endpoints/${ep.id}/rotate-secret`, { key: demo.apiKey, body: { graceSeconds: g } })).status).toBe(422);
  }
});

test("fails 4 times then succeeds: delivered with exactly 5 attempts", async () => {
  receiver.setResponder((r) => ({ status: at(r.path).length <= 4 ? 500 : 200 }));
  const ep = await endpoint("/flaky");
  const ev = await emit(t, tenant, "order.created", {});
  const ds = await until(() => deliveries(ep.id), (x) => x[0]?.status === "succeeded");
  expect(ds[0]).toMatchObject({ attempts: 5, lastStatusCode: 200, eventId: ev.id });
  expect(at("/flaky")).toHaveLength(5);
  expect(new Set(at("/flaky").map((r) => r.headers["x-service-event-id"]))).toEqual(new Set([ev.id]));
  const detail = await api("GET", `webhook-endpoints/${ep.id}/deliveries/${ds[0].id}`, { key: demo.apiKey });
  expect(detail.body.data.attemptLog.map((a: any) => a.statusCode)).toEqual([500, 500, 500, 500, 200]);
});

test("always fails: dead_letter after five attempts; replay delivers the original id, payload and createdAt", async () => {
  receiver.setResponder((r) => (r.path === "/dead" ? { status: 503, body: "x".repeat(5000) } : { status: 200 }));
  const ep = await endpoint("/dead");
  const ev = await emit(t, tenant, "order.created", { orderId: "dead-1" });
  const ds = await until(() => deliveries(ep.id), (x) => x[0]?.status === "dead_letter");
  expect(ds[0]).toMatchObject({ attempts: 5, lastStatusCode: 503 });
  await new Promise((r) => setTimeout(r, 400));
  expect(at("/dead")).toHaveLength(5);
  const detail = await api("GET", `webhook-endpoints/${ep.id}/deliveries/${ds[0].id}`, { key: demo.apiKey });
  // a body read that times out on a loaded machine leaves no excerpt; what was read is cut at 500 characters
  expect(detail.body.data.attemptLog.every((a: any) => (a.responseExcerpt ?? "").length <= 500)).toBe(true);
  expect(detail.body.data.attemptLog.some((a: any) => a.responseExcerpt?.length === 500)).toBe(true);

  const notDead = await endpoint("/alive", ["customer.updated"]);
  await emit(t, tenant, "customer.updated", {});
  const alive = await until(() => deliveries(notDead.id), (x) => x[0]?.status === "succeeded");
  const r409 = await api("POST", `webhook-endpoints/${notDead.id}/deliveries/${alive[0].id}/replay`, { key: demo.apiKey });
  expect(r409.status).toBe(409);
  expect(r409.body.error.code).toBe("delivery_not_replayable");

  receiver.setResponder(() => ({ status: 200 }));
  const replay = await api("POST", `webhook-endpoints/${ep.id}/deliveries/${ds[0].id}/replay`, { key: demo.apiKey });
  expect(replay.status).toBe(202);
  expect(replay.body.data).toMatchObject({ status: "pending", attempts: 0 });
  await receiver.waitFor(() => at("/dead").length === 6);
  const last = at("/dead")[5];
  expect(last.body).toMatchObject({ id: ev.id, createdAt: ev.createdAt.toISOString(), data: { orderId: "dead-1" } });
  expect(last.rawBody).toBe(at("/dead")[0].rawBody);
  expect(verify(last.rawBody, String(last.headers["x-service-signature"]), ep.secret)).toBeTruthy();
  await until(() => deliveries(ep.id), (x) => x[0]?.status === "succeeded");
});

test("3xx is a failure and redirects are not followed; a slow receiver times out", async () => {
  receiver.setResponder((r) => (r.path === "/redir" ? { status: 302, headers: { location: "/elsewhere" } } : r.path === "/slow" ? { status: 200, delayMs: 3000 } : { status: 200 }));
  const a = await endpoint("/redir");
  const b = await endpoint("/slow");
  await emit(t, tenant, "order.created", {});
  const da = await until(() => deliveries(a.id), (x) => x[0]?.status === "retrying" || x[0]?.status === "dead_letter");
  expect(da[0].lastStatusCode).toBe(302);
  const db = await until(() => deliveries(b.id), (x) => x[0]?.lastError != null);
  expect(db[0].lastError).toMatch(/timeout/);
  expect(at("/elsewhere")).toHaveLength(0);
  await api("PATCH", `webhook-endpoints/${a.id}`, { key: demo.apiKey, body: { isActive: false } });
  await api("PATCH", `webhook-endpoints/${b.id}`, { key: demo.apiKey, body: { isActive: false } });
});

test("three consecutive 401/403 raise one alert per streak", async () => {
  receiver.setResponder(() => ({ status: 401 }));
  const ep = await endpoint("/auth", ["customer.created"]);
  const alerts = () => t.deps.prisma.webhookAlert.count({ where: { endpointId: ep.id } });
  for (let i = 0; i < 2; i++) await emit(t, tenant, "customer.created", { i });
  await receiver.waitFor(() => at("/auth").length >= 4);
  await until(alerts, (n) => n === 1);
  await receiver.waitFor(() => at("/auth").length >= 8);
  expect(await alerts()).toBe(1);
  const [alert] = await t.deps.prisma.webhookAlert.findMany({ where: { endpointId: ep.id } });
  expect(alert.statusCodes).toEqual([401, 401, 401]);
  // a 2xx ends the streak; the next three 403s start a new one and raise a second alert
  receiver.setResponder(() => ({ status: 200 }));
  await until(() => deliveries(ep.id), (ds) => ds.every((d) => d.status !== "retrying" && d.status !== "pending"));
  await emit(t, tenant, "customer.created", { ok: true });
  await until(() => t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.id } }), (e) => e.authFailureStreak === 0);
  receiver.setResponder(() => ({ status: 403 }));
  await emit(t, tenant, "customer.created", { again: true });
  await until(alerts, (n) => n === 2);
  await api("DELETE", `webhook-endpoints/${ep.id}`, { key: demo.apiKey });
});

test("test ping: a signed webhook.ping to that endpoint only", async () => {
  const ep = await endpoint("/ping");
  const other = await endpoint("/not-pinged");
  const r = await api("POST", `webhook-endpoints/${ep.id}/test`, { key: demo.apiKey });
  expect(r.status).toBe(202);
  await receiver.waitFor(() => at("/ping").length === 1);
  const ping = at("/ping")[0];
  expect(ping.body).toMatchObject({ type: "webhook.ping", data: { endpointId: ep.id } });
  expect(verify(ping.rawBody, String(ping.headers["x-service-signature"]), ep.secret)).toBeTruthy();
  await new Promise((res) => setTimeout(res, 200));
  expect(at("/not-pinged")).toHaveLength(0);
  await api("DELETE", `webhook-endpoints/${other.id}`, { key: demo.apiKey });
});

test("deleted and inactive endpoints receive nothing; delete is soft (404 after)", async () => {
  const ep = await endpoint("/gone");
  expect((await api("DELETE", `webhook-endpoints/${ep.id}`, { key: demo.apiKey })).status).toBe(204);
  expect((await api("GET", `webhook-endpoints/${ep.id}`, { key: demo.apiKey })).status).toBe(404);
  expect(await t.deps.prisma.webhookEndpoint.count({ where: { id: ep.id } })).toBe(1);
  await emit(t, tenant, "order.created", {});
  await new Promise((r) => setTimeout(r, 300));
  expect(at("/gone")).toHaveLength(0);
});

describe("rules", () => {
  test("bad URLs and event lists: clear 4xx, nothing stored", async () => {
    const before = await t.deps.prisma.webhookEndpoint.count();
    const cases: [unknown, number, string][] = [
      [{ url: "not a url", enabledEvents: ["order.created"] }, 422, "invalid_webhook_url"],
      [{ url: "ftp://example.com/hook", enabledEvents: ["order.created"] }, 422, "invalid_webhook_url"],
      [{ url: "https://user:pw@example.com/hook", enabledEvents: ["order.created"] }, 422, "invalid_webhook_url"],
      [{ url: `https://example.com/${"a".repeat(5000)}`, enabledEvents: ["order.created"] }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: Array.from({ length: 500 }, () => "order.created") }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: ["order.teleported"] }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: [] }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: ["webhook.ping"] }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: "order.created" }, 422, "validation_error"],
      [{ url: "https://example.com/h", enabledEvents: ["order.created"], secret: "mine" }, 422, "validation_error"],
    ];
    for (const [body, status, code] of cases) {
      const r = await api("POST", "webhook-endpoints", { key: demo.apiKey, body });
      expect({ body: JSON.stringify(body).slice(0, 80), status: r.status, code: r.body.error?.code }).toEqual({ body: JSON.stringify(body).slice(0, 80), status, code });
    }
    expect(await t.deps.prisma.webhookEndpoint.count()).toBe(before);
  });

  test("production: https only, no loopback, private or link-local targets", async () => {
    const prodKey = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.production.id }, body: { name: "p", scopes: ["*"] } })).body.data.rawKey;
    const before = await t.deps.prisma.webhookEndpoint.count();
    for (const url of ["http://example.com/h", "https://127.0.0.1/h", "https://localhost/h", "https://10.1.2.3/h", "https://192.168.1.1/h", "https://169.254.169.254/latest", "https://[::1]/h", "https://172.20.0.1/h"]) {
      const r = await api("POST", "webhook-endpoints", { key: prodKey, body: { url, enabledEvents: ["order.created"] } });
      expect({ url, status: r.status, code: r.body.error?.code }).toEqual({ url, status: 422, code: "invalid_webhook_url" });
    }
    expect(await t.deps.prisma.webhookEndpoint.count()).toBe(before);
    const ok = await api("POST", "webhook-endpoints", { key: prodKey, body: { url: "https://93.184.216.34/hook", enabledEvents: ["order.created"] } });
    expect(ok.status).toBe(201);
    const patch = await api("PATCH", `webhook-endpoints/${ok.body.data.id}`, { key: prodKey, body: { url: "https://127.0.0.1/x" } });
    expect(patch.body.error.code).toBe("invalid_webhook_url");
  });

  test("403 insufficient_scopes when the key cannot read a subscribed event; retired order.completed is rewritten", async () => {
    const limited = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "l", scopes: ["webhooks:write", "webhooks:read", "orders:read"] } })).body.data.rawKey;
    const r = await api("POST", "webhook-endpoints", { key: limited, body: { url: "https://example.com/h", enabledEvents: ["order.created", "quote.accepted"] } });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ code: "insufficient_scopes", details: { required: ["quotes:read"] } });
    const ok = await api("POST", "webhook-endpoints", { key: limited, body: { url: "https://example.com/h", enabledEvents: ["order.completed", "order.created"] } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.enabledEvents.sort()).toEqual(["order.created", "order.fulfilled"]);
    const noWrite = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "r", scopes: ["orders:read"] } })).body.data.rawKey;
    expect((await api("POST", "webhook-endpoints", { key: noWrite, body: { url: "https://example.com/h", enabledEvents: ["order.created"] } })).status).toBe(403);
  });

  test("a key that cannot read an endpoint's events cannot redirect, reactivate or re-key it", async () => {
    const full = await api("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: "https://example.com/quotes", enabledEvents: ["quote.accepted"] } });
    expect(full.status).toBe(201);
    const id = full.body.data.id;
    const limited = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "l2", scopes: ["webhooks:write", "webhooks:read", "orders:read"] } })).body.data.rawKey;
    for (const [m, p, body] of [
      ["PATCH", `webhook-endpoints/${id}`, { url: "https://example.com/attacker" }],
      ["PATCH", `webhook-endpoints/${id}`, { isActive: true }],
      ["POST", `webhook-endpoints/${id}/rotate-secret`, {}],
    ] as const) {
      const r = await api(m, p, { key: limited, body });
      expect([m, p, r.status, r.body.error?.code]).toEqual([m, p, 403, "insufficient_scopes"]);
    }
    const row = await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.url).toBe("https://example.com/quotes");
    expect(row.previousSecret).toBeNull();
    // with the scope, the same change goes through
    expect((await api("PATCH", `webhook-endpoints/${id}`, { key: demo.apiKey, body: { url: "https://example.com/moved" } })).status).toBe(200);
  });

  test("another workspace's endpoints, deliveries and events answer 404", async () => {
    const other = await t.otherWorkspace("wh-other");
    const ep = await endpoint("/mine");
    const ev = await emit(t, tenant, "order.created", {});
    for (const [m, p] of [
      ["GET", `webhook-endpoints/${ep.id}`],
      ["PATCH", `webhook-endpoints/${ep.id}`],
      ["DELETE", `webhook-endpoints/${ep.id}`],
      ["GET", `webhook-endpoints/${ep.id}/deliveries`],
      ["POST", `webhook-endpoints/${ep.id}/rotate-secret`],
      ["POST", `webhook-endpoints/${ep.id}/test`],
      ["GET", `events/${ev.id}`],
    ] as const) {
      const r = await api(m, p, { key: other.apiKey, body: m === "PATCH" || m === "POST" ? {} : undefined });
      expect({ m, p, status: r.status }).toEqual({ m, p, status: 404 });
    }
    expect((await api("GET", "webhook-endpoints", { key: other.apiKey })).body.data).toEqual([]);
    expect((await api("GET", "events", { key: other.apiKey })).body.data.map((e: any) => e.id)).not.toContain(ev.id);
  });
});

describe("event reads", () => {
  test("GET /events and /events/{id} are gated by each type's read scope", async () => {
    const order = await emit(t, tenant, "order.created", { x: 1 });
    const quote = await emit(t, tenant, "quote.accepted", { quoteId: "q" });
    const ordersOnly = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "o", scopes: ["orders:read"] } })).body.data.rawKey;
    const list = await api("GET", "events?limit=100", { key: ordersOnly });
    expect(list.status).toBe(200);
    const types = new Set(list.body.data.map((e: any) => e.type));
    expect(types.has("order.created")).toBe(true);
    expect([...types].every((x) => String(x).startsWith("order."))).toBe(true);
    expect((await api("GET", `events/${order.id}`, { key: ordersOnly })).body.data).toMatchObject({ id: order.id, type: "order.created", version: "1", data: { x: 1 } });
    const denied = await api("GET", `events/${quote.id}`, { key: ordersOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scopes");
    expect((await api("GET", "events?type=quote.accepted", { key: ordersOnly })).body.error.code).toBe("insufficient_scopes");
    const filtered = await api("GET", "events?type=quote.accepted", { key: demo.apiKey });
    expect(filtered.body.data.map((e: any) => e.id)).toContain(quote.id);
    expect(filtered.body.data.every((e: any) => e.type === "quote.accepted")).toBe(true);
    expect((await api("GET", "events?type=nope.nope", { key: demo.apiKey })).status).toBe(422);
  });

  test("GET /event-types lists trigger, dataShape, requiredDataKeys, an example envelope and conventions", async () => {
    const r = await api("GET", "event-types", { key: demo.apiKey });
    expect(r.status).toBe(200);
    const byType = Object.fromEntries(r.body.data.map((x: any) => [x.type, x]));
    expect(byType["order.created"]).toMatchObject({ readScope: "orders:read", trigger: expect.any(String), dataShape: "object", requiredDataKeys: [], example: { type: "order.created", version: "1" } });
    expect(byType["extension.uninstalled"].requiredDataKeys).toEqual(["installationId", "extensionId", "applicationId", "uninstalledAt", "reason"]);
    expect(r.body.data.map((x: any) => x.type)).toEqual(EVENT_TYPES);
    expect(r.body.meta.conventions).toMatchObject({ version: expect.any(String), retired: { "order.completed": "order.fulfilled" } });
  });
});
