// GraphQL for bulk imports: the read, create (signed upload URL), inspect and the column mapping. Same services and
// view as REST (imports.rest.ts); the upload itself is the signed PUT, which carries the raw file.
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { errors } from "../shared/errors";
import type { ImportStatus } from "./import.machine";
import { liveItem } from "../events/events.service";
import { commitImport, getImportErrors, type ImportErrorReport, undoImport, validateImport } from "./import-passes.service";
import { createImport, getImport, type ImportInspection, type ImportView, inspectImport, saveImportMapping, subscribeImportProgress } from "./imports.service";
import type { UndoResult } from "./import.undo";

const StatusEnum = describedEnum<ImportStatus>("ImportStatus", "Where an import is", {
  created: "Upload URL issued",
  mapping: "Inspected or mapped; ready for a dry run",
  validating: "The dry run is running",
  validated: "The dry run finished (dryRunAt set): the only status a commit is accepted from",
  committing: "The commit is running",
  completed: "The commit finished; undoable",
  failed: "A run failed: failureReason says why",
  undoing: "The undo is running",
  undone: "Undo removed everything the import created",
});
const EntityEnum = describedEnum<"customer" | "order">("ImportEntityType", "What the file's rows are", { customer: "One customer per row", order: "Order rows" });
const ProviderEnum = describedEnum<"shopify" | "woocommerce">("ImportProvider", "The store platform the file was exported from", {
  shopify: "Shopify export columns and status words",
  woocommerce: "WooCommerce export columns and status words",
});
const DateOrderEnum = describedEnum<"dmy" | "mdy">("ImportDateOrder", "How ambiguous dates are read", { dmy: "Day before month (31/01/2026)", mdy: "Month before day (01/31/2026)" });
const PaymentPolicyEnum = describedEnum<"paid" | "unpaid" | "unknown">("ImportEmptyPaymentPolicy", "Payment status when the file and order status imply nothing", {
  paid: "Treat as paid",
  unpaid: "Treat as unpaid",
  unknown: "Behaves as unpaid",
});

type Dialect = NonNullable<ImportView["dialect"]>;
const DialectRef = builder.objectRef<Dialect>("ImportDialect").implement({
  description: "How the file is written, as detected by inspect",
  fields: (t) => ({
    delimiter: t.exposeString("delimiter", { description: "One of , ; tab |" }),
    quote: t.exposeString("quote", { description: "Quote character" }),
    bom: t.exposeBoolean("bom", { description: "The file starts with a UTF-8 byte order mark" }),
    encoding: t.exposeString("encoding", { description: "Text encoding (utf-8)" }),
  }),
});
type Column = { header: string; field: string | null };
const ColumnRef = builder.objectRef<Column>("ImportColumn").implement({
  description: "A header and the target field it maps to",
  fields: (t) => ({
    header: t.exposeString("header", { description: "The file's header" }),
    field: t.exposeString("field", { nullable: true, description: "Target field such as customer.email; null: ignored" }),
  }),
});
type Mapping = NonNullable<ImportView["mapping"]>;
const MappingRef = builder.objectRef<Mapping>("ImportMapping").implement({
  description: "The saved column mapping",
  fields: (t) => ({
    columns: t.field({ type: [ColumnRef], description: "Mapped columns (unmapped ones are ignored)", resolve: (m) => Object.entries(m.columns).map(([header, field]) => ({ header, field })) }),
    dateOrder: t.field({ type: DateOrderEnum, nullable: true, description: "How ambiguous dates are read", resolve: (m) => m.dateOrder as "dmy" | null }),
    emptyPaymentPolicy: t.field({ type: PaymentPolicyEnum, nullable: true, description: "Payment status when the file and order status imply nothing", resolve: (m) => m.emptyPaymentPolicy as "paid" | null }),
    guestSentinels: t.exposeStringList("guestSentinels", { description: "Values that mean a guest (no customer)" }),
    createMissingCustomers: t.exposeBoolean("createMissingCustomers", { description: "Orders whose customer does not exist create it" }),
  }),
});
type Progress = ImportView["progress"];
const ProgressRef = builder.objectRef<Progress>("ImportProgress").implement({
  description: "How far the running pass is",
  fields: (t) => ({
    rowsTotal: t.exposeInt("rowsTotal", { nullable: true, description: "Data rows in the file; null until a pass counted them" }),
    rowsProcessed: t.exposeInt("rowsProcessed", { description: "Rows the current or last pass went through" }),
    percent: t.exposeInt("percent", { nullable: true, description: "null while the total is unknown" }),
  }),
});

