// The buyer's saved-card wallet: client tokens (lifetimes, the subscription restriction), the PM token's reach
// (wallet routes only: 403 forbidden everywhere else), the /me/* routes, the merchant's saved-method routes,
// CORS from the application's allowedOrigins, events. Real database through HTTP.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { restRoutes } from "../src/server/rest-routes";
import { startTestApp, startWithDemo, type BootstrapLike, type TestApp, postgresPassTest } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { codeOf, gqlClient } from "./helpers/gql";
import {
  AttachCustomerPaymentMethodDocument,
  CreatePaymentMethodClientTokenDocument,
  CustomerPaymentMethodsDocument,
  PauseCustomerPaymentMethodDocument,
  ResumeCustomerPaymentMethodDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;
const clock = new FixedClock(new Date("2026-03-01T12:00:00Z"));

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo({ clock }));
  other = await t.otherWorkspace("wallet-other");
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { allowedOrigins: ["https://shop.example.com"] } });
});
afterAll(() => t?.close());

const pm = (token: string) => ({ headers: { "x-service-pm-token": token } });
const expectError = (r: { status: number; body: any }, status: number, code: string) => expect([r.status, r.body?.error?.code]).toEqual([status, code]);

async function customer(key = demo.apiKey, email = `b${Math.random().toString(36).slice(2)}@example.com`) {
  const r = await api("POST", "customers", { key, body: { email } });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

/** Stands in for a subscription created by recurring checkout (built by the subscriptions work). */
async function subscription(customerId: string, status = "active", tenant: { applicationId: string; environmentId: string } = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }) {
  const now = clock.now();
  return t.deps.prisma.subscription.create({
    data: {
      ...tenant,
      customerId,
      status,
      planReference: "pro",
      planName: "Pro plan",
      interval: "monthly",
      amount: 1500,
      quantity: 3,
      currency: "USD",
      currentPeriodStart: now,
      currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000),
    },
  });
}

async function token(customerId: string, subscriptionId?: string, key = demo.apiKey) {
  const r = await api("POST", "payment-methods/client-token", { key, body: { customerId: `cus_${customerId}`, ...(subscriptionId ? { subscriptionId } : {}) } });
  expect(r.status).toBe(201);
  return r.body.data as { token: string; expiresAt: string; updateCardUrl: string | null };
}

/** Adds a chargeable card through the zero-amount vault flow. */
async function vault(tok: string, paymentToken = "tok_visa") {
  const e = await api("POST", "me/payment-methods/embed-token", pm(tok));
  expect(e.status).toBe(201);
  return api("POST", "me/payment-methods/confirm", { ...pm(tok), body: { checkoutSessionId: e.body.data.checkoutSessionId, paymentToken } });
}

test("client token: 30 minutes; 14 days and an updateCardUrl with a subscription; hashed at rest", async () => {
  const c = await customer();
  const a = await token(c);
  expect(a.token).toMatch(/^pmt_[A-Za-z0-9]{40}$/);
  expect(new Date(a.expiresAt).getTime() - clock.now().getTime()).toBe(30 * 60_000);
  expect(a.updateCardUrl).toBeNull();
  const sub = await subscription(c);
  const b = await token(c, sub.id);
  expect(new Date(b.expiresAt).getTime() - clock.now().getTime()).toBe(14 * 86_400_000);
  expect(b.updateCardUrl).toBe(`${t.deps.config.CHECKOUT_URL}/billing/${b.token}`);
  const rows = await t.deps.prisma.pmToken.findMany({ where: { customerId: c } });
  expect(rows).toHaveLength(2);
  expect(rows.every((r) => !r.tokenHash.includes(a.token) && !r.tokenHash.includes(b.token))).toBe(true);

  // the short token expires at 30 minutes, the subscription one at 14 days
  clock.advance(30 * 60_000 - 1);
  expect((await api("GET", "me/payment-methods", pm(a.token))).status).toBe(200);
  clock.advance(1);
  expectError(await api("GET", "me/payment-methods", pm(a.token)), 401, "unauthorized");
  expect((await api("GET", "me/payment-methods", pm(b.token))).status).toBe(200);
  clock.advance(14 * 86_400_000 - 30 * 60_000);
  expectError(await api("GET", "me/payment-methods", pm(b.token)), 401, "unauthorized");
  clock.set(new Date("2026-03-01T12:00:00Z"));
});

