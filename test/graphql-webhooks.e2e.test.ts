// Webhook endpoints, their deliveries and the event catalog over GraphQL: the same services and views as REST,
// the signing secret shown once, the same codes in extensions.code.
import { until } from "./helpers/until";
import Stripe from "stripe";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithDemo, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";
import {
  CreateWebhookEndpointDocument,
  DeleteWebhookEndpointDocument,
  EventTypesDocument,
  ReplayWebhookDeliveryDocument,
  RotateWebhookEndpointSecretDocument,
  TestWebhookEndpointDocument,
  UpdateWebhookEndpointDocument,
  WebhookDeliveriesDocument,
  WebhookDeliveryDocument,
  WebhookEndpointDocument,
  WebhookEndpointsDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo({ env: { WEBHOOK_RETRY_SCHEDULE: "100ms,100ms" }, worker: { timeoutMs: 1_000, idleMs: 100 } }));
  gql = gqlClient(t.url);
  receiver = await startReceiver((r) => ({ status: r.path.startsWith("/dead") ? 500 : 200, body: "ok" }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

const key = () => ({ key: demo.apiKey });
const UNKNOWN = "00000000-0000-4000-8000-000000000000";


async function createEndpoint(path: string, enabledEvents = ["order.created"]) {
  const r = await gql(CreateWebhookEndpointDocument, { url: `${receiver.url}${path}`, enabledEvents }, key());
  expect(r.errors).toBeNull();
  return r.data!.createWebhookEndpoint;
}

const deliveriesOf = async (endpointId: string) => (await gql(WebhookDeliveriesDocument, { endpointId, limit: 100 }, key())).data!.webhookDeliveries;

test("endpoint lifecycle: create shows the secret once, read equals REST without it, update, rotate, delete", async () => {
  const created = await createEndpoint("/life");
  expect(created.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
  const id = created.endpoint.id;
  expect(created.endpoint).toMatchObject({ url: `${receiver.url}/life`, enabledEvents: ["order.created"], isActive: true, description: null, previousSecretExpiresAt: null });

  const read = await gql(WebhookEndpointDocument, { id }, key());
  const rest = await api("GET", `webhook-endpoints/${id}`, key());
  expect(read.data!.webhookEndpoint).toEqual(rest.body.data);
  expect(read.data!.webhookEndpoint).toEqual(created.endpoint);
  const list = await gql(WebhookEndpointsDocument, {}, key());
  expect(list.data!.webhookEndpoints.map((e) => e.id)).toContain(id);
  expect(list.data!.webhookEndpoints).toEqual((await api("GET", "webhook-endpoints", key())).body.data);
  expect(JSON.stringify([read, list])).not.toContain(created.secret);
  // the stored (sealed) column is no field of the type
  const probe = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": demo.apiKey },
    body: JSON.stringify({ query: `{ webhookEndpoint(id: "${id}") { id secret } }` }),
  });
  expect(((await probe.json()) as any).errors[0].message).toMatch(/Cannot query field "secret" on type "WebhookEndpoint"/);

  const updated = await gql(
    UpdateWebhookEndpointDocument,
    { id, url: `${receiver.url}/life2`, enabledEvents: ["order.created", "payment.captured", "order.completed"], isActive: false, description: "ops" },
    key(),
  );
  expect(updated.errors).toBeNull();
  expect(updated.data!.updateWebhookEndpoint).toMatchObject({
    url: `${receiver.url}/life2`,
    enabledEvents: ["order.created", "payment.captured", "order.fulfilled"],
    isActive: false,
    description: "ops",
  });
  // absent arguments stay as they are; an explicit null clears the description
  const partly = await gql(UpdateWebhookEndpointDocument, { id, isActive: true }, key());
  expect(partly.data!.updateWebhookEndpoint).toMatchObject({ isActive: true, description: "ops", url: `${receiver.url}/life2` });
  const cleared = await gql(UpdateWebhookEndpointDocument, { id, description: null }, key());
  expect(cleared.data!.updateWebhookEndpoint).toMatchObject({ isActive: true, description: null });
  expect(cleared.data!.updateWebhookEndpoint).toEqual((await api("GET", `webhook-endpoints/${id}`, key())).body.data);

  const rot = await gql(RotateWebhookEndpointSecretDocument, { id, graceSeconds: 3600 }, key());
  expect(rot.errors).toBeNull();
  expect(rot.data!.rotateWebhookEndpointSecret.secret).toMatch(/^whsec_/);
  expect(rot.data!.rotateWebhookEndpointSecret.secret).not.toBe(created.secret);
  expect(new Date(rot.data!.rotateWebhookEndpointSecret.endpoint.previousSecretExpiresAt!).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
  const afterRot = await gql(WebhookEndpointDocument, { id }, key());
  expect(afterRot.data!.webhookEndpoint.previousSecretExpiresAt).toBe(rot.data!.rotateWebhookEndpointSecret.endpoint.previousSecretExpiresAt);
  expect(JSON.stringify(afterRot)).not.toContain(rot.data!.rotateWebhookEndpointSecret.secret);
  const noGrace = await gql(RotateWebhookEndpointSecretDocument, { id, graceSeconds: 0 }, key());
  expect(noGrace.data!.rotateWebhookEndpointSecret.endpoint.previousSecretExpiresAt).toBeNull();

  expect((await gql(DeleteWebhookEndpointDocument, { id }, key())).data!.deleteWebhookEndpoint).toBe(true);
  expect(codeOf(await gql(WebhookEndpointDocument, { id }, key()))).toBe("not_found");
  expect((await api("GET", `webhook-endpoints/${id}`, key())).status).toBe(404);
  expect(codeOf(await gql(DeleteWebhookEndpointDocument, { id }, key()))).toBe("not_found");
});

test("test ping: delivered and signed; deliveries list and the delivery with its attempt log equal REST", async () => {
  const ep = await createEndpoint("/ping");
  const ping = await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, key());
  expect(ping.errors).toBeNull();
  const delivery = ping.data!.testWebhookEndpoint;
  expect(delivery).toMatchObject({ endpointId: ep.endpoint.id, eventType: "webhook.ping", status: "pending", attempts: 0 });
  const [received] = (await receiver.waitFor((rs) => rs.some((r) => r.path === "/ping"))).filter((r) => r.path === "/ping");
  // the secret createWebhookEndpoint showed is the one deliveries are signed with
  const verified = new Stripe("sk_test_unused").webhooks.constructEvent(received.rawBody, String(received.headers["x-service-signature"]), ep.secret!) as any;
  expect(verified).toMatchObject({ id: delivery.eventId, type: "webhook.ping", data: { endpointId: ep.endpoint.id } });
  const page = await until(() => deliveriesOf(ep.endpoint.id), (p) => p.nodes[0]?.status === "succeeded");
  expect(page.pageInfo).toEqual({ cursor: null, hasMore: false });
  expect(page.nodes[0]).toMatchObject({ id: delivery.id, eventId: delivery.eventId, attempts: 1, lastStatusCode: 200, nextAttemptAt: null });
  const restPage = await api("GET", `webhook-endpoints/${ep.endpoint.id}/deliveries?limit=100`, key());
  expect(page.nodes).toEqual(restPage.body.data);
  expect(restPage.body.meta).toEqual({ total: 1, limit: 100, offset: 0 });

  // The one paging shape: a second ping, then pages of one follow the cursor, newest first, as REST's offsets do.
  await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, key());
  await until(() => deliveriesOf(ep.endpoint.id), (p) => p.nodes.length === 2);
  const first = (await gql(WebhookDeliveriesDocument, { endpointId: ep.endpoint.id, limit: 1 }, key())).data!.webhookDeliveries;
  expect(first.pageInfo).toEqual({ cursor: expect.any(String), hasMore: true });
  const second = (await gql(WebhookDeliveriesDocument, { endpointId: ep.endpoint.id, limit: 1, cursor: first.pageInfo.cursor }, key())).data!.webhookDeliveries;
  expect(second.pageInfo).toEqual({ cursor: null, hasMore: false });
  const restOffsets = await Promise.all([0, 1].map(async (o) => (await api("GET", `webhook-endpoints/${ep.endpoint.id}/deliveries?limit=1&offset=${o}`, key())).body.data[0].id));
  expect([first.nodes[0].id, second.nodes[0].id]).toEqual(restOffsets);
  expect(second.nodes[0].id).toBe(delivery.id);
  expect(codeOf(await gql(WebhookDeliveriesDocument, { endpointId: ep.endpoint.id, cursor: "!!!" }, key()))).toBe("validation_error");

  const one = await gql(WebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: delivery.id }, key());
  expect(one.data!.webhookDelivery.attemptLog).toEqual([expect.objectContaining({ number: 1, statusCode: 200, error: null, responseExcerpt: "ok" })]);
  expect(one.data!.webhookDelivery).toEqual((await api("GET", `webhook-endpoints/${ep.endpoint.id}/deliveries/${delivery.id}`, key())).body.data);

  // only a dead-lettered delivery replays: same code as REST
  const replay = await gql(ReplayWebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: delivery.id }, key());
  expect(codeOf(replay)).toBe("delivery_not_replayable");
  expect(replay.errors![0].extensions!.status).toBe(409);
  expect((await api("POST", `webhook-endpoints/${ep.endpoint.id}/deliveries/${delivery.id}/replay`, key())).body.error.code).toBe("delivery_not_replayable");
  expect(codeOf(await gql(WebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: UNKNOWN }, key()))).toBe("not_found");
  expect(codeOf(await gql(WebhookDeliveriesDocument, { endpointId: ep.endpoint.id, limit: 0 }, key()))).toBe("validation_error");
  expect((await api("GET", `webhook-endpoints/${ep.endpoint.id}/deliveries?limit=0`, key())).body.error.code).toBe("validation_error");
});

