// The dashboard's graph (issue 37): lists are Relay connections, edges load in batches and check their own scope, so a
// key without a scope loses that edge alone (a per-field error), not the query.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { gqlClient, type GqlResult } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { kindOf, statementsOf } from "./helpers/statements";
import { QuotesWithCustomersDocument, QuoteWithCustomerDocument, type QuotesWithCustomersQuery } from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
  // 12 quotes of 4 customers, oldest first
  for (let i = 0; i < 12; i++) {
    const r = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: `graph${i % 4}@example.com`, items: [{ name: "x", unitPrice: 100, quantity: 1 }] } });
    expect(r.status).toBe(201);
  }
});
afterAll(() => t?.close());

const cred = () => ({ key: demo.apiKey });

test("quotes page through as a Relay connection: edges with cursors, pageInfo.endCursor resumes, the last page says so", async () => {
  const seen: string[] = [];
  let after: string | null = null;
  for (let pageNo = 0; pageNo < 5; pageNo++) {
    const r: GqlResult<QuotesWithCustomersQuery> = await gql(QuotesWithCustomersDocument, { first: 5, after }, cred());
    expect(r.errors).toBeNull();
    const c: QuotesWithCustomersQuery["quotes"] = r.data!.quotes;
    expect(c.pageInfo.hasPreviousPage).toBe(false);
    expect(c.pageInfo.startCursor).toBe(c.edges[0]?.cursor ?? null);
    expect(c.pageInfo.endCursor).toBe(c.edges.at(-1)?.cursor ?? null);
    for (const e of c.edges) {
      seen.push(e.node.id);
      expect(e.node.customer).toEqual({ id: e.node.customerId, email: expect.stringMatching(/^graph\d@example\.com$/) });
    }
    if (!c.pageInfo.hasNextPage) break;
    after = c.pageInfo.endCursor;
  }
  expect(seen).toHaveLength(12);
  expect(new Set(seen).size).toBe(12);
  // an edge's cursor resumes right after its node
  const all = (await gql(QuotesWithCustomersDocument, { first: 12 }, cred())).data!.quotes.edges;
  const from3 = (await gql(QuotesWithCustomersDocument, { first: 2, after: all[2].cursor }, cred())).data!.quotes.edges;
  expect(from3.map((e) => e.node.id)).toEqual([all[3].node.id, all[4].node.id]);
  expect(all.map((e) => e.node.id)).toEqual(seen);
});

test("a key without customers:read reads the quote; the customer edge alone answers insufficient_scopes", async () => {
  const key = await mintKeyVia(api, demo, ["quotes:read"]);
  const id = (await gql(QuotesWithCustomersDocument, { first: 1 }, cred())).data!.quotes.edges[0].node.id;
  const r = await gql(QuoteWithCustomerDocument, { id }, { key: key.rawKey });
  expect(r.data?.quote).toMatchObject({ id, customer: null });
  expect(r.errors).toHaveLength(1);
  expect(r.errors![0]).toMatchObject({ path: ["quote", "customer"], extensions: { code: "insufficient_scopes" } });
  const full = await gql(QuoteWithCustomerDocument, { id }, cred());
  expect(full.errors).toBeNull();
  expect(full.data!.quote.customer?.email).toMatch(/^graph\d@example\.com$/);
});

postgresPassTest("a page of quotes with their customers costs the same statements for 2 quotes as for 12", async () => {
  await gql(QuotesWithCustomersDocument, { first: 12 }, cred()); // warm the key cache
  const counts: number[] = [];
  for (const first of [2, 12]) {
    const s = await statementsOf(() => gql(QuotesWithCustomersDocument, { first }, cred()));
    expect(s.result.errors).toBeNull();
    expect(s.result.data!.quotes.edges).toHaveLength(first);
    counts.push(s.statements.length);
    if (first === 12) expect(s.statements.map(kindOf).filter((k) => k === "SELECT Customer")).toHaveLength(1);
  }
  expect(counts[1]).toBe(counts[0]);
});
