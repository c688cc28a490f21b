// A commit killed with SIGKILL mid-run resumes from its checkpoint after the dead worker's lease lapses, and ends
// with the same rows as a commit that was never interrupted; undo then leaves the database as it was. Once for a
// customer file and once for an order file whose orders span several rows (some of them far apart, so they are
// appended after the resume). Needs PostgreSQL: the worker is a second process on the same database, which the
// embedded database cannot share, so without a server Jest reports these tests skipped.
import { pgTest, startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { preparedImport, runWorker, tableCounts, workerAlive } from "./helpers/imports";
import { killAll, startScript } from "./helpers/spawn";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  if (process.env.Q2C_TEST_PG_REACHABLE !== "1") return; // every test below is registered as skipped
  const started = await startTestApp({ db: "pg" });
  if (!started) throw new Error("PostgreSQL answered at global setup but not now");
  t = started;
  demo = await t.bootstrap();
  api = client(t.url);
});
afterAll(async () => {
  killAll();
  await t?.close();
});

/** Tables a commit and its undo write besides the business rows, or that the tenants and keys of this file add. */
const PASS = ["Import", "ImportError", "ImportRecord", "Event", "JobWorker", "WebhookDelivery", "Workspace", "Application", "Environment", "User", "Member", "DashboardSession", "ApiKey", "Connector", "ShippingTaxSettings", "RateLimit"];
const business = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).filter(([k]) => !PASS.includes(k)));

/**
 * Dry run, then a commit run by a separate worker process (batches of 100 rows, a 5 s lease) that is SIGKILLed once
 * its first batch is checkpointed; the next worker resumes after the lease lapses. Returns the import id and the
 * import as the dead worker left it.
 */
async function killedCommit(key: string, opts: Parameters<typeof preparedImport>[2]) {
  const { id } = await preparedImport(api, key, opts);
  await api("POST", `imports/${id}/validate`, { key });
  await runWorker(t);
  expect((await api("POST", `imports/${id}/commit`, { key })).status).toBe(202);
  const worker = await startScript("src/cli/jobs.ts", ["run", "import-runner"], { DATABASE_URL: t.databaseUrl!, REDIS_URL: "", LOG_LEVEL: "error", IMPORT_BATCH_ROWS: "100", IMPORT_LEASE_SECONDS: "5" });
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

  // its lease lapses; the next worker claims the pass and resumes after the checkpoint. (5 s, not 2: on a loaded CI
  // machine 2 s could pass between the dead worker's last renewal and the first claim below.)
  expect((await runWorker(t)).passes).toBe(0);
  await new Promise((r) => setTimeout(r, Math.max(0, dead.leaseUntil!.getTime() - Date.now()) + 500));
  expect((await runWorker(t)).passes).toBe(1);
  return { id, dead };
}

/** The same file committed without interruption, in another workspace. */
async function straightCommit(slug: string, opts: Parameters<typeof preparedImport>[2]) {
  const other = await t.otherWorkspace(slug);
  const { id } = await preparedImport(api, other.apiKey, opts);
  await api("POST", `imports/${id}/validate`, { key: other.apiKey });
  await runWorker(t);
  await api("POST", `imports/${id}/commit`, { key: other.apiKey });
  await runWorker(t);
  return { id, other };
}

async function undoBoth(pairs: [string, string][], expected: Record<string, unknown>) {
  for (const [imp, k] of pairs) {
    expect((await api("POST", `imports/${imp}/undo`, { key: k })).status).toBe(202);
    await runWorker(t);
    expect((await api("GET", `imports/${imp}`, { key: k })).body.data).toMatchObject({ status: "undone", undoResult: expected });
  }
}

const CUSTOMERS = 6000;
function customerFile() {
  const lines = ["Email,First Name,Last Name,Company,Phone"];
  for (let i = 1; i <= CUSTOMERS; i++) lines.push(`buyer${i}@example.com,Buyer,Number ${i},"Company ${i % 50}, Inc.",+1 555 ${String(i).padStart(7, "0")}`);
  return Buffer.from(lines.join("\n") + "\n");
}

