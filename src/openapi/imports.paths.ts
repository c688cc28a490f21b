// OpenAPI paths of bulk imports (src/imports/imports.rest.ts), registered by document.ts. The signed upload
// (PUT /imports/{id}/upload?token=…, mounted by src/app.ts) takes the raw file, not JSON; docs/imports.md has more.
import { z } from "zod";
import { createImportInput, inspectImportInput, mappingInput } from "../imports/imports.service";
import { IMPORT_STATUSES } from "../imports/import.machine";
import type { Register } from "./operation";
import { orNull } from "./schemas";

const ts = z.iso.datetime();
const Dialect = z.object({ delimiter: z.string(), quote: z.string(), bom: z.boolean(), encoding: z.string() }).meta({ id: "ImportDialect" });
const ImportRead = z
  .object({
    id: z.string(),
    entityType: z.enum(["customer", "order"]),
    provider: z.enum(["shopify", "woocommerce"]).nullable(),
    status: z.enum(IMPORT_STATUSES),
    fileName: z.string(),
    fileFormat: z.string(),
    fileBytes: z.number().int(),
    fileKey: z.string(),
    contentType: z.string(),
    uploadedBytes: z.number().int().nullable(),
    uploadedAt: ts.nullable(),
    dialect: orNull(Dialect),
    sheetName: z.string().nullable().meta({ description: "Excel files: the sheet read (chosen at inspect); null for CSV/TSV" }),
    headers: z.array(z.string()).nullable(),
    mapping: z
      .object({
        columns: z.record(z.string(), z.string().nullable()),
        dateOrder: z.string().nullable(),
        emptyPaymentPolicy: z.string().nullable(),
        guestSentinels: z.array(z.string()),
        createMissingCustomers: z.boolean(),
      })
      .nullable(),
    rowsTotal: z.number().int().nullable(),
    rowsProcessed: z.number().int(),
    rowsCreated: z.number().int(),
    rowsUpdated: z.number().int(),
    rowsSkipped: z.number().int(),
    rowsFailed: z.number().int(),
    lastPassMode: z.enum(["validate", "commit", "undo"]).nullable(),
    errorSummary: z
      .record(z.string(), z.object({ count: z.number().int(), sample: z.array(z.union([z.string(), z.number()])) }))
      .meta({ description: "Failed rows by error code (sample: row numbers), plus notes total_mismatches, rows_appended, orders_rewritten, customers_created" }),
    dryRunAt: ts.nullable(),
    committedAt: ts.nullable(),
    progress: z.object({ rowsTotal: z.number().int().nullable(), rowsProcessed: z.number().int(), percent: z.number().int().nullable() }),
    failureReason: z.string().nullable(),
    undoResult: z
      .object({
        deleted: z.record(z.string(), z.number().int()).meta({ description: "Rows deleted per entity type" }),
        kept: z.number().int(),
        keptReasons: z.record(z.string(), z.number().int()).meta({ description: "Kept rows per reason (customer_has_orders, order_has_payments, …)" }),
      })
      .nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Import" });
const ImportUpload = z
  .object({
    importId: z.string(),
    uploadUrl: z.string().meta({ description: "PUT the file's bytes here within expiresIn seconds (no API key: the token is the authority)" }),
    fileKey: z.string(),
    contentType: z.string(),
    expiresIn: z.number().int(),
  })
  .meta({ id: "ImportUpload" });
const ImportUploaded = z
  .object({ importId: z.string(), fileKey: z.string(), bytes: z.number().int().meta({ description: "Bytes stored" }) })
  .meta({ id: "ImportUploaded" });
const ImportInspection = z
  .object({
    importId: z.string(),
    status: z.enum(IMPORT_STATUSES),
    fileFormat: z.string(),
    dialect: orNull(Dialect),
    headers: z.array(z.string()),
    sample: z.array(z.array(z.string())).meta({ description: "Up to 20 data rows, each aligned with headers" }),
    matchedTemplate: z.enum(["shopify", "woocommerce"]).nullable(),
    suggestions: z.array(z.object({ header: z.string(), field: z.string().nullable() })),
    targetFields: z.array(z.string()),
    sheets: z.array(z.string()).nullable().meta({ description: "Excel files: every sheet name, in workbook order; null for CSV/TSV" }),
    sheetName: z.string().nullable().meta({ description: "Excel files: the sheet read; null for CSV/TSV" }),
  })
  .meta({ id: "ImportInspection" });

const ImportErrorReport = z
  .object({
    importId: z.string(),
    rowsFailed: z.number().int(),
    rowsIncluded: z.number().int(),
    truncated: z.boolean(),
    filename: z.string(),
    csv: z.string().meta({ description: "rowNumber,columnName,code,message (formulas escaped)" }),
    errors: z.array(z.object({ rowNumber: z.number().int(), columnName: z.string().nullable(), code: z.string(), message: z.string() })),
  })
  .meta({ id: "ImportErrorReport" });

type Reg = Register;

export function registerImports(r: Reg) {
  const tag = "imports";
  const id = { id: "The import's" };
  r("post", "/imports", { tag, summary: "Start an import: a signed upload URL valid 1 hour (imports:write; CSV/TSV up to 500 MB, .xlsx 10 MB, .xls 25 MB)", body: createImportInput, ok: [201, ImportUpload] });
  r("get", "/imports/{id}", { tag, summary: "An import with its counters and progress (imports:read; 403 environment_mismatch)", params: id, ok: [200, ImportRead] });
  r("post", "/imports/{id}/inspect", { tag, summary: "Dialect (CSV/TSV) or sheets (Excel), headers, 20-row sample and suggested fields (imports:write; 404 file_not_uploaded)", params: id, body: inspectImportInput, ok: [200, ImportInspection] });
  r("patch", "/imports/{id}/mapping", { tag, summary: "Save the column mapping; clears dryRunAt (imports:write; 422 naming both headers mapped to one field)", params: id, body: mappingInput, ok: [200, ImportRead] });
  r("post", "/imports/{id}/validate", { tag, summary: "Start the dry run as a job: every row checked, nothing written (imports:write; 202; 503 queue_unavailable)", params: id, ok: [202, ImportRead] });
  r("post", "/imports/{id}/commit", { tag, summary: "Start or resume the commit (imports:write; 202; 409 validation_required without a finished dry run)", params: id, ok: [202, ImportRead] });
  r("post", "/imports/{id}/undo", { tag, summary: "Delete what the commit created, keeping what others depend on (imports:write; 202; 409 undo_not_available)", params: id, ok: [202, ImportRead] });
  r("put", "/imports/{id}/upload", {
    tag,
    keyless: true,
    summary: "Upload the import's file to the uploadUrl of POST /imports (the signed token is the credential)",
    description:
      "The body is the file's raw bytes (not JSON), streamed to storage, with the contentType POST /imports answered; the size is checked against the declared fileBytes and the format's limit. A second upload replaces the file until the import is inspected. No API key: the `token` query parameter, valid one hour, is the only credential. REST only: GraphQL does not carry raw files.",
    params: id,
    query: z.object({ token: z.string().meta({ description: "The signed upload token of uploadUrl" }) }),
    fileBody: ["text/csv", "text/tab-separated-values", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "application/vnd.ms-excel", "application/octet-stream"],
    ok: [200, ImportUploaded],
    errors: ["invalid_token", "invalid_import_state", "request_aborted", "conflict"],
  });
  r("get", "/imports/{id}/errors", { tag, summary: "The failed rows of the last pass, first 10,000 rows, as rows and CSV (imports:read; 404 no_errors)", params: id, ok: [200, ImportErrorReport] });
}
