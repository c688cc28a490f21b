// Processor-proxy payments over REST: a charge minted on the test processor's page completes a checkout with
// paymentMethod processor_proxy, recorded with the charge's state; every 402 payment_failed reason; one charge pays one
// payment; the payment-methods route; tenancy and scopes of POST /test-processor/charges; bad input never 5xx.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("proxy-other");
});
afterAll(() => t?.close());

/** A cart of 5500 and a session offering processor_proxy (and card). */
async function session(allowedMethods = ["card", "processor_proxy"]) {
  const c = await api("POST", "carts", { key: demo.apiKey, body: { customerEmail: "buyer@example.com" } });
  await api("POST", `carts/${c.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 5500 } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: c.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", allowedMethods } });
  expect(s.status).toBe(201);
  return s.body.data.id as string;
}
async function charge(body: Record<string, unknown> = {}, key = demo.apiKey) {
  const r = await api("POST", "test-processor/charges", { key, body: { amount: 5500, currency: "USD", ...body } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; amount: number; currency: string; status: string };
}
const complete = (sessionId: string, processorTransactionId?: string) =>
  api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "processor_proxy", shippingAddress: ADDRESS, ...(processorTransactionId ? { processorTransactionId } : {}) } });

test("a captured charge completes the checkout: the order is paid, the payment records the charge", async () => {
  const s = await session();
  const methods = await api("GET", `checkout-sessions/${s}/payment-methods`);
  expect(methods.body.data.methods.map((m: any) => m.method)).toEqual(["card", "processor_proxy"]);
  const c = await charge();
  expect(c).toMatchObject({ amount: 5500, currency: "USD", status: "captured" });
  const done = await complete(s, c.id);
  expect(done.status).toBe(200);
  expect(done.body.data.paymentStatus).toBe("captured");
  const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data;
  expect(order).toMatchObject({ status: "processing", paymentStatus: "captured", capturedAmount: 5500 });
  const p = await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: done.body.data.paymentId } });
  expect(p).toMatchObject({ processorChargeId: c.id, processorPaymentId: c.id, method: "card", status: "captured", amount: 5500 });
});

test("an authorized charge records an authorized payment", async () => {
  const s = await session();
  const done = await complete(s, (await charge({ status: "authorized" })).id);
  expect(done.status).toBe(200);
  expect((await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data).toMatchObject({ paymentStatus: "authorized" });
});

test("each 402 payment_failed reason: unknown charge, another amount, another currency, a used charge, a failed charge; the session stays open", async () => {
  const used = await charge();
  expect((await complete(await session(), used.id)).status).toBe(200);
  const foreign = await charge({}, other.apiKey);
  const s = await session();
  const cases: [string, string][] = [
    [randomUUID(), "unknown_charge"],
    ["not-a-uuid", "unknown_charge"],
    [foreign.id, "unknown_charge"],
    [(await charge({ amount: 5499 })).id, "amount_mismatch"],
    [(await charge({ currency: "EUR" })).id, "currency_mismatch"],
    [used.id, "charge_already_used"],
    [(await charge({ status: "failed" })).id, "charge_failed"],
  ];
  for (const [id, reason] of cases) {
    const r = await complete(s, id);
    expect({ reason, status: r.status, code: r.body.error?.code, got: r.body.error?.details?.reason }).toEqual({ reason, status: 402, code: "payment_failed", got: reason });
  }
  // nothing was written by the refusals; the session still completes with a good charge
  expect(await t.deps.prisma.order.count({ where: { checkoutSessionId: s } })).toBe(0);
  expect((await complete(s, (await charge()).id)).status).toBe(200);
});

test("processorTransactionId is required; processor_proxy only where the session allows it", async () => {
  const s = await session();
  const missing = await complete(s);
  expect([missing.status, missing.body.error.code, missing.body.error.details.fields]).toEqual([422, "missing_required_field", ["processorTransactionId"]]);
  const cardOnly = await session(["card"]);
  const methods = await api("GET", `checkout-sessions/${cardOnly}/payment-methods`);
  expect(methods.body.data.methods.map((m: any) => m.method)).toEqual(["card"]);
  const refused = await complete(cardOnly, (await charge()).id);
  expect([refused.status, refused.body.error.code]).toEqual([422, "payment_method_not_allowed"]);
  // a session without allowedMethods offers the connected defaults, not processor_proxy (nor net30 without a customer)
  const c = await api("POST", "carts", { key: demo.apiKey, body: {} });
  await api("POST", `carts/${c.body.data.id}/items`, { key: demo.apiKey, body: { name: "A", unitPrice: 100 } });
  const d = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: c.body.data.id, returnUrl: "https://a.example.com", cancelUrl: "https://a.example.com" } });
  expect(d.body.data.allowedMethods).toEqual(["card"]);
});

test("the hosted checkout page never offers processor_proxy (the processor's own page completes it); the methods route does", async () => {
  const s = await session();
  const methods = await api("GET", `checkout-sessions/${s}/payment-methods`);
  expect(methods.body.data.methods.map((m: any) => m.method)).toEqual(["card", "processor_proxy"]);
  const html = await (await fetch(`${t.url}/checkout/${s}`)).text();
  expect(html).toContain('value="card"');
  expect(html).not.toContain("processor_proxy");
});

test("POST /test-processor/charges: scopes (403), publishable keys (403), production (404), bad input (422), never 5xx", async () => {
  const reader = (await mintKeyVia(api, demo, ["payments:read"])).rawKey;
  const r = await api("POST", "test-processor/charges", { key: reader, body: { amount: 100, currency: "USD" } });
  expect([r.status, r.body.error.code]).toEqual([403, "insufficient_scopes"]);
  const pk = (await mintKeyVia(api, demo, ["publishable", "tax_calculations:write"])).rawKey;
  expect((await api("POST", "test-processor/charges", { key: pk, body: { amount: 100, currency: "USD" } })).status).toBe(403);
  const prod = (await mintKeyVia(api, demo, ["payments:write"], demo.environments.production.id)).rawKey;
  const inProd = await api("POST", "test-processor/charges", { key: prod, body: { amount: 100, currency: "USD" } });
  expect(inProd.status).toBe(404);
  expect((await api("POST", "test-processor/charges", { body: { amount: 100, currency: "USD" } })).status).toBe(401);
  for (const body of [{}, { amount: 0, currency: "USD" }, { amount: 1.5, currency: "USD" }, { amount: 100, currency: "dollars" }, { amount: 100, currency: "USD", status: "pending" }, { amount: 100, currency: "USD", x: 1 }, { amount: "100", currency: "USD" }]) {
    const bad = await api("POST", "test-processor/charges", { key: demo.apiKey, body });
    expect({ body, status: bad.status, code: bad.body.error?.code }).toEqual({ body, status: 422, code: "validation_error" });
  }
  const s = await session();
  for (const body of [{ paymentMethod: "processor_proxy", processorTransactionId: "" }, { paymentMethod: "processor_proxy", processorTransactionId: 5 }, { paymentMethod: "processor_proxy", processorTransactionId: "x".repeat(201) }]) {
    const bad = await api("POST", `checkout-sessions/${s}/complete`, { body });
    expect(bad.status).toBe(422);
  }
});
