// The quote's edges (issue 37): Quote.currentRevision, .checkoutSession, .order, .activity, Order.quote and
// Customer.quotes answer the right rows, each edge checks its own scope (a key without orders:read reads the quote
// and loses Quote.order alone), and a dashboard's page of quotes with customer, current revision total and last
// activity costs the same statements for 50 quotes as for 5 (PostgreSQL).
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { postgresPassTest, startTestApp, type TestApp } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { kindOf, statementsOf } from "./helpers/statements";
import {
  CustomerQuotesDocument,
  OrderQuoteDocument,
  QuoteActivityPageDocument,
  QuoteEdgesDocument,
  QuoteListDashboardDocument,
  QuoteListPartsDocument,
  QuoteOrderOnlyDocument,
} from "./generated/graphql";
import { EDGES } from "./edges/quotes";
import type { EdgeIds, EdgeWorld } from "./edges/types";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
const cred = () => ({ key: demo.apiKey });
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const soon = new Date(Date.now() + 2 * 86_400_000).toISOString();
const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
/** the converted quote: issued, commented, accepted at the link and paid */
let converted: { id: string; number: string; customerId: string; token: string; revisionId: string; sessionId: string; orderId: string };
const issuedIds: string[] = [];

/** A quote issued, commented by the buyer, accepted at the link and paid: every edge of a quote has its row. */
async function convertedQuote(key: string, email: string) {
  const c = await api("POST", "quotes", { key, body: { customerEmail: email, companyName: "Edge Co", items: [{ name: "Widget", unitPrice: 2500, quantity: 2 }], expiresAt: later } });
  expect(c.status).toBe(201);
  const issued = await api("POST", `quotes/${c.body.data.id}/issue`, { key, body: {} });
  expect(issued.status).toBe(200);
  const token = issued.body.data.quote.shareToken as string;
  expect((await api("POST", `quote-links/${token}/comments`, { body: { body: "Can you ship by Friday?", authorName: "Bea" } })).status).toBe(201);
  const accepted = await api("POST", `quote-links/${token}/accept`, { body: { revisionId: issued.body.data.revision.id, acceptedByName: "Bea", acceptedByEmail: "bea@example.com" } });
  expect(accepted.status).toBe(200);
  const sessionId = accepted.body.data.checkoutUrl.split("/").pop() as string;
  const paid = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
  if (paid.status !== 200) throw new Error(`completing ${email}'s checkout: ${paid.status} ${JSON.stringify(paid.body)}`);
  return { id: c.body.data.id as string, number: c.body.data.number as string, customerId: c.body.data.customerId as string, token, revisionId: issued.body.data.revision.id as string, sessionId, orderId: paid.body.data.orderId as string };
}

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
  const key = demo.apiKey;
  // the converted quote first (oldest): a page of 50 is the 50 issued quotes below
  converted = await convertedQuote(key, "edges-buyer@example.com");
  // 50 issued quotes of 5 customers; the first 10 expire soon
  for (let i = 0; i < 50; i++) {
    const q = await api("POST", "quotes", { key, body: { customerEmail: `edges${i % 5}@example.com`, items: [{ name: "x", unitPrice: 100 * (i + 1), quantity: 1 }], expiresAt: i < 10 ? soon : later } });
    expect(q.status).toBe(201);
    expect((await api("POST", `quotes/${q.body.data.id}/issue`, { key, body: {} })).status).toBe(200);
    issuedIds.push(q.body.data.id);
  }
}, 120_000);
afterAll(() => t?.close());

