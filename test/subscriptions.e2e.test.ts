// Live `events` subscription over graphql-ws (and SSE): tenant isolation, read scopes, cross-process via Redis.
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { pgRedisTest, startTestApp, type TestApp } from "./helpers/app";
import { expectChannelReleased, twoProcessesOnRedis } from "./helpers/two-processes";
import { emit } from "./helpers/events";
import { client } from "./helpers/http";

const SUB = "subscription($types: [String!]) { events(types: $types) { id type environmentId data } }";

function ws(t: TestApp, params: Record<string, string>): Client {
  return createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0, lazy: true });
}

/** Collects what a subscription yields. */
function collect(c: Client, variables: Record<string, unknown> = {}) {
  const got: any[] = [];
  const errors: any[] = [];
  const dispose = c.subscribe({ query: SUB, variables }, { next: (v) => (v.errors ? errors.push(...v.errors) : got.push(v.data!.events)), error: (e) => errors.push(e), complete: () => {} });
  return { got, errors, dispose };
}

/**
 * graphql-ws has no subscribe acknowledgement, and an event published before the server has attached the listener
 * (or, across processes, before Redis has acknowledged its SUBSCRIBE) is never delivered. So a subscription counts as
 * ready once a probe event recorded after it arrives: probes are recorded until one does, then what it collected is
 * cleared. Delivery is in order, so no earlier probe can arrive after that.
 */