test("client token: scope, tenant and input errors", async () => {
  const c = await customer();
  const readOnly = (await mintKeyVia(api, demo, ["customers:read"])).rawKey;
  expectError(await api("POST", "payment-methods/client-token", { key: readOnly, body: { customerId: c } }), 403, "insufficient_scopes");
  expectError(await api("POST", "payment-methods/client-token", { body: { customerId: c } }), 401, "unauthorized");
  expectError(await api("POST", "payment-methods/client-token", { key: other.apiKey, body: { customerId: c } }), 404, "not_found");
  expectError(await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: "nope" } }), 404, "not_found");
  expectError(await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: {} }), 422, "validation_error");
  expectError(await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c, extra: 1 } }), 422, "validation_error");
  // the subscription must belong to the customer
  const someoneElse = await subscription(await customer());
  expectError(await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c, subscriptionId: someoneElse.id } }), 404, "not_found");
  expectError(await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c, subscriptionId: "not-a-uuid" } }), 404, "not_found");
});

test("PM token: 401 when missing, malformed or unknown on wallet routes", async () => {
  expectError(await api("GET", "me/payment-methods"), 401, "unauthorized");
  expectError(await api("GET", "me/payment-methods", { key: demo.apiKey }), 401, "unauthorized");
  expectError(await api("GET", "me/payment-methods", pm("garbage")), 401, "unauthorized");
  expectError(await api("GET", "me/payment-methods", pm(`pmt_${"a".repeat(40)}`)), 401, "unauthorized");
  expectError(await api("POST", "me/payment-methods/embed-token", pm("")), 401, "unauthorized");
});

test("a valid PM token on every other REST route and on GraphQL: 403 forbidden, never data", async () => {
  const c = await customer();
  const { token: tok } = await token(c);
  const wallet = /^\/me\/(payment-methods|subscriptions)/;
  const routes = restRoutes().filter((r) => !wallet.test(r.path));
  expect(routes.length).toBeGreaterThan(100);
  for (const r of routes) {
    const path = r.path.replace(/:[A-Za-z]+/g, "00000000-0000-4000-8000-000000000000").slice(1);
    const res = await api(r.method.toUpperCase(), path, { ...pm(tok), key: demo.apiKey, body: r.method === "get" || r.method === "delete" ? undefined : {}, validate: false });
    expect([r.method, r.path, res.status, res.body?.error?.code]).toEqual([r.method, r.path, 403, "forbidden"]);
    expect(JSON.stringify(res.body)).not.toContain(c);
  }
  const g = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-service-pm-token": tok, "x-api-key": demo.apiKey }, body: JSON.stringify({ query: "{ viewer { type } }" }) });
  const body = await g.json();
  expect(body.errors?.[0]?.extensions?.code).toBe("forbidden");
  expect(body.data ?? null).toBeNull();
});

