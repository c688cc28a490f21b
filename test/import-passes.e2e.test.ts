// The import passes over customer files: the dry run (writes nothing but its report), the commit (rows created and
// updated, import.completed), the error report, undo (deletes only what the import created, keeps what others
// depend on), 503 queue_unavailable without a worker, the verbs' state rules, tenancy and scopes.
import { parse } from "csv-parse/sync";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { codeOf, gqlClient } from "./helpers/gql";
import { CommitImportDocument, ImportErrorsDocument, ImportResultDocument, ValidateImportDocument } from "./generated/graphql";
import { countChanges, importFixture, preparedImport, runWorker, tableCounts, workerAlive } from "./helpers/imports";
import { customerHandler } from "../src/imports/import.customers";
import { registerImportHandler } from "../src/imports/import.runner";

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let key: string;

beforeAll(async () => {
  t = (await startTestApp({ clock: "fixed" }))!;
  demo = await t.bootstrap();
  api = client(t.url);
  gql = gqlClient(t.url);
  key = demo.apiKey;
});
afterAll(async () => {
  await t?.close();
});

const shopify = () => preparedImport(api, key, { fileName: "shopify-customers.csv", bytes: importFixture("shopify-customers.csv"), provider: "shopify" });
const read = async (id: string) => (await api("GET", `imports/${id}`, { key })).body.data;
/** Tables a pass may write whatever it does: the import's own rows, its event and the worker heartbeat. */
const PASS_TABLES = ["Import", "ImportError", "ImportRecord", "Event", "JobWorker", "WebhookDelivery"];
const business = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).filter(([k]) => !PASS_TABLES.includes(k)));

test("without a live job worker the dry run is 503 queue_unavailable and the import does not move", async () => {
  const { id } = await shopify();
  const r = await api("POST", `imports/${id}/validate`, { key });
  expect([r.status, r.body.error.code]).toEqual([503, "queue_unavailable"]);
  expect((await read(id)).status).toBe("mapping");
  const g = await gql(ValidateImportDocument, { id }, { key });
  expect(codeOf(g)).toBe("queue_unavailable");
});

