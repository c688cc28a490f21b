// Bulk imports, first slice: create (a signed upload URL), the upload itself (streamed to storage), inspect
// (CSV/TSV: dialect, headers, sample, suggestions from the first 1 MB; Excel: the sheets and the chosen sheet's
// headers, sample and suggestions), the column mapping, and the read with progress.
// Every status move goes through import.machine.ts. An import of another environment of the same application is
// 403 environment_mismatch; another application's is 404 like an unknown id.
import type { Readable } from "node:stream";
import { z } from "zod";
import { type Import, Prisma } from "../generated/prisma/client";
import { actorOf } from "../platform/actor";
import { requireScope, requireTenant } from "../platform/auth.service";
import type { Ctx, Deps } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { signToken, verifyToken } from "../shared/signed-token";
import { StorageLimitError, storageFor } from "../shared/storage";
import { IMPORT_ENTITIES, type ImportEntity, matchTemplate, PROVIDERS, suggestFields, targetFields } from "./import.fields";
import { readExcelRows } from "./import.excel";
import { INSPECT_BYTES, inspectHead, type Inspection, readHead, SAMPLE_ROWS, uniqueHeaders } from "./import.inspect";
import { moveImport } from "./import.machine";
import { currentStateFirst, whileCredentialLive } from "../events/events.service";
import { importTopic } from "../events/hub";
import { isUuid } from "../shared/ids";

export const UPLOAD_TTL_SECONDS = 3600;
/** CSV or TSV: 500 MB (commerce limits). */
export const CSV_MAX_BYTES = 500 * 1024 * 1024;
/** .xlsx: 10 MB; .xls: 25 MB (commerce limits; 65,536 data rows either way, see import.excel.ts). */
export const XLSX_MAX_BYTES = 10 * 1024 * 1024;
export const XLS_MAX_BYTES = 25 * 1024 * 1024;
const UPLOAD_PURPOSE = "import-upload.v1";

