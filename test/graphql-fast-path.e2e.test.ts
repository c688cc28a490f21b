// The GraphQL fast path (src/server/graphql-fast-path.ts) answers a server's JSON POST without Yoga's fetch-API layer. Each
// case here is sent twice: as a server sends it (the fast path) and with a browser Origin header (Yoga's own path),
// and the two answers must be the same: status, body, content type, rate-limit and replay headers.
import { compare, fastPathStats, regularMediaType } from "../src/server/graphql-fast-path";
import { startWithDemo, type TestApp } from "./helpers/app";

let t: TestApp;
let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
beforeAll(async () => void ({ t, demo } = await startWithDemo()));
afterAll(() => t?.close());

interface Answer {
  status: number;
  body: unknown;
  contentType: string | null;
  replayed: string | null;
  rateLimited: boolean;
}

async function post(body: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* compared as text */
  }
  return { status: res.status, body: parsed, contentType: res.headers.get("content-type"), replayed: res.headers.get("idempotent-replayed"), rateLimited: res.headers.has("ratelimit-limit") };
}

/**
 * The same request on both paths; returns both answers after checking the fast path took exactly one of them, and
 * whether it answered as a prepared query (skipping envelop's chain; the app runs GRAPHQL_PREPARED=verify here, so a
 * compiled query that disagrees with the executor fails the request).
 */
async function bothPaths(body: unknown, headers: Record<string, string> = {}, yogaHeaders: Record<string, string> = headers) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const before = fastPathStats.served;
  const preparedBefore = fastPathStats.prepared;
  const fast = await post(text, headers);
  const servedFast = fastPathStats.served - before;
  const servedPrepared = fastPathStats.prepared - preparedBefore;
  const yoga = await post(text, { ...yogaHeaders, origin: "https://shop.example.test" });
  expect(fastPathStats.served - before).toBe(servedFast); // Yoga answered the Origin request
  return { fast, yoga, servedFast, servedPrepared };
}

const key = () => ({ "x-api-key": demo.apiKey });
const VIEWER = "{ viewer { type scopes workspace { id slug } environment { id slug kind } apiKey { id keyPrefix } } }";

