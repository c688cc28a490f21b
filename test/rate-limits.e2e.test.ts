// Rate limits (src/shared/rate-limit.ts): per credential, failed authentication per IP, the keyless checkout
// routes per IP and per session, the card-testing guard, and one limit shared by two processes (PostgreSQL and
// Redis stores). Small limits are set per app through the RATE_LIMIT_* settings.
import { randomBytes } from "node:crypto";
import { loadConfig } from "../src/config";
import { limitSpecs, RateLimits, storeFor } from "../src/shared/rate-limit";
import { notStarted, pgRedisTest, pgTest, startPgApp, startTestApp, startWithDemo, type TestApp } from "./helpers/app";
import { testRedisUrl } from "./helpers/db";
import { client } from "./helpers/http";

type Api = ReturnType<typeof client>;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

async function openSession(api: Api, demo: { apiKey: string; applicationId: string }) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "buyer@example.com" } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1500, quantity: 1 } });
  const s = await api("POST", "checkout/sessions", {
    key: demo.apiKey,
    body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" },
  });
  expect(s.status).toBe(201);
  return s.body.data.id as string;
}

const gqlViewer = (url: string, key: string) =>
  fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify({ query: "{ viewer { type } }" }) });

test("settings: points/window or off; a bad value names the variable", () => {
  expect(loadConfig({}).RATE_LIMIT_PER_CREDENTIAL).toEqual({ points: 6000, durationMs: 60_000 });
  expect(loadConfig({ RATE_LIMIT_DECLINES_PER_SESSION: "3/2h" }).RATE_LIMIT_DECLINES_PER_SESSION).toEqual({ points: 3, durationMs: 7_200_000 });
  expect(loadConfig({ RATE_LIMIT_CHECKOUT_PER_IP: "off" }).RATE_LIMIT_CHECKOUT_PER_IP).toBeNull();
  for (const bad of ["100", "0/1m", "ten/1m", "5/1 fortnight"]) expect(() => loadConfig({ RATE_LIMIT_PER_CREDENTIAL: bad })).toThrow(/RATE_LIMIT_PER_CREDENTIAL/);
});

