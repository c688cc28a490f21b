// Statement counts of the reads and writes issue 36 moved from Prisma's raw SQL to Kysely (same statements): one
// renewal of a due subscription, an order's timeline page (first and keyset pages), a quote read by id and by its
// buyer link's token. On PostgreSQL, where every statement is counted (helpers/statements.ts).
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { makeCtx } from "../src/shared/context";
import { runRenewals } from "../src/subscriptions/renewals.service";
import { notStarted, pgTest, startPgApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { seedOrder } from "./helpers/orders";
import { kindOf, statementsOf } from "./helpers/statements";
import { seedDueSubscriptions } from "./helpers/subscriptions";

const due = new Date("2026-06-01T00:00:00.000Z");
let t: TestApp | null;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = await startPgApp({ worker: false, clock: new FixedClock(new Date(due.getTime() + 60_000)), env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } });
  if (!t) return; // no PostgreSQL: every test below is registered as skipped
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const kinds = (s: string[]) => s.map(kindOf);

pgTest("one renewal of a due subscription: its statements, by kind", async () => {
  if (!t) throw notStarted();
  await seedDueSubscriptions(t.deps.prisma, { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }, 1, due, "count");
  const run = await statementsOf(() => runRenewals(makeCtx(t!.deps), { batch: 1, concurrency: 1 }));
  expect(run.result).toMatchObject({ renewed: 1, declined: 0, failed: 0 });
  const sub = await t.deps.prisma.subscription.findFirstOrThrow({ where: { planReference: "count" } });
  expect([sub.status, sub.currentPeriodEnd.toISOString(), sub.leaseOwner]).toEqual(["active", "2026-07-01T00:00:00.000Z", null]);
  const order = await t.deps.prisma.order.findFirstOrThrow({ where: { subscriptionId: sub.id }, include: { lineItems: true, history: { orderBy: { seq: "asc" } }, payments: true } });
  expect(order).toMatchObject({ source: "renewal", total: 1000, subtotal: 1000, currency: "USD", email: expect.stringMatching(/^seed-count-1@/), metadata: { subscriptionId: sub.id, purpose: "renewal" } });
  expect(order.lineItems.map((l) => [l.type, l.referenceId, l.unitPrice, l.quantity, l.metadata])).toEqual([["subscription", "count", 1000, 1, { interval: "monthly" }]]);
  expect(order.history.map((h) => [h.fromStatus, h.toStatus])[0]).toEqual([null, "pending"]);
  expect(order.payments).toHaveLength(1);
  // the claim, the connector and card reads, the pending payment's transaction, the one that records the charge
  // (order with its line and history row in one statement), the lease's release
  expect(kinds(run.statements)).toEqual([
    "UPDATE Subscription",
    "SELECT Connector",
    "SELECT SavedCard",
    "BEGIN",
    "INSERT Payment",
    "SELECT Environment",
    "WITH … INSERT Event, INSERT WebhookDelivery",
    "COMMIT",
    "BEGIN",
    "WITH … INSERT Order, INSERT OrderLineItem, INSERT OrderStatusHistory, UPDATE Payment",
    "WITH … UPDATE Payment, INSERT Transaction",
    "WITH … UPDATE Order, INSERT OrderStatusHistory",
    "WITH … UPDATE Order, INSERT OrderStatusHistory",
    "WITH … UPDATE Subscription, INSERT SubscriptionStatusHistory",
    "WITH … INSERT Email, INSERT Event, INSERT WebhookDelivery",
    "COMMIT",
    "UPDATE Subscription",
  ]);
});

pgTest("a timeline page and the next one: one UNION ALL statement each", async () => {
  if (!t) throw notStarted();
  const { order } = await seedOrder(t, demo, { lines: [{ quantity: 3 }] });
  const row = { orderId: order.id, actorType: "system", source: "state_machine" };
  await t.deps.prisma.orderStatusHistory.createMany({ data: [{ ...row, fromStatus: null, toStatus: "pending" }, { ...row, fromStatus: "pending", toStatus: "processing" }] });
  await api("GET", `orders/${order.id}/timeline?limit=1`, { key: demo.apiKey }); // principal cache warm
  const first = await statementsOf(() => api("GET", `orders/${order.id}/timeline?limit=1`, { key: demo.apiKey }));
  expect(first.result.status).toBe(200);
  const cursor = first.result.body.meta.pagination.cursor;
  expect(cursor).toEqual(expect.any(String));
  const next = await statementsOf(() => api("GET", `orders/${order.id}/timeline?limit=1&cursor=${cursor}`, { key: demo.apiKey }));
  expect(next.result.status).toBe(200);
  expect(next.result.body.data[0].id).not.toBe(first.result.body.data[0].id);
  // the order's tenant check, then the page (a UNION ALL of the three sources)
  for (const page of [first, next]) {
    expect(kinds(page.statements)).toEqual(["SELECT Order", "SELECT OrderStatusHistory"]);
    expect(page.statements[1]).toMatch(/UNION ALL/i);
  }
});

pgTest("a quote read by id and by its buyer link: one statement each", async () => {
  if (!t) throw notStarted();
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "count@example.com", items: [{ name: "Widget", unitPrice: 1500, quantity: 2 }] } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  await api("GET", `quotes/${q.id}`, { key: demo.apiKey }); // warm
  const byId = await statementsOf(() => api("GET", `quotes/${q.id}`, { key: demo.apiKey }));
  expect(byId.result.status).toBe(200);
  const byToken = await statementsOf(() => api("GET", `quote-links/${q.shareToken}`));
  expect(byToken.result.status).toBe(200);
  // the quote with its customer, application, revisions with their lines, comments and tax table
  expect(byId.statements).toHaveLength(1);
  expect(byToken.statements).toHaveLength(1);
  expect(byToken.statements[0]).toMatch(/"shareTokenHash"/);
});
