// Query cost accounts for list sizes (issue 37 items 6, 7): first/limit multiplies the cost of the selection under
// a paged field (src/graphql/cost-limit.ts); above GRAPHQL_MAX_COST the operation is refused as query_too_costly
// naming its cost; introspection costs nothing; the depth and alias limits keep working beside it.
import { buildSchema, getIntrospectionQuery, parse } from "graphql";
import { operationCost } from "../src/graphql/cost-limit";
import { schema as appSchema } from "../src/server/graphql-schema";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";

// A schema shaped like the graph: quotes -> customer -> orders (paged) -> payments (a plain list).
const graph = buildSchema(`
  type Query { quotes(first: Int, after: String, limit: Int, cursor: String): QuotePage! node: Quote }
  type QuotePage { nodes: [Quote!]! pageInfo: PageInfo! }
  type PageInfo { hasNextPage: Boolean! endCursor: String }
  type Quote { id: ID! number: String customer: Customer }
  type Customer { id: ID! email: String orders(first: Int, after: String): OrderPage! }
  type OrderPage { nodes: [Order!]! }
  type Order { id: ID! total: Int payments: [Payment!]! }
  type Payment { id: ID! amount: Int }
`);
const cost = (q: string, variables: Record<string, unknown> = {}) => operationCost(graph, parse(q), null, variables);

describe("operationCost", () => {
  const nested = (a: string, b: string) => `{ quotes${a} { nodes { id customer { id orders${b} { nodes { id payments { id amount } } } } } } }`;

  test("every field costs 1; a paged field multiplies its selection by first, else limit, else 20", () => {
    expect(cost("{ node { id number } }")).toBe(3);
    // quotes 1 + 10 x (nodes 1 + id 1 + customer 1 + id 1 + orders 1 + 10 x (nodes 1 + id 1 + payments 1 + id 1 + amount 1))
    expect(cost(nested("(first: 10)", "(first: 10)"))).toBe(1 + 10 * (5 + 10 * 5));
    expect(cost(nested("(limit: 3)", ""))).toBe(1 + 3 * (5 + 20 * 5));
    expect(cost(nested("", "(first: 2)"))).toBe(1 + 20 * (5 + 2 * 5));
    expect(cost(nested("(first: 100)", "(first: 100)"))).toBe(1 + 100 * (5 + 100 * 5));
    // from variables, as sent
    expect(cost(`query($n: Int, $m: Int) ${nested("(first: $n)", "(first: $m)")}`, { n: 100, m: 100 })).toBe(50501);
  });

  test("fragments and inline fragments count as if written out; introspection and __typename cost nothing", () => {
    const spread = "query { quotes(first: 10) { ...P } } fragment P on QuotePage { nodes { id ... on Quote { number } __typename } }";
    expect(cost(spread)).toBe(1 + 10 * 3);
    expect(cost("{ __schema { types { name fields { name } } } __type(name: \"Quote\") { name } }")).toBe(0);
    expect(operationCost(appSchema, parse(getIntrospectionQuery()), null, {})).toBe(0);
  });

  test("the operation named in a document of several", () => {
    const doc = parse("query A { node { id } } query B { quotes(first: 2) { nodes { id } } }");
    expect([operationCost(graph, doc, "A"), operationCost(graph, doc, "B")]).toEqual([2, 1 + 2 * 2]);
  });
});

describe("over HTTP, with GRAPHQL_MAX_COST=1000", () => {
  let t: TestApp;
  let demo: BootstrapResult;
  beforeAll(async () => {
    t = (await startTestApp({ env: { GRAPHQL_MAX_COST: "1000", RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
    demo = await t.bootstrap();
  });
  afterAll(() => t?.close());
  const post = async (body: Record<string, unknown>) => {
    const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": demo.apiKey }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const page = (n: number) => `{ quotes(first: ${n}) { nodes { id number status currency customerEmail customer { id email name } } pageInfo { hasNextPage endCursor } } }`;

  test("a page under the limit answers; the same selection with first: 100 is refused with its cost named", async () => {
    const ok = await post({ query: page(20) });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.quotes.nodes).toEqual([]);
    const refused = await post({ query: page(100) });
    const expected = operationCost(appSchema, parse(page(100)));
    expect(expected).toBeGreaterThan(1000);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "query_too_costly", status: 422, details: { cost: expected, maxCost: 1000 } });
    expect(refused.body.errors[0].message).toContain(`Query cost ${expected} is above the limit of 1000`);
    // the page size may come in a variable: counted as sent
    const byVar = await post({ query: "query($n: Int) { quotes(first: $n) { nodes { id number status currency customerEmail customer { id email name } } pageInfo { hasNextPage endCursor } } }", variables: { n: 100 } });
    expect(byVar.body.errors[0].extensions.details.cost).toBe(expected);
  });

  // two nested pages multiply: Quote.customer -> Customer.orders(first)
  test("two nested pages: first: 5 on both answers, first: 100 on both is refused", async () => {
    const q = (n: number) => `{ quotes(first: ${n}) { nodes { id customer { id orders(first: ${n}) { nodes { id total } } } } } }`;
    expect((await post({ query: q(5) })).body.errors).toBeUndefined();
    const refused = await post({ query: q(100) });
    expect(refused.body.errors[0].extensions).toMatchObject({ code: "query_too_costly", details: { cost: operationCost(appSchema, parse(q(100))), maxCost: 1000 } });
  });

  test("introspection is unaffected; the alias limit still refuses", async () => {
    const intro = await post({ query: getIntrospectionQuery() });
    expect(intro.body.errors).toBeUndefined();
    expect(intro.body.data.__schema.queryType.name).toBe("Query");
    const aliases = await post({ query: `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { type }`).join(" ")} }` });
    expect(aliases.body.errors[0].message).toMatch(/alias/i);
    // (the depth limit's own cases: test/graphql.e2e.test.ts, which runs with this plugin in place)
  });
});
