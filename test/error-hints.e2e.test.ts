// Errors that say the fix: a non-JSON body, an API key sent as a Bearer token, a fractional amount, and a
// Request-Id on every response (echoed in error bodies).
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: Awaited<ReturnType<typeof startWithDemo>>["demo"];
beforeAll(async () => void ({ t, api, demo } = await startWithDemo()));
afterAll(() => t?.close());

test("a body that is not JSON is 415 unsupported_media_type naming the header to send", async () => {
  const res = await fetch(`${t.url}/api/v1/carts`, { method: "POST", headers: { "x-api-key": demo.apiKey, "content-type": "application/x-www-form-urlencoded" }, body: `applicationId=${demo.applicationId}` });
  expect(res.status).toBe(415);
  const body = (await res.json()) as any;
  expect(body.error).toMatchObject({ code: "unsupported_media_type", status: 415 });
  expect(body.error.message).toContain("Content-Type: application/json");
  // A POST without a body (nothing to parse) is still fine.
  const none = await fetch(`${t.url}/api/v1/whoami`, { headers: { "x-api-key": demo.apiKey } });
  expect(none.status).toBe(200);
});

test("an sk_ key sent as a Bearer token is told to use X-API-Key", async () => {
  const r = await api("GET", "whoami", { headers: { authorization: `Bearer ${demo.apiKey}` } });
  expect(r.status).toBe(401);
  expect(r.body.error.message).toContain("X-API-Key");
});

test("a fractional amount is 422 with the minor-units hint", async () => {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } });
  const r = await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 19.99 } });
  expect(r.status).toBe(422);
  expect(r.body.error.details.issues).toEqual([{ path: ["unitPrice"], message: "must be an integer amount in minor units, e.g. 1999 for 19.99" }]);
});

test("every response carries a Request-Id; an error body repeats it; a caller's own id is kept when it is sane", async () => {
  const ok = await api("GET", "whoami", { key: demo.apiKey });
  expect(ok.headers.get("request-id")).toMatch(/^req_[A-Za-z0-9]{20,}$/);
  const err = await api("GET", "carts/00000000-0000-4000-8000-000000000000", { key: demo.apiKey });
  expect(err.body.error.requestId).toBe(err.headers.get("request-id"));
  const mine = await api("GET", "whoami", { key: demo.apiKey, headers: { "request-id": "trace-abc-123" } });
  expect(mine.headers.get("request-id")).toBe("trace-abc-123");
  const hostile = await api("GET", "whoami", { key: demo.apiKey, headers: { "request-id": "x".repeat(300) } });
  expect(hostile.headers.get("request-id")).toMatch(/^req_/);
  const gql = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": demo.apiKey }, body: JSON.stringify({ query: "{ viewer { type } }" }) });
  expect(gql.headers.get("request-id")).toMatch(/^req_/);
  const page = await fetch(`${t.url}/checkout/00000000-0000-4000-8000-000000000000`);
  expect(page.headers.get("request-id")).toMatch(/^req_/);
});

test("an unknown field names the likely fix: another casing, a synonym or a typo", async () => {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } });
  const item = await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unit_price: 1999 } });
  expect(item.status).toBe(422);
  expect(item.body.error.details.issues).toContainEqual({ path: ["unit_price"], message: 'Unknown field; did you mean "unitPrice"?' });
  const addr = await api("PATCH", `carts/${cart.body.data.id}`, { key: demo.apiKey, body: { shippingAddress: { addressLine1: "1 Main St", city: "Austin", countryCode: "US", region: "TX" } } });
  expect(addr.body.error.details.issues).toEqual([{ path: ["shippingAddress", "region"], message: 'Unknown field; did you mean "stateProvince"?' }]);
  const odd = await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1, isAdmin: true } });
  expect(odd.body.error.details.issues).toEqual([{ path: ["isAdmin"], message: "Unknown field" }]);
});
