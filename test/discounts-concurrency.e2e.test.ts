// Redemption and charge races on the real PostgreSQL: 50 parallel completions of 50 carts sharing a code limited to 10
// make exactly 10 discounted orders (the rest 422 discount_invalid over_limit, nothing ordered); two sessions racing to
// record one processor-proxy charge make one payment with it.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { notStarted, pgTest, startPgApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp | null;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

beforeAll(async () => {
  t = await startPgApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_CHECKOUT_PER_IP: "off" } });
  if (!t) return; // no PostgreSQL: every test below is registered as skipped
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

async function session(extra: Record<string, unknown> = {}) {
  const c = await api("POST", "carts", { key: demo.apiKey, body: { customerEmail: "buyer@example.com" } });
  await api("POST", `carts/${c.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1000 } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: c.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", ...extra } });
  expect(s.status).toBe(201);
  return s.body.data.id as string;
}

pgTest("50 parallel completions with a code limited to 10: exactly 10 discounted orders", async () => {
  if (!t) throw notStarted();
  const d = await api("POST", "discounts", { key: demo.apiKey, body: { code: "RACE10", type: "percent", value: 50, maxRedemptions: 10 } });
  expect(d.status).toBe(201);
  const sessions: string[] = [];
  for (let i = 0; i < 50; i++) sessions.push(await session({ discountCode: "race10" }));
  const results = await Promise.all(sessions.map((s) => api("POST", `checkout-sessions/${s}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } })));
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status !== 200);
  expect(ok).toHaveLength(10);
  expect(refused.map((r) => [r.status, r.body.error.code, r.body.error.details.reason])).toEqual(Array(40).fill([422, "discount_invalid", "over_limit"]));
  const orders = await t.deps.prisma.order.findMany({ where: { checkoutSessionId: { in: sessions } } });
  expect(orders).toHaveLength(10);
  expect(orders.every((o) => o.discountCode === "RACE10" && o.total === 500 && o.discountTotal === 500)).toBe(true);
  expect((await api("GET", `discounts/${d.body.data.id}`, { key: demo.apiKey })).body.data.redemptionCount).toBe(10);
  expect(await t.deps.prisma.discountRedemption.count({ where: { discountId: d.body.data.id } })).toBe(10);
});

pgTest("two sessions racing to record one processor-proxy charge: one payment", async () => {
  if (!t) throw notStarted();
  for (let round = 0; round < 5; round++) {
    const [a, b] = [await session({ allowedMethods: ["processor_proxy"] }), await session({ allowedMethods: ["processor_proxy"] })];
    const charge = await api("POST", "test-processor/charges", { key: demo.apiKey, body: { amount: 1000, currency: "USD" } });
    const body = { paymentMethod: "processor_proxy", processorTransactionId: charge.body.data.id, shippingAddress: ADDRESS };
    const results = await Promise.all([a, b].map((s) => api("POST", `checkout-sessions/${s}/complete`, { body })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
    expect(results.find((r) => r.status === 402)!.body.error.details.reason).toBe("charge_already_used");
    const paid = await t.deps.prisma.payment.findMany({ where: { processorChargeId: charge.body.data.id } });
    expect(paid).toHaveLength(1);
    expect(paid[0].status).toBe("captured");
  }
});