const PassModeEnum = describedEnum<"validate" | "commit" | "undo">("ImportPassMode", "A pass over an import", {
  validate: "The dry run: checks every row, writes nothing",
  commit: "Writes the rows",
  undo: "Deletes what the commit created",
});

type SummaryEntry = { key: string; count: number; sample: (string | number)[] };
const SummaryEntryRef = builder.objectRef<SummaryEntry>("ImportSummaryEntry").implement({
  description: "One line of errorSummary: an error code (failed rows) or a note (total_mismatches, rows_appended, orders_rewritten, customers_created)",
  fields: (t) => ({
    key: t.exposeString("key", { description: "The error code or note name" }),
    count: t.exposeInt("count", { description: "How many times it happened" }),
    sample: t.stringList({ description: "Up to 10 examples: row numbers for errors, order numbers or emails for notes", resolve: (e) => e.sample.map(String) }),
  }),
});
type Count = { key: string; count: number };
const CountRef = builder.objectRef<Count>("ImportCount").implement({
  description: "A name and a count",
  fields: (t) => ({
    key: t.exposeString("key", { description: "What is counted (an entity type or a reason)" }),
    count: t.exposeInt("count", { description: "How many" }),
  }),
});
const UndoResultRef = builder.objectRef<UndoResult>("ImportUndoResult").implement({
  description: "What the undo deleted and what it kept",
  fields: (t) => ({
    deleted: t.field({ type: [CountRef], description: "Rows deleted per entity type (customer, order, payment, fulfillment)", resolve: (u) => Object.entries(u.deleted).map(([key, count]) => ({ key, count })) }),
    kept: t.exposeInt("kept", { description: "Rows kept because something else depends on them" }),
    keptReasons: t.field({ type: [CountRef], description: "Kept rows per reason (e.g. customer_has_orders)", resolve: (u) => Object.entries(u.keptReasons).map(([key, count]) => ({ key, count })) }),
  }),
});

type ErrorRow = ImportErrorReport["errors"][number];
const ErrorRowRef = builder.objectRef<ErrorRow>("ImportErrorRow").implement({
  description: "One failed cell or row",
  fields: (t) => ({
    rowNumber: t.exposeInt("rowNumber", { description: "The spreadsheet row (the header is row 1)" }),
    columnName: t.exposeString("columnName", { nullable: true, description: "The file's header of the column; null for the row as a whole" }),
    code: t.exposeString("code", { description: "invalid_email, invalid_date, invalid_money, invalid_status, missing_required, identity_conflict, …" }),
    message: t.exposeString("message", { description: "What is wrong, in words" }),
  }),
});
const ErrorReportRef = builder.objectRef<ImportErrorReport>("ImportErrorReport").implement({
  description: "The failed rows of the last pass (the first 10,000 rows), as rows and as CSV",
  fields: (t) => ({
    importId: t.exposeID("importId", { description: "The import's id" }),
    rowsFailed: t.exposeInt("rowsFailed", { description: "Failed rows in the pass" }),
    rowsIncluded: t.exposeInt("rowsIncluded", { description: "Failed rows in this report" }),
    truncated: t.exposeBoolean("truncated", { description: "More rows failed than the report holds" }),
    filename: t.exposeString("filename", { description: "A file name for the CSV" }),
    csv: t.exposeString("csv", { description: "rowNumber,columnName,code,message as CSV (formulas escaped)" }),
    errors: t.field({ type: [ErrorRowRef], description: "The same rows", resolve: (r) => r.errors }),
  }),
});

