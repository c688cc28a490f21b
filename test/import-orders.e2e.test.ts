// Order imports end to end, one fixture per vocabulary: a Shopify orders export (BOM, one row per line item,
// quoted newline in Notes, zoned dates), a WooCommerce order export (semicolons, dd/mm dates, comma decimals,
// wc- statuses) and a generic tab-separated file (mm/dd dates, our own status words, non-consecutive rows of one
// order). Each goes through inspect, the dry run (writes no business row), the commit rules (totals in minor units,
// external captured payments, completed fulfillments, cancelled/closed/completed dates, customers), and undo.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { countChanges, importFixture, preparedImport, runWorker, tableCounts, workerAlive } from "./helpers/imports";

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let key: string;

beforeAll(async () => {
  t = (await startTestApp({ clock: "fixed" }))!;
  demo = await t.bootstrap();
  api = client(t.url);
  key = demo.apiKey;
  await workerAlive(t);
});
afterAll(async () => {
  await t?.close();
});

const read = async (id: string) => (await api("GET", `imports/${id}`, { key })).body.data;
const PASS_TABLES = ["Import", "ImportError", "ImportRecord", "Event", "JobWorker", "WebhookDelivery"];
const business = (c: Record<string, number>) => Object.fromEntries(Object.entries(c).filter(([k]) => !PASS_TABLES.includes(k)));
const suggestionsOf = (inspection: any) => Object.fromEntries(inspection.suggestions.map((s: any) => [s.header, s.field]));
const order = (externalId: string) =>
  t.deps.prisma.order.findFirstOrThrow({
    where: { applicationId: demo.applicationId, externalId },
    include: { lineItems: { orderBy: { position: "asc" } }, payments: { include: { transactions: true } }, fulfillments: { include: { lines: true } }, history: true },
  });
const customer = (email: string) => t.deps.prisma.customer.findFirst({ where: { applicationId: demo.applicationId, email } });
async function pass(id: string, verb: "validate" | "commit" | "undo") {
  const r = await api("POST", `imports/${id}/${verb}`, { key });
  expect([verb, r.status]).toEqual([verb, 202]);
  expect((await runWorker(t)).passes).toBe(1);
  return read(id);
}

