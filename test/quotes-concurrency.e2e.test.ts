// Quotes under concurrency on the real PostgreSQL: numbers are consecutive and gap-free under 50 parallel creates,
// one working revision survives racing clones, and the request endpoint's per-IP limit holds across two server
// processes sharing the database (the limit lives in the database, not in a process's memory); parallel accepts of one
// revision across two processes make one checkout.
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let a: TestApp | null;
let b: TestApp | null;

beforeAll(async () => {
  a = await startPgApp({ env: { RATE_LIMIT_QUOTE_REQUESTS_PER_IP: "4/1m", RATE_LIMIT_PER_CREDENTIAL: "off" } });
  if (!a) return; // no PostgreSQL: every test below is registered as skipped
  // a second "process": its own pool, limiter and app on the same database
  b = await startTestApp({ databaseUrl: a.databaseUrl, env: { RATE_LIMIT_QUOTE_REQUESTS_PER_IP: "4/1m", RATE_LIMIT_PER_CREDENTIAL: "off" } });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

pgTest("50 parallel POST /quotes get 50 distinct consecutive numbers", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const apis = [client(a.url), client(b.url)];
  const before = await a.deps.prisma.quote.count({ where: { applicationId: demo.applicationId } });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => apis[i % 2]("POST", "quotes", { key: demo.apiKey, body: { customerEmail: `p${i % 7}@example.com`, items: [{ name: "x", unitPrice: 1 }] } })),
  );
  expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
  const numbers = results.map((r) => Number(r.body.data.number.slice(2))).sort((x, y) => x - y);
  expect(new Set(numbers).size).toBe(50);
  expect(numbers).toEqual(Array.from({ length: 50 }, (_, i) => before + 1 + i));
  // the same email under concurrency is one customer
  const ids = new Set(results.filter((_, i) => i % 7 === 0).map((r) => r.body.data.customerId));
  expect(ids.size).toBe(1);
});

pgTest("racing clones of the issued revision: exactly one working revision results", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const api = client(a.url);
  const q = (await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "race@example.com", items: [{ name: "x", unitPrice: 5 }] } })).body.data;
  expect((await api("POST", `quotes/${q.id}/issue`, { key: demo.apiKey, body: {} })).status).toBe(200);
  const apis = [client(a.url), client(b.url)];
  const results = await Promise.all(Array.from({ length: 10 }, (_, i) => apis[i % 2]("POST", `quotes/${q.id}/revisions`, { key: demo.apiKey })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  expect(results.filter((r) => r.status === 409).map((r) => r.body.error.code)).toEqual(Array(9).fill("working_revision_exists"));
  expect(await a.deps.prisma.quoteRevision.count({ where: { quoteId: q.id, status: "working" } })).toBe(1);
});

pgTest("the per-IP limit on POST /quote-requests holds across two processes sharing the database", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const form = (await client(a.url)("POST", "quote-request-forms", { key: demo.apiKey, body: { name: "shared limit" } })).body.data;
  const headers = { "x-forwarded-for": "198.51.100.200" };
  const send = (api: ReturnType<typeof client>, i: number) => api("POST", "quote-requests", { headers, body: { formToken: form.formToken, email: "lim@example.com", message: `m${i}`, formLoadedAt: Date.now() - 10_000 } });
  const statuses: number[] = [];
  // 4 per minute in all: two on each process pass, the fifth (on either) is refused
  for (let i = 0; i < 4; i++) statuses.push((await send(i % 2 ? client(b.url) : client(a.url), i)).status);
  expect(statuses).toEqual([202, 202, 202, 202]);
  const onA = await send(client(a.url), 5);
  const onB = await send(client(b.url), 6);
  expect([onA.status, onA.body.error?.code, onB.status, onB.body.error?.code]).toEqual([429, "rate_limited", 429, "rate_limited"]);
  // another address is unaffected
  expect((await client(b.url)("POST", "quote-requests", { headers: { "x-forwarded-for": "198.51.100.201" }, body: { formToken: form.formToken, email: "lim@example.com", message: "other", formLoadedAt: Date.now() - 10_000 } })).status).toBe(202);
});

pgTest("20 parallel buyer accepts of one revision split across two processes: one checkout session, the rest the same session or 409 accept_in_progress", async () => {
  if (!a || !b) throw notStarted();
  const demo = await a.bootstrap();
  const apis = [client(a.url), client(b.url)];
  const c = await apis[0]("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "race@example.com", items: [{ name: "x", unitPrice: 100, quantity: 2 }] } });
  const q = (await apis[0]("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => apis[i % 2]("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Racer" } })),
  );
  const ok = answers.filter((r) => r.status === 200);
  expect(ok.length).toBeGreaterThan(0);
  const sessionOf = (r: { body: any }) => r.body.data.checkoutUrl.split("/").pop(); // each process has its own host
  expect(new Set(ok.map(sessionOf)).size).toBe(1);
  for (const r of answers) if (r.status !== 200) expect([r.status, r.body.error.code]).toEqual([409, "accept_in_progress"]);
  expect(await a.deps.prisma.checkoutSession.count({ where: { quoteId: q.id } })).toBe(1);
  expect(await a.deps.prisma.quoteStatusHistory.count({ where: { quoteId: q.id, toStatus: "accepted" } })).toBe(1);
  // after the race every accept answers the one session
  const later = await apis[1]("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Racer" } });
  expect(sessionOf(later)).toBe(sessionOf(ok[0]));
});
