// The README's start command on the embedded database: serves /readyz, prints working credentials once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { killAll, runCli, startService } from "./helpers/spawn";

const dataDir = mkdtempSync(path.join(tmpdir(), "q2c-start-"));
afterAll(() => {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

function credsFrom(output: string) {
  const line = output.split("\n").find((l) => l.startsWith("{"));
  return line ? JSON.parse(line) : null;
}

// The embedded database is the default: DATABASE_URL is removed for these processes.
const env = { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "", LOG_LEVEL: "error" };

test("npm start on an empty embedded database: bootstrap once, credentials work, restart keeps data", async () => {
  const svc = await startService(env);
  const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(svc.output())![1]);
  const base = `http://127.0.0.1:${port}`;
  const creds = credsFrom(svc.output());
  expect(creds).toMatchObject({ workspaceId: expect.any(String), apiKey: expect.stringMatching(/^sk_sandbox_/), dashboardToken: expect.any(String) });
  expect(creds.baseUrl).toBe(`http://localhost:${port}`); // the port it listens on, not PORT=0
  expect(creds.checkoutUrl).toBe(`http://localhost:${port}`);
  expect((await fetch(`${base}/readyz`)).status).toBe(200);

  // While the server holds the data folder, a second process refuses it and says what to do.
  const busy = runCli("src/cli/bootstrap.ts", ["--json"], env);
  expect(busy.status).toBe(1);
  expect(busy.stderr).toContain("in use by another process");
  expect(busy.stderr).toContain("Stop the server");
  expect(busy.stdout).not.toContain("sk_");
  const who = await fetch(`${base}/api/v1/whoami`, { headers: { "x-api-key": creds.apiKey } });
  expect(who.status).toBe(200);
  expect(((await who.json()) as any).data.workspace.id).toBe(creds.workspaceId);
  expect(await svc.stop()).toBe(0);

  // The CLI bootstrap on the same data folder (server stopped) is idempotent and mints fresh credentials.
  const cli = runCli("src/cli/bootstrap.ts", ["--json"], env);
  expect(cli.status).toBe(0);
  const again = JSON.parse(cli.stdout.trim().split("\n").pop()!);
  expect(again.workspaceId).toBe(creds.workspaceId);
  expect(again.environments).toEqual(creds.environments);
  expect(again.apiKey).not.toBe(creds.apiKey);

  const svc2 = await startService(env);
  expect(credsFrom(svc2.output())).toBeNull();
  const base2 = `http://127.0.0.1:${Number(/listening on http:\/\/localhost:(\d+)/.exec(svc2.output())![1])}`;
  for (const key of [creds.apiKey, again.apiKey]) {
    expect((await fetch(`${base2}/api/v1/whoami`, { headers: { "x-api-key": key } })).status).toBe(200);
  }
  expect(await svc2.stop()).toBe(0);
}, 300_000);

test("a bad setting stops start-up with a message naming the variable", () => {
  const r = runCli("src/main.ts", [], { ...env, PORT: "not-a-port", WEBHOOK_RETRY_SCHEDULE: "5 minutes" });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("PORT");
  expect(r.stderr).toContain("WEBHOOK_RETRY_SCHEDULE");
}, 120_000);

test("npm run db:migrate applies nothing twice", () => {
  const r = runCli("src/cli/migrate.ts", [], env);
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("applied 0 migration(s)");
}, 120_000);