test("wallet: vault a card (first is default), list, make another default, remove, events", async () => {
  const c = await customer();
  const { token: tok } = await token(c);
  expect((await api("GET", "me/payment-methods", pm(tok))).body.data).toEqual([]);
  const e = await api("POST", "me/payment-methods/embed-token", pm(tok));
  expect(e.status).toBe(201);
  expect(e.body.data).toMatchObject({ amount: 0, currency: "USD", merchantAccountId: demo.applicationId, environment: "sandbox" });
  for (const k of ["embedToken", "checkoutSessionId", "processorInstanceId", "hostedUrl", "embedUrl"]) expect(e.body.data).toHaveProperty(k);
  const first = await api("POST", "me/payment-methods/confirm", { ...pm(tok), body: { checkoutSessionId: e.body.data.checkoutSessionId, paymentToken: "tok_visa" } });
  expect(first.status).toBe(201);
  expect(first.body.data).toMatchObject({ methodType: "card", cardBrand: "visa", cardLastFour: "4242", isDefault: true, isActive: true, chargeable: true, source: "vault" });
  expect(first.body.data.id).toMatch(/^cpm_/);
  // the vault session is used once
  expectError(await api("POST", "me/payment-methods/confirm", { ...pm(tok), body: { checkoutSessionId: e.body.data.checkoutSessionId, paymentToken: "tok_visa" } }), 422, "session_not_open");
  const declined = await vault(tok, "tok_card_declined");
  expect([declined.status, declined.body.error.code, declined.body.error.details.reason]).toEqual([402, "payment_failed", "card_declined"]);
  const second = (await vault(tok)).body.data;
  expect(second.isDefault).toBe(false);
  const row = await t.deps.prisma.savedCard.findUniqueOrThrow({ where: { id: first.body.data.id } });
  expect(row.processorReference).toMatch(/^testvault_/);

  const list = (await api("GET", "me/payment-methods", pm(tok))).body.data;
  expect(list.map((x: any) => [x.id, x.isDefault])).toEqual([[first.body.data.id, true], [second.id, false]]);
  for (const k of ["id", "methodType", "cardBrand", "cardLastFour", "cardExpMonth", "cardExpYear", "isDefault", "isActive"]) expect(list[0]).toHaveProperty(k);

  const patched = await api("PATCH", `me/payment-methods/${second.id}`, { ...pm(tok), body: { isDefault: true } });
  expect([patched.status, patched.body.data.isDefault]).toEqual([200, true]);
  const defaults = await t.deps.prisma.savedCard.findMany({ where: { customerId: c, isDefault: true, deletedAt: null } });
  expect(defaults.map((d) => d.id)).toEqual([second.id]);
  expectError(await api("PATCH", `me/payment-methods/${second.id}`, { ...pm(tok), body: { isDefault: false } }), 422, "validation_error");
  expectError(await api("PATCH", `me/payment-methods/${second.id}`, { ...pm(tok), body: { cardBrand: "x" } }), 422, "validation_error");

  const del = await api("DELETE", `me/payment-methods/${first.body.data.id}`, pm(tok));
  expect([del.status, del.body.data]).toEqual([200, { id: first.body.data.id }]);
  expect((await t.deps.prisma.savedCard.findUniqueOrThrow({ where: { id: first.body.data.id } })).deletedAt).not.toBeNull();
  expect((await api("GET", "me/payment-methods", pm(tok))).body.data.map((x: any) => x.id)).toEqual([second.id]);
  expectError(await api("DELETE", `me/payment-methods/${first.body.data.id}`, pm(tok)), 404, "not_found");

  const types = (await t.deps.prisma.event.findMany({ where: { applicationId: demo.applicationId, type: { in: ["customer.payment_method_added", "customer.payment_method_removed", "payment.vaulted"] } } }))
    .filter((ev) => (ev.data as any).customerId === c)
    .map((ev) => ev.type)
    .sort();
  expect(types).toEqual(["customer.payment_method_added", "customer.payment_method_added", "customer.payment_method_removed", "payment.vaulted", "payment.vaulted"]);
  const added = await t.deps.prisma.event.findFirstOrThrow({ where: { type: "customer.payment_method_added", applicationId: demo.applicationId } });
  expect(added.data).toHaveProperty("customer");
});

test("cannot_remove_default while a subscription is active, trialing or past due; allowed otherwise", async () => {
  for (const status of ["active", "trialing", "past_due", "cancelled"]) {
    const c = await customer();
    await subscription(c, status);
    const { token: tok } = await token(c);
    const card = (await vault(tok)).body.data;
    const r = await api("DELETE", `me/payment-methods/${card.id}`, pm(tok));
    if (status === "cancelled") expect(r.status).toBe(200);
    else expectError(r, 409, "cannot_remove_default");
  }
});

test("another customer's card is 404; a card id of the wrong shape is 404", async () => {
  const a = await customer();
  const b = await customer();
  const ta = (await token(a)).token;
  const tb = (await token(b)).token;
  const card = (await vault(ta)).body.data;
  expectError(await api("PATCH", `me/payment-methods/${card.id}`, { ...pm(tb), body: { isDefault: true } }), 404, "not_found");
  expectError(await api("DELETE", `me/payment-methods/${card.id}`, pm(tb)), 404, "not_found");
  expectError(await api("DELETE", "me/payment-methods/%00", pm(tb)), 404, "not_found");
  expect((await api("GET", "me/payment-methods", pm(tb))).body.data).toEqual([]);
  // another customer's vault session cannot be confirmed
  const e = await api("POST", "me/payment-methods/embed-token", pm(ta));
  expectError(await api("POST", "me/payment-methods/confirm", { ...pm(tb), body: { checkoutSessionId: e.body.data.checkoutSessionId, paymentToken: "tok_visa" } }), 404, "session_not_found");
  expectError(await api("POST", "me/payment-methods/confirm", { ...pm(tb), body: { checkoutSessionId: "x", paymentToken: "tok_visa" } }), 404, "session_not_found");
  expectError(await api("POST", "me/payment-methods/confirm", { ...pm(tb), body: {} }), 422, "validation_error");
  expectError(await api("POST", "me/payment-methods/confirm", { ...pm(tb), raw: "[1,", validate: false }), 400, "invalid_json");
});

