// Issue 35 items 5 and 10: the quote PDF and the invoice PDF read as professional documents. The text is read back
// with pdftotext (poppler-utils) as a person would see it: the seller block as the revision froze it at issue (legal
// name, address, tax id, contact), the buyer's company and addresses, the PO, the numbers and dates, tax lines,
// deposit paid and amount due, payment instructions, notes and terms, the buyer's view link, and never a UUID.
// With Q2C_SCREENSHOTS=1 the first page of each is written to docs/screenshots/{quote,invoice}-pdf.png (pdftoppm).
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { termsHash } from "../src/checkout/checkout-complete.service";
import { Prisma } from "../src/generated/prisma/client";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { netCheckout } from "./helpers/receivables";
import { SCREENSHOT_DIR } from "./helpers/page-audit";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  const app = await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body: { name: "Northwind Supply", brandColor: "#4f46e5", seller: SELLER } });
  expect(app.status).toBe(200);
  expect((await api("PUT", "shipping-tax/settings", { key: key(), body: { flatRates: [], taxRates: { US: { rateBps: 825, name: "Sales tax" } } } })).status).toBe(200);
});
afterAll(() => t?.close());

const key = () => demo.apiKey;
const SELLER = {
  legalName: "Northwind Supply LLC",
  address: { addressLine1: "500 Market St", city: "San Francisco", stateProvince: "CA", postalCode: "94105", countryCode: "US" },
  taxId: "EIN 12-3456789",
  email: "billing@northwind.example",
  phone: "+1 415 555 0100",
  paymentInstructions: "ACH to Northwind Supply LLC, First Bank, routing 021000021, account 000123456789",
  terms: "Prices exclude installation unless listed. Warranty 12 months.",
  notes: "Thank you for considering Northwind.",
};
const BILLING = { addressLine1: "77 Harbor Rd", city: "Portland", stateProvince: "OR", postalCode: "97201", countryCode: "US" };
const SHIPPING = { addressLine1: "9 Dock Lane", addressLine2: "Bay 4", city: "Tacoma", stateProvince: "WA", postalCode: "98402", countryCode: "US" };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

function pdfText(bytes: Buffer): string {
  if (!existsSync("/usr/bin/pdftotext")) throw new Error("pdftotext is missing: apt-get install -y poppler-utils");
  const f = path.join(mkdtempSync(path.join(os.tmpdir(), "qipdf-")), "d.pdf");
  writeFileSync(f, bytes);
  return execFileSync("/usr/bin/pdftotext", ["-layout", f, "-"], { encoding: "utf8" });
}

/** With Q2C_SCREENSHOTS=1: the first page at 60 dpi into docs/screenshots/{name}.png. */
function screenshot(bytes: Buffer, name: string) {
  if (process.env.Q2C_SCREENSHOTS !== "1") return;
  const dir = mkdtempSync(path.join(os.tmpdir(), "qishot-"));
  writeFileSync(path.join(dir, "d.pdf"), bytes);
  execFileSync("/usr/bin/pdftoppm", ["-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", path.join(dir, "d.pdf"), path.join(dir, "p")]);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  copyFileSync(path.join(dir, "p.png"), path.join(SCREENSHOT_DIR, `${name}.png`));
}

async function download(url: string) {
  const r = await fetch(new URL(url, t.url));
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/pdf");
  return Buffer.from(await r.arrayBuffer());
}
const quotePdf = async (token: string) => download((await fetch(`${t.url}/api/v1/quote-links/${token}/pdf`, { redirect: "manual" })).headers.get("location")!);

let buyers = 0;
async function buyerQuote(body: Record<string, unknown>) {
  const email = `hank${++buyers}@globex.test`;
  const cust = await api("POST", "customers", { key: key(), body: { email, company: "Globex Corporation", name: "Hank Scorpio", billingAddress: BILLING, shippingAddress: SHIPPING } });
  expect(cust.status).toBe(201);
  const c = await api("POST", "quotes", {
    key: key(),
    body: {
      customerEmail: email,
      companyName: "Globex Corporation",
      buyerReference: "PO-4471",
      items: [
        { name: "Industrial widget", description: "Powder-coated steel, 40 cm", sku: "IW-40", unitPrice: 120000, quantity: 3 },
        { name: "On-site setup", unitPrice: 45000, type: "service" },
        { name: "Extended warranty", unitPrice: 30000, optional: true },
      ],
      shippingMode: "flat",
      shippingAmount: 5000,
      ...body,
    },
  });
  expect([c.status, c.body.error]).toEqual([201, undefined]);
  expect((await api("POST", `quotes/${c.body.data.id}/issue`, { key: key(), body: {} })).status).toBe(200);
  const q = (await api("GET", `quotes/${c.body.data.id}`, { key: key() })).body.data;
  return { q, email, rev: q.revisions.find((r: any) => r.id === q.currentRevisionId) };
}