export const ImportRef = builder.objectRef<ImportView>("Import").implement({
  description: "A bulk import of customers or orders from a file",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The import's id" }),
    entityType: t.field({ type: EntityEnum, description: "What the file's rows are", resolve: (i) => i.entityType as "customer" }),
    provider: t.field({ type: ProviderEnum, nullable: true, description: "The store platform the file was exported from, if any", resolve: (i) => i.provider as "shopify" | null }),
    status: t.field({ type: StatusEnum, description: "Where the import is", resolve: (i) => i.status as ImportStatus }),
    fileName: t.exposeString("fileName", { description: "The file name given at create" }),
    fileFormat: t.exposeString("fileFormat", { description: "csv, tsv, xlsx or xls (from the file name)" }),
    fileBytes: t.exposeInt("fileBytes", { description: "Size declared at create" }),
    fileKey: t.exposeString("fileKey", { description: "Where the file is stored" }),
    contentType: t.exposeString("contentType", { description: "The MIME type of the file (text/csv, text/tab-separated-values, or the Excel types)" }),
    uploadedBytes: t.exposeInt("uploadedBytes", { nullable: true, description: "Size stored by the upload; null before it" }),
    uploadedAt: t.field({ type: "DateTime", nullable: true, description: "When the file was uploaded", resolve: (i) => i.uploadedAt }),
    dialect: t.field({ type: DialectRef, nullable: true, description: "How a CSV/TSV file is written (after inspect); null for Excel files", resolve: (i) => i.dialect }),
    sheetName: t.exposeString("sheetName", { nullable: true, description: "Excel files: the sheet read (chosen at inspect); null for CSV/TSV" }),
    headers: t.stringList({ nullable: true, description: "Headers found at inspect", resolve: (i) => i.headers }),
    mapping: t.field({ type: MappingRef, nullable: true, description: "The saved column mapping", resolve: (i) => i.mapping }),
    rowsTotal: t.exposeInt("rowsTotal", { nullable: true, description: "Data rows in the file; null until a pass counted them" }),
    rowsProcessed: t.exposeInt("rowsProcessed", { description: "Rows the current or last pass went through" }),
    rowsCreated: t.exposeInt("rowsCreated", { description: "Rows that created a record" }),
    rowsUpdated: t.exposeInt("rowsUpdated", { description: "Rows that updated a record" }),
    rowsSkipped: t.exposeInt("rowsSkipped", { description: "Rows merged into another row's record" }),
    rowsFailed: t.exposeInt("rowsFailed", { description: "Rows with an error" }),
    lastPassMode: t.field({ type: PassModeEnum, nullable: true, description: "The last pass started", resolve: (i) => i.lastPassMode as "validate" | null }),
    errorSummary: t.field({
      type: [SummaryEntryRef],
      description: "Failed rows grouped by error code, and notes (total_mismatches, rows_appended, orders_rewritten)",
      resolve: (i) => Object.entries(i.errorSummary as Record<string, { count: number; sample: (string | number)[] }>).map(([key, v]) => ({ key, count: v.count, sample: v.sample })),
    }),
    undoResult: t.field({ type: UndoResultRef, nullable: true, description: "What the last undo deleted and kept", resolve: (i) => i.undoResult as UndoResult | null }),
    dryRunAt: t.field({ type: "DateTime", nullable: true, description: "When the last dry run finished; a commit needs it", resolve: (i) => i.dryRunAt }),
    committedAt: t.field({ type: "DateTime", nullable: true, description: "When the commit finished", resolve: (i) => i.committedAt }),
    progress: t.field({ type: ProgressRef, description: "How far the running pass is", resolve: (i) => i.progress }),
    failureReason: t.exposeString("failureReason", { nullable: true, description: "Why the last run failed" }),
    createdAt: t.field({ type: "DateTime", description: "When it was created", resolve: (i) => i.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "When it last changed", resolve: (i) => i.updatedAt }),
  }),
});

