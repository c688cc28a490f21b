// Two delivery batches for one endpoint finishing at once (two lanes, or two processes) must still raise one
// alert per streak of 401/403 answers: each reads the streak the other wrote. CI once saw two alerts here.
// Likewise an extension install's dead letters finishing in concurrent batches must add up to its suspension:
// a run once saw three dead letters and no suspension (each batch counted only its own).
import { DeliveryWorker } from "../src/webhooks/delivery.worker";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { emit } from "./helpers/events";
import { createExtension, install, publishVersion } from "./helpers/extensions";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";

let t: TestApp;
let demo: BootstrapResult;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  t = (await startTestApp({ worker: false }))!;
  demo = await t.bootstrap();
  receiver = await startReceiver((r) => (r.path === "/auth" ? { status: 401, delayMs: 150 } : r.body?.type === "extension.ping" ? { status: 200 } : { status: 500, delayMs: 150 }));
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

test("concurrent batches of 401s raise exactly one alert for the streak", async () => {
  const tenant = { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  const r = await client(t.url)("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: `${receiver.url}/auth`, enabledEvents: ["customer.created"] } });
  expect(r.status).toBe(201);
  const endpointId = r.body.data.id as string;
  for (let i = 0; i < 8; i++) await emit(t, tenant, "customer.created", { i });
  // Three workers claiming up to three deliveries each: unserialised, two batches would each count to three from zero.
  const workers = Array.from({ length: 3 }, () => new DeliveryWorker(t.deps, { batchSize: 3, timeoutMs: 2_000 }));
  const attempted = await Promise.all(workers.map((w) => w.pass()));
  expect(attempted.reduce((a, b) => a + b, 0)).toBe(8);
  expect(receiver.received.filter((x) => x.path === "/auth")).toHaveLength(8);
  const alerts = await t.deps.prisma.webhookAlert.findMany({ where: { endpointId } });
  expect(alerts).toHaveLength(1);
  expect(alerts[0].statusCodes).toEqual([401, 401, 401]);
  const ep = await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId } });
  expect(ep).toMatchObject({ authFailureStreak: 8, alertRaisedForStreak: true });
});

test("three final attempts failing in three concurrent batches suspend the extension install", async () => {
  const api = client(t.url);
  const pub = await t.otherWorkspace("race-publisher");
  const ext = await createExtension(api, pub.dashboardToken, { name: "Race", webhookUrl: `${receiver.url}/dead`, eventSubscriptions: ["order.created"], scopes: ["orders:read"] });
  const version = await publishVersion(api, pub.dashboardToken, ext.id);
  const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, demo.environments.sandbox.id);
  const endpointId = inst.webhookEndpointId!;
  // the install-time ping succeeds: the dead letters below are counted from it
  await new DeliveryWorker(t.deps, { timeoutMs: 2_000 }).runUntilIdle();
  expect(await t.deps.prisma.webhookDelivery.count({ where: { endpointId, status: "succeeded" } })).toBe(1);
  const tenant = { workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
  for (let i = 0; i < 3; i++) await emit(t, tenant, "order.created", { i });
  // each one attempt short of the limit, so the next (a 500) dead-letters it
  expect((await t.deps.prisma.webhookDelivery.updateMany({ where: { endpointId, status: "pending" }, data: { attempts: 4 } })).count).toBe(3);
  const workers = Array.from({ length: 3 }, () => new DeliveryWorker(t.deps, { batchSize: 1, timeoutMs: 2_000, maxAttempts: 5 }));
  expect(await Promise.all(workers.map((w) => w.pass()))).toEqual([1, 1, 1]);
  expect(await t.deps.prisma.webhookDelivery.count({ where: { endpointId, status: "dead_letter" } })).toBe(3);
  const after = await t.deps.prisma.installation.findUniqueOrThrow({ where: { id: inst.id } });
  expect([after.status, after.suspendedReason]).toEqual(["suspended", "delivery_failures"]);
  expect(await t.deps.prisma.webhookAlert.count({ where: { endpointId, kind: "install_suspended" } })).toBe(1);
});