test("GET /me/subscriptions/{id}: the buyer read; other customer's or, with a bound token, other subscriptions 404", async () => {
  const c = await customer();
  const s1 = await subscription(c);
  const s2 = await subscription(c, "trialing");
  const free = (await token(c)).token;
  await vault(free);
  const r = await api("GET", `me/subscriptions/${s1.id}`, pm(free));
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ id: s1.id, status: "active", planReference: "pro", planName: "Pro plan", amount: 1500, quantity: 3, currency: "USD", interval: "monthly", failureCount: 0, cancelAtPeriodEnd: false, pendingAmount: null });
  expect(r.body.data.paymentMethod).toMatchObject({ cardBrand: "visa", cardLastFour: "4242" });
  expect((await api("GET", `me/subscriptions/${s2.id}`, pm(free))).status).toBe(200);
  const bound = (await token(c, s1.id)).token;
  expect((await api("GET", `me/subscriptions/${s1.id}`, pm(bound))).status).toBe(200);
  expectError(await api("GET", `me/subscriptions/${s2.id}`, pm(bound)), 404, "not_found");
  const stranger = (await token(await customer())).token;
  expectError(await api("GET", `me/subscriptions/${s1.id}`, pm(stranger)), 404, "not_found");
  expectError(await api("GET", "me/subscriptions/nope", pm(stranger)), 404, "not_found");
});

test("merchant routes: list, attach (not chargeable), pause/resume; scopes and tenants", async () => {
  const c = await customer();
  const attached = await api("POST", `customers/${c}/payment-methods`, { key: demo.apiKey, body: { cardBrand: "mastercard", cardLastFour: "5454", cardExpMonth: 7, cardExpYear: 2030 } });
  expect(attached.status).toBe(201);
  expect(attached.body.data).toMatchObject({ cardBrand: "mastercard", cardLastFour: "5454", chargeable: false, source: "merchant", isDefault: true, isActive: true });
  const id = attached.body.data.id;
  const paused = await api("POST", `customers/cus_${c}/payment-methods/${id}/pause`, { key: demo.apiKey });
  expect([paused.status, paused.body.data.isActive]).toEqual([200, false]);
  const resumed = await api("POST", `customers/${c}/payment-methods/${id}/resume`, { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });
  expect([resumed.status, resumed.body.data?.isActive, resumed.body.error]).toEqual([200, true, undefined]);

  for (const scopes of [["customers:read"], ["customer_payment_methods:read"]]) {
    const key = (await mintKeyVia(api, demo, scopes)).rawKey;
    const l = await api("GET", `customers/${c}/payment-methods`, { key });
    expect([l.status, l.body.data.map((x: any) => x.id)]).toEqual([200, [id]]);
    expectError(await api("POST", `customers/${c}/payment-methods/${id}/pause`, { key }), 403, "insufficient_scopes");
    expectError(await api("POST", `customers/${c}/payment-methods`, { key, body: { cardBrand: "visa", cardLastFour: "1111", cardExpMonth: 1, cardExpYear: 2031 } }), 403, "insufficient_scopes");
  }
  const none = (await mintKeyVia(api, demo, ["orders:read"])).rawKey;
  expectError(await api("GET", `customers/${c}/payment-methods`, { key: none }), 403, "insufficient_scopes");

  expectError(await api("GET", `customers/${c}/payment-methods`, { key: other.apiKey }), 404, "not_found");
  expectError(await api("POST", `customers/${c}/payment-methods`, { key: other.apiKey, body: { cardBrand: "visa", cardLastFour: "1111", cardExpMonth: 1, cardExpYear: 2031 } }), 404, "not_found");
  expectError(await api("POST", `customers/${c}/payment-methods/${id}/pause`, { key: other.apiKey }), 404, "not_found");
  const otherCustomer = await customer(other.apiKey);
  expectError(await api("POST", `customers/${otherCustomer}/payment-methods/${id}/pause`, { key: other.apiKey }), 404, "not_found");
  expectError(await api("POST", `customers/${c}/payment-methods/cpm_nope/pause`, { key: demo.apiKey }), 404, "not_found");

  for (const body of [{}, { cardBrand: "visa", cardLastFour: "12", cardExpMonth: 1, cardExpYear: 2031 }, { cardBrand: "visa", cardLastFour: "1234", cardExpMonth: 13, cardExpYear: 2031 }, { cardBrand: "visa", cardLastFour: "1234", cardExpMonth: 1, cardExpYear: "2031" }, [], "x"]) {
    const r = await api("POST", `customers/${c}/payment-methods`, { key: demo.apiKey, body });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  }
});