async function prime(sub: { got: any[] }, probe: () => Promise<{ id: string }>, ms = 15_000) {
  const start = Date.now();
  for (;;) {
    const { id } = await probe();
    const sent = Date.now();
    while (Date.now() - sent < 500) {
      if (sub.got.some((e) => e.id === id)) {
        sub.got.length = 0;
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (Date.now() - start > ms) throw new Error("the subscription never received a probe");
  }
}

/** Waits for cond; `every` (if given) runs once at the start and then every 500 ms while waiting. */
async function waitFor(cond: () => boolean, ms = 10_000, every?: () => Promise<unknown>) {
  const start = Date.now();
  let last = 0;
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error("timed out");
    if (every && Date.now() - last >= 500) {
      last = Date.now();
      await every();
      continue;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("one process", () => {
  let t: TestApp;
  let demo: BootstrapResult;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = (await startTestApp())!;
    demo = await t.bootstrap();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
  });
  const sandbox = () => ({ workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id });

  test("a subscriber of environment A never receives environment B's events", async () => {
    const api = client(t.url);
    const envB = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "sub-b", name: "B" } });
    const keyB = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": envB.body.data.id }, body: { name: "b", scopes: ["*"] } })).body.data.rawKey;
    const other = await t.otherWorkspace("sub-other");
    const a = ws(t, { "x-api-key": demo.apiKey });
    const b = ws(t, { "x-api-key": keyB });
    const o = ws(t, { "x-api-key": other.apiKey });
    clients.push(a, b, o);
    const sa = collect(a);
    const sb = collect(b);
    const so = collect(o);
    const tenantB = { ...sandbox(), environmentId: envB.body.data.id };
    const tenantO = { workspaceId: other.workspaceId, applicationId: other.applicationId, environmentId: other.environments.sandbox.id };
    await prime(sa, () => emit(t, sandbox(), "customer.created", { probe: true }));
    await prime(sb, () => emit(t, tenantB, "customer.created", { probe: true }));
    await prime(so, () => emit(t, tenantO, "customer.created", { probe: true }));
    const inA = await emit(t, sandbox(), "order.created", { n: "a" });
    const inB = await emit(t, tenantB, "order.created", { n: "b" });
    await waitFor(() => sa.got.length >= 1 && sb.got.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(sa.got.map((e) => e.id)).toEqual([inA.id]);
    expect(sb.got.map((e) => e.id)).toEqual([inB.id]);
    expect(so.got).toEqual([]);
    expect(sa.got[0]).toMatchObject({ type: "order.created", environmentId: demo.environments.sandbox.id, data: { n: "a" } });
  });

  test("types narrows the stream; a key without quotes:read cannot subscribe to quote events", async () => {
    const api = client(t.url);
    const ordersOnly = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "o", scopes: ["orders:read"] } })).body.data.rawKey;
    const c = ws(t, { "x-api-key": ordersOnly });
    clients.push(c);
    const denied = collect(c, { types: ["quote.accepted"] });
    await waitFor(() => denied.errors.length > 0);
    expect(denied.errors[0].extensions?.code ?? denied.errors[0].message).toBe("insufficient_scopes");

    const all = collect(c);
    const narrowed = collect(ws(t, { "x-api-key": demo.apiKey }), { types: ["customer.created"] });
    await prime(all, () => emit(t, sandbox(), "order.updated", { probe: true }));
    await prime(narrowed, () => emit(t, sandbox(), "customer.created", { probe: true }));
    await emit(t, sandbox(), "quote.accepted", { q: 1 });
    const ord = await emit(t, sandbox(), "order.updated", {});
    const cust = await emit(t, sandbox(), "customer.created", {});
    await waitFor(() => all.got.length >= 1 && narrowed.got.length >= 1);
    await new Promise((r) => setTimeout(r, 200));
    expect(all.got.map((e) => e.id)).toEqual([ord.id]);
    expect(narrowed.got.map((e) => e.id)).toEqual([cust.id]);
    const unknown = collect(c, { types: ["nope.nope"] });
    await waitFor(() => unknown.errors.length > 0);
    expect(unknown.errors[0].extensions?.code).toBe("validation_error");
  });

  test("revoking the key ends its open subscription with unauthorized", async () => {
    const api = client(t.url);
    const minted = (await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "live", scopes: ["orders:read"] } })).body.data;
    const c = ws(t, { "x-api-key": minted.rawKey });
    clients.push(c);
    let completed = false;
    const got: any[] = [];
    const errs: any[] = [];
    c.subscribe({ query: SUB }, { next: (v) => (v.errors ? errs.push(...v.errors) : got.push(v.data!.events)), error: (e) => errs.push(e), complete: () => (completed = true) });
    await prime({ got }, () => emit(t, sandbox(), "order.created", { probe: true }));
    const before = await emit(t, sandbox(), "order.created", { n: 1 });
    await waitFor(() => got.length === 1);
    expect(got[0].id).toBe(before.id);
    const del = await api("DELETE", `api-keys/${minted.id}`, { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });
    expect(del.status).toBe(204);
    await new Promise((r) => setTimeout(r, 1_100)); // past the stream's re-check interval
    await emit(t, sandbox(), "order.created", { n: 2 });
    await waitFor(() => completed);
    expect(got).toHaveLength(1);
    expect(errs.map((e) => e.extensions?.code)).toEqual(["unauthorized"]);
  });

  test("without credentials: unauthorized; over SSE the same stream works", async () => {
    const anon = ws(t, {});
    clients.push(anon);
    const s = collect(anon);
    await waitFor(() => s.errors.length > 0);
    expect(s.errors[0].extensions?.code).toBe("unauthorized");

    const ctrl = new AbortController();
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", "x-api-key": demo.apiKey },
      body: JSON.stringify({ query: SUB, variables: { types: ["cart.created"] } }),
      signal: ctrl.signal,
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    let text = "";
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    })();
    // as prime() does: record until one arrives (an event recorded before the stream attached is never sent)
    const sent: string[] = [];
    await waitFor(() => sent.some((id) => text.includes(id)), 15_000, async () => sent.push((await emit(t, sandbox(), "cart.created", { c: sent.length })).id));
    ctrl.abort();
    await reading;
    expect(text).toContain('"type":"cart.created"');
  });
});

describe("two processes with REDIS_URL", () => {
  const processes = twoProcessesOnRedis();

  pgRedisTest("a subscriber on process 1 receives an event committed on process 2; unsubscribing frees the channel", async () => {
    const { p1, p2, redisUrl } = processes();
    const demo = await p1.bootstrap();
    const c = ws(p1, { "x-api-key": demo.apiKey });
    const s = collect(c);
    await prime(s, () => emit(p2, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }, "customer.created", { probe: true }));
    const ev = await emit(p2, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }, "payment.captured", { amount: 500 });
    await waitFor(() => s.got.length >= 1);
    expect(s.got[0]).toMatchObject({ id: ev.id, type: "payment.captured", data: { amount: 500 } });
    try {
      await expectChannelReleased(redisUrl, demo, () => s.dispose());
    } finally {
      await c.dispose();
    }
  });
});
