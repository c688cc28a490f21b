// Import passes (imports.md): validate, commit and undo hand their pass to the job worker; the error report of a
// validated or committed import.
import { z } from "zod";
import { requireScope } from "../platform/auth.service";
import type { Ctx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { type ImportEntity } from "./import.fields";
import { ImportStateError, moveImport } from "./import.machine";
import { nudge, requireWorker } from "../shared/job-workers";
import { stringify } from "csv-stringify";
import { type ImportView, findImport, importView, passInput } from "./imports.service";

// ---- validate, commit, undo -------------------------------------------------------------------------------------
// Each verb moves the import (compare-and-set) and hands the pass to the job worker (import.runner.ts): 202 with
// the import at its new status. Without a live worker the verb is refused with 503 queue_unavailable, and nothing
// moves.

const REQUIRED_FIELDS: Record<ImportEntity, { anyOf: string[] }[]> = {
  customer: [{ anyOf: ["customer.email", "customer.externalId"] }],
  order: [{ anyOf: ["order.externalId"] }, { anyOf: ["order.date"] }],
};

export async function validateImport(ctx: Ctx, id: string, input: unknown = {}): Promise<ImportView> {
  requireScope(ctx, "imports:write");
  parseInput(passInput, input ?? {});
  const imp = await findImport(ctx, id);
  if (!imp.columns || !imp.dateOrder) throw new DomainError("invalid_import_state", 409, "Save the column mapping (PATCH /imports/{id}/mapping) before the dry run");
  // the mapping names headers: the dry run reads the file through them and the dialect inspect found
  if (!imp.headers) throw new DomainError("invalid_import_state", 409, "Inspect the uploaded file (POST /imports/{id}/inspect) before the dry run");
  const mapped = new Set(Object.values(imp.columns as Record<string, string>));
  const missing = REQUIRED_FIELDS[imp.entityType as ImportEntity]
    .filter((r) => !r.anyOf.some((f) => mapped.has(f)))
    .map((r) => ({ path: ["columns"], message: `map a column to ${r.anyOf.join(" or ")}` }));
  if (missing.length) throw errors.validation(missing);
  // a mapping saved before the inspect may name headers the file does not have: they would read as empty cells
  const headers = new Set(imp.headers as string[]);
  const absent = Object.keys(imp.columns as Record<string, string>).filter((h) => !headers.has(h));
  if (absent.length) throw errors.validation(absent.map((h) => ({ path: ["columns", h], message: "is not a header of the file; save the mapping again" })));
  if (imp.status === "failed" && imp.lastPassMode !== "validate") {
    throw new DomainError("invalid_import_state", 409, `A ${imp.lastPassMode} has started writing rows: commit again to resume, or undo`);
  }
  await requireWorker(ctx.db);
  const moved = await moveImport(ctx, imp, "validating", { lastPassMode: "validate", dryRunAt: null, failureReason: null, leaseOwner: null, leaseUntil: null, checkpointRow: 0 });
  nudge("import-runner");
  return importView(moved);
}

export async function commitImport(ctx: Ctx, id: string, input: unknown = {}): Promise<ImportView> {
  requireScope(ctx, "imports:write");
  parseInput(passInput, input ?? {});
  const imp = await findImport(ctx, id);
  if (imp.status === "committing") throw new DomainError("invalid_import_state", 409, "The commit is already running");
  if (!imp.dryRunAt || (imp.status !== "validated" && imp.status !== "failed")) {
    if (["created", "mapping", "validating"].includes(imp.status) || (imp.status === "failed" && !imp.dryRunAt)) {
      throw new DomainError("validation_required", 409, "Run the dry run (POST /imports/{id}/validate) and let it finish before committing");
    }
    throw new ImportStateError(imp.status, "committing");
  }
  if (imp.status === "failed" && imp.lastPassMode === "undo") throw new DomainError("invalid_import_state", 409, "An undo has started: undo again to finish it");
  await requireWorker(ctx.db);
  const moved = await moveImport(ctx, imp, "committing", { lastPassMode: "commit", failureReason: null, leaseOwner: null, leaseUntil: null });
  nudge("import-runner");
  return importView(moved);
}

export async function undoImport(ctx: Ctx, id: string, input: unknown = {}): Promise<ImportView> {
  requireScope(ctx, "imports:write");
  parseInput(passInput, input ?? {});
  const imp = await findImport(ctx, id);
  const undoable = imp.status === "completed" || (imp.status === "failed" && (imp.lastPassMode === "commit" || imp.lastPassMode === "undo"));
  if (!undoable) {
    const why = ["validating", "committing", "undoing"].includes(imp.status)
      ? `a ${imp.status.replace(/ing$/, "e")} is still running`
      : imp.status === "undone"
        ? "the import was already undone"
        : "nothing was committed (a dry run writes nothing)";
    throw new DomainError("undo_not_available", 409, `This import cannot be undone: ${why}`);
  }
  await requireWorker(ctx.db);
  const moved = await moveImport(ctx, imp, "undoing", { failureReason: null, leaseOwner: null, leaseUntil: null });
  nudge("import-runner");
  return importView(moved);
}

/** GET /imports/{id}/errors takes no query parameters: an unknown one is 422, like an unknown body field. */
const errorsQuery = z.strictObject({});

// ---- the error report -------------------------------------------------------------------------------------------

export async function getImportErrors(ctx: Ctx, id: string, query: unknown = {}) {
  requireScope(ctx, "imports:read");
  parseInput(errorsQuery, query ?? {}, ["query"]);
  const imp = await findImport(ctx, id);
  const rows = await ctx.db.importError.findMany({
    where: { importId: imp.id },
    orderBy: [{ rowNumber: "asc" }, { createdAt: "asc" }, { id: "asc" }],
    select: { rowNumber: true, columnName: true, code: true, message: true },
  });
  if (!rows.length || imp.rowsFailed === 0) throw new DomainError("no_errors", 404, "The import's last pass reported no failed rows");
  const rowsIncluded = new Set(rows.map((r) => r.rowNumber)).size;
  const csv = await new Promise<string>((resolve, reject) =>
    stringify(
      rows.map((r) => [r.rowNumber, r.columnName ?? "", r.code, r.message]),
      { header: true, columns: ["rowNumber", "columnName", "code", "message"], record_delimiter: "windows", escape_formulas: true, quoted_match: /[\r\n]/ },
      (err, out) => (err ? reject(err) : resolve(out)),
    ),
  );
  const base = imp.fileName.replace(/\.[A-Za-z0-9]+$/, "");
  return {
    importId: imp.id,
    rowsFailed: imp.rowsFailed,
    rowsIncluded,
    truncated: imp.rowsFailed > rowsIncluded,
    filename: `${base}-errors.csv`,
    csv,
    errors: rows,
  };
}
export type ImportErrorReport = Awaited<ReturnType<typeof getImportErrors>>;
