// Live `events` subscription over graphql-ws (and SSE): tenant isolation, read scopes, cross-process via Redis.
import { createClient, type Client } from "graphql-ws";
import Redis from "ioredis";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { skipReason, startTestApp, type TestApp } from "./helpers/app";
import { emit } from "./helpers/events";
import { client } from "./helpers/http";

const SUB = "subscription($types: [String!]) { events(types: $types) { id type environmentId data } }";

function ws(t: TestApp, params: Record<string, string>): Client {
  return createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: params, retryAttempts: 0, lazy: true });
}

/** Collects what a subscription yields; `ready` resolves once the server has registered it. */
function collect(c: Client, variables: Record<string, unknown> = {}) {
  const got: any[] = [];
  const errors: any[] = [];
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const dispose = c.subscribe({ query: SUB, variables }, { next: (v) => (v.errors ? errors.push(...v.errors) : got.push(v.data!.events)), error: (e) => errors.push(e), complete: () => {} });
  // graphql-ws has no subscribe ack; give the server a moment to attach the listener
  setTimeout(resolveReady, 300);
  return { got, errors, ready, dispose };
}

async function waitFor(cond: () => boolean, ms = 10_000) {
  const start = Date.now();
  while (!cond()) {
    if (Date.now() - start > ms) throw new Error("timed out");
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
    await Promise.all([sa.ready, sb.ready, so.ready]);
    const inA = await emit(t, sandbox(), "order.created", { n: "a" });
    const inB = await emit(t, { ...sandbox(), environmentId: envB.body.data.id }, "order.created", { n: "b" });
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
    await Promise.all([all.ready, narrowed.ready]);
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
    await new Promise((r) => setTimeout(r, 300));
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
    await new Promise((r) => setTimeout(r, 300));
    const ev = await emit(t, sandbox(), "cart.created", { c: 1 });
    let text = "";
    while (!text.includes(ev.id)) text += new TextDecoder().decode((await reader.read()).value);
    ctrl.abort();
    expect(text).toContain('"type":"cart.created"');
  });
});

describe("two processes with REDIS_URL", () => {
  const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  let p1: TestApp | null = null;
  let p2: TestApp | null = null;
  let skip = "";
  beforeAll(async () => {
    const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    try {
      await probe.connect();
      await probe.ping();
    } catch {
      skip = `skipped: needs a reachable Redis at ${redisUrl}`;
    } finally {
      probe.disconnect();
    }
    if (!skip) {
      p1 = await startTestApp({ db: "pg", redisUrl });
      if (!p1) skip = skipReason("the two-process subscription test");
      else p2 = await startTestApp({ databaseUrl: p1.databaseUrl, redisUrl });
    }
    if (skip) console.warn(skip);
  });
  afterAll(async () => {
    await p2?.close();
    await p1?.close();
  });

  test("a subscriber on process 1 receives an event committed on process 2; unsubscribing frees the channel", async () => {
    if (skip || !p1 || !p2) return;
    const demo = await p1.bootstrap();
    const c = ws(p1, { "x-api-key": demo.apiKey });
    const s = collect(c);
    await s.ready;
    const ev = await emit(p2, { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }, "payment.captured", { amount: 500 });
    await waitFor(() => s.got.length >= 1);
    expect(s.got[0]).toMatchObject({ id: ev.id, type: "payment.captured", data: { amount: 500 } });
    // Unsubscribing releases the Redis channel at once, without waiting for another event on the topic.
    const channel = `events:${demo.applicationId}:${demo.environments.sandbox.id}`;
    const redis = new Redis(redisUrl);
    try {
      const subscribers = async () => Number(((await redis.pubsub("NUMSUB", channel)) as [string, number])[1]);
      expect(await subscribers()).toBe(1);
      s.dispose();
      const start = Date.now();
      while ((await subscribers()) !== 0 && Date.now() - start < 3_000) await new Promise((r) => setTimeout(r, 50));
      expect(await subscribers()).toBe(0);
    } finally {
      redis.disconnect();
      await c.dispose();
    }
  });
});
