// GraphQL over HTTP through Yoga's public pipeline (its parse and validation caches, armor limits, masked errors):
// statuses and codes for the answers a client meets, the same on a document's first request and once cached; the
// credential checks per request; idempotent mutations replayed; subscriptions over SSE (graphql-ws has its own tests).
import { startWithDemo, type TestApp } from "./helpers/app";

let t: TestApp;
let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
beforeAll(async () => void ({ t, demo } = await startWithDemo()));
afterAll(() => t?.close());

interface Answer {
  status: number;
  body: any;
  contentType: string | null;
  replayed: string | null;
  rateLimited: boolean;
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* compared as text */
  }
  return { status: res.status, body: parsed, contentType: res.headers.get("content-type"), replayed: res.headers.get("idempotent-replayed"), rateLimited: res.headers.has("ratelimit-limit") };
}

const key = () => ({ "x-api-key": demo.apiKey });
const VIEWER = "{ viewer { type scopes workspace { id slug } environment { id slug kind } apiKey { id keyPrefix } } }";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const GRJ = { accept: "application/graphql-response+json" };
const codes = (a: Answer) => (a.body?.errors ?? []).map((e: any) => e.extensions?.code);

// [name, body, headers, status, error codes, content type]
// [name, body, headers, status, error codes, content type]. With `application/json` the GraphQL-over-HTTP spec answers
// 200 for errors met after parsing the request; `application/graphql-response+json` carries the status.
const CASES: [string, unknown, Record<string, string>, number, string[], string][] = [
  ["a query", { query: VIEWER }, {}, 200, [], "application/json"],
  ["a query, graphql-response+json", { query: VIEWER }, GRJ, 200, [], "application/graphql-response+json"],
  ["a syntax error", { query: "{ viewer { type " }, {}, 200, ["GRAPHQL_PARSE_FAILED"], "application/json"],
  ["an unknown field", { query: "{ viewer { nope } }" }, {}, 200, ["GRAPHQL_VALIDATION_FAILED"], "application/json"],
  ["an unknown field, graphql-response+json", { query: "{ viewer { nope } }" }, GRJ, 400, ["GRAPHQL_VALIDATION_FAILED"], "application/graphql-response+json"],
  ["a variable of the wrong type", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: { no: 1 } } }, {}, 400, ["validation_error"], "application/json"],
  ["a missing variable", { query: "query($id: ID!) { order(id: $id) { id } }" }, {}, 400, ["validation_error"], "application/json"],
  ["a domain error (unknown order: not_found)", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: UNKNOWN } }, {}, 200, ["not_found"], "application/json"],
  ["a domain error beside data", { query: "query($id: ID!) { ...F v: viewer { type } } fragment F on Query { o: order(id: $id) { id } }", variables: { id: UNKNOWN } }, {}, 200, ["not_found"], "application/json"],
  ["a refusal on a field (a dashboard-only field with an API key)", { query: "{ viewer { type } authorizedApps { clientId } }" }, {}, 200, ["application_key_workspace_route"], "application/json"],
  ["a named operation among two", { query: `query A ${VIEWER} query B { viewer { type } }`, operationName: "B" }, {}, 200, [], "application/json"],
  ["two operations and no name", { query: `query A ${VIEWER} query B { viewer { type } }` }, {}, 400, ["OPERATION_RESOLUTION_FAILURE"], "application/json"],
  ["a query over the alias limit", { query: `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { type }`).join(" ")} }` }, {}, 200, ["validation_error"], "application/json"],
  ["introspection", { query: '{ __schema { queryType { name } } __type(name: "Viewer") { name } }' }, {}, 200, [], "application/json"],
];

test.each(CASES)("%s: the same answer on the first request and once the document is cached", async (name, body, headers, status, errorCodes, contentType) => {
  const first = await post(body, { ...key(), ...headers });
  expect([first.status, codes(first), first.contentType?.split(";")[0]]).toEqual([status, errorCodes, contentType]);
  // the credential's bucket is spent once the context is built, after parsing and validation
  expect(first.rateLimited).toBe(!/GRAPHQL_|OPERATION_/.test(errorCodes.join()) && !(name.includes("alias")));
  for (const e of first.body?.errors ?? []) expect(e.extensions.http).toBeUndefined(); // internals stay out of the body
  const again = await post(body, { ...key(), ...headers });
  expect(again).toEqual(first);
});

test("credentials are checked on every request, a cached document's too (a bad credential is 401, a wallet token 403)", async () => {
  expect((await post({ query: VIEWER }, key())).status).toBe(200);
  for (const [headers, status, code] of [
    [{}, 200, "unauthorized"], // no credential: the context builds, the fields refuse
    [{ "x-api-key": "sk_sandbox_wrong" }, 401, "unauthorized"],
    [{ authorization: "Bearer nope" }, 401, "unauthorized"],
    [{ "x-api-key": demo.apiKey, "x-service-pm-token": "pmt_x" }, 403, "forbidden"],
  ] as [Record<string, string>, number, string][]) {
    const a = await post({ query: VIEWER }, headers);
      expect([a.status, codes(a)]).toEqual([status, [code]]);
    expect(a.body.errors[0].extensions.http).toBeUndefined();
  }
});

test("an idempotent mutation replays with Idempotent-Replayed", async () => {
  const q = { query: 'mutation { createCart(customerEmail: "replay@example.com") { id customerEmail } }' };
  const headers = { ...key(), "idempotency-key": "graphql-http-1" };
  const first = await post(q, headers);
  expect([first.status, first.replayed]).toEqual([200, null]);
  const again = await post(q, headers);
  expect(again.replayed).toBe("true");
  expect(again.body).toEqual(first.body);
});

test("a subscription over HTTP streams when the client accepts an event stream", async () => {
  const sub = { query: `subscription { orderUpdated(id: "${UNKNOWN}") { id } }` };
  const controller = new AbortController();
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...key(), "content-type": "application/json", accept: "text/event-stream" }, body: JSON.stringify(sub), signal: controller.signal });
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  controller.abort();
});
