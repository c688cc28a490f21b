// Two delivery batches for one endpoint finishing at once (two lanes, or two processes) must still raise one
// alert per streak of 401/403 answers: each reads the streak the other wrote. CI once saw two alerts here.
import { DeliveryWorker } from "../src/webhooks/delivery.worker";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { emit } from "./helpers/events";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";

let t: TestApp;
let demo: BootstrapResult;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  t = (await startTestApp({ worker: false }))!;
  demo = await t.bootstrap();
  receiver = await startReceiver(() => ({ status: 401, delayMs: 150 }));
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
