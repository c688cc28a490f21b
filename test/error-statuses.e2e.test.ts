// One error catalogue (issue 34 item 24): the codes that answered with two statuses answer with the catalogue's
// one, over REST (`error.code`, `error.status` and the HTTP status) and GraphQL (`extensions.code`, `extensions.status`).
// invalid_order_state 422 (was 409 on fulfillments), validation_error 422 (was 400 on the shipping-tax calculation),
// environment_not_found 404 (was 409 at installation api-key mint), insufficient_scopes 403 (was 400 for event
// subscriptions without their read scope).
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { ERROR_CATALOGUE } from "../src/shared/errors";
import { startTestApp, type BootstrapLike, type TestApp } from "./helpers/app";
import { basic, createExtension, install, publishVersion } from "./helpers/extensions";
import { client, mintKeyVia } from "./helpers/http";
import { seedOrder } from "./helpers/orders";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let pub: BootstrapLike;

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  demo = await t.bootstrap();
  pub = await t.otherWorkspace("catalogue-publisher");
});
afterAll(() => t?.close());

/** A raw GraphQL call: the first error's code and status, and the HTTP status. */
async function gql(query: string, variables: Record<string, unknown>, cred: { key?: string; token?: string }) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (cred.key) headers["x-api-key"] = cred.key;
  if (cred.token) headers.authorization = `Bearer ${cred.token}`;
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { errors?: { extensions?: { code?: string; status?: number } }[] };
  return { code: body.errors?.[0]?.extensions?.code, status: body.errors?.[0]?.extensions?.status };
}
const rest = (r: { status: number; body: any }) => ({ code: r.body?.error?.code, status: r.status, bodyStatus: r.body?.error?.status });
const expected = (code: keyof typeof ERROR_CATALOGUE) => ({ code, status: ERROR_CATALOGUE[code].status });

test("invalid_order_state is 422 everywhere: a fulfillment of an order outside processing, over REST and GraphQL", async () => {
  expect(expected("invalid_order_state")).toEqual({ code: "invalid_order_state", status: 422 });
  const { order, lines } = await seedOrder(t, demo, { lines: [{ quantity: 1 }], status: "pending", paymentStatus: "pending" });
  const r = await api("POST", `orders/${order.id}/fulfillments`, { key: demo.apiKey, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] } });
  expect(rest(r)).toEqual({ code: "invalid_order_state", status: 422, bodyStatus: 422 });
  const g = await gql(
    "mutation($orderId: ID!, $lineItems: [OrderLineQuantityInput!]!) { createFulfillment(orderId: $orderId, lineItems: $lineItems) { id } }",
    { orderId: order.id, lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] },
    { key: demo.apiKey },
  );
  expect(g).toEqual(expected("invalid_order_state"));
  // the manual payment on a closed order said 422 already: the same code, the same status
  const { order: closed } = await seedOrder(t, demo, { lines: [{ quantity: 1 }], status: "closed", paymentStatus: "pending" });
  const pay = await api("POST", `orders/${closed.id}/payments/record`, { key: demo.apiKey, body: { amount: 100, method: "external" } });
  expect(rest(pay)).toEqual({ code: "invalid_order_state", status: 422, bodyStatus: 422 });
});

test("validation_error is 422 on the shipping-tax calculation too, over REST and GraphQL", async () => {
  const cart = (await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } })).body.data;
  expect((await api("POST", `carts/${cart.id}/items`, { key: demo.apiKey, body: { name: "W", unitPrice: 1000 } })).status).toBe(201);
  const calc = (body: unknown) => api("POST", `shipping-tax/carts/${cart.id}/calculate`, { key: demo.apiKey, body });
  expect(rest(await calc({ persist: true, currency: "USD" }))).toEqual({ code: "validation_error", status: 422, bodyStatus: 422 });
  expect(rest(await calc({ selectedShippingMethodId: "teleport" }))).toEqual({ code: "validation_error", status: 422, bodyStatus: 422 });
  const g = await gql("mutation($cartId: ID!, $m: String) { calculateCart(cartId: $cartId, selectedShippingMethodId: $m) { snapshotId } }", { cartId: cart.id, m: "teleport" }, { key: demo.apiKey });
  expect(g).toEqual({ code: "validation_error", status: 422 });
});

