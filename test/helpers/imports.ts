// Import flow helpers for e2e tests: create + signed upload + inspect + mapping over REST, and a job worker that
// is "alive" (its heartbeat row) and runs the queued passes with the same function the Agenda job calls.
import { readFileSync } from "node:fs";
import path from "node:path";
import { runImportPasses } from "../../src/imports/import.runner";
import { beat } from "../../src/shared/job-workers";
import type { TestApp } from "./app";
import type { client } from "./http";

export const importFixture = (name: string) => readFileSync(path.join(__dirname, "..", "fixtures", "imports", name));

type Api = ReturnType<typeof client>;

/** create -> PUT the bytes -> inspect -> save `columns` (default: the suggestions); returns the import id. */
export async function preparedImport(
  api: Api,
  key: string,
  opts: { entityType?: "customer" | "order"; fileName: string; bytes: Buffer; provider?: string; columns?: Record<string, string | null>; mapping?: Record<string, unknown> },
) {
  const c = await api("POST", "imports", { key, body: { entityType: opts.entityType ?? "customer", fileName: opts.fileName, fileBytes: opts.bytes.length, ...(opts.provider ? { provider: opts.provider } : {}) } });
  if (c.status !== 201) throw new Error(`create: ${c.status} ${JSON.stringify(c.body)}`);
  const id = c.body.data.importId as string;
  const put = await fetch(c.body.data.uploadUrl, { method: "PUT", body: new Uint8Array(opts.bytes) });
  if (put.status !== 200) throw new Error(`upload: ${put.status}`);
  const ins = await api("POST", `imports/${id}/inspect`, { key, body: {} });
  if (ins.status !== 200) throw new Error(`inspect: ${ins.status} ${JSON.stringify(ins.body)}`);
  const columns = opts.columns ?? Object.fromEntries(ins.body.data.suggestions.filter((s: any) => s.field).map((s: any) => [s.header, s.field]));
  const m = await api("PATCH", `imports/${id}/mapping`, { key, body: { columns, dateOrder: "mdy", ...opts.mapping } });
  if (m.status !== 200) throw new Error(`mapping: ${m.status} ${JSON.stringify(m.body)}`);
  return { id, inspection: ins.body.data };
}

/** Marks a job worker alive for the import verbs (the Agenda process does this every 20 s). */
export async function workerAlive(t: TestApp, id = "test-worker") {
  await beat(t.deps.prisma, id);
}

/** Runs every queued import pass to its end, as the import-runner job does. */
export async function runWorker(t: TestApp) {
  return runImportPasses(t.deps, { owner: "test-worker" });
}

/** Row counts of every table of the schema, as the catalog lists them (a table added later is counted too). */
export async function tableCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = await t.deps.prisma.$queryRaw<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`;
  const out: Record<string, number> = {};
  for (const { name } of tables) {
    const [r] = await t.deps.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "${name.replace(/"/g, '""')}"`);
    out[name] = Number(r!.n);
  }
  return out;
}

/**
 * The only tables a dry run may change the row count of, each with why. Everything else the catalog lists must
 * keep its count, including Import (the pass updates its own row, never adds one), ImportRecord (only a commit
 * records rows) and ImportPlannedKey (the dry run's planned keys are gone when it ends). Event is not here: a
 * pass adds exactly one, import.completed, which the tests expect by name.
 */
export const DRY_RUN_TABLES: Record<string, string> = {
  ImportError: "the import's own error report, rewritten by every pass",
  JobWorker: "the job queue: worker heartbeats, which beat whatever the pass does",
  agenda_jobs: "the job queue: Agenda's job rows, when a scheduler runs beside the test",
};

/** Tables whose row count differs between two tableCounts() snapshots (other than DRY_RUN_TABLES), with the change. */
export function countChanges(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (name in DRY_RUN_TABLES) continue;
    const d = (after[name] ?? 0) - (before[name] ?? 0);
    if (d !== 0) out[name] = d;
  }
  return out;
}
