// The order's edges in the graph (issue 37): Order.customer / payments / invoices / fulfillments / returns /
// subscription / timeline, Payment.order / transactions, Customer.orders / subscriptions / paymentMethods,
// Subscription.customer / orders / paymentMethod. Statement budgets on PostgreSQL (a page of 50 orders with its edges
// costs what a page of 5 costs), each edge's data on both databases, and a missing scope failing one edge alone.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { cardCheckout } from "./helpers/receivables";
import { kindOf, statementsOf } from "./helpers/statements";
import {
  CustomerEdgesDocument,
  type CustomerEdgesQuery,
  OrderAllEdgesDocument,
  OrdersWithEdgesDocument,
  OrderTimelineEdgeDocument,
  PaymentEdgesDocument,
  PaymentsWithEdgesDocument,
  QuoteCustomerOrdersPaymentsDocument,
  QuotesCustomersOrdersDocument,
  SubscriptionEdgesDocument,
  SubscriptionsOrdersDocument,
} from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

const N = 60;
const STATUSES = ["processing", "fulfilled", "pending"] as const;
const base = new Date(Date.UTC(2026, 0, 1));
const minute = (i: number) => new Date(base.getTime() + i * 60_000);
const seeded = { customers: [] as string[], orders: [] as string[], payments: [] as string[], subscriptionId: "", cardId: "", invoiceOrderId: "", returnOrderId: "" };
let checkout: { orderId: string; paymentId: string };
const cred = () => ({ key: demo.apiKey });

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
  const db = t.deps.prisma;
  const tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  for (let i = 0; i < 6; i++) seeded.customers.push((await db.customer.create({ data: { ...tenant, email: `edges${i}@example.com`, createdAt: minute(-10 + i) } })).id);
  // N orders, oldest first, one a minute: customer i % 6, a captured card payment with its transaction, a fulfillment
  for (let i = 0; i < N; i++) {
    const o = await db.order.create({
      data: {
        ...tenant,
        status: STATUSES[i % 3],
        paymentStatus: i % 3 === 2 ? "pending" : "captured",
        deliveryState: i % 3 === 1 ? "delivered" : null,
        currency: "USD",
        subtotal: 1000 + i,
        total: 1000 + i,
        email: `edges${i % 6}@example.com`,
        customerId: seeded.customers[i % 6],
        createdAt: minute(i),
        lineItems: { create: [{ name: `Line ${i}`, unitPrice: 1000 + i, quantity: 1, requiresShipping: true, position: 0 }] },
      },
      include: { lineItems: true },
    });
    seeded.orders.push(o.id);
    const p = await db.payment.create({ data: { ...tenant, orderId: o.id, status: "captured", amount: o.total, capturedAmount: o.total, currency: "USD", method: "card", processor: "test", createdAt: minute(i) } });
    seeded.payments.push(p.id);
    await db.transaction.create({ data: { paymentId: p.id, type: "capture", status: "succeeded", amount: p.amount, currency: "USD", createdAt: minute(i) } });
    await db.fulfillment.create({ data: { ...tenant, orderId: o.id, status: "completed", createdAt: minute(i), lines: { create: [{ lineItemId: o.lineItems[0].id, quantity: 1 }] } } });
    if (i === 0) {
      seeded.returnOrderId = o.id;
      await db.orderReturn.create({ data: { ...tenant, orderId: o.id, status: "requested", lines: { create: [{ lineItemId: o.lineItems[0].id, quantity: 1 }] } } });
    }
  }
  // an issued Net-N invoice on order 1; a subscription of customer 0 that renewed into orders 0 and 6; its default card
  seeded.invoiceOrderId = seeded.orders[1];
  await db.payment.create({ data: { ...tenant, orderId: seeded.orders[1], status: "authorized", amount: 500, authorizedAmount: 500, currency: "USD", method: "net30", processor: "invoice_terms", invoiceNumber: "INV-EDGE-1" } });
  const s = await db.subscription.create({
    data: { ...tenant, customerId: seeded.customers[0], status: "active", planReference: "edges-plan", interval: "monthly", amount: 1000, currency: "USD", currentPeriodStart: base, currentPeriodEnd: minute(60 * 24 * 30) },
  });
  seeded.subscriptionId = s.id;
  await db.order.updateMany({ where: { id: { in: [seeded.orders[0], seeded.orders[6]] } }, data: { subscriptionId: s.id } });
  seeded.cardId = (
    await db.savedCard.create({
      data: { id: "cpm_edges0", ...tenant, customerId: seeded.customers[0], cardBrand: "visa", cardLastFour: "4242", cardExpMonth: 12, cardExpYear: 2030, isDefault: true, chargeable: true, source: "checkout" },
    })
  ).id;
  // a real checkout (status history, transactions, activity) for the timeline and Payment.transactions
  checkout = await cardCheckout(api, demo.apiKey, "tok_visa", "edges-checkout@example.com");
}, 120_000);
afterAll(() => t?.close());

