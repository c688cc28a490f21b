// Statement budgets of the hot paths, counted on the real PostgreSQL (every statement the process sends, BEGIN and
// COMMIT included, the rate limiter's too). Counts, not timings: a change that adds a round trip fails here.
import { createExtension, install, publishVersion } from "./helpers/extensions";
import { client } from "./helpers/http";
import { notStarted, pgTest, startPgApp, type TestApp } from "./helpers/app";
import { kindOf, statementsOf } from "./helpers/statements";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

// Where each budget stands (issue 10 asked for complete <= 15 and scenario <= 45; see bench/RESULTS.md): a change may only
// lower these numbers.
// whoami: 0 once the key is in the principal cache (1 when cold). The scenario's five keyed requests resolve the key from
// the same cache, as the service runs. The cart, each line and the session are one statement each without a
// transaction (each writes its events in the same statement, events/outbox.ts writingOutbox; the session reads its cart, lines and connector kinds first, in one statement: 2),
// complete 8: a returning buyer's order is placed in one statement without a transaction, the capture's payment move
// reads the order's payment facts and the order's move is written by the statement that completes the session (finish) (14 in all;
// the per-address bucket is batched, so often 7 and 13; complete 13 and 20 in all while the order took a transaction,
// the capture read and moved the order apart and the session read its connectors apart; 39 before
// the outbox rode in the commands' own statements, 44 with a key lookup per request).
const BUDGET = { whoami: 0, complete: 8, scenario: 14 };
const ADDRESS = { addressLine1: "1 Main St", addressLine2: "Suite 2", city: "Springfield", stateProvince: "IL", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2 },
  { name: "Gadget", unitPrice: 2500, quantity: 1 },
  { name: "Setup", unitPrice: 10000, quantity: 1, type: "service" },
];

let t: TestApp | null;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  // The per-credential bucket is spent in batches a timer sends (about 0 statements per request; bench/RESULTS.md,
  // issue 8): its timer could land inside a measured request, so it is off here. The checkout buckets, spent on
  // every call, stay on and are counted.
  t = await startPgApp({ worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
  if (!t) return; // no PostgreSQL: every test below is registered as skipped
  api = client(t.url);
  demo = await t.bootstrap();
  const settings = await api("PUT", "shipping-tax/settings", { key: demo.apiKey, body: { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }], taxRates: { US: { rateBps: 1000 } } } });
  expect(settings.status).toBe(200);
});
afterAll(() => t?.close());

const show = (statements: string[]) => statements.map((s, i) => `${i + 1}. ${kindOf(s)}`).join("\n");

/** The storefront scenario, statements counted per request. */
async function scenario() {
  const per: Record<string, string[]> = {};
  const step = async <T>(name: string, fn: () => Promise<T>) => {
    const { result, statements } = await statementsOf(fn);
    per[name] = statements;
    return result;
  };
  const cart = await step("cart", () => api("POST", "carts", { key: demo.apiKey, body: { customerEmail: "buyer@example.com" } }));
  expect(cart.status).toBe(201);
  for (const [i, line] of LINES.entries()) {
    const r = await step(`line ${i + 1}`, () => api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: line }));
    expect(r.status).toBe(201);
  }
  const s = await step("session", () => api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" } }));
  expect({ status: s.status, body: s.status === 201 ? null : s.body }).toEqual({ status: 201, body: null });
  const done = await step("complete", () => api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } }));
  expect(done.status).toBe(200);
  expect(done.body.data).toMatchObject({ paymentStatus: "captured" });
  return { per, done: done.body.data, cartId: cart.body.data.id as string };
}

pgTest(`whoami costs at most ${BUDGET.whoami} statement`, async () => {
  if (!t) throw notStarted();
  await api("GET", "whoami", { key: demo.apiKey }); // warm
  const { result, statements } = await statementsOf(() => api("GET", "whoami", { key: demo.apiKey }));
  expect(result.status).toBe(200);
  if (statements.length > BUDGET.whoami) throw new Error(`whoami: ${statements.length} statements > ${BUDGET.whoami}\n${show(statements)}`);
});

pgTest(`checkout complete costs at most ${BUDGET.complete} statements, the storefront scenario at most ${BUDGET.scenario}`, async () => {
  if (!t) throw notStarted();
  await scenario(); // warm: first-use reads (environment facts) are not the steady state
  const { per } = await scenario();
  const total = Object.values(per).reduce((n, s) => n + s.length, 0);
  const report = Object.entries(per).map(([k, s]) => `== ${k}: ${s.length}\n${show(s)}`).join("\n");
  if (per.complete.length > BUDGET.complete || total > BUDGET.scenario) throw new Error(`complete ${per.complete.length} (budget ${BUDGET.complete}), scenario ${total} (budget ${BUDGET.scenario})\n${report}`);
});