test("the quote PDF: frozen seller block, buyer block, PO, dates, tax line, deposit terms in words, payment instructions, notes and terms; revision 1 keeps the old seller name after a rename", async () => {
  const { q } = await buyerQuote({ paymentTerms: { mode: "deposit_balance", balanceNetN: 45 }, deposit: { type: "percent", value: 25 } });
  // renamed after issue, before the first download: the PDF of revision 1 still shows the seller as issued
  await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body: { seller: { legalName: "Renamed Holdings Inc", taxId: "EIN 98-7654321" } } });
  try {
    await renamed(q);
  } finally {
    await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body: { seller: SELLER } });
  }
});

async function renamed(q: { id: string; number: string; shareToken: string }) {
  const bytes = await quotePdf(q.shareToken);
  const text = pdfText(bytes);
  // 3 x 1,200.00 + 450.00 + 300.00 (optional, selected) = 4,350.00; + 50.00 shipping = 4,400.00; 8.25% = 363.00
  for (const s of [
    "QUOTE", `${q.number} · revision 1`, "Northwind Supply LLC", "500 Market St", "San Francisco, CA 94105", "Tax ID: EIN 12-3456789", "billing@northwind.example", "+1 415 555 0100",
    "Globex Corporation", "Hank Scorpio", "77 Harbor Rd", "Portland, OR 97201", "9 Dock Lane", "Bay 4", "Tacoma, WA 98402", "PO-4471",
    "Quote number", "Issued", "Valid until", "Industrial widget", "SKU IW-40", "Powder-coated steel", "(optional)", "USD 1,200.00", "USD 3,600.00",
    "Subtotal", "USD 4,350.00", "Shipping", "USD 50.00", "Sales tax (8.25%)", "USD 363.00", "Total", "USD 4,763.00",
    "Deposit due at acceptance", "USD 1,190.75", "Balance, Net 45", "USD 3,572.25", "Deposit of USD 1,190.75 (25%) due at acceptance",
    "payable at Net 45", "ACH to Northwind Supply LLC", SELLER.notes, "Prices exclude installation", `${q.number}-rev1`,
  ]) expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
  for (const s of ["Renamed Holdings", "98-7654321", "ACCEPTED"]) expect({ s, found: text.includes(s) }).toEqual({ s, found: false });
  expect(text).not.toMatch(UUID);
  screenshot(bytes, "quote-pdf");

  // revision 2, issued after the rename, shows the new name
  await api("POST", `quotes/${q.id}/revisions`, { key: key(), body: {} });
  const re = (await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} })).body.data.quote;
  const rev2 = pdfText(await quotePdf(re.shareToken));
  for (const s of ["Renamed Holdings Inc", "Tax ID: EIN 98-7654321", "revision 2"]) expect(rev2).toContain(s);
}

test("the stamped quote PDF marks the deselected line and shows who accepted, when, and the accepted total", async () => {
  const { q, rev } = await buyerQuote({});
  const optional = rev.items.find((i: any) => i.optional);
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: rev.id, acceptedByName: "Hank Scorpio", acceptedByEmail: "hank@globex.test", itemSelections: [{ itemId: optional.id, selected: false }] } });
  expect(acc.status).toBe(200);
  const text = pdfText(await quotePdf(q.shareToken));
  // 4,050.00 + 50.00 shipping = 4,100.00; 8.25% = 338.25; total 4,438.25
  for (const s of ["ACCEPTED", "Accepted by Hank Scorpio <hank@globex.test> on", "Accepted lines: Industrial widget x 3, On-site setup x 1", "Accepted total", "USD 4,438.25", "optional, not selected", "Paid in full by card"]) {
    expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
  }
});