type Upload = Awaited<ReturnType<typeof createImport>>;
const UploadRef = builder.objectRef<Upload>("ImportUpload").implement({
  description: "A new import and where to PUT its file",
  fields: (t) => ({
    importId: t.exposeID("importId", { description: "The import's id" }),
    uploadUrl: t.exposeString("uploadUrl", { description: "Signed PUT URL (no API key), valid expiresIn seconds" }),
    fileKey: t.exposeString("fileKey", { description: "Where the file is stored" }),
    contentType: t.exposeString("contentType", { description: "The MIME type of the file (text/csv, text/tab-separated-values, or the Excel types)" }),
    expiresIn: t.exposeInt("expiresIn", { description: "Seconds (3600)" }),
  }),
});
const SampleRowRef = builder.objectRef<{ cells: string[] }>("ImportSampleRow").implement({
  description: "One data row of the sample",
  fields: (t) => ({ cells: t.exposeStringList("cells", { description: "Cell values in header order" }) }),
});
const InspectionRef = builder.objectRef<ImportInspection>("ImportInspection").implement({
  description: "What inspect read: a CSV/TSV file's first 1 MB, or an Excel file's chosen sheet",
  fields: (t) => ({
    importId: t.exposeID("importId", { description: "The import's id" }),
    status: t.field({ type: StatusEnum, description: "Where the import is", resolve: (i) => i.status as ImportStatus }),
    fileFormat: t.exposeString("fileFormat", { description: "csv, tsv, xlsx or xls (from the file name)" }),
    dialect: t.field({ type: DialectRef, nullable: true, description: "How a CSV/TSV file is written; null for Excel files", resolve: (i) => i.dialect }),
    sheetName: t.exposeString("sheetName", { nullable: true, description: "Excel files: the sheet read; null for CSV/TSV" }),
    headers: t.exposeStringList("headers", { description: "The headers, made unique" }),
    sample: t.field({ type: [SampleRowRef], description: "Up to 20 data rows aligned with headers", resolve: (i) => i.sample.map((cells) => ({ cells })) }),
    matchedTemplate: t.field({ type: ProviderEnum, nullable: true, description: "The store platform whose export layout the headers match, if any", resolve: (i) => i.matchedTemplate }),
    suggestions: t.field({ type: [ColumnRef], description: "The suggested target field of each header", resolve: (i) => i.suggestions }),
    targetFields: t.exposeStringList("targetFields", { description: "Every field a column may map to" }),
    sheets: t.stringList({ nullable: true, description: "Excel files: every sheet name, in workbook order; null for CSV/TSV", resolve: (i) => i.sheets }),
  }),
});

const ColumnInput = builder.inputType("ImportColumnInput", {
  description: "A header and its target field",
  fields: (t) => ({
    header: t.string({ required: true, description: "The file's header" }),
    field: t.string({ description: "Target field such as customer.email; null or absent: ignored" }),
  }),
});

const importId = "The import's id";

