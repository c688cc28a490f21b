// The import worker: runs the validate (dry run), commit and undo passes of imports whose verb moved them to
// validating, committing or undoing. A worker claims one import with a lease (renewed every batch, on the
// database's clock); a killed worker's lease lapses and the next worker resumes. A commit writes each batch of
// rows (IMPORT_BATCH_ROWS, 500 by default, never splitting one order's rows) in one transaction with its
// checkpoint, so a resumed commit starts after the last finished batch and ends with the same rows as a commit
// that was never interrupted. The dry run reads and checks the same way but writes only its report (and, while it
// runs, the planned keys that stand in for what it would have created; import.planned.ts).
import { randomUUID } from "node:crypto";
import type { Import } from "../generated/prisma/client";
import { recordEvent, tenantOf } from "../events/events.service";
import { type Deps, makeCtx, type Tx, withTx } from "../shared/context";
import { customerHandler } from "./import.customers";
import type { ImportEntity } from "./import.fields";
import type { Insertable } from "kysely";
import { bulkInsert } from "../shared/bulk-insert";
import type { DB } from "../db/sql";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { type BatchOutcome, type ImportHandler, type RecordRow, type ImportSettings, type MappedRow, type Notes, type RowError } from "./import.handler";
import { forgetPlanned } from "./import.planned";
import { openRows, type SourceRow } from "./import.rows";
import { orderHandler } from "./import.orders";
import { runUndo } from "./import.undo";
import { WorkQueue } from "../shared/work-queue";
import type { Sql } from "../db/sql";

/** Error rows kept for the report (GET /imports/{id}/errors); rowsFailed and errorSummary still count them all. */
const MAX_ERROR_ROWS = 10_000;

const HANDLERS: Partial<Record<ImportEntity, ImportHandler>> = { customer: customerHandler };
export function registerImportHandler(entity: ImportEntity, handler: ImportHandler) {
  HANDLERS[entity] = handler;
}
registerImportHandler("order", orderHandler);

class LeaseLost extends Error {}

const recordRow = (importId: string, now: Date, r: RecordRow): Insertable<DB["ImportRecord"]> => ({
  id: randomUUID(),
  importId,
  entityType: r.entityType,
  entityId: r.entityId,
  action: r.action,
  rowNumber: r.rowNumber,
  createdAt: now,
});

type Summary = Record<string, { count: number; sample: (string | number)[] }>;

/** Claims and runs every pending pass, one import at a time; returns how many passes ran. */
export async function runImportPasses(deps: Deps, opts: { owner?: string } = {}): Promise<{ passes: number }> {
  const owner = opts.owner ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  let passes = 0;
  for (;;) {
    const imp = await claimImport(deps, owner);
    if (!imp) return { passes };
    await runPass(deps, imp, owner);
    passes++;
  }
}

/**
 * The import queue (shared/work-queue.ts): a pass is claimed with a lease owner and an expiry on the database's clock,
 * renewed every batch; a killed worker's lease lapses and the next worker resumes the pass.
 */
const IMPORTS = new WorkQueue({ table: "Import", lease: { until: "leaseUntil", owner: "leaseOwner" } });
const PASS_STATUSES = ["validating", "committing", "undoing"];

async function claimImport(deps: Deps, owner: string): Promise<Import | null> {
  const [row] = await IMPORTS.claim(deps.sql, {
    due: (eb) => eb("status", "in", PASS_STATUSES),
    order: "updatedAt",
    limit: 1,
    leaseMs: deps.config.IMPORT_LEASE_SECONDS * 1000,
    now: "database",
    owner,
    returning: ["id"],
  });
  if (!row) return null;
  return deps.prisma.import.findUnique({ where: { id: row.id } });
}

/** Renews the lease (inside the batch's transaction when `sql` is bound to it); throws LeaseLost when another worker or a verb took the import. */
async function renewLease(sql: Sql, deps: Deps, imp: Import, owner: string) {
  const held = await IMPORTS.renew(sql, imp.id, { owner, leaseMs: deps.config.IMPORT_LEASE_SECONDS * 1000, now: "database", still: (eb) => eb("status", "=", imp.status) });
  if (!held) throw new LeaseLost();
}

function settingsOf(imp: Import, currency: string, now: Date): ImportSettings {
  return {
    importId: imp.id,
    applicationId: imp.applicationId,
    environmentId: imp.environmentId,
    provider: (imp.provider as ImportSettings["provider"]) ?? null,
    dateOrder: (imp.dateOrder as "dmy" | "mdy") ?? "mdy",
    emptyPaymentPolicy: (imp.emptyPaymentPolicy as ImportSettings["emptyPaymentPolicy"]) ?? null,
    guestSentinels: new Set(((imp.guestSentinels as string[]) ?? []).map((g) => g.trim().toLowerCase())),
    createMissingCustomers: imp.createMissingCustomers,
    currency,
    now,
  };
}

