// Nothing is lost if the process dies after a commit: deliveries are rows written with their events, so a
// SIGKILLed server's due deliveries go out after restart (or from `npm run jobs -- run webhook-delivery`).
import { pgTest } from "./helpers/app";
import { createTestDatabase, reachablePgUrl } from "./helpers/db";
import { startReceiver } from "./helpers/receiver";
import { killAll, portOf, runCliAsync, startService } from "./helpers/spawn";

let dbUrl: string | null = null;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  if (process.env.Q2C_TEST_PG_REACHABLE !== "1") return; // the test below is registered as skipped
  const server = await reachablePgUrl();
  if (!server) throw new Error("PostgreSQL answered at global setup but not now");
  const created = await createTestDatabase(server);
  dbUrl = created.url;
  drop = created.drop;
});
afterAll(async () => {
  killAll();
  await drop?.();
});

pgTest("events committed, server SIGKILLed before delivery, restarted: each event delivered exactly once", async () => {
  if (!dbUrl) throw new Error("the test database was not created (see beforeAll)");
  const receiver = await startReceiver();
  const env = { DATABASE_URL: dbUrl, PORT: "0", LOG_LEVEL: "error", REDIS_URL: "" };
  try {
    // Jobs off: nothing can be delivered before the kill.
    const first = await startService(env, /listening on/, 90_000, ["--no-jobs"]);
    const creds = JSON.parse(first.output().split("\n").find((l) => l.startsWith("{"))!);
    const base = `http://127.0.0.1:${portOf(first)}/api/v1`;
    const h = { "x-api-key": creds.apiKey, "content-type": "application/json" };
    const ep = (await (await fetch(`${base}/webhook-endpoints`, { method: "POST", headers: h, body: JSON.stringify({ url: `${receiver.url}/k`, enabledEvents: ["order.created"] }) })).json()) as any;
    const pings: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = (await (await fetch(`${base}/webhook-endpoints/${ep.data.id}/test`, { method: "POST", headers: h })).json()) as any;
      pings.push(r.data.eventId);
    }
    await first.kill9();
    expect(receiver.received).toHaveLength(0);

    // Half of the recovery through the one-pass job command, as an operator would run it.
    const cli = await runCliAsync("src/cli/jobs.ts", ["run", "webhook-delivery"], env);
    expect(cli.status).toBe(0);
    expect(cli.stdout).toContain("attempted 20 delivery(ies)");
    expect(new Set(receiver.received.map((r) => r.headers["x-service-event-id"]))).toEqual(new Set(pings));

    // Then more events, another kill before delivery, and a restart with jobs on.
    const second = await startService(env, /listening on/, 90_000, ["--no-jobs"]);
    const base2 = `http://127.0.0.1:${portOf(second)}/api/v1`;
    const later: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = (await (await fetch(`${base2}/webhook-endpoints/${ep.data.id}/test`, { method: "POST", headers: h })).json()) as any;
      later.push(r.data.eventId);
    }
    await second.kill9();
    const third = await startService(env);
    await receiver.waitFor((rs) => rs.length >= 40, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    const ids = receiver.received.map((r) => String(r.headers["x-service-event-id"]));
    expect(ids.sort()).toEqual([...pings, ...later].sort());
    expect(new Set(ids).size).toBe(ids.length);
    await third.stop();
  } finally {
    await receiver.close();
  }
}, 300_000);