test("replay: a dead-lettered delivery goes out again once the receiver recovers", async () => {
  const ep = await createEndpoint("/dead");
  const ping = (await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, key())).data!.testWebhookEndpoint;
  await until(() => deliveriesOf(ep.endpoint.id), (p) => p.nodes[0]?.status === "dead_letter");
  const log = await gql(WebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: ping.id }, key());
  expect(log.data!.webhookDelivery.attemptLog!.length).toBeGreaterThan(1);
  expect(log.data!.webhookDelivery.attemptLog!.every((a) => a.statusCode === 500)).toBe(true);

  const fixed = await gql(UpdateWebhookEndpointDocument, { id: ep.endpoint.id, url: `${receiver.url}/alive` }, key());
  expect(fixed.errors).toBeNull();
  const replayed = await gql(ReplayWebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: ping.id }, key());
  expect(replayed.errors).toBeNull();
  expect(replayed.data!.replayWebhookDelivery).toMatchObject({ id: ping.id, eventId: ping.eventId, status: "pending", attempts: 0 });
  const done = await until(() => deliveriesOf(ep.endpoint.id), (p) => p.nodes[0]?.status === "succeeded");
  expect(done.nodes[0]).toMatchObject({ id: ping.id, lastStatusCode: 200 });
  expect(receiver.received.filter((r) => r.path === "/alive").map((r) => r.body.id)).toEqual([ping.eventId]);
});