describe("a Shopify orders export", () => {
  const bytes = importFixture("shopify-orders.csv");
  let id: string;
  let beforeCommit: Record<string, number>;
  let ada: { id: string };

  test("inspect recognises the export and pre-fills the mapping", async () => {
    const c = await api("POST", "customers", { key, body: { email: "ada@example.com", name: "Ada (existing)" } });
    expect(c.status).toBe(201);
    ada = c.body.data;
    const p = await preparedImport(api, key, { entityType: "order", provider: "shopify", fileName: "shopify-orders.csv", bytes, mapping: { dateOrder: "mdy", guestSentinels: ["Guest"], createMissingCustomers: true } });
    id = p.id;
    expect(p.inspection.matchedTemplate).toBe("shopify");
    expect(p.inspection.dialect).toMatchObject({ delimiter: ",", bom: true });
    expect(p.inspection.headers).toHaveLength(79);
    expect(suggestionsOf(p.inspection)).toMatchObject({
      Name: "order.externalId",
      Email: "customer.email",
      "Financial Status": "order.paymentStatus",
      "Fulfillment Status": "order.fulfillmentStatus",
      "Paid at": null,
      Currency: "order.currency",
      Subtotal: "order.subtotal",
      Shipping: "order.shippingTotal",
      Taxes: "order.taxTotal",
      Total: "order.total",
      "Discount Amount": "order.discountTotal",
      "Created at": "order.date",
      "Lineitem quantity": "line.quantity",
      "Lineitem name": "line.name",
      "Lineitem price": "line.unitPrice",
      "Lineitem compare at price": null,
      "Lineitem sku": "line.sku",
      "Lineitem requires shipping": "line.requiresShipping",
      "Billing Name": "billing.name",
      "Billing Street": null,
      "Billing Address1": "billing.addressLine1",
      "Billing Company": "billing.company",
      "Billing City": "billing.city",
      "Billing Zip": "billing.postalCode",
      "Billing Province": "billing.stateProvince",
      "Billing Country": "billing.countryCode",
      "Billing Phone": "billing.phone",
      "Shipping Name": "shipping.name",
      "Shipping Address1": "shipping.addressLine1",
      "Shipping Country": "shipping.countryCode",
      Notes: "order.notes",
      "Cancelled at": "order.cancelledAt",
      Id: null,
      Phone: "customer.phone",
    });
  });

  test("the dry run counts and reports exactly what the commit will do, and writes no business row", async () => {
    const before = await tableCounts(t);
    const d = await pass(id, "validate");
    // every table the catalog lists keeps its row count, but for the pass's own report and import.completed
    expect(countChanges(before, await tableCounts(t))).toEqual({ Event: 1 });
    // 10 data rows: #1001 (2 rows), #1002, #1003 (3 rows), #1004, #1005 (2 rows, bad status), #1006
    expect(d).toMatchObject({ status: "validated", rowsTotal: 10, rowsProcessed: 10, rowsCreated: 5, rowsUpdated: 0, rowsSkipped: 4, rowsFailed: 1 });
    expect(d.errorSummary).toEqual({
      invalid_status: { count: 1, sample: [9] },
      total_mismatches: { count: 1, sample: ["#1003"] },
      customers_created: { count: 3, sample: ["grace@example.com", "linus@example.com", "nia@example.com"] },
    });
    const e = await api("GET", `imports/${id}/errors`, { key });
    expect(e.body.data.errors).toEqual([{ rowNumber: 9, columnName: "Financial Status", code: "invalid_status", message: expect.stringContaining('"paid_in_full" is not a shopify payment status') }]);
    beforeCommit = business(await tableCounts(t));
  });

  test("the commit writes orders, lines, payments, fulfillments and customers by the rules", async () => {
    const d = await pass(id, "commit");
    expect(d).toMatchObject({ status: "completed", rowsProcessed: 10, rowsCreated: 5, rowsUpdated: 0, rowsSkipped: 4, rowsFailed: 1 });
    expect(d.errorSummary).toMatchObject({ invalid_status: { count: 1 }, total_mismatches: { count: 1, sample: ["#1003"] }, customers_created: { count: 3 } });

    const o1 = await order("#1001");
    expect(o1).toMatchObject({
      status: "fulfilled",
      paymentStatus: "captured",
      currency: "USD",
      subtotal: 3550,
      shippingTotal: 500,
      taxTotal: 355,
      discountTotal: 0,
      total: 4405,
      source: "import",
      importId: id,
      customerId: ada.id,
      email: "ada@example.com",
      notes: "Leave at the door\nRing twice",
      billingAddress: { addressLine1: "12 St James's Square", addressLine2: null, city: "London", stateProvince: null, postalCode: "SW1Y 4JH", countryCode: "GB" },
    });
    expect(o1.createdAt.toISOString()).toBe("2026-03-04T15:15:00.000Z");
    expect(o1.completedAt?.toISOString()).toBe("2026-03-04T15:15:00.000Z");
    expect([o1.cancelledAt, o1.closedAt]).toEqual([null, null]);
    expect(o1.lineItems.map((l) => [l.name, l.referenceId, l.quantity, l.unitPrice, l.fulfilledQuantity])).toEqual([
      ["Widget", "W-1", 2, 1000, 2],
      ["Gadget", "G-1", 1, 1550, 1],
    ]);
    expect(o1.payments).toHaveLength(1);
    expect(o1.payments[0]).toMatchObject({ method: "external", processor: "manual", status: "captured", amount: 4405, capturedAmount: 4405, currency: "USD" });
    expect(o1.payments[0]!.transactions.map((x) => [x.type, x.status, x.amount])).toEqual([["capture", "succeeded", 4405]]);
    expect(o1.fulfillments).toHaveLength(1);
    expect(o1.fulfillments[0]).toMatchObject({ status: "completed", hasShipment: false });
    expect(o1.fulfillments[0]!.lines.map((l) => l.quantity).sort()).toEqual([1, 2]);
    expect(o1.history.map((h) => [h.fromStatus, h.toStatus, h.source])).toEqual([[null, "fulfilled", "migration"]]);
    // the order reads like any other over the API
    const api1 = await api("GET", `orders/${o1.id}`, { key });
    expect(api1.body.data).toMatchObject({ status: "fulfilled", paymentStatus: "captured", total: 4405, source: "import", fulfillmentSummary: { itemsTotal: 3, itemsFulfilled: 3, itemsRemaining: 0 } });
    // an existing customer is matched, never rewritten by an order file
    expect(await customer("ada@example.com")).toMatchObject({ id: ada.id, name: "Ada (existing)" });

    const o2 = await order("#1002");
    expect(o2).toMatchObject({ status: "cancelled", paymentStatus: "refunded", total: 2500, payments: [], fulfillments: [] });
    expect(o2.cancelledAt?.toISOString()).toBe("2026-03-06T13:00:00.000Z");
    expect(await customer("grace@example.com")).toMatchObject({ id: o2.customerId, name: "Grace Hopper", company: "Navy Compilers, Inc.", phone: "+1 703 555 0102" });

    // the file's total wins over lines + shipping + tax - discount (50.00 - 5.00 = 45.00, the file says 57.00)
    const o3 = await order("#1003");
    expect(o3).toMatchObject({ status: "fulfilled", paymentStatus: "partially_refunded", subtotal: 5000, discountTotal: 500, total: 5700, payments: [] });
    expect(o3.createdAt.toISOString()).toBe("2026-03-08T13:30:00.000Z");
    expect(o3.lineItems.map((l) => [l.name, l.requiresShipping, l.fulfilledQuantity])).toEqual([
      ["Keyboard", true, 1],
      ["Mouse", true, 2],
      ["Gift card", false, 0],
    ]);
    expect(o3.fulfillments).toHaveLength(1);
    expect(o3.fulfillments[0]!.lines).toHaveLength(2);
    // name and phone from the shipping address when there is no billing address
    expect(await customer("linus@example.com")).toMatchObject({ id: o3.customerId, name: "Linus T", phone: "+358 40 000 0003" });

    const o4 = await order("#1004");
    expect(o4).toMatchObject({ status: "pending", paymentStatus: "pending", customerId: null, email: null, payments: [], fulfillments: [] });
    expect(await t.deps.prisma.order.count({ where: { applicationId: demo.applicationId, externalId: "#1005" } })).toBe(0);

    const o6 = await order("#1006");
    expect(o6).toMatchObject({ status: "processing", paymentStatus: "captured", total: 3400, fulfillments: [] });
    expect(o6.payments.map((p) => [p.method, p.amount])).toEqual([["external", 3400]]);
    expect(await customer("nia@example.com")).toMatchObject({ id: o6.customerId, name: "Nia New", company: "New Co", phone: "+1 415 555 0106" });

    const after = business(await tableCounts(t));
    expect(after.Order! - beforeCommit.Order!).toBe(5);
    expect(after.OrderLineItem! - beforeCommit.OrderLineItem!).toBe(8);
    expect(after.Payment! - beforeCommit.Payment!).toBe(2);
    expect(after.Fulfillment! - beforeCommit.Fulfillment!).toBe(2);
    expect(after.Customer! - beforeCommit.Customer!).toBe(3);
  });

  test("undo removes what the commit created and keeps an order paid from elsewhere, with its customer", async () => {
    const o6 = await order("#1006");
    const beforeRecord = business(await tableCounts(t));
    const rec = await api("POST", `orders/${o6.id}/payments/record`, { key, body: { amount: 100, method: "bank_transfer", reference: "BT-1" } });
    expect(rec.status).toBe(201);
    const recordDelta = Object.fromEntries(Object.entries(business(await tableCounts(t))).map(([k, v]) => [k, v - (beforeRecord[k] ?? 0)]));

    const d = await pass(id, "undo");
    expect(d).toMatchObject({
      status: "completed",
      lastPassMode: "undo",
      undoResult: { deleted: { payment: 2, fulfillment: 2, order: 4, customer: 2 }, kept: 2, keptReasons: { order_has_payments: 1, customer_has_orders: 1 } },
    });
    // what stays: the kept order (its line and history row), its customer, and what the recording wrote
    const kept: Record<string, number> = { Order: 1, OrderLineItem: 1, OrderStatusHistory: 1, Customer: 1 };
    const expected = Object.fromEntries(Object.entries(beforeCommit).map(([k, v]) => [k, v + (kept[k] ?? 0) + (recordDelta[k] ?? 0)]));
    expect(business(await tableCounts(t))).toEqual(expected);
    const left = await order("#1006");
    expect(left.payments.map((p) => [p.method, p.amount])).toEqual([["bank_transfer", 100]]);
    expect(left.paymentStatus).toBe("partially_paid");
    expect(await customer("nia@example.com")).not.toBeNull();
    expect(await customer("grace@example.com")).toBeNull();
    expect(await customer("ada@example.com")).toMatchObject({ id: ada.id });
  });
});

