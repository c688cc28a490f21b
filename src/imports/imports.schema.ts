// GraphQL for bulk imports: the read, create (signed upload URL), inspect and the column mapping. Same services and
// view as REST (imports.rest.ts); the upload itself is the signed PUT, which carries the raw file.
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { errors } from "../shared/errors";
import type { ImportStatus } from "./import.machine";
import { createImport, getImport, type ImportInspection, type ImportView, inspectImport, saveImportMapping } from "./imports.service";

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

export const ImportRef = builder.objectRef<ImportView>("Import").implement({
  description: "A bulk import of customers or orders from a file",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The import's id" }),
    entityType: t.field({ type: EntityEnum, description: "What the file's rows are", resolve: (i) => i.entityType as "customer" }),
    provider: t.field({ type: ProviderEnum, nullable: true, description: "The store platform the file was exported from, if any", resolve: (i) => i.provider as "shopify" | null }),
    status: t.field({ type: StatusEnum, description: "Where the import is", resolve: (i) => i.status as ImportStatus }),
    fileName: t.exposeString("fileName", { description: "The file name given at create" }),
    fileFormat: t.exposeString("fileFormat", { description: "csv or tsv" }),
    fileBytes: t.exposeInt("fileBytes", { description: "Size declared at create" }),
    fileKey: t.exposeString("fileKey", { description: "Where the file is stored" }),
    contentType: t.exposeString("contentType", { description: "The MIME type of the file (text/csv or text/tab-separated-values)" }),
    uploadedBytes: t.exposeInt("uploadedBytes", { nullable: true, description: "Size stored by the upload; null before it" }),
    uploadedAt: t.field({ type: "DateTime", nullable: true, description: "When the file was uploaded", resolve: (i) => i.uploadedAt }),
    dialect: t.field({ type: DialectRef, nullable: true, description: "How the file is written (after inspect)", resolve: (i) => i.dialect }),
    headers: t.stringList({ nullable: true, description: "Headers found at inspect", resolve: (i) => i.headers }),
    mapping: t.field({ type: MappingRef, nullable: true, description: "The saved column mapping", resolve: (i) => i.mapping }),
    rowsTotal: t.exposeInt("rowsTotal", { nullable: true, description: "Data rows in the file; null until a pass counted them" }),
    rowsProcessed: t.exposeInt("rowsProcessed", { description: "Rows the current or last pass went through" }),
    rowsCreated: t.exposeInt("rowsCreated", { description: "Rows that created a record" }),
    rowsUpdated: t.exposeInt("rowsUpdated", { description: "Rows that updated a record" }),
    rowsSkipped: t.exposeInt("rowsSkipped", { description: "Rows merged into another row's record" }),
    rowsFailed: t.exposeInt("rowsFailed", { description: "Rows with an error" }),
    lastPassMode: t.exposeString("lastPassMode", { nullable: true, description: "validate, commit or undo" }),
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
    contentType: t.exposeString("contentType", { description: "The MIME type of the file (text/csv or text/tab-separated-values)" }),
    expiresIn: t.exposeInt("expiresIn", { description: "Seconds (3600)" }),
  }),
});
const SampleRowRef = builder.objectRef<{ cells: string[] }>("ImportSampleRow").implement({
  description: "One data row of the sample",
  fields: (t) => ({ cells: t.exposeStringList("cells", { description: "Cell values in header order" }) }),
});
const InspectionRef = builder.objectRef<ImportInspection>("ImportInspection").implement({
  description: "What inspect read from the file's first 1 MB",
  fields: (t) => ({
    importId: t.exposeID("importId", { description: "The import's id" }),
    status: t.field({ type: StatusEnum, description: "Where the import is", resolve: (i) => i.status as ImportStatus }),
    fileFormat: t.exposeString("fileFormat", { description: "csv or tsv" }),
    dialect: t.field({ type: DialectRef, description: "How the file is written (after inspect)", resolve: (i) => i.dialect }),
    headers: t.exposeStringList("headers", { description: "The headers, made unique" }),
    sample: t.field({ type: [SampleRowRef], description: "Up to 20 data rows aligned with headers", resolve: (i) => i.sample.map((cells) => ({ cells })) }),
    matchedTemplate: t.field({ type: ProviderEnum, nullable: true, description: "The store platform whose export layout the headers match, if any", resolve: (i) => i.matchedTemplate }),
    suggestions: t.field({ type: [ColumnRef], description: "The suggested target field of each header", resolve: (i) => i.suggestions }),
    targetFields: t.exposeStringList("targetFields", { description: "Every field a column may map to" }),
    sheets: t.stringList({ nullable: true, description: "Sheet names (Excel only)", resolve: (i) => i.sheets }),
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
}));

builder.mutationFields((t) => ({
  createImport: t.field({
    type: UploadRef,
    description: "Starts an import: a signed upload URL valid one hour (CSV/TSV up to 500 MB)",
    authScopes: { scope: "imports:write" },
    args: {
      entityType: t.arg({ type: EntityEnum, required: true, description: "What the file's rows are" }),
      fileName: t.arg.string({ required: true, description: "Ends in .csv, .tsv or .txt" }),
      fileBytes: t.arg.int({ required: true, description: "The file's size in bytes" }),
      provider: t.arg({ type: ProviderEnum, description: "The store platform it was exported from" }),
    },
    resolve: (_r, a, ctx) => createImport(ctx, { entityType: a.entityType, fileName: a.fileName, fileBytes: a.fileBytes, ...(a.provider ? { provider: a.provider } : {}) }),
  }),
  inspectImport: t.field({
    type: InspectionRef,
    description: "Dialect, headers, 20-row sample and suggested fields from the first 1 MB (404 file_not_uploaded)",
    authScopes: { scope: "imports:write" },
    args: { id: t.arg.id({ required: true, description: importId }), sheetName: t.arg.string({ description: "Excel only" }) },
    resolve: (_r, a, ctx) => inspectImport(ctx, String(a.id), a.sheetName != null ? { sheetName: a.sheetName } : {}),
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
