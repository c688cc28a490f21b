// Live lists (issue 37 item 4): quoteEvents(filter) and orderEvents(filter) over graphql-ws deliver the tenant's
// changed quotes and orders, filtered, with quotes:read / orders:read, never another tenant's, ended when the
// credential is revoked, and across processes through Redis.
import { type DocumentNode, print } from "graphql";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { pgRedisTest, startTestApp, type BootstrapLike, type TestApp } from "./helpers/app";
import { expectChannelReleased, twoProcessesOnRedis } from "./helpers/two-processes";
import { emit } from "./helpers/events";
import { gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { seedOrder } from "./helpers/orders";
import { CreateQuoteDocument, IssueQuoteDocument, OrderEventsDocument, QuoteEventsDocument, UpdateQuoteDocument } from "./generated/graphql";

function ws(t: TestApp, params: Record<string, string>): Client {
  return createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0, lazy: true });
}

interface Sub {
  got: any[];
  errors: any[];
  completed: boolean;
  dispose: () => void;
}

/** Collects what a subscription yields (the field's value per item). */
function collect(c: Client, doc: DocumentNode, field: string, variables: Record<string, unknown> = {}): Sub {
  const s: Sub = { got: [], errors: [], completed: false, dispose: () => {} };
  s.dispose = c.subscribe(
    { query: print(doc), variables },
    { next: (v) => (v.errors ? s.errors.push(...v.errors) : s.got.push((v.data as any)[field])), error: (e) => s.errors.push(e), complete: () => (s.completed = true) },
  );
  return s;
}