/** A source row seen through the mapping. */
function mapRow(row: SourceRow, index: Map<string, { i: number; header: string }>): MappedRow {
  return {
    rowNumber: row.rowNumber,
    get: (field) => {
      const at = index.get(field);
      if (!at) return undefined;
      const v = row.cells[at.i]?.trim();
      return v ? v : undefined;
    },
    column: (field) => index.get(field)?.header ?? null,
  };
}

function fieldIndex(imp: Import): Map<string, { i: number; header: string }> {
  const headers = (imp.headers as string[] | null) ?? [];
  const columns = (imp.columns as Record<string, string> | null) ?? {};
  const index = new Map<string, { i: number; header: string }>();
  for (const [header, field] of Object.entries(columns)) {
    const i = headers.indexOf(header);
    if (i >= 0 && field) index.set(field, { i, header });
  }
  return index;
}

/** Groups of rows (one record each), in batches of at least `batchRows` rows that never split a group. */
async function* batches(rows: AsyncIterable<SourceRow>, handler: ImportHandler, index: Map<string, { i: number; header: string }>, batchRows: number) {
  let batch: MappedRow[][] = [];
  let inBatch = 0;
  let group: MappedRow[] = [];
  let key: string | null = null;
  for await (const src of rows) {
    const row = mapRow(src, index);
    const k = handler.groupKey(row);
    if (group.length && (k === null || k !== key)) {
      batch.push(group);
      inBatch += group.length;
      group = [];
      if (inBatch >= batchRows) {
        yield batch;
        batch = [];
        inBatch = 0;
      }
    }
    group.push(row);
    key = k;
  }
  if (group.length) batch.push(group);
  if (batch.length) yield batch;
}

function mergeSummary(summary: Summary, errors: RowError[], notes: Notes) {
  for (const e of errors) {
    const s = (summary[e.code] ??= { count: 0, sample: [] });
    s.count++;
    if (s.sample.length < 10 && !s.sample.includes(e.rowNumber)) s.sample.push(e.rowNumber);
  }
  for (const [k, n] of Object.entries(notes)) {
    const s = (summary[k] ??= { count: 0, sample: [] });
    s.count += n.count;
    for (const x of n.sample) if (s.sample.length < 10) s.sample.push(x);
  }
}

async function runPass(deps: Deps, claimed: Import, owner: string) {
  const mode = claimed.status === "validating" ? "validate" : claimed.status === "committing" ? "commit" : "undo";
  try {
    if (mode === "undo") await runUndo(deps, claimed, owner, () => renewLease(deps.sql, deps, claimed, owner));
    else await runRows(deps, claimed, owner, mode);
  } catch (e) {
    if (e instanceof LeaseLost) return; // another worker (or a verb) has it now
    const reason = e instanceof Error ? e.message : String(e);
    if (deps.config.LOG_LEVEL !== "silent") console.error(`[imports] ${mode} of ${claimed.id} failed: ${reason}`);
    const n = await deps.prisma.import.updateMany({
      where: { id: claimed.id, leaseOwner: owner, status: claimed.status },
      data: { status: "failed", failureReason: reason.slice(0, 1000), leaseOwner: null, leaseUntil: null, updatedAt: deps.clock.now() },
    });
    if (n.count === 1 && mode === "validate") await forgetPlanned(deps.sql, claimed.id).catch(() => undefined);
  }
}