test("Order's edges answer the order's customer, payments with transactions, invoices, fulfillments, returns, subscription and timeline", async () => {
  const r = await gql(OrderAllEdgesDocument, { id: seeded.orders[0] }, cred());
  expect(r.errors).toBeNull();
  const o = r.data!.order;
  expect(o.customer).toEqual({ id: seeded.customers[0], email: "edges0@example.com" });
  expect(o.payments).toEqual([{ id: seeded.payments[0], orderId: o.id, method: "card", transactions: [expect.objectContaining({ paymentId: seeded.payments[0], type: "capture", status: "succeeded" })], order: { id: o.id } }]);
  expect(o.invoices).toEqual([]);
  expect(o.fulfillments).toEqual([expect.objectContaining({ orderId: o.id, status: "completed" })]);
  expect(o.returns).toEqual([expect.objectContaining({ orderId: o.id, status: "requested" })]);
  expect(o.subscription).toEqual({ id: seeded.subscriptionId, customerId: seeded.customers[0], planReference: "edges-plan" });
  expect(o.timeline?.edges.length).toBeGreaterThan(0);
  const inv = await gql(OrderAllEdgesDocument, { id: seeded.invoiceOrderId }, cred());
  expect(inv.data!.order.invoices).toEqual([expect.objectContaining({ orderId: seeded.invoiceOrderId, method: "net30", invoiceNumber: "INV-EDGE-1" })]);
  expect(inv.data!.order.payments).toHaveLength(2);
  expect(inv.data!.order.subscription).toBeNull();
});

test("Order.timeline pages like orderTimeline: first/after, each edge's cursor resumes after it", async () => {
  const all = await gql(OrderTimelineEdgeDocument, { id: checkout.orderId, first: 50 }, cred());
  expect(all.errors).toBeNull();
  const rows = all.data!.order.timeline!.edges;
  expect(rows.length).toBeGreaterThanOrEqual(2);
  const one = await gql(OrderTimelineEdgeDocument, { id: checkout.orderId, first: 1 }, cred());
  expect(one.data!.order.timeline!.pageInfo.hasNextPage).toBe(true);
  const next = await gql(OrderTimelineEdgeDocument, { id: checkout.orderId, first: 1, after: one.data!.order.timeline!.pageInfo.endCursor }, cred());
  expect(next.data!.order.timeline!.edges.map((e) => e.node.id)).toEqual([rows[1].node.id]);
});

test("Payment.order and Payment.transactions", async () => {
  const r = await gql(PaymentEdgesDocument, { id: checkout.paymentId }, cred());
  expect(r.errors).toBeNull();
  expect(r.data!.payment.order?.id).toBe(checkout.orderId);
  expect(r.data!.payment.transactions!.length).toBeGreaterThan(0);
  expect(r.data!.payment.transactions!.every((x) => x.paymentId === checkout.paymentId)).toBe(true);
});

