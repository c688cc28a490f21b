// A commit killed with SIGKILL mid-run resumes from its checkpoint after the dead worker's lease lapses, and ends
// with the same rows as a commit that was never interrupted; undo then leaves the database as it was. Needs
// PostgreSQL: the worker is a second process on the same database.
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { preparedImport, runWorker, tableCounts, workerAlive } from "./helpers/imports";
import { killAll, startScript } from "./helpers/spawn";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp | null = null;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = await startTestApp({ db: "pg" });
  if (!t) {
    console.warn("skipped: the kill test needs a reachable PostgreSQL (set DATABASE_URL or run one on 127.0.0.1:5432)");
    return;
  }
  demo = await t.bootstrap();
  api = client(t.url);
});
afterAll(async () => {
  killAll();
  await t?.close();
});

const ROWS = 6000;
function bigFile() {
  const lines = ["Email,First Name,Last Name,Company,Phone"];
  for (let i = 1; i <= ROWS; i++) lines.push(`buyer${i}@example.com,Buyer,Number ${i},"Company ${i % 50}, Inc.",+1 555 ${String(i).padStart(7, "0")}`);
  return Buffer.from(lines.join("\n") + "\n");
}

const snapshot = async (applicationId: string, environmentId: string) =>
  (await t!.deps.prisma.customer.findMany({ where: { applicationId, environmentId }, select: { email: true, name: true, company: true, phone: true }, orderBy: { email: "asc" } })).map((c) => JSON.stringify(c));

test("kill -9 mid-commit: the next worker resumes from the checkpoint; same rows as an uninterrupted commit; undo restores", async () => {
  if (!t) return;
  const bytes = bigFile();
  await workerAlive(t);
  const before = await tableCounts(t);

  // the interrupted one, in the demo workspace
  const { id } = await preparedImport(api, demo.apiKey, { fileName: "big.csv", bytes });
  await api("POST", `imports/${id}/validate`, { key: demo.apiKey });
  await runWorker(t);
  expect((await api("POST", `imports/${id}/commit`, { key: demo.apiKey })).status).toBe(202);
  const worker = await startScript("src/cli/jobs.ts", ["run", "import-runner"], { DATABASE_URL: t.databaseUrl!, REDIS_URL: "", LOG_LEVEL: "error", IMPORT_BATCH_ROWS: "100", IMPORT_LEASE_SECONDS: "2" });
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const row = await t.deps.prisma.import.findUniqueOrThrow({ where: { id } });
    if (row.checkpointRow > 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  await worker.kill9();
  const dead = await t.deps.prisma.import.findUniqueOrThrow({ where: { id } });
  expect(dead.status).toBe("committing");
  expect(dead.checkpointRow).toBeGreaterThan(0);
  expect(dead.checkpointRow).toBeLessThan(ROWS + 1);
  // what the dead worker committed is exactly its finished batches
  expect(await t.deps.prisma.importRecord.count({ where: { importId: id } })).toBe(dead.checkpointRow - 1);

  // its lease (2 s) lapses; the next worker claims the pass and resumes after the checkpoint
  expect((await runWorker(t)).passes).toBe(0);
  await new Promise((r) => setTimeout(r, 2500));
  expect((await runWorker(t)).passes).toBe(1);
  const done = await t.deps.prisma.import.findUniqueOrThrow({ where: { id } });
  expect(done).toMatchObject({ status: "completed", rowsProcessed: ROWS, rowsCreated: ROWS, rowsFailed: 0, checkpointRow: ROWS + 1 });

  // the uninterrupted one, in another workspace
  const other = await t.otherWorkspace("import-kill-other");
  const straight = await preparedImport(api, other.apiKey, { fileName: "big.csv", bytes });
  await api("POST", `imports/${straight.id}/validate`, { key: other.apiKey });
  await runWorker(t);
  await api("POST", `imports/${straight.id}/commit`, { key: other.apiKey });
  await runWorker(t);
  const a = await snapshot(demo.applicationId, demo.environments.sandbox.id);
  const b = await snapshot(other.applicationId, other.environments.sandbox.id);
  expect(a.length).toBe(ROWS);
  expect(a).toEqual(b);

  // undo both: every business table is back to where it was
  for (const [imp, k] of [[id, demo.apiKey], [straight.id, other.apiKey]] as const) {
    expect((await api("POST", `imports/${imp}/undo`, { key: k })).status).toBe(202);
    await runWorker(t);
    expect((await api("GET", `imports/${imp}`, { key: k })).body.data).toMatchObject({ status: "undone", undoResult: { deleted: { customer: ROWS }, kept: 0 } });
  }
  const after = await tableCounts(t);
  const pass = ["Import", "ImportError", "ImportRecord", "Event", "JobWorker", "WebhookDelivery", "Workspace", "Application", "Environment", "User", "Member", "DashboardSession", "ApiKey", "Connector", "ShippingTaxSettings", "RateLimit"];
  const business = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).filter(([k]) => !pass.includes(k)));
  expect(business(after)).toEqual(business(before));
}, 240_000);