// [name, body, headers, whether its document is a query that validates: the second request is a prepared one]
const CASES: [string, unknown, Record<string, string>, boolean][] = [
  ["a query", { query: VIEWER }, {}, true],
  ["a query with accept application/json", { query: VIEWER }, { accept: "application/json" }, true],
  ["a syntax error", { query: "{ viewer { type " }, {}, false],
  ["a syntax error, graphql-response+json preferred", { query: "{ viewer { type " }, { accept: "application/graphql-response+json, application/json" }, false],
  ["an unknown field", { query: "{ viewer { nope } }" }, {}, false],
  ["an unknown field, graphql-response+json", { query: "{ viewer { nope } }" }, { accept: "application/graphql-response+json" }, false],
  ["a variable of the wrong type", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: { no: 1 } } }, {}, true],
  ["a variable of the wrong type, graphql-response+json", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: { no: 1 } } }, { accept: "application/graphql-response+json" }, true],
  ["a missing variable", { query: "query($id: ID!) { order(id: $id) { id } }" }, {}, true],
  ["a domain error (unknown order: 404 not_found)", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: "00000000-0000-4000-8000-000000000000" } }, {}, true],
  ["a domain error, graphql-response+json", { query: "query($id: ID!) { order(id: $id) { id } }", variables: { id: "00000000-0000-4000-8000-000000000000" } }, { accept: "application/graphql-response+json" }, true],
  ["a domain error under an alias, inside a fragment, beside data", { query: "query($id: ID!) { ...F v: viewer { type } } fragment F on Query { o: order(id: $id) { id } }", variables: { id: "00000000-0000-4000-8000-000000000000" } }, {}, true],
  ["a refusal on a field (a dashboard-only field with an API key)", { query: "{ viewer { type } authorizedApps { clientId } }" }, {}, true],
  ["null variables and operationName", { query: VIEWER, variables: null, operationName: null }, {}, true],
  ["a named operation among two", { query: `query A ${VIEWER} query B { viewer { type } }`, operationName: "B" }, {}, true],
  ["an unknown operation name", { query: `query A ${VIEWER}`, operationName: "C" }, {}, false],
  ["two operations and no name", { query: `query A ${VIEWER} query B { viewer { type } }` }, {}, false],
  ["a query over the alias limit", { query: `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: viewer { type }`).join(" ")} }` }, {}, false],
  ["a mutation", { query: 'mutation { createCart(customerEmail: "prepared@example.com") { customerEmail } }' }, {}, false],
  ["introspection", { query: "{ __schema { queryType { name } } __type(name: \"Viewer\") { name kind fields { name type { name kind ofType { name } } } } }" }, {}, true],
  ["typename and skip/include", { query: "query($no: Boolean!) { __typename viewer { __typename type scopes @skip(if: $no) workspace @include(if: $no) { id } } }", variables: { no: true } }, {}, true],
];

test.each(CASES)("%s: the fast path answers exactly as Yoga does, the first time and once prepared", async (_name, body, headers, preparable) => {
  // a document is prepared on its second request on the fast path (earlier cases may have sent the same one)
  const first = await bothPaths(body, { ...key(), ...headers });
  expect(first.servedFast).toBe(1);
  expect(first.fast).toEqual(first.yoga);
  const second = await bothPaths(body, { ...key(), ...headers });
  expect(second.fast).toEqual(second.yoga);
  const again = await bothPaths(body, { ...key(), ...headers });
  expect(again.servedFast).toBe(1);
  expect(again.servedPrepared).toBe(preparable ? 1 : 0);
  expect(again.fast).toEqual(again.yoga);
  expect(again.fast.body).toEqual(first.fast.body);
});

test("credentials: no key, a wrong key and a revoked-looking key answer the same on both paths (401 unauthorized)", async () => {
  for (let i = 0; i < 2; i++) await post(JSON.stringify({ query: VIEWER }), key()); // the document is prepared: credentials are checked per request
  for (const headers of [{}, { "x-api-key": "sk_sandbox_wrong" }, { authorization: "Bearer nope" }, { "x-api-key": demo.apiKey, "x-service-pm-token": "pmt_x" }] as Record<string, string>[]) {
    const { fast, yoga, servedPrepared } = await bothPaths({ query: VIEWER }, headers);
    expect(servedPrepared).toBe(1);
    expect(fast).toEqual(yoga);
    expect(["unauthorized", "forbidden"]).toContain((fast.body as any).errors[0].extensions.code);
  }
  const { fast } = await bothPaths({ query: VIEWER }, { "x-api-key": "sk_sandbox_wrong" });
  expect(fast.status).toBe(401);
  expect((fast.body as any).errors[0].extensions.code).toBe("unauthorized");
  expect((fast.body as any).errors[0].extensions.http).toBeUndefined(); // internals stay out of the body
});

test("an idempotent mutation replays with Idempotent-Replayed on the fast path as on Yoga's", async () => {
  const q = { query: 'mutation { createCart(customerEmail: "fast@example.com") { id customerEmail } }' };
  const fastKey = { ...key(), "idempotency-key": "fast-1" };
  const yogaKey = { ...key(), "idempotency-key": "yoga-1" };
  const first = await bothPaths(q, fastKey, yogaKey);
  expect(first.servedFast).toBe(1);
  expect(first.fast.status).toBe(first.yoga.status);
  expect(first.fast.replayed).toBeNull();
  const again = await bothPaths(q, fastKey, yogaKey);
  expect(again.fast.replayed).toBe("true");
  expect(again.yoga.replayed).toBe("true");
  expect(again.fast.body).toEqual(first.fast.body);
  expect(again.yoga.body).toEqual(first.yoga.body);
});

test("requests the fast path leaves to Yoga: GET, other content types, event streams, subscriptions, batches", async () => {
  const before = fastPathStats.served;
  await fetch(`${t.url}/graphql?query=${encodeURIComponent("{ viewer { type } }")}`, { headers: { ...key(), accept: "application/json" } });
  await post(JSON.stringify({ query: VIEWER }), { ...key(), accept: "text/event-stream" });
  await post(JSON.stringify({ query: "subscription { orderUpdated(id: \"00000000-0000-4000-8000-000000000000\") { type } }" }), key());
  await post(JSON.stringify([{ query: VIEWER }]), key());
  await post(JSON.stringify({ query: VIEWER, extra: 1 }), key());
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...key(), "content-type": "application/graphql+json" }, body: JSON.stringify({ query: VIEWER }) });
  await res.text();
  expect(fastPathStats.served).toBe(before);
});

test("the media type Yoga would pick for a regular result", () => {
  expect(regularMediaType(undefined)).toBe("application/json");
  expect(regularMediaType("*/*")).toBe("application/json");
  expect(regularMediaType("application/json")).toBe("application/json");
  expect(regularMediaType("application/graphql-response+json, application/json")).toBe("application/graphql-response+json");
  expect(regularMediaType("application/json, application/graphql-response+json")).toBe("application/json");
  expect(regularMediaType("application/*")).toBe("application/json");
  expect(regularMediaType("application/json; charset=latin1, application/graphql-response+json")).toBe("application/graphql-response+json");
  expect(regularMediaType("text/event-stream")).toBeNull();
  expect(regularMediaType("multipart/mixed")).toBeNull();
  expect(regularMediaType("image/png")).toBeNull();
});

test("verify mode: a prepared answer that differs from the executor's fails; rows that changed between the runs, or an answer that changes every run, do not", async () => {
  const params = { query: "{ viewer { type } }" };
  const answer = (type: string) => ({ data: { viewer: { type } } });
  const fixed = (type: string) => async () => answer(type);
  const before = { ...fastPathStats };
  await compare(params, answer("api_key"), answer("api_key"), { given: fixed("api_key"), reference: fixed("api_key") });
  expect(fastPathStats.verified).toBe(before.verified + 1);
  // the prepared path is wrong every time
  await expect(compare(params, answer("dashboard"), answer("api_key"), { given: fixed("dashboard"), reference: fixed("api_key") })).rejects.toThrow(/GRAPHQL_PREPARED=verify/);
  // the row changed between the first two runs: the next pair agrees
  await compare(params, answer("old"), answer("new"), { given: fixed("new"), reference: fixed("new") });
  expect(fastPathStats.verified).toBe(before.verified + 2);
  // every execution answers differently (a minted token): set aside
  let n = 0;
  const minting = async () => answer(`token-${n++}`);
  await compare(params, await minting(), await minting(), { given: minting, reference: minting });
  expect(fastPathStats.unverifiable).toBe(before.unverifiable + 1);
  expect(fastPathStats.verified).toBe(before.verified + 2);
});

test("verify mode pins the clock for the request: an answer that reads the time is verified, not set aside", async () => {
  // Each reading of this clock is a millisecond later, so without the pin every run of the query would answer a
  // different window (the comparison then depended on whether two runs fell in the same millisecond).
  const real = t.deps.clock;
  let ms = Date.parse("2026-11-27T12:00:00.000Z");
  t.deps.clock = { now: () => new Date(ms++) };
  try {
    const query = "{ applicationScriptHealth { windowStart windowEnd } }";
    for (let i = 0; i < 2; i++) expect((await post(JSON.stringify({ query }), key())).status).toBe(200); // prepared on its second request
    const before = { ...fastPathStats };
    const a = await post(JSON.stringify({ query }), key());
    expect(a.status).toBe(200);
    expect({ verified: fastPathStats.verified - before.verified, unverifiable: fastPathStats.unverifiable - before.unverifiable }).toEqual({ verified: 1, unverifiable: 0 });
    const w = (a.body as { data: { applicationScriptHealth: { windowStart: string; windowEnd: string } } }).data.applicationScriptHealth;
    expect(Date.parse(w.windowEnd) - Date.parse(w.windowStart)).toBe(24 * 3_600_000);
  } finally {
    t.deps.clock = real;
  }
});

test("a document is compiled on its second request, not its first", async () => {
  const query = "{ viewer { type workspace { slug } } }";
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = fastPathStats.prepared;
    await post(JSON.stringify({ query }), key());
    counts.push(fastPathStats.prepared - before);
  }
  expect(counts).toEqual([0, 0, 1]);
});

test("a prepared query's answer is verified against the executor on every request in the tests", async () => {
  const before = fastPathStats.verified;
  for (let i = 0; i < 3; i++) await post(JSON.stringify({ query: VIEWER }), key());
  expect(fastPathStats.verified - before).toBe(3);
});