describe("per credential and per failed authentication", () => {
  let t: TestApp;
  let api: Api;
  let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
  beforeAll(async () => {
    ({ t, api, demo } = await startWithDemo({ env: { RATE_LIMIT_PER_CREDENTIAL: "5/1m", RATE_LIMIT_AUTH_FAILURES_PER_IP: "4/1m" } }));
  });
  afterAll(() => t?.close());

  test("a credential's sixth request in the window is 429 rate_limited with Retry-After; RateLimit-* count down", async () => {
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api("GET", "whoami", { key: demo.apiKey });
      expect(r.status).toBe(200);
      expect(r.headers.get("ratelimit-limit")).toBe("5");
      seen.push(r.headers.get("ratelimit-remaining")!);
      expect(Number(r.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    }
    expect(seen).toEqual(["4", "3", "2", "1", "0"]);
    const refused = await api("GET", "whoami", { key: demo.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "rate_limited", status: 429, details: { limit: "credential" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    // GraphQL spends the same bucket and answers 429 too.
    const g = await gqlViewer(t.url, demo.apiKey);
    expect(g.status).toBe(429);
    expect(Number(g.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await g.json()) as any).errors[0].extensions.code).toBe("rate_limited");
    // Another credential has its own bucket (the dashboard token).
    expect((await api("GET", "whoami", { token: demo.dashboardToken })).status).toBe(200);
  });

  test("guessing keys: after 4 failures from one address every credential from it is 429, the right one included", async () => {
    for (let i = 0; i < 4; i++) {
      const r = await api("GET", "whoami", { key: `sk_sandbox_${randomBytes(16).toString("hex")}` });
      expect(r.status).toBe(401);
    }
    const fifth = await api("GET", "whoami", { key: `sk_sandbox_${randomBytes(16).toString("hex")}` });
    expect(fifth.status).toBe(429);
    expect(fifth.body.error.details.limit).toBe("authFailureIp");
    const good = await api("GET", "whoami", { token: demo.dashboardToken });
    expect(good.status).toBe(429);
    const g = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${demo.dashboardToken}` }, body: JSON.stringify({ query: "{ viewer { type } }" }) });
    expect(g.status).toBe(429);
    // Requests without a credential (keyless routes, health) are not turned away by it.
    expect((await api("GET", "/healthz")).status).toBe(200);
  });
});

describe("keyless checkout and the card-testing guard", () => {
  let t: TestApp;
  let api: Api;
  let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
  beforeAll(async () => {
    ({ t, api, demo } = await startWithDemo({
      env: { RATE_LIMIT_CHECKOUT_PER_SESSION: "6/1m", RATE_LIMIT_CHECKOUT_PER_IP: "1000/1m", RATE_LIMIT_DECLINES_PER_SESSION: "3/1h", RATE_LIMIT_DECLINES_PER_IP: "5/1h" },
    }));
  });
  afterAll(() => t?.close());

  test("a session's keyless routes share its bucket: the seventh call is 429, another session is unaffected", async () => {
    const id = await openSession(api, demo);
    for (let i = 0; i < 3; i++) expect((await api("GET", `checkout-sessions/${id}/payment-methods`)).status).toBe(200);
    const page = await fetch(`${t.url}/checkout/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("ratelimit-limit")).toBeNull(); // pages do not advertise limits; the API does
    expect((await api("GET", `checkout-sessions/${id}/embed-token`)).status).toBe(200);
    const last = await api("GET", `checkout-sessions/${id}/payment-methods`);
    expect(last.status).toBe(200);
    expect(last.headers.get("ratelimit-remaining")).toBe("0");
    const refused = await api("GET", `checkout-sessions/${id}/payment-methods`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.details.limit).toBe("checkoutSession");
    const html = await fetch(`${t.url}/checkout/${id}`);
    expect(html.status).toBe(429);
    expect(Number(html.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await html.text()).toContain("Too many requests");
    const other = await openSession(api, demo);
    expect((await api("GET", `checkout-sessions/${other}/payment-methods`)).status).toBe(200);
  });

  test("a burst of declined cards on one session stops after 3: no further payment rows or events, even for a good card", async () => {
    const id = await openSession(api, demo);
    const payments = () => t.deps.prisma.payment.count({ where: { checkoutSessionId: id } });
    const events = () => t.deps.prisma.event.count({ where: { type: "payment.failed" } });
    const eventsBefore = await events();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await api("POST", `checkout-sessions/${id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_card_declined", shippingAddress: ADDRESS } });
      statuses.push(r.status);
      if (r.status === 429) {
        expect(r.body.error).toMatchObject({ code: "rate_limited", details: { limit: "declineSession" } });
        expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    }
    expect(statuses).toEqual([402, 402, 402, 429, 429]);
    expect(await payments()).toBe(3);
    expect((await events()) - eventsBefore).toBe(3);
    const good = await api("POST", `checkout-sessions/${id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });
    expect(good.status).toBe(429);
    expect(good.body.error.details.limit).toBe("declineSession");
    expect(await payments()).toBe(3);
  });

  test("declines are also capped per address across sessions (the guard holds over GraphQL too)", async () => {
    // This address already spent 3 of its 5 decline points in the test above.
    const a = await openSession(api, demo);
    const r1 = await api("POST", `checkout-sessions/${a}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_card_declined", shippingAddress: ADDRESS } });
    expect(r1.status).toBe(402);
    const b = await openSession(api, demo);
    const complete = (id: string) =>
      fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          query: "mutation($id: ID!, $a: AddressInput) { completeCheckoutSession(id: $id, paymentMethod: card, paymentToken: \"tok_card_declined\", shippingAddress: $a) { orderId } }",
          variables: { id, a: ADDRESS },
        }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));
    const r2 = await complete(b);
    expect(r2.body.errors[0].extensions.code).toBe("payment_failed");
    const r3 = await complete(b);
    expect(r3.status).toBe(429);
    expect(r3.body.errors[0].extensions).toMatchObject({ code: "rate_limited", details: { limit: "declineIp" } });
  });

  test("GraphQL responses carry the credential's RateLimit-* headers", async () => {
    const g = await gqlViewer(t.url, demo.apiKey);
    expect(g.status).toBe(200);
    expect(g.headers.get("ratelimit-limit")).toBe("6000");
    expect(Number(g.headers.get("ratelimit-remaining"))).toBeLessThan(6000);
  });

  test("a completed session's retry names its order (422 session_not_open with details.orderId)", async () => {
    const id = await openSession(api, demo);
    const done = await api("POST", `checkout-sessions/${id}/complete`, { key: demo.apiKey, body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    const retry = await api("POST", `checkout-sessions/${id}/complete`, { key: demo.apiKey, body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });
    expect(retry.status).toBe(422);
    expect(retry.body.error).toMatchObject({ code: "session_not_open", details: { status: "completed", orderId: done.body.data.orderId, paymentId: done.body.data.paymentId } });
  });
});

describe("two processes share one limit", () => {
  const redisUrl = testRedisUrl();
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const a of apps.reverse()) await a.close();
  });

  async function pair(opts: { redis: boolean }): Promise<[TestApp, TestApp]> {
    const env = { RATE_LIMIT_PER_CREDENTIAL: "6/1m", RATE_LIMIT_NAMESPACE: `t${randomBytes(6).toString("hex")}` };
    const p1 = await startPgApp({ env, ...(opts.redis ? { redisUrl } : {}) });
    if (!p1) throw notStarted();
    apps.push(p1);
    const p2 = (await startTestApp({ databaseUrl: p1.databaseUrl, env, ...(opts.redis ? { redisUrl } : {}) }))!;
    apps.push(p2);
    return [p1, p2];
  }

  async function sharedLimit([p1, p2]: [TestApp, TestApp]) {
    const demo = await p1.bootstrap();
    const [a, b] = [client(p1.url), client(p2.url)];
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await a("GET", "whoami", { key: demo.apiKey })).status);
      statuses.push((await b("GET", "whoami", { key: demo.apiKey })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  }

  pgTest("on the PostgreSQL store", async () => {
    await sharedLimit(await pair({ redis: false }));
  });

  pgRedisTest("on the Redis store", async () => {
    await sharedLimit(await pair({ redis: true }));
  });
});

describe("on the embedded database the limiter counts in the process's memory", () => {
  let t: TestApp;
  beforeAll(async () => void (t = (await startTestApp({ db: "embedded" }))!));
  afterAll(() => t?.close());

  test("exactly the limit is admitted, and no counter is written to the database", async () => {
    expect(t.db.kind).toBe("pglite");
    const l = new RateLimits({ ...limitSpecs(t.deps.config), credential: { points: 50, durationMs: 60_000 } }, storeFor(t.deps.config, t.db));
    let admitted = 0;
    for (let i = 0; i < 60; i++) admitted += await l.consume("credential", "key:embedded").then(() => 1, (e) => (expect(e.code).toBe("rate_limited"), 0));
    expect(admitted).toBe(50);
    expect(await t.deps.prisma.rateLimit.count()).toBe(0);
    await l.close();
  });
});

// PostgreSQL's store (the embedded database's limiter is in memory, above; Redis: "two processes share one limit")
describe.each(["credential", "checkoutIp"] as const)("the %s bucket on the store", (bucket) => {
  let t: TestApp;
  beforeAll(async () => void (t = (await startPgApp())!));
  afterAll(() => t?.close());

  const limiter = () =>
    new RateLimits({ ...limitSpecs(t.deps.config), [bucket]: { points: 200, durationMs: 60_000 } }, storeFor(t.deps.config, t.db, `b${randomBytes(4).toString("hex")}`));
  const stored = async () => (await t.deps.prisma.rateLimit.findMany({ where: { key: { startsWith: `${bucket}:` } } })).reduce((n, r) => n + r.points, 0);

  pgTest("one process: exactly the limit is admitted, counting down; the refusals after it are answered in memory", async () => {
    await t.deps.prisma.rateLimit.deleteMany({});
    const l = limiter();
    let refused = 0;
    const remaining: number[] = [];
    for (let i = 0; i < 220; i++) {
      try {
        remaining.push((await l.consume(bucket, "key:one"))!.remaining);
      } catch (e: any) {
        expect(e.code).toBe("rate_limited");
        expect(e.details.retryAfterSeconds).toBeGreaterThan(0);
        refused++;
      }
    }
    expect([remaining.length, refused]).toEqual([200, 20]);
    expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
    await l.close();
    // the store holds exactly the admitted points: once the bucket was empty the process stopped asking it
    expect(await stored()).toBe(200);
  });

  pgTest("two limiters on one store admit exactly the limit between them", async () => {
    await t.deps.prisma.rateLimit.deleteMany({});
    const [a, b] = [limiter(), limiter()];
    let admitted = 0;
    for (let i = 0; i < 150; i++) {
      for (const l of [a, b]) {
        try {
          await l.consume(bucket, "key:shared");
          admitted++;
        } catch {
          /* refused */
        }
      }
    }
    expect(admitted).toBe(200);
    await Promise.all([a.close(), b.close()]);
    expect(await stored()).toBeGreaterThanOrEqual(200);
  });
});