const customerSnapshot = async (applicationId: string, environmentId: string) =>
  (await t.deps.prisma.customer.findMany({ where: { applicationId, environmentId }, select: { email: true, name: true, company: true, phone: true }, orderBy: { email: "asc" } })).map((c) => JSON.stringify(c));

pgTest("kill -9 mid-commit of a customer file: the next worker resumes from the checkpoint; same rows as an uninterrupted commit; undo restores (PostgreSQL only)", async () => {
  const bytes = customerFile();
  await workerAlive(t);
  const before = await tableCounts(t);
  const opts = { fileName: "big.csv", bytes };

  const { id, dead } = await killedCommit(demo.apiKey, opts);
  expect(dead.checkpointRow).toBeLessThan(CUSTOMERS + 1);
  // what the dead worker committed is exactly its finished batches (every customer row is one record)
  const done = await t.deps.prisma.import.findUniqueOrThrow({ where: { id } });
  expect(done).toMatchObject({ status: "completed", rowsProcessed: CUSTOMERS, rowsCreated: CUSTOMERS, rowsFailed: 0, checkpointRow: CUSTOMERS + 1 });

  const straight = await straightCommit("import-kill-other", opts);
  const a = await customerSnapshot(demo.applicationId, demo.environments.sandbox.id);
  const b = await customerSnapshot(straight.other.applicationId, straight.other.environments.sandbox.id);
  expect(a.length).toBe(CUSTOMERS);
  expect(a).toEqual(b);

  // undo both: every business table is back to where it was
  await undoBoth([[id, demo.apiKey], [straight.id, straight.other.apiKey]], { deleted: { customer: CUSTOMERS }, kept: 0 });
  expect(business(await tableCounts(t))).toEqual(business(before));
}, 240_000);

/**
 * 1,000 orders of three rows each (one line a row) in file order, then a fourth row for every tenth order at the
 * end of the file: those arrive in batches written after the resume and append to orders the dead worker wrote.
 * Statuses cycle through fulfilled (payment and fulfillment), processing (payment) and pending; emails repeat every
 * 150 orders, so the customers the commit creates are matched again in later batches.
 */
const ORDERS = 1000;
function orderFile() {
  const lines = ["Order Number,Order Date,Status,Email,Billing Name,Product,Qty,Unit Price"];
  const status = (i: number) => ["fulfilled", "processing", "pending"][i % 3]!;
  for (let i = 1; i <= ORDERS; i++) {
    const n = `K-${String(i).padStart(4, "0")}`;
    lines.push(`${n},03/04/2026,${status(i)},kill${i % 150}@example.com,Kill Buyer ${i % 150},Lamp ${i},1,40.00`);
    lines.push(`${n},,,,,Bulb ${i},${(i % 4) + 1},2.50`);
    lines.push(`${n},,,,,Cable ${i},2,1.25`);
  }
  for (let i = 10; i <= ORDERS; i += 10) lines.push(`K-${String(i).padStart(4, "0")},,,,,Late part ${i},3,0.99`);
  return Buffer.from(lines.join("\n") + "\n");
}
const ORDER_ROWS = ORDERS * 3 + ORDERS / 10;
const ORDER_COLUMNS = {
  "Order Number": "order.externalId",
  "Order Date": "order.date",
  Status: "order.status",
  Email: "customer.email",
  "Billing Name": "billing.name",
  Product: "line.name",
  Qty: "line.quantity",
  "Unit Price": "line.unitPrice",
};

