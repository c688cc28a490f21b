// Idempotency-Key on GraphQL mutations: a retried refundPayment refunds once; the same key with other variables is
// 422 idempotency_key_reused; a replayed secret-minting mutation returns the secret as null; queries ignore the key.
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
beforeAll(async () => void ({ t, api, demo } = await startWithDemo()));
afterAll(() => t?.close());

async function gql(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as any };
}

async function capturedPayment() {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "b@example.com" } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 5000, requiresShipping: false } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://x.test/ok", cancelUrl: "https://x.test/no" } });
  const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
  expect(done.status).toBe(200);
  return done.body.data.paymentId as string;
}

const REFUND = "mutation($id: ID!, $amount: Int) { refundPayment(id: $id, amount: $amount) { id refundedAmount status } }";

test("a retried refundPayment with the same Idempotency-Key refunds once and replays the first result", async () => {
  const id = await capturedPayment();
  const key = { "x-api-key": demo.apiKey, "idempotency-key": "refund-1" };
  const first = await gql(REFUND, { id, amount: 1000 }, key);
  expect(first.body.data.refundPayment).toMatchObject({ id, refundedAmount: 1000 });
  expect(first.replayed).toBeNull();
  const again = await gql(REFUND, { id, amount: 1000 }, key);
  expect(again.replayed).toBe("true");
  expect(again.body).toEqual(first.body);
  const p = await api("GET", `payments/${id}`, { key: demo.apiKey });
  expect(p.body.data.refundedAmount).toBe(1000);
  // Without the header the same mutation runs again.
  const fresh = await gql(REFUND, { id, amount: 1000 }, { "x-api-key": demo.apiKey });
  expect(fresh.body.data.refundPayment.refundedAmount).toBe(2000);
  // The same key with other variables is refused and changes nothing.
  const reused = await gql(REFUND, { id, amount: 500 }, key);
  expect(reused.status).toBe(422);
  expect(reused.body.errors[0].extensions.code).toBe("idempotency_key_reused");
  expect((await api("GET", `payments/${id}`, { key: demo.apiKey })).body.data.refundedAmount).toBe(2000);
  // Keys are per credential: a REST call with the same key string is another record (REST and GraphQL hash differently anyway).
});

test("a replayed createApiKey returns the key without its secret; nothing stored holds it", async () => {
  const headers = { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id, "idempotency-key": "gql-key-1" };
  const q = "mutation { createApiKey(name: \"gql\", scopes: [\"carts:read\"]) { rawKey apiKey { id keyPrefix } } }";
  const first = await gql(q, {}, headers);
  const raw = first.body.data.createApiKey.rawKey as string;
  expect(raw).toMatch(/^sk_sandbox_/);
  const again = await gql(q, {}, headers);
  expect(again.replayed).toBe("true");
  expect(again.body.data.createApiKey).toEqual({ rawKey: null, apiKey: first.body.data.createApiKey.apiKey });
  const stored = await t.deps.prisma.idempotencyKey.findMany({ where: { key: "gql-key-1" } });
  expect(stored).toHaveLength(1);
  expect(JSON.stringify(stored[0].responseBody)).not.toContain(raw.slice(-20));
});

test("queries ignore the header; a failed mutation releases the key for a corrected retry", async () => {
  const v = await gql("{ viewer { type } }", {}, { "x-api-key": demo.apiKey, "idempotency-key": "q-1" });
  const v2 = await gql("{ viewer { type } }", {}, { "x-api-key": demo.apiKey, "idempotency-key": "q-1" });
  expect(v.body.data.viewer.type).toBe("api_key");
  expect(v2.replayed).toBeNull();
  const id = await capturedPayment();
  const key = { "x-api-key": demo.apiKey, "idempotency-key": "refund-bad" };
  const bad = await gql(REFUND, { id, amount: -5 }, key);
  expect(bad.body.errors[0].extensions.code).toBe("validation_error");
  const good = await gql(REFUND, { id, amount: -5 }, key);
  expect(good.replayed).toBeNull(); // not stored: it ran again (and failed again)
});