test("Customer.orders pages newest first and filters by status, payment status, delivery and date range; Customer.subscriptions and paymentMethods", async () => {
  const id = seeded.customers[0];
  const mine = seeded.orders.filter((_, i) => i % 6 === 0).reverse(); // newest first
  const all = await gql(CustomerEdgesDocument, { id, first: 100 }, cred());
  expect(all.errors).toBeNull();
  const c = all.data!.customer;
  expect(c.orders!.edges.map((e) => e.node.id)).toEqual(mine);
  expect(c.subscriptions).toEqual([{ id: seeded.subscriptionId, customerId: id, planReference: "edges-plan" }]);
  expect(c.paymentMethods).toEqual([{ id: seeded.cardId, cardLastFour: "4242", isDefault: true }]);
  // pages of 3 through `after`
  const seen: string[] = [];
  let after: string | null | undefined = null;
  for (;;) {
    const p: NonNullable<CustomerEdgesQuery["customer"]["orders"]> = (await gql(CustomerEdgesDocument, { id, first: 3, after }, cred())).data!.customer.orders!;
    seen.push(...p.edges.map((e) => e.node.id));
    if (!p.pageInfo.hasNextPage) break;
    after = p.pageInfo.endCursor;
  }
  expect(seen).toEqual(mine);
  // filters (customer 0 has orders 0, 6, 12, ...: statuses processing; 6k % 3 = 0)
  const pick = async (v: Record<string, unknown>) => (await gql(CustomerEdgesDocument, { id, first: 100, ...v }, cred())).data!.customer.orders!.edges.map((e) => e.node.id);
  expect(await pick({ status: "processing" })).toEqual(mine);
  expect(await pick({ status: "pending" })).toEqual([]);
  const c1 = seeded.customers[1]; // orders 1, 7, 13, ...: fulfilled, captured, delivered
  const ones = seeded.orders.filter((_, i) => i % 6 === 1).reverse();
  const pick1 = async (v: Record<string, unknown>) => (await gql(CustomerEdgesDocument, { id: c1, first: 100, ...v }, cred())).data!.customer.orders!.edges.map((e) => e.node.id);
  expect(await pick1({ delivery: "delivered" })).toEqual(ones);
  expect(await pick1({ delivery: "not_shipped" })).toEqual([]);
  expect(await pick1({ paymentStatus: "captured" })).toEqual(ones);
  expect(await pick1({ paymentStatus: "pending" })).toEqual([]);
  expect(await pick({ createdAfter: minute(12).toISOString(), createdBefore: minute(30).toISOString() })).toEqual([seeded.orders[24], seeded.orders[18], seeded.orders[12]]);
  // a bad cursor is the list's validation error on that field
  const bad = await gql(CustomerEdgesDocument, { id, first: 3, after: "nope" }, cred());
  expect(bad.errors?.[0]).toMatchObject({ path: ["customer", "orders"], extensions: { code: "validation_error" } });
});

test("Subscription.customer, Subscription.orders and Subscription.paymentMethod", async () => {
  const r = await gql(SubscriptionEdgesDocument, { id: seeded.subscriptionId }, cred());
  expect(r.errors).toBeNull();
  const s = r.data!.subscription;
  expect(s.customer).toEqual({ id: seeded.customers[0], email: "edges0@example.com" });
  expect(s.orders!.edges.map((e) => e.node.id)).toEqual([seeded.orders[6], seeded.orders[0]]);
  expect(s.paymentMethod).toEqual({ id: seeded.cardId, cardLastFour: "4242" });
});

test("the orders list filters by a date range (GraphQL and REST)", async () => {
  const g = await gql(OrdersWithEdgesDocument, { first: 100, createdAfter: minute(10).toISOString(), createdBefore: minute(13).toISOString() }, cred());
  expect(g.errors).toBeNull();
  expect(g.data!.orders.edges.map((e) => e.node.id)).toEqual([seeded.orders[12], seeded.orders[11], seeded.orders[10]]);
  const r = await api("GET", `orders?createdAfter=${minute(10).toISOString()}&createdBefore=${minute(13).toISOString()}`, { key: demo.apiKey });
  expect(r.status).toBe(200);
  expect(r.body.data.map((o: { id: string }) => o.id)).toEqual([seeded.orders[12], seeded.orders[11], seeded.orders[10]]);
  expect((await api("GET", "orders?createdAfter=not-a-date", { key: demo.apiKey })).status).toBe(422);
});

test("a key without payments:read reads orders; Order.payments alone answers insufficient_scopes", async () => {
  const key = await mintKeyVia(api, demo, ["orders:read", "customers:read", "fulfillments:read"]);
  const r = await gql(OrdersWithEdgesDocument, { first: 3, customerId: seeded.customers[2] }, { key: key.rawKey });
  expect(r.data!.orders.edges).toHaveLength(3);
  for (const e of r.data!.orders.edges) {
    expect(e.node.customer?.id).toBe(seeded.customers[2]);
    expect(e.node.payments).toBeNull();
    expect(e.node.fulfillments).toHaveLength(1);
  }
  expect(r.errors).toHaveLength(3);
  for (const [i, err] of r.errors!.entries()) expect(err).toMatchObject({ path: ["orders", "edges", i, "node", "payments"], extensions: { code: "insufficient_scopes" } });
});