test("CORS on /me/*: the application's allowedOrigins only, preflight included", async () => {
  const { token: tok } = await token(await customer());
  const pre = await fetch(`${t.url}/api/v1/me/payment-methods`, { method: "OPTIONS", headers: { origin: "https://shop.example.com", "access-control-request-method": "GET", "access-control-request-headers": "x-service-pm-token" } });
  expect(pre.status).toBe(204);
  expect(pre.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
  expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("x-service-pm-token");
  const refusedPre = await fetch(`${t.url}/api/v1/me/payment-methods`, { method: "OPTIONS", headers: { origin: "https://evil.example.net", "access-control-request-method": "GET" } });
  expect(refusedPre.status).toBe(403);
  expect(refusedPre.headers.get("access-control-allow-origin")).toBeNull();

  const okGet = await api("GET", "me/payment-methods", { headers: { "x-service-pm-token": tok, origin: "https://shop.example.com" } });
  expect([okGet.status, okGet.headers.get("access-control-allow-origin")]).toEqual([200, "https://shop.example.com"]);
  const evil = await api("GET", "me/payment-methods", { headers: { "x-service-pm-token": tok, origin: "https://evil.example.net" } });
  expect(evil.headers.get("access-control-allow-origin")).toBeNull();

  // an origin another application lists is not allowed with this application's token
  await api("PATCH", `applications/${other.applicationId}`, { key: other.apiKey, body: { allowedOrigins: ["https://other-shop.example.org"] } });
  const cross = await api("GET", "me/payment-methods", { headers: { "x-service-pm-token": tok, origin: "https://other-shop.example.org" } });
  expect([cross.status, cross.headers.get("access-control-allow-origin")]).toEqual([200, null]);
  // merchant routes are not opened by the wallet CORS
  const merchant = await api("GET", `customers/${await customer()}`, { key: demo.apiKey, headers: { origin: "https://shop.example.com" } });
  expect(merchant.headers.get("access-control-allow-origin")).toBeNull();
});

test("GraphQL: merchant saved methods and client tokens, with the REST codes", async () => {
  const gql = gqlClient(t.url);
  const c = await customer();
  const tok = await gql(CreatePaymentMethodClientTokenDocument, { customerId: `cus_${c}` }, { key: demo.apiKey });
  expect(tok.data?.createPaymentMethodClientToken.token).toMatch(/^pmt_/);
  expect(tok.data?.createPaymentMethodClientToken.updateCardUrl).toBeNull();
  const card = await gql(AttachCustomerPaymentMethodDocument, { customerId: c, cardBrand: "amex", cardLastFour: "0005", cardExpMonth: 2, cardExpYear: 2031 }, { key: demo.apiKey });
  expect(card.data?.attachCustomerPaymentMethod).toMatchObject({ chargeable: false, source: "merchant", isDefault: true });
  const id = card.data!.attachCustomerPaymentMethod.id;
  expect((await gql(PauseCustomerPaymentMethodDocument, { customerId: c, id }, { key: demo.apiKey })).data?.pauseCustomerPaymentMethod.isActive).toBe(false);
  expect((await gql(ResumeCustomerPaymentMethodDocument, { customerId: c, id }, { key: demo.apiKey })).data?.resumeCustomerPaymentMethod.isActive).toBe(true);
  const list = await gql(CustomerPaymentMethodsDocument, { customerId: c }, { key: demo.apiKey });
  expect(list.data?.customerPaymentMethods.map((x) => x.id)).toEqual([id]);
  expect(codeOf(await gql(CustomerPaymentMethodsDocument, { customerId: c }, { key: other.apiKey }))).toBe("not_found");
  const none = (await mintKeyVia(api, demo, ["orders:read"])).rawKey;
  expect(codeOf(await gql(CustomerPaymentMethodsDocument, { customerId: c }, { key: none }))).toBe("insufficient_scopes");
  expect(codeOf(await gql(CreatePaymentMethodClientTokenDocument, { customerId: c }, { key: none }))).toBe("insufficient_scopes");
  expect(codeOf(await gql(AttachCustomerPaymentMethodDocument, { customerId: c, cardBrand: "x", cardLastFour: "12", cardExpMonth: 2, cardExpYear: 2031 }, { key: demo.apiKey }))).toBe("validation_error");
});

test("the vault session never becomes an order through the checkout completion route", async () => {
  const { token: tok } = await token(await customer());
  const e = await api("POST", "me/payment-methods/embed-token", pm(tok));
  const r = await api("POST", `checkout-sessions/${e.body.data.checkoutSessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", email: "x@example.com" } });
  expectError(r, 422, "session_not_open");
  expect(await t.deps.prisma.order.count({ where: { applicationId: demo.applicationId, checkoutSessionId: e.body.data.checkoutSessionId } })).toBe(0);
});

test("bad input on the wallet routes is a 4xx, never a 5xx", async () => {
  const c = await customer();
  const { token: tok } = await token(c);
  const bodies: unknown[] = [[], "x", 1, null, { isDefault: "true" }, { checkoutSessionId: 5, paymentToken: [] }, { checkoutSessionId: "a".repeat(5000), paymentToken: "tok_visa" }, { paymentToken: "\u0000" }];
  for (const body of bodies) {
    for (const [method, path] of [["PATCH", "me/payment-methods/cpm_x"], ["POST", "me/payment-methods/confirm"], ["POST", "payment-methods/client-token"]] as const) {
      const r = await api(method, path, { ...pm(tok), ...(path.startsWith("me/") ? {} : { key: demo.apiKey, headers: {} }), body, validate: false });
      expect([method, path, JSON.stringify(body), r.status < 500 && r.status >= 400]).toEqual([method, path, JSON.stringify(body), true]);
    }
  }
  for (const id of ["%00", "cpm_%F0%9F%98%80", "a".repeat(300)]) {
    expectError(await api("DELETE", `me/payment-methods/${id}`, pm(tok)), 404, "not_found");
    expectError(await api("GET", `me/subscriptions/${id}`, pm(tok)), 404, "not_found");
  }
});

postgresPassTest("one default per customer under concurrent make-default calls (PostgreSQL)", async () => {
  const c = await customer();
  const { token: tok } = await token(c);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await vault(tok)).body.data.id);
  const rs = await Promise.all(ids.map((id) => api("PATCH", `me/payment-methods/${id}`, { ...pm(tok), body: { isDefault: true } })));
  expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  expect(await t.deps.prisma.savedCard.count({ where: { customerId: c, isDefault: true, deletedAt: null } })).toBe(1);
});

test("guessing PM tokens is limited per address like bad API keys (429 rate_limited)", async () => {
  const small = (await startTestApp({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3/5m" } }))!;
  try {
    const call = client(small.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call("GET", "me/payment-methods", { headers: { "x-service-pm-token": `pmt_${String(i).repeat(40)}` }, validate: false })).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
  } finally {
    await small.close();
  }
});

test("Idempotency-Key under a PM token is per token: another buyer's same key never replays the first one's answer", async () => {
  const a = (await token(await customer())).token;
  const b = (await token(await customer())).token;
  const ra = await api("POST", "me/payment-methods/embed-token", { ...pm(a), idem: "same-key" });
  const again = await api("POST", "me/payment-methods/embed-token", { ...pm(a), idem: "same-key" });
  expect(again.body.data.checkoutSessionId).toBe(ra.body.data.checkoutSessionId);
  const rb = await api("POST", "me/payment-methods/embed-token", { ...pm(b), idem: "same-key" });
  expect(rb.status).toBe(201);
  expect(rb.body.data.checkoutSessionId).not.toBe(ra.body.data.checkoutSessionId);
});