test("same codes as REST: validation_error, invalid_webhook_url, not_found, insufficient_scopes", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ url: "https://example.com/h", enabledEvents: ["no.such_event"] }, "validation_error"],
    [{ url: "https://example.com/h", enabledEvents: [] }, "validation_error"],
    [{ url: "ftp://example.com/h", enabledEvents: ["order.created"] }, "invalid_webhook_url"],
  ];
  for (const [vars, code] of cases) {
    const g = await gql(CreateWebhookEndpointDocument, vars as any, key());
    const r = await api("POST", "webhook-endpoints", { ...key(), body: vars });
    expect({ vars, code: codeOf(g), status: g.errors![0].extensions!.status }).toEqual({ vars, code, status: r.status });
    expect(r.body.error.code).toBe(code);
  }
  expect(codeOf(await gql(WebhookEndpointDocument, { id: UNKNOWN }, key()))).toBe("not_found");
  expect(codeOf(await gql(WebhookEndpointDocument, { id: "not-a-uuid" }, key()))).toBe("not_found");
  expect(codeOf(await gql(RotateWebhookEndpointSecretDocument, { id: UNKNOWN }, key()))).toBe("not_found");
  expect(codeOf(await gql(TestWebhookEndpointDocument, { id: UNKNOWN }, key()))).toBe("not_found");

  const ep = await createEndpoint("/codes");
  expect(codeOf(await gql(RotateWebhookEndpointSecretDocument, { id: ep.endpoint.id, graceSeconds: -1 }, key()))).toBe("validation_error");
  expect(codeOf(await gql(UpdateWebhookEndpointDocument, { id: ep.endpoint.id, url: "not a url" }, key()))).toBe("invalid_webhook_url");
  // null means "no change" for a field that cannot be cleared
  expect((await gql(UpdateWebhookEndpointDocument, { id: ep.endpoint.id, url: null }, key())).data!.updateWebhookEndpoint.url).toBe(ep.endpoint.url);

  const readOnly = (await mintKeyVia(api, demo, ["webhooks:read"])).rawKey;
  const ordersOnly = (await mintKeyVia(api, demo, ["orders:read"])).rawKey;
  const denied = await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, { key: readOnly });
  expect(codeOf(denied)).toBe("insufficient_scopes");
  expect(denied.errors![0].extensions!.status).toBe(403);
  expect((await api("POST", `webhook-endpoints/${ep.endpoint.id}/test`, { key: readOnly })).body.error.code).toBe("insufficient_scopes");
  expect(codeOf(await gql(WebhookEndpointsDocument, {}, { key: ordersOnly }))).toBe("insufficient_scopes");
  expect((await gql(WebhookEndpointDocument, { id: ep.endpoint.id }, { key: readOnly })).data!.webhookEndpoint.id).toBe(ep.endpoint.id);
  // subscribing needs each event's read scope (403, as REST)
  const hooksOnly = (await mintKeyVia(api, demo, ["webhooks:write"])).rawKey;
  const narrow = await gql(CreateWebhookEndpointDocument, { url: "https://example.com/h", enabledEvents: ["order.created"] }, { key: hooksOnly });
  expect({ code: codeOf(narrow), status: narrow.errors![0].extensions!.status }).toEqual({ code: "insufficient_scopes", status: 403 });
});