test("the balance invoice of deposit terms: seller, bill-to and ship-to, invoice, order and quote numbers, PO, dates, lines, tax, deposit paid, amount due, remit-to and the view link", async () => {
  const { q, rev, email } = await buyerQuote({ paymentTerms: { mode: "deposit_balance", balanceNetN: 45 }, deposit: { type: "percent", value: 25 } });
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: rev.id, acceptedByName: "Hank Scorpio", acceptedByEmail: email } });
  expect(acc.status).toBe(200);
  const done = await api("POST", `checkout-sessions/${acc.body.data.checkoutUrl.split("/").pop()}/complete`, {
    body: { paymentMethod: "card", paymentToken: "tok_visa", billingAddress: BILLING, shippingAddress: SHIPPING },
  });
  expect(done.status).toBe(200);
  const payments = await t.deps.prisma.payment.findMany({ where: { orderId: done.body.data.orderId }, orderBy: { createdAt: "asc" } });
  const balance = payments.find((p) => p.method === "net30")!;
  expect(balance.invoiceNumber).toMatch(/^INV-\d+$/);
  const url = (await api("GET", `payments/${balance.id}/invoice-pdf`, { key: key() })).body.data.url;
  const bytes = await download(url);
  const text = pdfText(bytes);
  if (process.env.Q2C_DUMP) console.log(text);
  const due = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(balance.dueDate!);
  const orderNo = done.body.data.orderId.slice(0, 8).toUpperCase();
  for (const s of [
    "INVOICE", `Invoice ${balance.invoiceNumber}`, "Northwind Supply LLC", "500 Market St", "Tax ID: EIN 12-3456789", "billing@northwind.example",
    "BILL TO", "Globex Corporation", "Hank Scorpio", email, "77 Harbor Rd", "Portland, OR 97201", "SHIP TO", "9 Dock Lane", "Tacoma, WA 98402",
    "Invoice number", "Order number", orderNo, "Quote number", q.number, "PO / reference", "PO-4471", "Issue date", "Due date", due,
    "Industrial widget", "USD 1,200.00", "USD 3,600.00", "Sales tax (8.25%)", "USD 363.00", "Order total", "USD 4,763.00",
    "Deposit paid", "-USD 1,190.75", "Amount due", "USD 3,572.25", `USD 3,572.25 due ${due}`, "Net 45",
    "PAYMENT INSTRUCTIONS (REMIT TO)", "ACH to Northwind Supply LLC", "View and download online: open this invoice",
  ]) expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
  // the view link is the buyer-token download URL the invoice email carries (a link annotation on "open this invoice")
  const link = new RegExp(`${t.url}/api/v1/payments/${balance.id}/invoice/download\\?token=[\\w.-]+`);
  expect(bytes.toString("latin1")).toMatch(link);
  expect(text).not.toMatch(UUID);
  expect(text).toContain("page 1 of 1");
  screenshot(bytes, "invoice-pdf");
});

test("a Net 30 quote's invoice carries the quote number and PO; an invoice without a quote uses the application's seller at render time", async () => {
  const { q, rev } = await buyerQuote({ paymentTerms: { mode: "net_terms", netN: 30 } });
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: rev.id, acceptedByName: "Hank Scorpio" } });
  const net30Acceptance = { termsHash: termsHash("Net 30"), acceptedAt: new Date().toISOString(), companyName: "Globex Corporation", billingEmail: "ap@globex.test" };
  const done = await api("POST", `checkout-sessions/${acc.body.data.checkoutUrl.split("/").pop()}/complete`, { body: { paymentMethod: "net30", billingAddress: BILLING, shippingAddress: SHIPPING, net30Acceptance } });
  expect(done.status).toBe(200);
  const inv = await api("GET", `payments/${done.body.data.paymentId}/invoice-pdf`, { key: key() });
  const text = pdfText(await download(inv.body.data.url));
  for (const s of [q.number, "PO-4471", "Northwind Supply LLC", "Tax ID: EIN 12-3456789", "ap@globex.test", "77 Harbor Rd", "Sales tax (8.25%)", "Net 30", "ACH to Northwind"]) {
    expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
  }
  expect(text).not.toContain("Deposit paid");

  const plain = await netCheckout(api, key(), 10);
  const storefront = pdfText(await download((await api("GET", `payments/${plain.paymentId}/invoice-pdf`, { key: key() })).body.data.url));
  for (const s of ["Northwind Supply LLC", "Tax ID: EIN 12-3456789", "Acme Corp", "ap@acme.test", "1 Main St", "Net 10"]) expect({ s, found: storefront.includes(s) }).toEqual({ s, found: true });
  for (const s of ["Quote number", "PO / reference"]) expect({ s, found: storefront.includes(s) }).toEqual({ s, found: false });
});

test("a revision issued before parties were frozen falls back to the application's and the customer's current details", async () => {
  const { q, rev } = await buyerQuote({});
  await t.deps.prisma.quoteRevision.update({ where: { id: rev.id }, data: { parties: Prisma.DbNull } });
  const text = pdfText(await quotePdf(q.shareToken));
  for (const s of ["Northwind Supply LLC", "Tax ID: EIN 12-3456789", "Globex Corporation", "Hank Scorpio", "77 Harbor Rd", "9 Dock Lane", "PO-4471"]) {
    expect({ s, found: text.includes(s) }).toEqual({ s, found: true });
  }
});