test("Quote.currentRevision, .checkoutSession, .order and .activity answer the quote's own rows; Order.quote leads back", async () => {
  const r = await gql(QuoteEdgesDocument, { id: converted.id }, cred());
  expect(r.errors).toBeNull();
  const q = r.data!.quote;
  expect(q).toMatchObject({ status: "converted", currentRevisionId: converted.revisionId, checkoutSessionId: converted.sessionId, orderId: converted.orderId });
  expect(q.currentRevision).toEqual({ id: converted.revisionId, number: 1, status: "issued", total: 5000 });
  expect(q.checkoutSession).toEqual({ id: converted.sessionId, status: "completed", orderId: converted.orderId, cartId: expect.any(String) });
  expect(q.order).toEqual({ id: converted.orderId, total: 5000, status: expect.any(String), quote: { id: converted.id, number: converted.number } });
  // newest first: converted, accepted, the buyer's comment, proposed
  const acts = q.activity!.edges.map((e) => e.node);
  expect(acts.map((a) => a.type)).toEqual(["converted", "accepted", "comment_added", "proposed"]);
  expect(acts[0]).toMatchObject({ by: "system", status: "converted", orderId: converted.orderId });
  expect(acts[1]).toMatchObject({ by: "buyer", status: "accepted", revisionId: converted.revisionId, checkoutSessionId: converted.sessionId });
  expect(acts[2]).toMatchObject({ by: "buyer", message: "Can you ship by Friday?", commentId: q.comments[0].id });
  expect(acts[3]).toMatchObject({ by: "merchant", status: "proposed", revisionId: converted.revisionId });
  expect(q.activity!.pageInfo).toEqual({ hasNextPage: false, endCursor: q.activity!.edges[3].cursor });
  // activity pages through with first/after
  const p1 = (await gql(QuoteActivityPageDocument, { id: converted.id, first: 3 }, cred())).data!.quote.activity!;
  expect(p1.pageInfo.hasNextPage).toBe(true);
  const p2 = (await gql(QuoteActivityPageDocument, { id: converted.id, first: 3, after: p1.pageInfo.endCursor }, cred())).data!.quote.activity!;
  expect([...p1.edges, ...p2.edges].map((e) => e.node.id)).toEqual(acts.map((a) => a.id));
  expect(p2.pageInfo.hasNextPage).toBe(false);
  // Order.quote
  const o = await gql(OrderQuoteDocument, { id: converted.orderId }, cred());
  expect(o.errors).toBeNull();
  expect(o.data!.order.quote).toEqual({ id: converted.id, number: converted.number, status: "converted", currentRevision: { id: converted.revisionId, total: 5000 } });
  // a quote not yet converted: the edges are null, not errors
  const open = await gql(QuoteEdgesDocument, { id: issuedIds[0] }, cred());
  expect(open.errors).toBeNull();
  expect(open.data!.quote).toMatchObject({ checkoutSession: null, order: null, currentRevision: { number: 1, status: "issued", total: 100 } });
});

test("a list loads the parts a query selects: revisions, the working and current revision, comments", async () => {
  const key = demo.apiKey;
  const id = issuedIds[49];
  const w = await api("POST", `quotes/${id}/revisions`, { key, body: {} });
  expect(w.status).toBe(201);
  await api("POST", `quotes/${id}/comments`, { key, body: { body: "internal note", visibility: "internal" } });
  const list = await gql(QuoteListPartsDocument, { first: 2 }, cred());
  expect(list.errors).toBeNull();
  const full = (await api("GET", `quotes/${id}`, { key })).body.data;
  const node = list.data!.quotes.nodes.find((n) => n.id === id)!;
  expect(node.currentRevision).toMatchObject({ id: full.currentRevisionId, number: 1, status: "issued", total: 5000, items: [{ name: "x" }] });
  expect(node.workingRevision).toEqual({ id: w.body.data.id, number: 2, status: "working" });
  expect(node.revisions.map((r) => [r.number, r.status, r.items.length])).toEqual([[1, "issued", 1], [2, "working", 1]]);
  expect(node.comments).toEqual([{ id: full.comments[0].id, body: "internal note", visibility: "internal" }]);
  // the REST body keeps the full view
  expect(full.revisions).toHaveLength(2);
  expect(full.workingRevision.id).toBe(w.body.data.id);
});

test("Customer.quotes pages the customer's quotes with status, search text and expiresBefore; quotes(expiresBefore) too", async () => {
  const cus = (await api("GET", `quotes/${issuedIds[0]}`, cred())).body.data.customerId as string;
  const all = await gql(CustomerQuotesDocument, { id: cus, first: 100 }, cred());
  expect(all.errors).toBeNull();
  const mine = issuedIds.filter((_, i) => i % 5 === 0).reverse();
  expect(all.data!.customer.quotes!.edges.map((e) => e.node.id)).toEqual(mine);
  expect(all.data!.customer.quotes!.edges.every((e) => e.node.customerId === cus)).toBe(true);
  const page1 = (await gql(CustomerQuotesDocument, { id: cus, first: 4 }, cred())).data!.customer.quotes!;
  const page2 = (await gql(CustomerQuotesDocument, { id: cus, first: 4, after: page1.pageInfo.endCursor }, cred())).data!.customer.quotes!;
  expect([...page1.edges, ...page2.edges].map((e) => e.node.id)).toEqual(mine.slice(0, 8));
  const expiring = (await gql(CustomerQuotesDocument, { id: cus, first: 100, expiresBefore: new Date(Date.now() + 7 * 86_400_000).toISOString() }, cred())).data!.customer.quotes!;
  expect(expiring.edges.map((e) => e.node.id)).toEqual([issuedIds[5], issuedIds[0]]);
  expect((await gql(CustomerQuotesDocument, { id: cus, first: 100, status: "converted" }, cred())).data!.customer.quotes!.edges).toEqual([]);
  const search = (await gql(CustomerQuotesDocument, { id: converted.customerId, first: 5, q: converted.number }, cred())).data!.customer.quotes!;
  expect(search.edges.map((e) => e.node.id)).toEqual([converted.id]);
  // the quotes list takes expiresBefore too, over GraphQL and REST
  const before = new Date(Date.now() + 7 * 86_400_000).toISOString();
  const g = await gql(QuoteListDashboardDocument, { first: 100, expiresBefore: before }, cred());
  expect(g.errors).toBeNull();
  expect(g.data!.quotes.edges.map((e) => e.node.id)).toEqual(issuedIds.slice(0, 10).reverse());
  const rest = await api("GET", `quotes?limit=100&expiresBefore=${encodeURIComponent(before)}`, cred());
  expect(rest.status).toBe(200);
  expect(rest.body.data.map((q: { id: string }) => q.id)).toEqual(issuedIds.slice(0, 10).reverse());
  expect((await api("GET", "quotes?expiresBefore=tomorrow", cred())).status).toBe(422);
});