test("another workspace's credential gets not_found for this tenant's endpoint and delivery", async () => {
  const ep = await createEndpoint("/mine");
  const ping = (await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, key())).data!.testWebhookEndpoint;
  const other = { key: (await t.otherWorkspace("gql-hooks-other")).apiKey };
  const attempts = [
    await gql(WebhookEndpointDocument, { id: ep.endpoint.id }, other),
    await gql(UpdateWebhookEndpointDocument, { id: ep.endpoint.id, isActive: false }, other),
    await gql(RotateWebhookEndpointSecretDocument, { id: ep.endpoint.id }, other),
    await gql(TestWebhookEndpointDocument, { id: ep.endpoint.id }, other),
    await gql(WebhookDeliveriesDocument, { endpointId: ep.endpoint.id }, other),
    await gql(WebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: ping.id }, other),
    await gql(ReplayWebhookDeliveryDocument, { endpointId: ep.endpoint.id, id: ping.id }, other),
    await gql(DeleteWebhookEndpointDocument, { id: ep.endpoint.id }, other),
  ];
  for (const r of attempts) {
    expect(codeOf(r)).toBe("not_found");
    expect(r.data).toBeNull();
  }
  expect((await gql(WebhookEndpointsDocument, {}, other)).data!.webhookEndpoints.map((e) => e.id)).not.toContain(ep.endpoint.id);
  expect((await gql(WebhookEndpointDocument, { id: ep.endpoint.id }, key())).data!.webhookEndpoint).toMatchObject({ isActive: true });
});

test("eventTypes equals GET /event-types with its conventions; any credential, none is unauthorized", async () => {
  const g = await gql(EventTypesDocument, {}, key());
  expect(g.errors).toBeNull();
  const rest = await api("GET", "event-types", key());
  // GraphQL types the retired-name map as a list of { name, deliveredAs }.
  const retired = Object.entries(rest.body.meta.conventions.retired).map(([name, deliveredAs]) => ({ name, deliveredAs }));
  expect(retired).toEqual([{ name: "order.completed", deliveredAs: "order.fulfilled" }]);
  expect(g.data!.eventTypes).toEqual({ types: rest.body.data, conventions: { ...rest.body.meta.conventions, retired } });
  expect(g.data!.eventTypes.types.find((e) => e.type === "webhook.ping")).toMatchObject({ readScope: "webhooks:read", subscribable: false, requiredDataKeys: ["endpointId"] });
  const narrow = (await mintKeyVia(api, demo, ["quotes:read"])).rawKey;
  expect((await gql(EventTypesDocument, {}, { key: narrow })).data!.eventTypes.types.length).toBe(rest.body.data.length);
  expect(codeOf(await gql(EventTypesDocument, {}))).toBe("unauthorized");
});