builder.queryFields((t) => ({
  import: t.field({
    type: ImportRef,
    description: "An import with its counters and progress (403 environment_mismatch for another environment's)",
    authScopes: { scope: "imports:read" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    resolve: (_r, a, ctx) => getImport(ctx, String(a.id)),
  }),
  importErrors: t.field({
    type: ErrorReportRef,
    description: "The error report of the last pass (404 no_errors when no row failed)",
    authScopes: { scope: "imports:read" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    resolve: (_r, a, ctx) => getImportErrors(ctx, String(a.id)),
  }),
}));

builder.subscriptionFields((t) => ({
  importProgress: t.field({
    type: ImportRef,
    description: "The import now, then again after every batch of a running pass and when the pass ends",
    authScopes: { scope: "imports:read" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    subscribe: (_r, a, ctx) => subscribeImportProgress(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return getImport(ctx, String(a.id));
    },
  }),
}));

builder.mutationFields((t) => ({
  createImport: t.field({
    type: UploadRef,
    description: "Starts an import: a signed upload URL valid one hour (CSV/TSV up to 500 MB, .xlsx 10 MB, .xls 25 MB)",
    authScopes: { scope: "imports:write" },
    args: {
      entityType: t.arg({ type: EntityEnum, required: true, description: "What the file's rows are" }),
      fileName: t.arg.string({ required: true, description: "Ends in .csv, .tsv, .txt, .xlsx or .xls" }),
      fileBytes: t.arg.int({ required: true, description: "The file's size in bytes" }),
      provider: t.arg({ type: ProviderEnum, description: "The store platform it was exported from" }),
    },
    resolve: (_r, a, ctx) => createImport(ctx, { entityType: a.entityType, fileName: a.fileName, fileBytes: a.fileBytes, ...(a.provider ? { provider: a.provider } : {}) }),
  }),
  inspectImport: t.field({
    type: InspectionRef,
    description: "Dialect (CSV/TSV) or sheets (Excel), headers, 20-row sample and suggested fields (404 file_not_uploaded)",
    authScopes: { scope: "imports:write" },
    args: { id: t.arg.id({ required: true, description: importId }), sheetName: t.arg.string({ description: "Excel only: the sheet to read (default: the one chosen before, else the first); another sheet clears dryRunAt" }) },
    resolve: (_r, a, ctx) => inspectImport(ctx, String(a.id), a.sheetName != null ? { sheetName: a.sheetName } : {}),
  }),
  validateImport: t.field({
    type: ImportRef,
    description: "Starts the dry run (a job): every row checked, nothing written (503 queue_unavailable without a worker)",
    authScopes: { scope: "imports:write" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    resolve: (_r, a, ctx) => validateImport(ctx, String(a.id)),
  }),
  commitImport: t.field({
    type: ImportRef,
    description: "Starts (or resumes) the commit (409 validation_required without a finished dry run)",
    authScopes: { scope: "imports:write" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    resolve: (_r, a, ctx) => commitImport(ctx, String(a.id)),
  }),
  undoImport: t.field({
    type: ImportRef,
    description: "Starts the undo: deletes what the commit created, keeps what others depend on (409 undo_not_available)",
    authScopes: { scope: "imports:write" },
    args: { id: t.arg.id({ required: true, description: importId }) },
    resolve: (_r, a, ctx) => undoImport(ctx, String(a.id)),
  }),
  saveImportMapping: t.field({
    type: ImportRef,
    description: "Saves the column mapping and clears dryRunAt (two columns on one field are refused naming both)",
    authScopes: { scope: "imports:write" },
    args: {
      id: t.arg.id({ required: true, description: importId }),
      columns: t.arg({ type: [ColumnInput], required: true, description: "Each header and its target field" }),
      dateOrder: t.arg({ type: DateOrderEnum, required: true, description: "How ambiguous dates are read" }),
      emptyPaymentPolicy: t.arg({ type: PaymentPolicyEnum, description: "Payment status when the file and order status imply nothing" }),
      guestSentinels: t.arg.stringList({ description: "Values that mean a guest (no customer)" }),
      createMissingCustomers: t.arg.boolean({ description: "Orders whose customer does not exist create it" }),
    },
    resolve: (_r, a, ctx) => {
      const columns: Record<string, string | null> = {};
      for (const [n, c] of a.columns.entries()) {
        if (Object.hasOwn(columns, c.header)) throw errors.validation([{ path: ["columns", n, "header"], message: `"${c.header}" is listed twice` }]);
        columns[c.header] = c.field ?? null;
      }
      return saveImportMapping(ctx, String(a.id), {
        columns,
        dateOrder: a.dateOrder,
        ...(a.emptyPaymentPolicy ? { emptyPaymentPolicy: a.emptyPaymentPolicy } : {}),
        ...(a.guestSentinels ? { guestSentinels: a.guestSentinels } : {}),
        ...(a.createMissingCustomers != null ? { createMissingCustomers: a.createMissingCustomers } : {}),
      });
    },
  }),
}));