test("a key without orders:read reads the quote; Quote.order alone answers insufficient_scopes", async () => {
  const key = await mintKeyVia(api, demo, ["quotes:read"]);
  const r = await gql(QuoteOrderOnlyDocument, { id: converted.id }, { key: key.rawKey });
  expect(r.data?.quote).toEqual({ id: converted.id, number: converted.number, order: null });
  expect(r.errors).toHaveLength(1);
  expect(r.errors![0]).toMatchObject({ path: ["quote", "order"], extensions: { code: "insufficient_scopes" } });
  const full = await gql(QuoteOrderOnlyDocument, { id: converted.id }, cred());
  expect(full.errors).toBeNull();
  expect(full.data!.quote.order).toEqual({ id: converted.orderId });
});

postgresPassTest("a page of quotes with customer, current revision total and last activity: 50 quotes cost the statements of 5", async () => {
  await gql(QuoteListDashboardDocument, { first: 5 }, cred()); // warm the key cache
  const counts: number[] = [];
  for (const first of [5, 50]) {
    const s = await statementsOf(() => gql(QuoteListDashboardDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    const edges = s.result.data!.quotes.edges;
    expect(edges).toHaveLength(first);
    for (const e of edges) {
      expect(e.node.customer?.email).toMatch(/^edges\d@example\.com$/);
      expect(e.node.currentRevision?.total).toBeGreaterThan(0);
      expect(e.node.activity!.nodes).toEqual([expect.objectContaining({ type: expect.stringMatching(/^(proposed|comment_added|viewed)$/) })]);
    }
    counts.push(s.statements.length);
    // the quote rows (1), their customers (1), their current revisions (1), their last activity (1)
    if (s.statements.length !== 4) throw new Error(`${first} quotes: ${s.statements.length} statements\n${s.statements.map(kindOf).join("\n")}`);
  }
  expect(counts).toEqual([4, 4]);
});

test("the quote's edges never hand another tenant's ids to the caller (test/edges/quotes.ts, forged links)", async () => {
  const other = await t.otherWorkspace("quote-edges-victim");
  expect((await api("POST", "connectors", { key: other.apiKey, body: { kind: "card", provider: "test" } })).status).toBe(201);
  const victim = await convertedQuote(other.apiKey, "victim@example.com");
  const idsOf = (q: typeof converted) => ({ customerId: q.customerId, quoteId: q.id, revisionId: q.revisionId, orderId: q.orderId, checkoutSessionId: q.sessionId }) as unknown as EdgeIds;
  const w: EdgeWorld = {
    prisma: t.db.prisma,
    a: idsOf(victim),
    b: idsOf(converted),
    gqlB: async (query, variables) => {
      const r = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": demo.apiKey }, body: JSON.stringify({ query, variables }) });
      return (await r.json()) as { data: unknown; errors?: unknown[] };
    },
  };
  const victimIds = Object.values(w.a);
  for (const c of EDGES) {
    await c.forge?.(w);
    const r = await w.gqlB(c.query, c.variables(w));
    expect([c.edge, r.errors ?? null]).toEqual([c.edge, null]);
    const text = JSON.stringify(r.data);
    expect([c.edge, victimIds.filter((id) => text.includes(id))]).toEqual([c.edge, []]);
  }
  // the forged links are there: without the tenant filters these reads would have answered A's rows
  expect((await t.db.prisma.quote.findUniqueOrThrow({ where: { id: converted.id } })).currentRevisionId).toBe(victim.revisionId);
});