describe("a WooCommerce order export", () => {
  const bytes = importFixture("woocommerce-orders.csv");
  let id: string;
  let inspection: any;

  test("inspect recognises the export; read as mm/dd its dd/mm dates fail the dry run", async () => {
    const p = await preparedImport(api, key, { entityType: "order", provider: "woocommerce", fileName: "woocommerce-orders.csv", bytes });
    id = p.id;
    inspection = p.inspection;
    expect(inspection.matchedTemplate).toBe("woocommerce");
    expect(inspection.dialect).toMatchObject({ delimiter: ";", bom: false });
    expect(suggestionsOf(inspection)).toMatchObject({
      "Order ID": null,
      "Order Number": "order.externalId",
      "Order Status": "order.status",
      "Order Date": "order.date",
      "Customer Email (Billing)": "customer.email",
      "Billing First Name": "billing.firstName",
      "Billing Last Name": "billing.lastName",
      "Billing Address 1": "billing.addressLine1",
      "Billing City": "billing.city",
      "Billing State": "billing.stateProvince",
      "Billing Postcode": "billing.postalCode",
      "Billing Country": "billing.countryCode",
      "Shipping Address 1": "shipping.addressLine1",
      "Order Currency": "order.currency",
      "Order Subtotal Amount": "order.subtotal",
      "Order Shipping Amount": "order.shippingTotal",
      "Order Total Tax Amount": "order.taxTotal",
      "Cart Discount Amount": "order.discountTotal",
      "Order Total Amount": "order.total",
      "Item Name": "line.name",
      "Item SKU": "line.sku",
      Quantity: "line.quantity",
      "Item Cost": "line.unitPrice",
      "Payment Method Title": null,
      "Customer Note": "order.notes",
    });
    const before = await tableCounts(t);
    const d = await pass(id, "validate");
    // 13/02/2026 and 21/03/2026 have no 13th or 21st month
    expect(d).toMatchObject({ rowsProcessed: 5, rowsCreated: 2, rowsSkipped: 1, rowsFailed: 2 });
    expect(d.errorSummary).toEqual({ invalid_date: { count: 2, sample: [2, 6] } });
    expect(countChanges(before, await tableCounts(t))).toEqual({ Event: 1 });
  });

  test("read as dd/mm, the commit maps WooCommerce statuses to ours", async () => {
    const m = await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: suggestionsOf(inspection), dateOrder: "dmy" } });
    expect(m.status).toBe(200);
    const v = await pass(id, "validate");
    expect(v).toMatchObject({ rowsProcessed: 5, rowsCreated: 4, rowsSkipped: 1, rowsFailed: 0, errorSummary: {} });
    const customersBefore = await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId } });
    const d = await pass(id, "commit");
    expect(d).toMatchObject({ status: "completed", rowsCreated: 4, rowsSkipped: 1, rowsFailed: 0 });

    const completed = await order("2041");
    expect(completed).toMatchObject({ status: "fulfilled", paymentStatus: "captured", currency: "EUR", subtotal: 4900, shippingTotal: 590, taxTotal: 1098, total: 6588, customerId: null, email: "marie@example.fr", notes: "Merci !" });
    expect(completed.createdAt.toISOString()).toBe("2026-02-13T09:30:00.000Z");
    expect(completed.completedAt?.toISOString()).toBe("2026-02-13T09:30:00.000Z");
    expect(completed.lineItems.map((l) => [l.name, l.quantity, l.unitPrice, l.fulfilledQuantity])).toEqual([
      ["Tasse", 2, 850, 2],
      ["Théière", 1, 3200, 1],
    ]);
    expect(completed.payments.map((p) => [p.method, p.status, p.amount, p.currency])).toEqual([["external", "captured", 6588, "EUR"]]);
    expect(completed.fulfillments).toHaveLength(1);

    const processing = await order("2042");
    expect(processing).toMatchObject({ status: "processing", paymentStatus: "captured", total: 4320, fulfillments: [] });
    expect(processing.createdAt.toISOString()).toBe("2026-03-05T16:00:00.000Z");
    expect(processing.payments.map((p) => p.amount)).toEqual([4320]);

    const cancelled = await order("2043");
    expect(cancelled).toMatchObject({ status: "cancelled", paymentStatus: "pending", payments: [], fulfillments: [] });
    expect(cancelled.cancelledAt?.toISOString()).toBe("2026-03-07T10:00:00.000Z");

    const refunded = await order("2044");
    expect(refunded).toMatchObject({ status: "closed", paymentStatus: "refunded", payments: [], fulfillments: [] });
    expect(refunded.closedAt?.toISOString()).toBe("2026-03-21T11:45:00.000Z");
    // createMissingCustomers is off: the orders carry the email, no customer is created
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId } })).toBe(customersBefore);
  });
});