describe("with a worker", () => {
  beforeAll(async () => {
    await workerAlive(t);
  });

  test("the dry run checks every row, counts what it would create, writes no business row, and reports errors", async () => {
    const { id } = await shopify();
    const before = await tableCounts(t);
    const v = await api("POST", `imports/${id}/validate`, { key });
    expect(v.status).toBe(202);
    expect(v.body.data).toMatchObject({ status: "validating", lastPassMode: "validate", dryRunAt: null });
    expect((await runWorker(t)).passes).toBe(1);
    // every table the catalog lists keeps its row count, but for the pass's own report and import.completed
    expect(countChanges(before, await tableCounts(t))).toEqual({ Event: 1 });
    const d = await read(id);
    expect(d).toMatchObject({ status: "validated", lastPassMode: "validate", rowsTotal: 6, rowsProcessed: 6, rowsCreated: 4, rowsUpdated: 0, rowsFailed: 2, rowsSkipped: 0 });
    expect(d.dryRunAt).not.toBeNull();
    expect(d.progress).toEqual({ rowsTotal: 6, rowsProcessed: 6, percent: 100 });
    // rows are spreadsheet rows: the header is row 1, so Alan Turing (the 3rd data row) is row 4
    expect(d.errorSummary).toEqual({ invalid_email: { count: 1, sample: [4] }, missing_required: { count: 1, sample: [6] } });
    const ev = await api("GET", "events?type=import.completed", { key });
    expect(ev.body.data.some((e: any) => e.data.importId === id && e.data.mode === "validate")).toBe(true);
  });

  test("commit needs a finished dry run (409 validation_required), then creates the customers; a second file updates them", async () => {
    const { id } = await shopify();
    const early = await api("POST", `imports/${id}/commit`, { key });
    expect([early.status, early.body.error.code]).toEqual([409, "validation_required"]);
    const g = await gql(CommitImportDocument, { id }, { key });
    expect(codeOf(g)).toBe("validation_required");

    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    const c = await api("POST", `imports/${id}/commit`, { key });
    expect([c.status, c.body.data.status]).toEqual([202, "committing"]);
    await runWorker(t);
    const d = await read(id);
    expect(d).toMatchObject({ status: "completed", lastPassMode: "commit", rowsCreated: 4, rowsFailed: 2, rowsProcessed: 6 });
    expect(d.committedAt).not.toBeNull();
    const ada = await t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, email: "ada@example.com" } });
    expect(ada).toMatchObject({ name: "Ada Lovelace", company: "Analytical Engines Ltd", phone: "+44 20 7946 0001", externalId: "7045312345601" });
    const ev = await api("GET", "events?type=import.completed", { key });
    expect(ev.body.data.some((e: any) => e.data.importId === id && e.data.mode === "commit")).toBe(true);

    // the same people again: matched by externalId or email, updated, not duplicated
    const again = await shopify();
    await api("POST", `imports/${again.id}/validate`, { key });
    await runWorker(t);
    expect(await read(again.id)).toMatchObject({ rowsCreated: 0, rowsUpdated: 4 });
    await api("POST", `imports/${again.id}/commit`, { key });
    await runWorker(t);
    expect(await read(again.id)).toMatchObject({ status: "completed", rowsCreated: 0, rowsUpdated: 4 });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: "ada@example.com" } })).toBe(1);

    // undo of the second import deletes nothing: it created nothing, and updated rows stay
    await api("POST", `imports/${again.id}/undo`, { key });
    await runWorker(t);
    expect(await read(again.id)).toMatchObject({ status: "undone", undoResult: { deleted: {}, kept: 0, keptReasons: {} } });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: "ada@example.com" } })).toBe(1);
  });

  test.each([500, 1])("a person listed twice in one file: created once then updated, in the dry run and the commit alike (batches of %i rows)", async (batchRows) => {
    // row 4 is row 2's person again (emails compare in lower case); row 5 names T-1 with a new email: the email
    // moves to T-1's customer; row 6 gives T-1 to solo@example.com, who is someone else: identity_conflict
    const bytes = Buffer.from("Email,Name,Customer ID\ntwice@example.com,First,T-1\nsolo@example.com,Solo,\nTWICE@example.com,Second,\nmoved@example.com,Moved,T-1\nsolo@example.com,Solo again,T-1\n");
    // with batches of one row, every row finds the earlier ones through the dry run's planned keys or the database
    const tag = `b${batchRows}`;
    const file = bytes.toString().replace(/@example\.com/g, `@${tag}.example.com`).replace(/T-1/g, `T-1-${tag}`);
    const { id } = await preparedImport(api, key, { fileName: "twice.csv", bytes: Buffer.from(file), columns: { Email: "customer.email", Name: "customer.name", "Customer ID": "customer.externalId" } });
    const saved = t.deps.config.IMPORT_BATCH_ROWS;
    t.deps.config.IMPORT_BATCH_ROWS = batchRows;
    try {
      await api("POST", `imports/${id}/validate`, { key });
      await runWorker(t);
      const expected = { rowsCreated: 2, rowsUpdated: 2, rowsFailed: 1, errorSummary: { identity_conflict: { count: 1, sample: [6] } } };
      expect(await read(id)).toMatchObject(expected);
      await api("POST", `imports/${id}/commit`, { key });
      await runWorker(t);
      expect(await read(id)).toMatchObject({ status: "completed", ...expected });
    } finally {
      t.deps.config.IMPORT_BATCH_ROWS = saved;
    }
    expect(await t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, externalId: `T-1-${tag}` } })).toMatchObject({ name: "Moved", email: `moved@${tag}.example.com` });
    expect(await t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, email: `solo@${tag}.example.com` } })).toMatchObject({ name: "Solo", externalId: null });
  });

  test("an Excel workbook (the Shopify customer export as .xlsx) goes through the dry run and the commit like a CSV", async () => {
    const bytes = importFixture("shopify-customers.xlsx");
    const { id, inspection } = await preparedImport(api, key, { fileName: "shopify-customers.xlsx", bytes, provider: "shopify" });
    expect(inspection.sheets.length).toBeGreaterThan(1);
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    const dry = await read(id);
    expect(dry.status).toBe("validated");
    expect(dry.rowsTotal).toBe(inspection.sample.length);
    expect(dry.rowsCreated + dry.rowsUpdated + dry.rowsFailed).toBe(dry.rowsTotal);
    await api("POST", `imports/${id}/commit`, { key });
    await runWorker(t);
    const done = await read(id);
    expect(done).toMatchObject({ status: "completed", rowsCreated: dry.rowsCreated, rowsUpdated: dry.rowsUpdated, rowsFailed: dry.rowsFailed });
    const emailAt = inspection.headers.indexOf("Email");
    const firstEmail = String(inspection.sample[0][emailAt]).toLowerCase();
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: firstEmail } })).toBe(1);
  });

  test("the error report: rows, CSV with the file's headers, 404 no_errors for a clean import", async () => {
    const { id } = await shopify();
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    const r = await api("GET", `imports/${id}/errors`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ importId: id, rowsFailed: 2, rowsIncluded: 2, truncated: false, filename: "shopify-customers-errors.csv" });
    expect(r.body.data.errors).toEqual([
      { rowNumber: 4, columnName: "Email", code: "invalid_email", message: '"not-an-email" is not an email address' },
      { rowNumber: 6, columnName: "Email", code: "missing_required", message: "a customer row needs an email or an externalId" },
    ]);
    const rows = parse(r.body.data.csv, { columns: true });
    expect(rows).toEqual(r.body.data.errors.map((e: any) => ({ ...e, rowNumber: String(e.rowNumber) })));
    const g = await gql(ImportErrorsDocument, { id }, { key });
    expect(g.data?.importErrors).toEqual(r.body.data);

    const clean = await preparedImport(api, key, { fileName: "clean.csv", bytes: Buffer.from("Email,Name\nclean1@example.com,One\nclean2@example.com,Two\n") });
    const none = await api("GET", `imports/${clean.id}/errors`, { key });
    expect([none.status, none.body.error.code]).toEqual([404, "no_errors"]);
    await api("POST", `imports/${clean.id}/validate`, { key });
    await runWorker(t);
    const stillNone = await api("GET", `imports/${clean.id}/errors`, { key });
    expect([stillNone.status, stillNone.body.error.code]).toEqual([404, "no_errors"]);
  });

  test("the error report holds the first 10,000 failing rows: rowsIncluded 10,000 and truncated, in JSON and CSV; the counts keep all", async () => {
    const FAILING = 10_050;
    const lines = ["Email,Name", "kept@example.com,Kept"];
    for (let i = 1; i <= FAILING; i++) lines.push(`not-an-email-${i},Bad ${i}`);
    const { id } = await preparedImport(api, key, { fileName: "many-bad.csv", bytes: Buffer.from(lines.join("\n") + "\n"), columns: { Email: "customer.email", Name: "customer.name" } });
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    const d = await read(id);
    expect(d).toMatchObject({ status: "validated", rowsTotal: FAILING + 1, rowsCreated: 1, rowsFailed: FAILING });
    expect(d.errorSummary.invalid_email.count).toBe(FAILING);
    const r = await api("GET", `imports/${id}/errors`, { key });
    expect(r.body.data).toMatchObject({ rowsFailed: FAILING, rowsIncluded: 10_000, truncated: true });
    expect(r.body.data.errors).toHaveLength(10_000);
    // the first failing rows, in file order: spreadsheet rows 3 to 10,002
    expect(r.body.data.errors[0].rowNumber).toBe(3);
    expect(r.body.data.errors.at(-1).rowNumber).toBe(10_002);
    const csv = parse(r.body.data.csv, { columns: true });
    expect(csv).toHaveLength(10_000);
    expect(csv.at(-1)).toMatchObject({ rowNumber: "10002", columnName: "Email", code: "invalid_email" });
    // the commit reports the same way
    await api("POST", `imports/${id}/commit`, { key });
    await runWorker(t);
    const c = await api("GET", `imports/${id}/errors`, { key });
    expect(c.body.data).toMatchObject({ rowsFailed: FAILING, rowsIncluded: 10_000, truncated: true });
    expect(c.body.data.errors).toHaveLength(10_000);
  });

  test("past the row limit the dry run fails with a reason naming the limit, and nothing can be committed", async () => {
    const saved = t.deps.config.IMPORT_MAX_ROWS;
    // the limit is 500,000 rows; a lowered one is the same code path without a 500,000-row file
    t.deps.config.IMPORT_MAX_ROWS = 5;
    try {
      const file = (n: number) => Buffer.from(["Email", ...Array.from({ length: n }, (_, i) => `limit${n}-${i}@example.com`)].join("\n") + "\n");
      const atLimit = await preparedImport(api, key, { fileName: "five.csv", bytes: file(5) });
      await api("POST", `imports/${atLimit.id}/validate`, { key });
      await runWorker(t);
      expect(await read(atLimit.id)).toMatchObject({ status: "validated", rowsTotal: 5 });

      const over = await preparedImport(api, key, { fileName: "six.csv", bytes: file(6) });
      await api("POST", `imports/${over.id}/validate`, { key });
      await runWorker(t);
      const d = await read(over.id);
      expect(d).toMatchObject({ status: "failed", lastPassMode: "validate", dryRunAt: null, failureReason: "The file has more than 5 data rows (the limit for one import); split it into several imports" });
      const c = await api("POST", `imports/${over.id}/commit`, { key });
      expect([c.status, c.body.error.code]).toEqual([409, "validation_required"]);
    } finally {
      t.deps.config.IMPORT_MAX_ROWS = saved;
    }
    expect(saved).toBe(500_000);
  });

  test("undo deletes what the commit created and keeps a customer something else now uses", async () => {
    const bytes = Buffer.from("Email,Name,Company\nu1@example.com,U One,Acme\nu2@example.com,U Two,Acme\nu3@example.com,U Three,\n");
    const { id } = await preparedImport(api, key, { fileName: "undo.csv", bytes });
    const before = business(await tableCounts(t));
    // undo of a dry run is not available
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    const dry = await api("POST", `imports/${id}/undo`, { key });
    expect([dry.status, dry.body.error.code]).toEqual([409, "undo_not_available"]);
    await api("POST", `imports/${id}/commit`, { key });
    // in flight: not available either
    const flying = await api("POST", `imports/${id}/undo`, { key });
    expect([flying.status, flying.body.error.code]).toEqual([409, "undo_not_available"]);
    await runWorker(t);
    const u2 = await t.deps.prisma.customer.findFirstOrThrow({ where: { applicationId: demo.applicationId, email: "u2@example.com" } });
    const cart = await api("POST", "carts", { key, body: { currency: "USD", customerId: u2.id } });
    expect(cart.status).toBe(201);

    const u = await api("POST", `imports/${id}/undo`, { key });
    expect([u.status, u.body.data.status]).toEqual([202, "undoing"]);
    await runWorker(t);
    const d = await read(id);
    // a partial undo returns to completed with what it kept
    expect(d).toMatchObject({ status: "completed", lastPassMode: "undo", undoResult: { deleted: { customer: 2 }, kept: 1, keptReasons: { customer_has_carts: 1 } } });
    const after = business(await tableCounts(t));
    expect(after).toEqual({ ...before, Customer: before.Customer! + 1, Cart: before.Cart! + 1 });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: { in: ["u1@example.com", "u3@example.com"] } } })).toBe(0);
    const ev = await api("GET", "events?type=import.completed", { key });
    expect(ev.body.data.some((e: any) => e.data.importId === id && e.data.mode === "undo")).toBe(true);
    // GraphQL reads the same result, typed
    const g = await gql(ImportResultDocument, { id }, { key });
    expect(g.data).toEqual({ import: { status: "completed", undoResult: { kept: 1, deleted: [{ key: "customer", count: 2 }], keptReasons: [{ key: "customer_has_carts", count: 1 }] }, errorSummary: [] } });
  });

  test("undo keeps customers that now have a quote or a subscription, counted by reason", async () => {
    const bytes = Buffer.from("Email,Name\nquoted@keep.example.com,Quoted\nsubscribed@keep.example.com,Subscribed\nfree@keep.example.com,Free\n");
    const { id } = await preparedImport(api, key, { fileName: "keep.csv", bytes, columns: { Email: "customer.email", Name: "customer.name" } });
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    await api("POST", `imports/${id}/commit`, { key });
    await runWorker(t);
    const find = (email: string) => t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, email } });
    const subscribed = (await find("subscribed@keep.example.com"))!;
    // a quote for the imported customer (the quote finds it by email), and a subscription of the other
    const q = await api("POST", "quotes", { key, body: { customerEmail: "quoted@keep.example.com", items: [{ name: "Plan", unitPrice: 1000, quantity: 1 }] } });
    expect(q.status).toBe(201);
    expect(q.body.data.customerId).toBe((await find("quoted@keep.example.com"))!.id);
    const now = t.deps.clock.now();
    await t.deps.prisma.subscription.create({
      data: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, customerId: subscribed.id, status: "active", planReference: "keep", interval: "monthly", amount: 1000, currency: "USD", currentPeriodStart: now, currentPeriodEnd: new Date(now.getTime() + 30 * 86_400_000) },
    });
    await api("POST", `imports/${id}/undo`, { key });
    await runWorker(t);
    expect(await read(id)).toMatchObject({ status: "completed", undoResult: { deleted: { customer: 1 }, kept: 2, keptReasons: { customer_has_quotes: 1, customer_has_subscriptions: 1 } } });
    expect(await find("free@keep.example.com")).toBeNull();
    expect(await find("quoted@keep.example.com")).not.toBeNull();
    expect(await find("subscribed@keep.example.com")).not.toBeNull();
  });

  test("a commit that failed part-way resumes from its checkpoint with another POST /commit, and ends with every row once", async () => {
    const lines = ["Email,Name"];
    for (let i = 1; i <= 7; i++) lines.push(`resume${i}@example.com,Resume ${i}`);
    const { id } = await preparedImport(api, key, { fileName: "resume.csv", bytes: Buffer.from(lines.join("\n") + "\n"), columns: { Email: "customer.email", Name: "customer.name" } });
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    // the commit's third batch fails (the database went away, say): the first two stay written with their checkpoint
    const saved = t.deps.config.IMPORT_BATCH_ROWS;
    t.deps.config.IMPORT_BATCH_ROWS = 2;
    let batches = 0;
    registerImportHandler("customer", {
      ...customerHandler,
      runBatch: async (...args) => {
        if (args[3] && ++batches === 3) throw new Error("connection to the database was lost");
        return customerHandler.runBatch(...args);
      },
    });
    try {
      await api("POST", `imports/${id}/commit`, { key });
      await runWorker(t);
      const failed = await read(id);
      expect(failed).toMatchObject({ status: "failed", lastPassMode: "commit", failureReason: "connection to the database was lost", rowsProcessed: 4, rowsCreated: 4 });
      expect(await t.deps.prisma.import.findUniqueOrThrow({ where: { id } })).toMatchObject({ checkpointRow: 5 });
      // a failed commit is resumed, never re-validated or re-mapped
      const v = await api("POST", `imports/${id}/validate`, { key });
      expect([v.status, v.body.error.code]).toEqual([409, "invalid_import_state"]);

      const again = await api("POST", `imports/${id}/commit`, { key });
      expect([again.status, again.body.data.status, again.body.data.failureReason]).toEqual([202, "committing", null]);
      await runWorker(t);
    } finally {
      registerImportHandler("customer", customerHandler);
      t.deps.config.IMPORT_BATCH_ROWS = saved;
    }
    // three calls before the failure, then the two batches after the checkpoint: the first two are not replayed
    expect(batches).toBe(5);
    expect(await read(id)).toMatchObject({ status: "completed", rowsProcessed: 7, rowsCreated: 7, rowsFailed: 0 });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: { startsWith: "resume" } } })).toBe(7);
    expect(await t.deps.prisma.importRecord.count({ where: { importId: id } })).toBe(7);
  });

  test("verbs follow the status table: validate needs a mapping, commit twice is refused, a new mapping needs a new dry run", async () => {
    const c = await api("POST", "imports", { key, body: { entityType: "customer", fileName: "x.csv", fileBytes: 10 } });
    const early = await api("POST", `imports/${c.body.data.importId}/validate`, { key });
    expect([early.status, early.body.error.code]).toEqual([409, "invalid_import_state"]);

    const { id } = await preparedImport(api, key, { fileName: "m.csv", bytes: Buffer.from("Email,Notes\nm@example.com,hi\n"), columns: { Notes: "customer.name" } });
    const noId = await api("POST", `imports/${id}/validate`, { key });
    expect([noId.status, noId.body.error.code]).toEqual([422, "validation_error"]);
    expect(JSON.stringify(noId.body.error.details)).toContain("customer.email");

    await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: { Email: "customer.email" }, dateOrder: "dmy" } });
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    // saving the mapping again clears dryRunAt: commit needs a new dry run
    const m = await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: { Email: "customer.email", Notes: "customer.name" }, dateOrder: "dmy" } });
    expect(m.body.data).toMatchObject({ status: "mapping", dryRunAt: null });
    const c2 = await api("POST", `imports/${id}/commit`, { key });
    expect([c2.status, c2.body.error.code]).toEqual([409, "validation_required"]);
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    expect((await api("POST", `imports/${id}/commit`, { key })).status).toBe(202);
    const twice = await api("POST", `imports/${id}/commit`, { key });
    expect([twice.status, twice.body.error.code]).toEqual([409, "invalid_import_state"]);
    await runWorker(t);
    const done = await api("POST", `imports/${id}/commit`, { key });
    expect([done.status, done.body.error.code]).toEqual([409, "invalid_import_state"]);
    expect(await t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, email: "m@example.com" } })).toMatchObject({ name: "hi" });
  });

  test("when the last worker stops beating, commit and undo are 503 queue_unavailable too, and the import does not move", async () => {
    const validated = await shopify();
    await api("POST", `imports/${validated.id}/validate`, { key });
    await runWorker(t);
    const completed = await shopify();
    await api("POST", `imports/${completed.id}/validate`, { key });
    await runWorker(t);
    await api("POST", `imports/${completed.id}/commit`, { key });
    await runWorker(t);
    expect([(await read(validated.id)).status, (await read(completed.id)).status]).toEqual(["validated", "completed"]);
    // the worker died two minutes ago: its heartbeat is older than a minute
    await t.deps.prisma.$executeRaw`UPDATE "JobWorker" SET "lastSeenAt" = now() - interval '2 minutes'`;
    try {
      for (const [imp, verb, status] of [[validated.id, "commit", "validated"], [completed.id, "undo", "completed"], [validated.id, "validate", "validated"]] as const) {
        const r = await api("POST", `imports/${imp}/${verb}`, { key });
        expect([verb, r.status, r.body.error.code]).toEqual([verb, 503, "queue_unavailable"]);
        expect(await read(imp)).toMatchObject({ status });
      }
      const g = await gql(CommitImportDocument, { id: validated.id }, { key });
      expect(codeOf(g)).toBe("queue_unavailable");
    } finally {
      await workerAlive(t);
    }
    expect((await api("POST", `imports/${validated.id}/commit`, { key })).status).toBe(202);
    await runWorker(t);
  });

  test("importProgress(id) streams the import now, after every batch and at the end; another tenant gets not_found", async () => {
    const lines = ["Email,Name"];
    for (let i = 1; i <= 1200; i++) lines.push(`live${i}@example.com,Live ${i}`);
    const { id } = await preparedImport(api, key, { fileName: "live.csv", bytes: Buffer.from(lines.join("\n")) });
    const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": key }, retryAttempts: 0, lazy: true });
    const it = ws.iterate({ query: `subscription($id: ID!) { importProgress(id: $id) { status rowsProcessed progress { percent } } }`, variables: { id } });
    expect((await it.next()).value).toEqual({ data: { importProgress: { status: "mapping", rowsProcessed: 0, progress: { percent: null } } } });
    await api("POST", `imports/${id}/validate`, { key });
    const seen: { status: string; rowsProcessed: number }[] = [];
    const reading = (async () => {
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        const p = (r.value as any).data.importProgress;
        seen.push({ status: p.status, rowsProcessed: p.rowsProcessed });
        if (p.status === "validated") return;
      }
    })();
    await runWorker(t);
    await reading;
    await ws.dispose();
    // three batches of 500, 500 and 200 rows, then the end of the pass
    expect(seen.map((x) => x.rowsProcessed).filter((n, i, a) => a.indexOf(n) === i)).toEqual(expect.arrayContaining([500, 1000, 1200]));
    expect(seen.at(-1)).toEqual({ status: "validated", rowsProcessed: 1200 });

    const other = await t.otherWorkspace("imports-live-other");
    const ws2 = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": other.apiKey }, retryAttempts: 0, lazy: true });
    const denied = await ws2.iterate({ query: `subscription($id: ID!) { importProgress(id: $id) { status } }`, variables: { id } }).next();
    expect((denied.value as any).errors[0].extensions.code).toBe("not_found");
    await ws2.dispose();
  });

  test("tenancy and scopes: another workspace's import is 404, another environment's 403, read-only keys 403", async () => {
    const { id } = await shopify();
    const other = await t.otherWorkspace("imports-passes-other2");
    for (const [m, p] of [["POST", "validate"], ["POST", "commit"], ["POST", "undo"], ["GET", "errors"]] as const) {
      const r = await api(m, `imports/${id}/${p}`, { key: other.apiKey });
      expect([p, r.status, r.body.error.code]).toEqual([p, 404, "not_found"]);
    }
    const readOnly = await mintKeyVia(api, demo, ["imports:read"]);
    for (const p of ["validate", "commit", "undo"]) {
      const r = await api("POST", `imports/${id}/${p}`, { key: readOnly.rawKey });
      expect([p, r.status, r.body.error.code]).toEqual([p, 403, "insufficient_scopes"]);
    }
    const noRead = await mintKeyVia(api, demo, ["customers:read"]);
    const e = await api("GET", `imports/${id}/errors`, { key: noRead.rawKey });
    expect([e.status, e.body.error.code]).toEqual([403, "insufficient_scopes"]);
    const prodKey = await mintKeyVia(api, demo, ["imports:read", "imports:write"], demo.environments.production.id);
    for (const [m, p] of [["POST", "validate"], ["POST", "commit"], ["POST", "undo"], ["GET", "errors"]] as const) {
      const r = await api(m, `imports/${id}/${p}`, { key: prodKey.rawKey });
      expect([p, r.status, r.body.error.code]).toEqual([p, 403, "environment_mismatch"]);
    }
    const bad = await api("POST", "imports/not-a-uuid/validate", { key });
    expect([bad.status, bad.body.error.code]).toEqual([404, "not_found"]);
  });
});