postgresPassTest("a page of 50 orders with customer, payments and fulfillments costs the same statements as a page of 5", async () => {
  const seededOnly = { createdBefore: minute(N).toISOString() }; // not the checkout's order
  await gql(OrdersWithEdgesDocument, { first: 5 }, cred()); // warm the key cache
  const counts: number[] = [];
  for (const first of [5, 50]) {
    const s = await statementsOf(() => gql(OrdersWithEdgesDocument, { first, ...seededOnly }, cred()));
    expect(s.result.errors).toBeNull();
    const edges = s.result.data!.orders.edges;
    expect(edges).toHaveLength(first);
    expect(edges.every((e) => e.node.customer?.id === e.node.customerId && e.node.payments!.length > 0 && e.node.fulfillments!.length === 1)).toBe(true);
    counts.push(s.statements.length);
    const kinds = s.statements.map(kindOf);
    for (const table of ["SELECT Customer", "SELECT Payment", "SELECT Fulfillment"]) expect(kinds.filter((k) => k === table)).toHaveLength(1);
  }
  expect(counts[1]).toBe(counts[0]);
  expect(counts[0]).toBe(BUDGET.ordersPage);
});

postgresPassTest("one quote with customer -> orders -> payments costs a small fixed number of statements", async () => {
  const q = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "edges3@example.com", items: [{ name: "x", unitPrice: 100, quantity: 1 }] } });
  expect(q.status).toBe(201);
  await gql(QuoteCustomerOrdersPaymentsDocument, { id: q.body.data.id, first: 2 }, cred());
  const counts: number[] = [];
  for (const first of [2, 10]) {
    const s = await statementsOf(() => gql(QuoteCustomerOrdersPaymentsDocument, { id: q.body.data.id, first }, cred()));
    expect(s.result.errors).toBeNull();
    const orders = s.result.data!.quote.customer!.orders!.edges;
    expect(orders).toHaveLength(first);
    expect(orders.every((e) => e.node.payments!.length === 1)).toBe(true);
    counts.push(s.statements.length);
  }
  expect(counts[1]).toBe(counts[0]);
  expect(counts[0]).toBe(BUDGET.quoteCustomerOrdersPayments);
});

postgresPassTest("Customer.orders under a page of quotes and Subscription.orders under a page of subscriptions: one statement for all parents", async () => {
  for (let i = 0; i < 6; i++) await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: `edges${i}@example.com`, items: [{ name: "x", unitPrice: 100, quantity: 1 }] } });
  await gql(QuotesCustomersOrdersDocument, { first: 2 }, cred());
  const counts: number[] = [];
  for (const first of [2, 6]) {
    const s = await statementsOf(() => gql(QuotesCustomersOrdersDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    for (const e of s.result.data!.quotes.edges) {
      const c = e.node.customer!;
      expect(c.orders!.edges).toHaveLength(3);
      expect(c.orders!.edges.every((o) => o.node.customerId === c.id)).toBe(true);
      expect(c.orders!.pageInfo.hasNextPage).toBe(true);
    }
    expect(s.statements.filter((x) => /row_number\(\) over/i.test(x))).toHaveLength(1);
    counts.push(s.statements.length);
  }
  expect(counts[1]).toBe(counts[0]);
  const subs = await statementsOf(() => gql(SubscriptionsOrdersDocument, { first: 5 }, cred()));
  expect(subs.result.errors).toBeNull();
  expect(subs.result.data!.subscriptions.edges.find((e) => e.node.id === seeded.subscriptionId)!.node.orders!.edges.map((e) => e.node.id)).toEqual([seeded.orders[6], seeded.orders[0]]);
  expect(subs.statements.filter((x) => /row_number\(\) over/i.test(x))).toHaveLength(1);
});

postgresPassTest("a page of 50 payments with order (and its customer) and transactions costs the same statements as a page of 5", async () => {
  await gql(PaymentsWithEdgesDocument, { first: 5 }, cred());
  const counts: number[] = [];
  for (const first of [5, 50]) {
    const s = await statementsOf(() => gql(PaymentsWithEdgesDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    const edges = s.result.data!.payments.edges;
    expect(edges).toHaveLength(first);
    expect(edges.every((e) => e.node.order?.id === e.node.orderId && e.node.transactions!.length > 0 && e.node.transactions!.every((x) => x.paymentId === e.node.id))).toBe(true);
    counts.push(s.statements.length);
  }
  expect(counts[1]).toBe(counts[0]);
  expect(counts[0]).toBe(BUDGET.paymentsPage);
});

/**
 * Measured on PostgreSQL; a change here is a change in what a dashboard's page costs. The page of orders: the orders
 * with their lines (relationJoins), customers, payments, fulfillments with their lines. The quote chain: the quote with
 * its customer (one statement: quote(id) joins it), the window statement picking the customer's orders, those orders
 * with lines, their payments. The page of payments: the payments, their orders with lines, the orders' customers, the
 * transactions.
 */
const BUDGET = { ordersPage: 4, quoteCustomerOrdersPayments: 4, paymentsPage: 4 };