describe("a generic tab-separated file", () => {
  const bytes = importFixture("generic-orders.tsv");
  let id: string;
  let batchRows: number;
  beforeAll(() => {
    // two rows a batch: G-1's second row arrives in a later batch than its order
    batchRows = t.deps.config.IMPORT_BATCH_ROWS;
    t.deps.config.IMPORT_BATCH_ROWS = 2;
  });
  afterAll(() => {
    t.deps.config.IMPORT_BATCH_ROWS = batchRows;
  });

  test("our own status words, mm/dd dates, rows of one order apart, the empty payment policy", async () => {
    const p = await preparedImport(api, key, { entityType: "order", fileName: "generic-orders.tsv", bytes, mapping: { dateOrder: "mdy", emptyPaymentPolicy: "paid", createMissingCustomers: true } });
    id = p.id;
    expect(p.inspection.matchedTemplate).toBeNull();
    expect(p.inspection.dialect.delimiter).toBe("\t");
    expect(suggestionsOf(p.inspection)).toEqual({
      "Order Number": "order.externalId",
      "Order Date": "order.date",
      Status: "order.status",
      "Payment Status": "order.paymentStatus",
      "Fulfillment Status": "order.fulfillmentStatus",
      Email: "customer.email",
      "Customer Name": "customer.name",
      Product: "line.name",
      SKU: "line.sku",
      Qty: "line.quantity",
      "Unit Price": "line.unitPrice",
      Shipping: "order.shippingTotal",
      Tax: "order.taxTotal",
    });
    const before = await tableCounts(t);
    const v = await pass(id, "validate");
    expect(countChanges(before, await tableCounts(t))).toEqual({ Event: 1 });
    const summary = {
      invalid_status: { count: 1, sample: [7] },
      rows_appended: { count: 1, sample: ["G-1"] },
      customers_created: { count: 2, sample: ["kim@example.com", "lee@example.com"] },
    };
    expect(v).toMatchObject({ rowsProcessed: 7, rowsCreated: 4, rowsSkipped: 2, rowsFailed: 1 });
    expect(v.errorSummary).toEqual(summary);
    const e = await api("GET", `imports/${id}/errors`, { key });
    expect(e.body.data.errors).toEqual([{ rowNumber: 7, columnName: "Status", code: "invalid_status", message: expect.stringContaining('"shipped" is not an accepted order status') }]);

    const d = await pass(id, "commit");
    expect(d).toMatchObject({ status: "completed", rowsProcessed: 7, rowsCreated: 4, rowsSkipped: 2, rowsFailed: 1 });
    expect(d.errorSummary).toEqual(summary);

    // G-1's bulb row came two rows later, in another batch: appended, and the order's totals and payment grew
    const g1 = await order("G-1");
    expect(g1).toMatchObject({ status: "processing", paymentStatus: "captured", subtotal: 5000, shippingTotal: 500, total: 5500 });
    expect(g1.lineItems.map((l) => [l.name, l.quantity, l.unitPrice, l.position])).toEqual([
      ["Lamp", 1, 4000, 0],
      ["Bulb", 4, 250, 1],
    ]);
    expect(g1.payments.map((p) => [p.amount, p.capturedAmount, p.transactions[0]!.amount])).toEqual([[5500, 5500, 5500]]);
    expect(g1.createdAt.toISOString()).toBe("2026-03-04T00:00:00.000Z");

    // "fulfilled" implies paid: a payment and a fulfillment
    const g2 = await order("G-2");
    expect(g2).toMatchObject({ status: "fulfilled", paymentStatus: "captured", total: 12000 });
    expect(g2.payments).toHaveLength(1);
    expect(g2.fulfillments).toHaveLength(1);

    const g3 = await order("G-3");
    expect(g3).toMatchObject({ status: "pending", paymentStatus: "pending", subtotal: 8000, payments: [], customerId: g1.customerId });
    expect(g3.createdAt.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(await customer("kim@example.com")).toMatchObject({ id: g1.customerId, name: "Kim Park" });

    // "closed" says nothing about the money: emptyPaymentPolicy "paid" records it as paid
    const g5 = await order("G-5");
    expect(g5).toMatchObject({ status: "closed", paymentStatus: "captured", customerId: null, email: null });
    expect(g5.closedAt?.toISOString()).toBe("2026-03-07T00:00:00.000Z");
    expect(g5.payments.map((p) => [p.method, p.amount])).toEqual([["external", 8000]]);
  });

  test("the same file again, read as dd/mm, rewrites the orders it finds from the first import", async () => {
    const p = await preparedImport(api, key, { entityType: "order", fileName: "generic-orders.tsv", bytes, mapping: { dateOrder: "dmy", emptyPaymentPolicy: "unknown", createMissingCustomers: true } });
    const all = await tableCounts(t);
    const before = business(all);
    const d1 = await pass(p.id, "validate");
    expect(d1).toMatchObject({ rowsProcessed: 7, rowsCreated: 0, rowsUpdated: 4, rowsSkipped: 2, rowsFailed: 1 });
    expect(countChanges(all, await tableCounts(t))).toEqual({ Event: 1 });
    const d = await pass(p.id, "commit");
    expect(d).toMatchObject({ status: "completed", rowsCreated: 0, rowsUpdated: 4, rowsSkipped: 2, rowsFailed: 1 });
    expect(d.errorSummary).toEqual({
      invalid_status: { count: 1, sample: [7] },
      rows_appended: { count: 1, sample: ["G-1"] },
      orders_rewritten: { count: 4, sample: ["G-1", "G-2", "G-3", "G-5"] },
    });
    // the same cells, the other day order
    expect((await order("G-3")).createdAt.toISOString()).toBe("2026-01-12T00:00:00.000Z");
    expect((await order("G-1")).createdAt.toISOString()).toBe("2026-04-03T00:00:00.000Z");
    const g1 = await order("G-1");
    // lines replaced from the file (no fulfillment pointed at them); the first import's payment stays
    expect(g1).toMatchObject({ subtotal: 5000, total: 5500, paymentStatus: "captured", importId: id });
    expect(g1.lineItems.map((l) => l.name)).toEqual(["Lamp", "Bulb"]);
    expect(g1.payments).toHaveLength(1);
    // a fulfilled order keeps its lines and fulfillment
    const g2 = await order("G-2");
    expect(g2.fulfillments).toHaveLength(1);
    expect(g2.lineItems[0]!.fulfilledQuantity).toBe(1);
    expect(business(await tableCounts(t))).toMatchObject({ Order: before.Order, Payment: before.Payment, Fulfillment: before.Fulfillment, Customer: before.Customer });

    // undo of the rewriting import deletes nothing (it created nothing); the first import's undo removes them
    const u = await pass(p.id, "undo");
    expect(u).toMatchObject({ status: "undone", undoResult: { deleted: {}, kept: 0 } });
    const u1 = await pass(id, "undo");
    expect(u1).toMatchObject({ status: "undone", undoResult: { deleted: { order: 4, payment: 3, fulfillment: 1, customer: 2 }, kept: 0 } });
    expect(await t.deps.prisma.order.count({ where: { applicationId: demo.applicationId, externalId: { startsWith: "G-" } } })).toBe(0);
  });
});

describe("orders with no payment column, and undo of orders others now depend on", () => {
  const columns = { "Order Number": "order.externalId", "Order Date": "order.date", Status: "order.status", Product: "line.name", Qty: "line.quantity", "Unit Price": "line.unitPrice" };

  // no payment column: an order without a status, or one whose status says nothing of the money (closed), takes
  // the policy; "unknown" behaves as "unpaid"
  test.each([
    ["paid", "captured", 1],
    ["unpaid", "pending", 0],
    ["unknown", "pending", 0],
    [null, "pending", 0],
  ] as const)("emptyPaymentPolicy %s: orders whose file says nothing of payment are %s, with %i payment each", async (policy, paymentStatus, payments) => {
    const tag = `EP-${policy ?? "none"}`;
    const bytes = Buffer.from(`Order Number,Order Date,Status,Product,Qty,Unit Price\n${tag}-1,03/04/2026,,Chair,2,50.00\n${tag}-2,03/05/2026,closed,Desk,1,200.00\n`);
    const p = await preparedImport(api, key, { entityType: "order", fileName: "policy.csv", bytes, columns, mapping: { dateOrder: "mdy", ...(policy ? { emptyPaymentPolicy: policy } : {}) } });
    expect((await read(p.id)).mapping.emptyPaymentPolicy).toBe(policy);
    const v = await pass(p.id, "validate");
    expect(v).toMatchObject({ rowsCreated: 2, rowsFailed: 0 });
    await pass(p.id, "commit");
    const open = await order(`${tag}-1`);
    expect([open.status, open.paymentStatus, open.payments.length]).toEqual([paymentStatus === "captured" ? "processing" : "pending", paymentStatus, payments]);
    const closed = await order(`${tag}-2`);
    expect([closed.status, closed.paymentStatus, closed.payments.length]).toEqual(["closed", paymentStatus, payments]);
    if (payments) expect(open.payments[0]).toMatchObject({ method: "external", status: "captured", amount: 10000 });
  });

  test("undo keeps an order with a fulfillment or a return from elsewhere (order_has_fulfillments, order_has_returns) and deletes the rest", async () => {
    const bytes = Buffer.from("Order Number,Order Date,Status,Product,Qty,Unit Price\nKF-1,03/04/2026,processing,Chair,2,50.00\nKR-1,03/04/2026,fulfilled,Desk,1,200.00\nKN-1,03/04/2026,pending,Lamp,1,10.00\n");
    const p = await preparedImport(api, key, { entityType: "order", fileName: "keep.csv", bytes, columns, mapping: { dateOrder: "mdy" } });
    await pass(p.id, "validate");
    const before = business(await tableCounts(t));
    await pass(p.id, "commit");
    const kf = await order("KF-1");
    const kr = await order("KR-1");
    expect([kf.payments.length, kf.fulfillments.length, kr.payments.length, kr.fulfillments.length]).toEqual([1, 0, 1, 1]);

    // a fulfillment of the processing order and a return of the fulfilled one, both through the API
    const f = await api("POST", `orders/${kf.id}/fulfillments`, { key, body: { lineItems: [{ lineItemId: kf.lineItems[0]!.id, quantity: 1 }] } });
    expect(f.status).toBe(201);
    const r = await api("POST", `orders/${kr.id}/returns`, { key, body: { lineItems: [{ lineItemId: kr.lineItems[0]!.id, quantity: 1 }] } });
    expect(r.status).toBe(201);

    const u = await pass(p.id, "undo");
    expect(u).toMatchObject({
      status: "completed",
      undoResult: { deleted: { payment: 2, fulfillment: 1, order: 1 }, kept: 2, keptReasons: { order_has_fulfillments: 1, order_has_returns: 1 } },
    });
    expect(await t.deps.prisma.order.count({ where: { applicationId: demo.applicationId, externalId: "KN-1" } })).toBe(0);
    const keptF = await order("KF-1");
    expect(keptF.fulfillments).toHaveLength(1);
    expect(keptF.payments).toHaveLength(0);
    // the import's payment is gone: the kept order no longer says captured
    expect(keptF.paymentStatus).toBe("pending");
    const keptR = await order("KR-1");
    expect(keptR.payments).toHaveLength(0);
    expect(keptR.paymentStatus).toBe("pending");
    expect(await t.deps.prisma.orderReturn.count({ where: { orderId: keptR.id } })).toBe(1);
    // what stays is the two kept orders with their lines and history rows, and what the API wrote on them
    const after = business(await tableCounts(t));
    expect(after.Order! - before.Order!).toBe(2);
    expect(after.Payment! - before.Payment!).toBe(0);
  });
});