export type FileFormat = "csv" | "tsv" | "xlsx" | "xls";
type FormatRule = { format: FileFormat; contentType: string; maxBytes: number; limit: string };
const CSV_RULE = { maxBytes: CSV_MAX_BYTES, limit: "500 MB for a CSV or TSV file" };
const FORMATS: Record<string, FormatRule> = {
  csv: { format: "csv", contentType: "text/csv", ...CSV_RULE },
  txt: { format: "csv", contentType: "text/csv", ...CSV_RULE },
  tsv: { format: "tsv", contentType: "text/tab-separated-values", ...CSV_RULE },
  xlsx: { format: "xlsx", contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", maxBytes: XLSX_MAX_BYTES, limit: "10 MB for an .xlsx file" },
  xls: { format: "xls", contentType: "application/vnd.ms-excel", maxBytes: XLS_MAX_BYTES, limit: "25 MB for an .xls file" },
};
const ruleOf = (format: string): FormatRule => Object.values(FORMATS).find((f) => f.format === format) ?? FORMATS.csv!;
const isExcel = (format: string): format is "xlsx" | "xls" => format === "xlsx" || format === "xls";

const fileName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((s) => ![...s].some((c) => c === "/" || c === "\\" || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), "must be a file name without path separators or control characters");

export const createImportInput = z.strictObject({
  entityType: z.enum(IMPORT_ENTITIES),
  fileName,
  fileBytes: z.number().int().min(1),
  provider: z.enum(PROVIDERS).optional(),
});

export const inspectImportInput = z.strictObject({
  sheetName: z.string().min(1).max(200).optional().meta({ description: "Excel only: the sheet to read (default: the one chosen before, else the first)" }),
});

/** validate, commit and undo take no body: none, or `{}`; any field is unknown, so 422 (decisions.md part 1). */
export const passInput = z.strictObject({});

export const mappingInput = z.strictObject({
  columns: z.record(z.string().min(1).max(500), z.string().min(1).max(100).nullable()),
  dateOrder: z.enum(["dmy", "mdy"]),
  emptyPaymentPolicy: z.enum(["paid", "unpaid", "unknown"]).optional(),
  guestSentinels: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
  createMissingCustomers: z.boolean().optional(),
});

// ---- the view ---------------------------------------------------------------------------------------------------

export function importView(i: Import) {
  const percent = i.rowsTotal === null ? null : i.rowsTotal === 0 ? 100 : Math.min(100, Math.floor((i.rowsProcessed * 100) / i.rowsTotal));
  return {
    id: i.id,
    entityType: i.entityType,
    provider: i.provider,
    status: i.status,
    fileName: i.fileName,
    fileFormat: i.fileFormat,
    fileBytes: i.fileBytes,
    fileKey: i.fileKey,
    contentType: i.contentType,
    uploadedBytes: i.uploadedBytes,
    uploadedAt: i.uploadedAt?.toISOString() ?? null,
    dialect: (i.dialect as { delimiter: string; quote: string; bom: boolean; encoding: string } | null) ?? null,
    sheetName: i.sheetName,
    headers: (i.headers as string[] | null) ?? null,
    mapping: i.columns
      ? {
          columns: i.columns as Record<string, string | null>,
          dateOrder: i.dateOrder,
          emptyPaymentPolicy: i.emptyPaymentPolicy,
          guestSentinels: i.guestSentinels as string[],
          createMissingCustomers: i.createMissingCustomers,
        }
      : null,
    rowsTotal: i.rowsTotal,
    rowsProcessed: i.rowsProcessed,
    rowsCreated: i.rowsCreated,
    rowsUpdated: i.rowsUpdated,
    rowsSkipped: i.rowsSkipped,
    rowsFailed: i.rowsFailed,
    lastPassMode: i.lastPassMode,
    errorSummary: i.errorSummary as Record<string, unknown>,
    dryRunAt: i.dryRunAt?.toISOString() ?? null,
    committedAt: i.committedAt?.toISOString() ?? null,
    progress: { rowsTotal: i.rowsTotal, rowsProcessed: i.rowsProcessed, percent },
    failureReason: i.failureReason,
    undoResult: (i.undoResult as Record<string, unknown> | null) ?? null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
export type ImportView = ReturnType<typeof importView>;

// ---- reads ------------------------------------------------------------------------------------------------------

/** The application's import; 404 for an unknown or another application's id, 403 environment_mismatch for another environment's. */
export async function findImport(ctx: Ctx, id: string): Promise<Import> {
  const t = requireTenant(ctx);
  if (!isUuid(id)) throw errors.notFound("Import");
  const row = await ctx.db.import.findFirst({ where: { id, applicationId: t.applicationId } });
  if (!row) throw errors.notFound("Import");
  if (row.environmentId !== t.environmentId) throw new DomainError("environment_mismatch", 403, "This import belongs to another environment of this application");
  return row;
}

export async function getImport(ctx: Ctx, id: string): Promise<ImportView> {
  requireScope(ctx, "imports:read");
  return importView(await findImport(ctx, id));
}

// ---- create and upload ------------------------------------------------------------------------------------------

function uploadUrl(deps: Pick<Deps, "config">, imp: Pick<Import, "id" | "fileKey">, maxBytes: number, expiresAt: Date) {
  const token = signToken(deps.config, UPLOAD_PURPOSE, { i: imp.id, k: imp.fileKey, m: maxBytes }, expiresAt);
  return `${deps.config.BASE_URL.replace(/\/+$/, "")}/api/v1/imports/${imp.id}/upload?token=${token}`;
}

export async function createImport(ctx: Ctx, input: unknown) {
  requireScope(ctx, "imports:write");
  const t = requireTenant(ctx);
  const body = parseInput(createImportInput, input);
  const ext = /\.([A-Za-z0-9]+)$/.exec(body.fileName)?.[1]?.toLowerCase() ?? "";
  const kind = FORMATS[ext];
  if (!kind) throw errors.validation([{ path: ["fileName"], message: "must end in .csv, .tsv, .txt, .xlsx or .xls" }]);
  if (body.fileBytes > kind.maxBytes) throw errors.validation([{ path: ["fileBytes"], message: `must be at most ${kind.maxBytes} bytes (${kind.limit})` }]);
  const id = crypto.randomUUID();
  const fileKey = `imports/${t.applicationId}/${id}/source.${kind.format}`;
  const imp = await ctx.db.import.create({
    data: {
      id,
      applicationId: t.applicationId,
      environmentId: t.environmentId,
      entityType: body.entityType,
      provider: body.provider ?? null,
      fileName: body.fileName,
      fileFormat: kind.format,
      fileBytes: body.fileBytes,
      fileKey,
      contentType: kind.contentType,
      createdBy: actorOf(ctx).actorId,
    },
  });
  const expiresAt = new Date(ctx.clock.now().getTime() + UPLOAD_TTL_SECONDS * 1000);
  return { importId: imp.id, uploadUrl: uploadUrl(ctx.deps, imp, kind.maxBytes, expiresAt), fileKey, contentType: kind.contentType, expiresIn: UPLOAD_TTL_SECONDS };
}

const invalidUploadToken = () => new DomainError("invalid_token", 401, "The upload link is invalid or has expired");

/**
 * PUT of the file through the signed URL (the token is the authority: no API key). The body is streamed to
 * storage; past the limit the upload is 413 and nothing is stored. Accepted while the import is created or mapping.
 */
export async function receiveUpload(deps: Deps, importId: string, token: string, body: Readable) {
  const claims = verifyToken(deps.config, UPLOAD_PURPOSE, token, deps.clock.now());
  if (!claims || claims.i !== importId || typeof claims.k !== "string" || typeof claims.m !== "number") throw invalidUploadToken();
  const imp = await deps.prisma.import.findUnique({ where: { id: importId } });
  if (!imp || imp.fileKey !== claims.k) throw invalidUploadToken();
  if (imp.status !== "created" && imp.status !== "mapping") {
    throw new DomainError("invalid_import_state", 409, `The file cannot be replaced once the import is ${imp.status}`);
  }
  let bytes: number;
  try {
    bytes = await storageFor(deps.config).putStream(imp.fileKey, body, claims.m);
  } catch (e) {
    if (e instanceof StorageLimitError) throw new DomainError("payload_too_large", 413, `The file is larger than ${e.maxBytes} bytes`);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ECONNRESET" || code === "ECONNABORTED") throw new DomainError("request_aborted", 400, "The upload was interrupted; nothing was stored");
    throw e;
  }
  // Everything read from the file before is now about another file: its dialect, headers and sheet, the mapping
  // checked against those headers, and any dry run. They are forgotten, so validate waits for a new inspect and a
  // new mapping instead of reading the new file with the old file's settings. The status stays (created or
  // mapping): nothing moves forward, and an inspect that raced this upload is simply asked for again.
  const { count } = await deps.prisma.import.updateMany({
    where: { id: imp.id, status: { in: ["created", "mapping"] } },
    data: {
      uploadedBytes: bytes,
      uploadedAt: deps.clock.now(),
      updatedAt: deps.clock.now(),
      dialect: Prisma.DbNull,
      headers: Prisma.DbNull,
      sheetName: null,
      columns: Prisma.DbNull,
      dateOrder: null,
      emptyPaymentPolicy: null,
      guestSentinels: [],
      createMissingCustomers: false,
      dryRunAt: null,
    },
  });
  if (count !== 1) throw new DomainError("conflict", 409, "The import changed while the file was uploading; retry");
  return { importId: imp.id, fileKey: imp.fileKey, bytes };
}

// ---- inspect ----------------------------------------------------------------------------------------------------

type Found = Inspection | (Omit<Inspection, "dialect"> & { dialect: null; sheets: string[]; sheet: string });

const isSheetRefusal = (e: unknown) => e instanceof DomainError && (e.details?.issues as { path: unknown[] }[] | undefined)?.[0]?.path[0] === "sheetName";

/**
 * An Excel file's sheets and the chosen sheet's headers and sample. The sheet is the one asked for; else the one
 * chosen at an earlier inspect of this file; else the first (a new upload forgets the chosen sheet).
 */
async function inspectExcel(buf: Buffer, format: "xlsx" | "xls", asked: string | undefined, saved: string | null): Promise<Found> {
  let read;
  if (asked !== undefined) read = await readExcelRows(buf, format, asked);
  else if (saved !== null) read = await readExcelRows(buf, format, saved).catch((e) => (isSheetRefusal(e) ? null : Promise.reject(e)));
  read ??= await readExcelRows(buf, format);
  const headers = uniqueHeaders(read.rows[0] ?? []);
  const sample: string[][] = [];
  for (let i = 1; i < read.rows.length && sample.length < SAMPLE_ROWS; i++) {
    const row = read.rows[i]!;
    if (row.every((c) => c === "")) continue; // an empty row in the sheet: not worth a sample line
    sample.push(headers.map((_h, n) => row[n] ?? ""));
  }
  return { dialect: null, headers, sample, sheets: read.sheets, sheet: read.sheet };
}

export async function inspectImport(ctx: Ctx, id: string, input: unknown = {}) {
  requireScope(ctx, "imports:write");
  const body = parseInput(inspectImportInput, input ?? {});
  const imp = await findImport(ctx, id);
  const format = imp.fileFormat;
  if (body.sheetName !== undefined && !isExcel(format)) throw errors.validation([{ path: ["sheetName"], message: "applies to Excel files only" }]);
  const storage = storageFor(ctx.deps.config);
  const size = await storage.size(imp.fileKey);
  if (!size) throw new DomainError("file_not_uploaded", 404, "No file has been uploaded to this import yet (or it is empty)");
  const rule = ruleOf(format);
  if (size > rule.maxBytes) throw errors.validation([{ path: ["file"], message: `is larger than ${rule.maxBytes} bytes (${rule.limit})` }]);
  let found: Found;
  if (isExcel(format)) {
    const buf = await storage.get(imp.fileKey);
    if (!buf?.length) throw new DomainError("file_not_uploaded", 404, "No file has been uploaded to this import yet");
    found = await inspectExcel(buf, format, body.sheetName, imp.sheetName);
  } else {
    const stream = await storage.getStream(imp.fileKey, { end: INSPECT_BYTES - 1 });
    if (!stream) throw new DomainError("file_not_uploaded", 404, "No file has been uploaded to this import yet");
    found = await inspectHead(await readHead(stream), size > INSPECT_BYTES);
  }
  const sheet = "sheet" in found ? found.sheet : null;
  const entity = imp.entityType as ImportEntity;
  const suggested = suggestFields(entity, found.headers);
  const data = { dialect: found.dialect ?? Prisma.DbNull, headers: found.headers, uploadedBytes: size, sheetName: sheet };
  // Another sheet means other rows: like a new mapping it clears dryRunAt and sends the import back to mapping.
  const sheetChanged = sheet !== null && imp.sheetName !== null && imp.sheetName !== sheet;
  if (sheetChanged && imp.status === "failed" && imp.lastPassMode === "commit") {
    throw new DomainError("invalid_import_state", 409, "A commit has started writing rows: the sheet cannot change; commit again to resume or undo");
  }
  const moved =
    sheetChanged || ["created", "mapping"].includes(imp.status)
      ? await moveImport(ctx, imp, "mapping", sheetChanged ? { ...data, dryRunAt: null } : data)
      : await ctx.db.import.update({ where: { id: imp.id }, data });
  return {
    importId: moved.id,
    status: moved.status,
    fileFormat: moved.fileFormat,
    dialect: found.dialect,
    headers: found.headers,
    sample: found.sample,
    matchedTemplate: matchTemplate(found.headers),
    suggestions: found.headers.map((header) => ({ header, field: suggested[header] ?? null })),
    targetFields: [...targetFields(entity)],
    sheets: "sheets" in found ? found.sheets : null,
    sheetName: sheet,
  };
}
export type ImportInspection = Awaited<ReturnType<typeof inspectImport>>;

// ---- mapping ----------------------------------------------------------------------------------------------------

export async function saveImportMapping(ctx: Ctx, id: string, input: unknown): Promise<ImportView> {
  requireScope(ctx, "imports:write");
  const body = parseInput(mappingInput, input);
  const imp = await findImport(ctx, id);
  const allowed = new Set(targetFields(imp.entityType as ImportEntity));
  const headers = imp.headers as string[] | null;
  const known = headers ? new Set(headers) : null;
  const issues: { path: (string | number)[]; message: string }[] = [];
  const byField = new Map<string, string>();
  for (const [header, field] of Object.entries(body.columns)) {
    if (known && !known.has(header)) issues.push({ path: ["columns", header], message: `is not a header of the file (${headers!.length} headers were found at inspect)` });
    if (field === null) continue; // explicitly unmapped
    if (!allowed.has(field)) {
      issues.push({ path: ["columns", header], message: `${field} is not a target field of a ${imp.entityType} import` });
      continue;
    }
    const first = byField.get(field);
    if (first !== undefined) issues.push({ path: ["columns", header], message: `columns "${first}" and "${header}" are both mapped to ${field}` });
    else byField.set(field, header);
  }
  if (issues.length) throw errors.validation(issues);
  if (imp.status === "failed" && imp.lastPassMode === "commit") {
    throw new DomainError("invalid_import_state", 409, "A commit has started writing rows: the mapping cannot change; commit again to resume or undo");
  }
  const columns = Object.fromEntries(Object.entries(body.columns).filter(([, f]) => f !== null));
  const moved = await moveImport(ctx, imp, "mapping", {
    columns,
    dateOrder: body.dateOrder,
    emptyPaymentPolicy: body.emptyPaymentPolicy ?? null,
    guestSentinels: body.guestSentinels ?? [],
    createMissingCustomers: body.createMissingCustomers ?? false,
    dryRunAt: null,
  });
  return importView(moved);
}

/** importProgress: the import now, then again after each batch and at the end of each pass (tenant-checked once). */
export async function subscribeImportProgress(ctx: Ctx, id: string) {
  requireScope(ctx, "imports:read");
  const imp = await findImport(ctx, id);
  return whileCredentialLive(ctx, currentStateFirst(ctx.deps.hub.pubsub.subscribe(importTopic(imp.id))));
}