async function runRows(deps: Deps, claimed: Import, owner: string, mode: "validate" | "commit") {
  const handler = HANDLERS[claimed.entityType as ImportEntity];
  if (!handler) throw new Error(`${claimed.entityType} imports cannot run yet`);
  const app = await deps.prisma.application.findUniqueOrThrow({ where: { id: claimed.applicationId }, select: { currency: true } });
  const write = mode === "commit";
  // a dry run always starts over; a commit starts over only when no batch has been written yet
  const fresh = !write || claimed.checkpointRow === 0;
  let imp = claimed;
  if (fresh) {
    await deps.prisma.importError.deleteMany({ where: { importId: imp.id } });
    await forgetPlanned(deps.sql, imp.id);
    imp = await deps.prisma.import.update({
      where: { id: imp.id },
      data: { rowsProcessed: 0, rowsCreated: 0, rowsUpdated: 0, rowsSkipped: 0, rowsFailed: 0, errorSummary: {}, checkpointRow: 0, failureReason: null, ...(write ? {} : { rowsTotal: null }) },
    });
  }
  const summary: Summary = fresh ? {} : ((imp.errorSummary as Summary) ?? {});
  let errorRows = fresh ? 0 : (await deps.prisma.importError.groupBy({ by: ["rowNumber"], where: { importId: imp.id } })).length;
  const counters = { rowsProcessed: imp.rowsProcessed, rowsCreated: imp.rowsCreated, rowsUpdated: imp.rowsUpdated, rowsSkipped: imp.rowsSkipped, rowsFailed: imp.rowsFailed };
  const index = fieldIndex(imp);
  const fromRow = write ? imp.checkpointRow + 1 : 2;
  const batchRows = deps.config.IMPORT_BATCH_ROWS;

  for await (const groups of batches(openRows(deps.config, imp, Math.max(2, fromRow)), handler, index, batchRows)) {
    const rowsIn = groups.reduce((n, g) => n + g.length, 0);
    const lastRow = groups.at(-1)!.at(-1)!.rowNumber;
    // the CSV/TSV row limit (Excel files are held to 65,536 by the reader); the count is known only as the file is read
    const maxRows = deps.config.IMPORT_MAX_ROWS;
    if (counters.rowsProcessed + rowsIn > maxRows) throw new Error(`The file has more than ${maxRows.toLocaleString("en-US")} data rows (the limit for one import); split it into several imports`);
    const now = deps.clock.now();
    const s = settingsOf(imp, app.currency, now);
    const apply = async (tx: Tx) => {
      const out: BatchOutcome = await handler.runBatch(tx, s, groups, write);
      if (write) await bulkInsert(sqlInPrisma(tx), "ImportRecord", out.records.map((r) => recordRow(imp.id, now, r)), { onConflictDoNothing: true });
      // keep the report of the first MAX_ERROR_ROWS failing rows; the counts and summary keep everything
      const keep: RowError[] = [];
      const rowsSeen = new Set<number>();
      for (const e of out.errors) {
        if (!rowsSeen.has(e.rowNumber)) {
          if (errorRows + rowsSeen.size >= MAX_ERROR_ROWS) continue;
          rowsSeen.add(e.rowNumber);
        }
        keep.push(e);
      }
      if (keep.length) await tx.importError.createMany({ data: keep.map((e) => ({ importId: imp.id, ...e, createdAt: now })) });
      const next = {
        rowsProcessed: counters.rowsProcessed + rowsIn,
        rowsCreated: counters.rowsCreated + out.created,
        rowsUpdated: counters.rowsUpdated + out.updated,
        rowsSkipped: counters.rowsSkipped + out.skipped,
        rowsFailed: counters.rowsFailed + out.failed,
      };
      const nextSummary: Summary = JSON.parse(JSON.stringify(summary));
      mergeSummary(nextSummary, out.errors, out.notes);
      const n = await tx.import.updateMany({
        where: { id: imp.id, leaseOwner: owner, status: imp.status },
        data: { ...next, errorSummary: nextSummary, ...(write ? { checkpointRow: lastRow } : {}), updatedAt: now },
      });
      if (n.count !== 1) throw new LeaseLost();
      await renewLease(sqlInPrisma(tx), deps, imp, owner);
      return { next, nextSummary, kept: rowsSeen.size };
    };
    // a dry run's batch is a transaction too: its planned keys land with its counters, or not at all when the
    // lease was lost (a worker that lost the import must not leave keys in the pass that replaced it)
    const r = await deps.prisma.$transaction((tx) => apply(tx), { timeout: 120_000, maxWait: 30_000 });
    Object.assign(counters, r.next);
    for (const k of Object.keys(summary)) delete summary[k];
    Object.assign(summary, r.nextSummary);
    errorRows += r.kept;
    deps.hub.importChanged(imp.id);
  }

  // the pass is done: one conditional update ends it, with import.completed in the same transaction
  await withTx(makeCtx(deps), async (ctx) => {
    const now = ctx.clock.now();
    const n = await ctx.db.import.updateMany({
      where: { id: imp.id, leaseOwner: owner, status: imp.status },
      data: write
        ? { status: "completed", committedAt: now, lastPassMode: "commit", leaseOwner: null, leaseUntil: null, updatedAt: now }
        : { status: "validated", dryRunAt: now, lastPassMode: "validate", rowsTotal: counters.rowsProcessed, leaseOwner: null, leaseUntil: null, updatedAt: now },
    });
    if (n.count !== 1) throw new LeaseLost();
    if (!write) await forgetPlanned(ctx.sql, imp.id); // the dry run leaves no row behind
    await recordEvent(ctx, await tenantOf(ctx, imp), "import.completed", { importId: imp.id, mode, entityType: imp.entityType, ...counters });
  });
  deps.hub.importChanged(imp.id);
}