test("environment_not_found is 404 everywhere: an installation's archived environment at api-key mint, an unknown environment over GraphQL", async () => {
  const ext = await createExtension(api, pub.dashboardToken, { iframeUrl: "https://ext.example/app", scopes: ["orders:read"] });
  const v = await publishVersion(api, pub.dashboardToken, ext.id);
  const c = (await api("POST", `extensions/${ext.id}/client-credentials`, { token: pub.dashboardToken, body: {} })).body.data;
  const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "qa-catalogue", name: "QA" } });
  const inst = await install(api, demo.dashboardToken, ext.id, v.id, demo.applicationId, env.body.data.id);
  expect((await api("DELETE", `workspaces/${demo.workspaceId}/environments/${env.body.data.id}`, { token: demo.dashboardToken })).status).toBe(200);
  const r = await api("POST", `installations/${inst.id}/api-key`, { headers: { authorization: basic(c.clientId, c.clientSecret) }, body: {} });
  expect(rest(r)).toEqual({ code: "environment_not_found", status: 404, bodyStatus: 404 });
  // the unknown-environment reads (REST and GraphQL) were 404 before and stay so
  const unknown = "00000000-0000-4000-8000-000000000000";
  expect(rest(await api("DELETE", `workspaces/${demo.workspaceId}/environments/${unknown}`, { token: demo.dashboardToken }))).toEqual({ code: "environment_not_found", status: 404, bodyStatus: 404 });
  const g = await gql("mutation($w: ID!, $id: ID!) { archiveEnvironment(workspaceId: $w, environmentId: $id) { id } }", { w: demo.workspaceId, id: unknown }, { token: demo.dashboardToken });
  expect(g).toEqual(expected("environment_not_found"));
});

test("insufficient_scopes is 403 everywhere: an event subscription without its read scope (webhook endpoint, extension manifest), over REST and GraphQL", async () => {
  const hooksOnly = (await mintKeyVia(api, demo, ["webhooks:write"])).rawKey;
  const body = { url: "https://example.com/h", enabledEvents: ["order.created"] };
  expect(rest(await api("POST", "webhook-endpoints", { key: hooksOnly, body }))).toEqual({ code: "insufficient_scopes", status: 403, bodyStatus: 403 });
  const g = await gql("mutation($url: String!, $e: [String!]!) { createWebhookEndpoint(url: $url, enabledEvents: $e) { secret } }", { url: body.url, e: body.enabledEvents }, { key: hooksOnly });
  expect(g).toEqual({ code: "insufficient_scopes", status: 403 });

  const manifest = { name: "Ext", iframeUrl: "https://ext.example/app", scopes: ["customers:read"], webhookUrl: "https://ext.example/hook", eventSubscriptions: ["order.created"] };
  expect(rest(await api("POST", "extensions", { token: pub.dashboardToken, body: manifest }))).toEqual({ code: "insufficient_scopes", status: 403, bodyStatus: 403 });
  const ge = await gql(
    "mutation($name: String!, $iframeUrl: String!, $scopes: [String!]!, $webhookUrl: String, $ev: [String!]) { createExtension(name: $name, iframeUrl: $iframeUrl, scopes: $scopes, webhookUrl: $webhookUrl, eventSubscriptions: $ev) { id } }",
    { name: manifest.name, iframeUrl: manifest.iframeUrl, scopes: manifest.scopes, webhookUrl: manifest.webhookUrl, ev: manifest.eventSubscriptions },
    { token: pub.dashboardToken },
  );
  expect(ge).toEqual({ code: "insufficient_scopes", status: 403 });
});