pgTest("a returning buyer's complete places the order in one statement without a transaction, and captures in one transaction", async () => {
  if (!t) throw notStarted();
  await scenario(); // the buyer's first order creates the customer: that one takes the transaction
  const { per } = await scenario();
  // the claim, the order, its payment and their events in one statement, before the only BEGIN
  const placing = per.complete.findIndex((sql) => /update "CheckoutSession" set "completionStartedAt"/i.test(sql));
  expect(per.complete[placing]).toMatch(/insert into "Order"[\s\S]*insert into "Payment"[\s\S]*insert into "Event"/i);
  expect(per.complete.findIndex((sql) => /^\s*BEGIN/i.test(sql))).toBeGreaterThan(placing);
  expect(per.complete.filter((sql) => /^\s*BEGIN/i.test(sql))).toHaveLength(1);
  // the capture's order move is written by the statement that completes the session (finish composes it), and no
  // other statement moves the order
  const completing = per.complete.filter((sql) => /update "CheckoutSession" set "status"/i.test(sql));
  expect(completing).toEqual([expect.stringMatching(/update "Order" set "status"[\s\S]*insert into "OrderStatusHistory"/i)]);
  expect(per.complete.filter((sql) => /update "Order" set "status"/i.test(sql))).toHaveLength(1);
});

pgTest("a transaction writes all its events, and their deliveries, in one statement; callers still get the event ids", async () => {
  if (!t) throw notStarted();
  const endpoint = await api("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: "https://hooks.example.com/q2c", enabledEvents: ["order.created", "payment.pending", "payment.captured", "cart.converted", "cart.item_added"] } });
  expect(endpoint.status).toBe(201);
  const { per, done, cartId } = await scenario();
  // The cart, each line and the session are one statement, which writes their events and deliveries too.
  for (const name of ["cart", "line 1", "line 2", "line 3"]) {
    expect({ name, statements: per[name].length }).toEqual({ name, statements: 1 });
    expect(per[name][0]).toMatch(/insert into "Event"[\s\S]*insert into "WebhookDelivery"/i);
  }
  expect(per.session.filter((sql) => /insert into "CheckoutSession"/i.test(sql))).toEqual([expect.stringMatching(/insert into "Event"/i)]);
  expect(per.session.filter((sql) => /^\s*(BEGIN|COMMIT)/i.test(sql))).toEqual([]);
  const cartEvents = (await api("GET", "events?limit=100", { key: demo.apiKey })).body.data.filter((e: any) => e.data.cartId === cartId);
  expect(cartEvents.map((e: any) => e.type).sort()).toEqual(["cart.checkout_started", "cart.converted", "cart.created", "cart.item_added", "cart.item_added", "cart.item_added", "order.created"]);
  // complete records order.created and payment.pending with the order (one statement), payment.captured, order.updated
  // and cart.converted in its transaction: one outbox statement each.
  const outbox = per.complete.filter((sql) => /insert into "Event"/i.test(sql));
  expect(outbox).toHaveLength(2);
  expect(per.complete.filter((sql) => /insert into "WebhookDelivery"/i.test(sql) && !/insert into "Event"/i.test(sql))).toEqual([]);
  expect(per.complete.some((sql) => /from[^;]*"WebhookEndpoint"/i.test(sql) && !/insert into "Event"/i.test(sql))).toBe(false);
  // Every event of the order is stored, and the subscribed ones have their delivery rows.
  const types = new Set((await api("GET", "events?limit=50", { key: demo.apiKey })).body.data.filter((e: any) => e.data.orderId === done.orderId).map((e: any) => e.type));
  expect([...types].sort()).toEqual(["cart.converted", "order.created", "order.updated", "payment.captured", "payment.pending"]);
  const deliveries = (await api("GET", `webhook-endpoints/${endpoint.body.data.endpoint?.id ?? endpoint.body.data.id}/deliveries?limit=50`, { key: demo.apiKey })).body.data;
  const delivered = new Set(deliveries.map((d: any) => d.eventType ?? d.event?.type ?? d.type));
  for (const type of ["order.created", "payment.pending", "payment.captured", "cart.converted"]) expect(delivered).toContain(type);
  expect(deliveries.filter((d: any) => (d.eventType ?? d.event?.type ?? d.type) === "cart.item_added").length).toBeGreaterThanOrEqual(3);
  expect(delivered).not.toContain("order.updated");
  // A command that needs its event's id at once (the test ping reads its own delivery) still has it.
  const ping = await api("POST", `webhook-endpoints/${endpoint.body.data.endpoint?.id ?? endpoint.body.data.id}/test`, { key: demo.apiKey });
  expect(ping.status).toBe(202);
  const pingEvent = await api("GET", `events/${ping.body.data.eventId}`, { key: demo.apiKey });
  expect(pingEvent.body.data).toMatchObject({ id: ping.body.data.eventId, type: "webhook.ping" });
});

pgTest("GET /extension-installations: the same statements for three installs as for one; suspend and reactivate send nothing onto a busy connection", async () => {
  if (!t) throw notStarted();
  const pub = await t.otherWorkspace("budget-publisher");
  const env = demo.environments.sandbox.id;
  const installOne = async (name: string) => {
    const ext = await createExtension(api, pub.dashboardToken, { name, scopes: ["orders:read"] });
    const version = await publishVersion(api, pub.dashboardToken, ext.id);
    await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, env);
  };
  const list = () => api("GET", "extension-installations", { key: demo.apiKey });
  await installOne("Budget one");
  await list(); // the key in the principal cache, as for every measured request here
  const one = await statementsOf(list);
  expect(one.result.body.data).toHaveLength(1);
  await installOne("Budget two");
  await installOne("Budget three");
  const three = await statementsOf(list);
  expect(three.result.body.data).toHaveLength(3);
  expect(show(three.statements)).toBe(show(one.statements));

  // suspending and reactivating answer the install's view from inside their transaction: its reads go one at a
  // time on the transaction's connection, never onto a busy one
  const ext = (three.result.body.data as { extensionId: string }[])[0].extensionId;
  const merchant = { token: demo.dashboardToken, headers: { "x-service-application-id": demo.applicationId, "x-service-environment-id": env } };
  for (const status of ["suspended", "active"]) {
    const toggled = await statementsOf(() => api("POST", `extensions/${ext}/suspend`, merchant));
    expect([toggled.result.status, toggled.result.body.data.status]).toEqual([200, status]);
    expect(toggled.busy.map(kindOf)).toEqual([]);
  }
});