async function waitFor(cond: () => boolean, ms = 10_000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A subscription is ready once a probe event recorded after it arrives (graphql-ws has no subscribe acknowledgement:
 * test/subscriptions.e2e.test.ts prime). Probes are recorded until one arrives; what was collected is then cleared.
 */
async function prime(sub: Sub, probe: () => Promise<{ id: string }>, ms = 15_000) {
  const start = Date.now();
  for (;;) {
    const { id } = await probe();
    const sent = Date.now();
    while (Date.now() - sent < 500) {
      if (sub.got.some((e) => e.eventId === id)) {
        sub.got.length = 0;
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (Date.now() - start > ms) throw new Error("the subscription never received a probe");
  }
}

const tenantOf = (d: BootstrapLike) => ({ workspaceId: d.workspaceId, applicationId: d.applicationId, environmentId: d.environments.sandbox.id });
const items = [{ name: "Line", unitPrice: 1000, quantity: 1 }];

describe("one process", () => {
  let t: TestApp;
  let demo: BootstrapResult;
  let other: BootstrapLike;
  let gql: ReturnType<typeof gqlClient>;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
    demo = await t.bootstrap();
    other = await t.otherWorkspace("live-lists-other");
    gql = gqlClient(t.url);
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
  });
  const newQuote = async (email: string, key = demo.apiKey) => (await gql(CreateQuoteDocument, { customerEmail: email, items }, { key })).data!.createQuote;

  test("quoteEvents delivers the tenant's changed quotes, filtered by status and customer; another tenant's never", async () => {
    const probeQuote = await newQuote("probe@example.com");
    await gql(IssueQuoteDocument, { id: probeQuote.id }, { key: demo.apiKey }); // proposed: the status filter passes it
    const probe = () => emit(t, tenantOf(demo), "quote.viewed", { quoteId: probeQuote.id });
    const a = ws(t, { "x-api-key": demo.apiKey });
    const o = ws(t, { "x-api-key": other.apiKey });
    clients.push(a, o);
    const all = collect(a, QuoteEventsDocument, "quoteEvents");
    const proposed = collect(a, QuoteEventsDocument, "quoteEvents", { filter: { status: "proposed" } });
    const q = await newQuote("live-list@example.com");
    const byCustomer = collect(a, QuoteEventsDocument, "quoteEvents", { filter: { customerId: q.customerId } });
    const otherTenant = collect(o, QuoteEventsDocument, "quoteEvents");
    await prime(all, probe);
    await prime(proposed, probe);
    // the customer filter drops the probe quote: primed with events of q itself (quote.viewed changes nothing)
    await prime(byCustomer, () => emit(t, tenantOf(demo), "quote.viewed", { quoteId: q.id }));
    const otherQuote = await newQuote("o@example.com", other.apiKey);
    await prime(otherTenant, () => emit(t, tenantOf(other), "quote.viewed", { quoteId: otherQuote.id }));
    for (const s of [all, proposed, byCustomer]) s.got.length = 0; // the later probes reached the earlier subscriptions too

    await gql(IssueQuoteDocument, { id: q.id }, { key: demo.apiKey });
    await gql(UpdateQuoteDocument, { id: q.id, status: "declined" }, { key: demo.apiKey });
    // another tenant's event naming this tenant's quote reaches nothing: the read is under the subscriber's tenant
    await emit(t, tenantOf(other), "quote.viewed", { quoteId: q.id });
    await waitFor(() => all.got.length >= 2 && byCustomer.got.length >= 2 && proposed.got.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(all.got.map((e) => [e.type, e.quote.id, e.quote.status])).toEqual([
      ["quote.proposed", q.id, "proposed"],
      ["quote.declined", q.id, "declined"],
    ]);
    expect(byCustomer.got.map((e) => e.type)).toEqual(["quote.proposed", "quote.declined"]);
    expect(proposed.got.map((e) => [e.type, e.quote.id])).toEqual([["quote.proposed", q.id]]);
    expect(otherTenant.got).toEqual([]);
    expect(all.got[0]).toMatchObject({ eventId: expect.any(String), occurredAt: expect.any(String), quote: { customerId: q.customerId, number: q.number } });
    expect([all, proposed, byCustomer, otherTenant].flatMap((s) => s.errors)).toEqual([]);
  });

  test("orderEvents delivers the tenant's changed orders, filtered; another tenant's never", async () => {
    const { order: probeOrder } = await seedOrder(t, demo, { lines: [{ quantity: 1 }] });
    const probe = () => emit(t, tenantOf(demo), "order.updated", { orderId: probeOrder.id });
    const a = ws(t, { "x-api-key": demo.apiKey });
    const o = ws(t, { "x-api-key": other.apiKey });
    clients.push(a, o);
    const all = collect(a, OrderEventsDocument, "orderEvents");
    const cancelled = collect(a, OrderEventsDocument, "orderEvents", { filter: { status: "cancelled" } });
    const otherTenant = collect(o, OrderEventsDocument, "orderEvents");
    await prime(all, probe);
    const { order: cancelledOrder } = await seedOrder(t, demo, { lines: [{ quantity: 1 }], status: "cancelled" });
    await prime(cancelled, () => emit(t, tenantOf(demo), "order.cancelled", { orderId: cancelledOrder.id }));
    const { order: otherOrder } = await seedOrder(t, other, { lines: [{ quantity: 1 }] });
    await prime(otherTenant, () => emit(t, tenantOf(other), "order.updated", { orderId: otherOrder.id }));
    all.got.length = 0;

    const { order } = await seedOrder(t, demo, { lines: [{ quantity: 2, unitPrice: 700 }], customerEmail: "orders-live@example.com" });
    const created = await emit(t, tenantOf(demo), "order.created", { orderId: order.id });
    await emit(t, tenantOf(other), "order.updated", { orderId: order.id }); // names this tenant's order from another: nothing
    await waitFor(() => all.got.length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(all.got).toEqual([{ type: "order.created", eventId: created.id, occurredAt: expect.any(String), order: { id: order.id, status: "processing", paymentStatus: "captured", customerId: order.customerId, total: 1400 } }]);
    expect(cancelled.got).toEqual([]);
    expect(otherTenant.got).toEqual([]);
  });

  test("scopes: quoteEvents needs quotes:read, orderEvents orders:read; no credential is unauthorized", async () => {
    const api = client(t.url);
    const ordersOnly = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "o", scopes: ["orders:read"] } })).body.data.rawKey;
    const c = ws(t, { "x-api-key": ordersOnly });
    clients.push(c);
    const denied = collect(c, QuoteEventsDocument, "quoteEvents");
    const allowed = collect(c, OrderEventsDocument, "orderEvents");
    await waitFor(() => denied.errors.length > 0);
    expect(denied.errors[0].extensions?.code).toBe("insufficient_scopes");
    const { order } = await seedOrder(t, demo, { lines: [{ quantity: 1 }] });
    await prime(allowed, () => emit(t, tenantOf(demo), "order.updated", { orderId: order.id }));
    expect(allowed.errors).toEqual([]);
    const anon = ws(t, {});
    clients.push(anon);
    const s = collect(anon, OrderEventsDocument, "orderEvents");
    await waitFor(() => s.errors.length > 0);
    expect(s.errors[0].extensions?.code).toBe("unauthorized");
  });

  test("revoking the key ends its open quoteEvents stream with unauthorized", async () => {
    const api = client(t.url);
    const minted = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "live", scopes: ["quotes:read"] } })).body.data;
    const c = ws(t, { "x-api-key": minted.rawKey });
    clients.push(c);
    const s = collect(c, QuoteEventsDocument, "quoteEvents");
    const q = await newQuote("revoke@example.com");
    await prime(s, () => emit(t, tenantOf(demo), "quote.viewed", { quoteId: q.id }));
    const del = await api("DELETE", `api-keys/${minted.id}`, { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });
    expect(del.status).toBe(204);
    await new Promise((r) => setTimeout(r, 1_100)); // past the stream's re-check interval
    await emit(t, tenantOf(demo), "quote.viewed", { quoteId: q.id });
    await waitFor(() => s.completed);
    expect(s.got).toEqual([]);
    expect(s.errors.map((e) => e.extensions?.code)).toEqual(["unauthorized"]);
  });
});

describe("two processes with REDIS_URL", () => {
  const processes = twoProcessesOnRedis();

  pgRedisTest("a quoteEvents subscriber on process 1 receives a quote issued on process 2; unsubscribing frees the channel", async () => {
    const { p1, p2, redisUrl } = processes();
    const demo = await p1.bootstrap();
    const gql2 = gqlClient(p2.url);
    const q = (await gql2(CreateQuoteDocument, { customerEmail: "redis@example.com", items }, { key: demo.apiKey })).data!.createQuote;
    const c = ws(p1, { "x-api-key": demo.apiKey });
    try {
      const s = collect(c, QuoteEventsDocument, "quoteEvents");
      await prime(s, () => emit(p2, tenantOf(demo), "quote.viewed", { quoteId: q.id }));
      await gql2(IssueQuoteDocument, { id: q.id }, { key: demo.apiKey });
      await waitFor(() => s.got.length >= 1);
      expect(s.got[0]).toMatchObject({ type: "quote.proposed", quote: { id: q.id, status: "proposed" } });
      // the live list releases the Redis channel as soon as the client unsubscribes, not at the next event
      await expectChannelReleased(redisUrl, demo, () => s.dispose());
    } finally {
      await c.dispose();
    }
  });
});