async function orderSnapshot(applicationId: string, environmentId: string) {
  const customers = await t.deps.prisma.customer.findMany({ where: { applicationId, environmentId }, select: { id: true, email: true, name: true } });
  const who = new Map(customers.map((c) => [c.id, { email: c.email, name: c.name }]));
  const orders = await t.deps.prisma.order.findMany({
    where: { applicationId, environmentId },
    orderBy: { externalId: "asc" },
    select: {
      externalId: true,
      status: true,
      paymentStatus: true,
      subtotal: true,
      total: true,
      createdAt: true,
      completedAt: true,
      customerId: true,
      lineItems: { orderBy: { position: "asc" }, select: { name: true, quantity: true, unitPrice: true, position: true, fulfilledQuantity: true } },
      payments: { select: { status: true, amount: true, capturedAmount: true, transactions: { select: { type: true, amount: true } } } },
      fulfillments: { select: { status: true, lines: { select: { quantity: true }, orderBy: { quantity: "asc" } } } },
    },
  });
  // ids differ between the two workspaces; the customer an order points at is compared by its email and name
  return orders.map(({ customerId, ...o }) => JSON.stringify({ ...o, customer: customerId ? who.get(customerId) : null }));
}

pgTest("kill -9 mid-commit of an order file: no order is split at the checkpoint, rows far apart still append after the resume, same rows as an uninterrupted commit (PostgreSQL only)", async () => {
  const bytes = orderFile();
  await workerAlive(t);
  const before = await tableCounts(t);
  const opts = { entityType: "order" as const, fileName: "orders.csv", bytes, columns: ORDER_COLUMNS, mapping: { dateOrder: "mdy", createMissingCustomers: true } };

  const { id, dead } = await killedCommit(demo.apiKey, opts);
  expect(dead.checkpointRow).toBeLessThan(ORDER_ROWS + 1);
  // a batch of 100 rows grows to 102 rather than split an order: each checkpoint falls after an order's last row
  expect((dead.checkpointRow - 1) % 3).toBe(0);

  const done = await t.deps.prisma.import.findUniqueOrThrow({ where: { id } });
  expect(done).toMatchObject({ status: "completed", rowsProcessed: ORDER_ROWS, rowsCreated: ORDERS, rowsSkipped: ORDER_ROWS - ORDERS, rowsFailed: 0, checkpointRow: ORDER_ROWS + 1 });
  expect((done.errorSummary as any).rows_appended).toMatchObject({ count: ORDERS / 10 });
  expect((done.errorSummary as any).customers_created).toMatchObject({ count: 150 });

  const straight = await straightCommit("import-kill-orders-other", opts);
  const a = await orderSnapshot(demo.applicationId, demo.environments.sandbox.id);
  const b = await orderSnapshot(straight.other.applicationId, straight.other.environments.sandbox.id);
  expect(a.length).toBe(ORDERS);
  expect(a).toEqual(b);
  // an order that was written before the kill and appended to after the resume: its late line, its totals, its
  // payment and its fulfillment grew with it
  const k10 = JSON.parse(a.find((o) => o.includes('"K-0010"'))!);
  expect(k10.lineItems.map((l: any) => [l.name, l.quantity, l.position])).toEqual([
    ["Lamp 10", 1, 0],
    ["Bulb 10", 3, 1],
    ["Cable 10", 2, 2],
    ["Late part 10", 3, 3],
  ]);
  expect([k10.status, k10.subtotal, k10.total]).toEqual(["processing", 4000 + 750 + 250 + 297, 4000 + 750 + 250 + 297]);
  expect(k10.payments.map((p: any) => [p.amount, p.capturedAmount, p.transactions[0].amount])).toEqual([[5297, 5297, 5297]]);
  const k30 = JSON.parse(a.find((o) => o.includes('"K-0030"'))!);
  expect(k30.status).toBe("fulfilled");
  expect(k30.lineItems.map((l: any) => l.fulfilledQuantity)).toEqual([1, 3, 2, 3]);

  await undoBoth([[id, demo.apiKey], [straight.id, straight.other.apiKey]], { kept: 0 });
  expect(business(await tableCounts(t))).toEqual(business(before));
}, 240_000);