describe("bad input", () => {
  beforeAll(async () => {
    await workerAlive(t);
  });

  test("validate, commit and undo take no body: an unknown field is 422 naming it and nothing moves; {} and no body are accepted", async () => {
    const { id } = await shopify();
    for (const verb of ["validate", "commit", "undo"]) {
      const r = await api("POST", `imports/${id}/${verb}`, { key, body: { force: true } });
      expect([verb, r.status, r.body.error.code]).toEqual([verb, 422, "validation_error"]);
      expect(JSON.stringify(r.body.error.details.issues)).toContain("force");
      const arr = await api("POST", `imports/${id}/${verb}`, { key, body: [], validate: false });
      expect([verb, arr.status, arr.body.error.code]).toEqual([verb, 422, "validation_error"]);
      const broken = await api("POST", `imports/${id}/${verb}`, { key, raw: "{", validate: false });
      expect([verb, broken.status, broken.body.error.code]).toEqual([verb, 400, "invalid_json"]);
    }
    expect(await read(id)).toMatchObject({ status: "mapping", lastPassMode: null, dryRunAt: null });
    // an empty object is no field at all
    expect((await api("POST", `imports/${id}/validate`, { key, body: {} })).status).toBe(202);
    await runWorker(t);
    expect((await api("POST", `imports/${id}/commit`, { key, body: {} })).status).toBe(202);
    await runWorker(t);
    expect((await api("POST", `imports/${id}/undo`, { key, body: {} })).status).toBe(202);
    await runWorker(t);
    expect((await read(id)).status).toBe("undone");
  });

  test("bad ids are 404 for commit, undo and errors; errors takes no query parameters (422 naming the parameter)", async () => {
    for (const bad of ["not-a-uuid", "00000000-0000-4000-8000-000000000000", "6f0c%20x"]) {
      for (const [m, p] of [["POST", "commit"], ["POST", "undo"], ["GET", "errors"]] as const) {
        const r = await api(m, `imports/${bad}/${p}`, { key });
        expect([bad, p, r.status, r.body.error.code]).toEqual([bad, p, 404, "not_found"]);
      }
    }
    const { id } = await shopify();
    await api("POST", `imports/${id}/validate`, { key });
    await runWorker(t);
    expect((await api("GET", `imports/${id}/errors`, { key })).status).toBe(200);
    for (const q of ["limit=5", "format=csv", "cursor=abc&x=1"]) {
      const r = await api("GET", `imports/${id}/errors?${q}`, { key });
      expect([q, r.status, r.body.error.code]).toEqual([q, 422, "validation_error"]);
      expect(r.body.error.details.issues[0].path[0]).toBe("query");
    }
  });
});
