// Agenda runs the registered jobs on the database in use (on the embedded one through the PGlite pool).
import { startAgenda } from "../jobs/agenda";
import { stopAgenda } from "./helpers/jobs";
import { findJob, JOBS } from "../jobs/registry";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";

let t: TestApp;
beforeAll(async () => {
  t = (await startTestApp({ worker: false }))!;
});
afterAll(() => t?.close());

test("registry names match decisions.md part 6 for what exists", () => {
  expect(JOBS.map((j) => j.name)).toContain("webhook-delivery");
  expect(findJob("nope")).toBeUndefined();
});

test("Agenda picks up the webhook-delivery job and delivers what is due", async () => {
  const receiver = await startReceiver();
  const demo = await t.bootstrap();
  const api = client(t.url);
  const ep = await api("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: `${receiver.url}/agenda`, enabledEvents: ["order.created"] } });
  await api("POST", `webhook-endpoints/${ep.body.data.id}/test`, { key: demo.apiKey });
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received).toHaveLength(0); // no worker in this app: only the job can send it
  // a short lock lifetime: Agenda's lock-check timer would otherwise keep Jest alive (../shared/stack.md)
  const agenda = await startAgenda(t.db, { deps: t.deps, deliveries: t.deliveries }, { lockLifetimeMs: 1000, processEveryMs: 200 });
  try {
    await receiver.waitFor((rs) => rs.length === 1, 20_000);
    expect(receiver.received[0].body.type).toBe("webhook.ping");
  } finally {
    await stopAgenda(agenda);
    await receiver.close();
  }
});