pgTest("GraphQL orders with their payments: a page of 50 costs the statements a page of 5 does (Order.payments is batched)", async () => {
  if (!t) throw notStarted();
  const shop = await t.otherWorkspace("budget-order-payments");
  const tenant = { applicationId: shop.applicationId, environmentId: shop.environments.sandbox.id };
  const db = t.deps.prisma;
  const base = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < 50; i++) {
    const o = await db.order.create({ data: { ...tenant, status: "processing", paymentStatus: "captured", currency: "USD", subtotal: 1000 + i, total: 1000 + i, createdAt: new Date(base + i * 60_000) } });
    await db.payment.createMany({
      data: [0, 1].map((n) => ({ ...tenant, orderId: o.id, status: "captured", amount: 500 + n, capturedAmount: 500 + n, currency: "USD", method: "external", processor: "manual", createdAt: new Date(base + i * 60_000 + n * 1000) })),
    });
  }
  const query = "query($limit: Int) { orders(limit: $limit) { nodes { id total payments { id amount status } } } }";
  const page = (limit: number) =>
    fetch(`${t!.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": shop.apiKey }, body: JSON.stringify({ query, variables: { limit } }) }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as { data?: { orders: { nodes: { id: string; total: number; payments: { id: string; amount: number }[] }[] } }; errors?: unknown } }),
    );
  await page(5); // warm: the key in the principal cache, the environment's facts read
  const five = await statementsOf(() => page(5));
  const fifty = await statementsOf(() => page(50));
  expect([five.result.status, five.result.body.errors, fifty.result.status, fifty.result.body.errors]).toEqual([200, undefined, 200, undefined]);
  const nodes = fifty.result.body.data!.orders.nodes;
  expect(nodes).toHaveLength(50);
  // each order has its own two payments, newest first
  expect(nodes.map((n) => n.payments.map((p) => p.amount))).toEqual(nodes.map(() => [501, 500]));
  expect(new Set(nodes.flatMap((n) => n.payments.map((p) => p.id))).size).toBe(100);
  expect(five.result.body.data!.orders.nodes.map((n) => n.id)).toEqual(nodes.slice(0, 5).map((n) => n.id));
  expect(show(fifty.statements)).toBe(show(five.statements));
});
