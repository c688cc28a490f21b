// Tax on quotes (issue 34 item 7; decisions.md part 3: "Quotes carry no tax unless the environment configures tax"):
// where the built-in provider's tax table (PUT /shipping-tax/settings) gives the quote a rate, the working revision
// carries live tax lines and a tax total, issuing freezes them, and the frozen rate follows the buyer's accepted
// selection into the cart, the checkout, the order and the invoice. Shown on the buyer read, the page and the PDF.
// A new environment has no tax table: nothing changes. REST here; GraphQL in the second describe.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { termsHash } from "../src/checkout/checkout-complete.service";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import {
  ReplaceShippingTaxSettingsDocument,
  TaxAcceptQuoteLinkDocument,
  TaxCartDocument,
  TaxCompleteCheckoutDocument,
  TaxCreateQuoteDocument,
  TaxOrderDocument,
  TaxQuoteDocument,
  TaxQuoteLinkDocument,
  TaxUpdateRevisionDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let clock: FixedClock;
const PDFTOTEXT = "/usr/bin/pdftotext";

beforeAll(async () => {
  clock = new FixedClock(new Date());
  t = (await startTestApp({ clock, env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const key = () => demo.apiKey;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
// subtotal 15500 (Widget 2 x 1500, Gadget 2500 optional, Setup 10000) + flat shipping 1000 = 16500 taxable
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2, qtyEditable: true },
  { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
  { name: "Setup", unitPrice: 10000, type: "service" },
];
const QUOTE = { customerEmail: "tax-buyer@example.com", items: LINES, shippingMode: "flat", shippingAmount: 1000 };

function pdfText(bytes: Buffer): string {
  if (!existsSync(PDFTOTEXT)) throw new Error("pdftotext is missing: apt-get install -y poppler-utils");
  const dir = mkdtempSync(path.join(os.tmpdir(), "qtax-"));
  const f = path.join(dir, "q.pdf");
  writeFileSync(f, bytes);
  return execFileSync(PDFTOTEXT, ["-layout", f, "-"], { encoding: "utf8" });
}
async function download(url: string) {
  const r = await fetch(new URL(url, t.url), { redirect: "follow" });
  expect(r.status).toBe(200);
  return Buffer.from(await r.arrayBuffer());
}
const settings = (taxRates: Record<string, { rateBps: number; name?: string }>) => api("PUT", "shipping-tax/settings", { key: key(), body: { flatRates: [], taxRates } });

/** Issues quote `id` and returns the merchant view read afterwards (independent of the issue response's shape). */
async function issue(id: string) {
  expect((await api("POST", `quotes/${id}/issue`, { key: key(), body: {} })).status).toBe(200);
  const q = (await api("GET", `quotes/${id}`, { key: key() })).body.data;
  return { quote: q, token: q.shareToken as string, rev: q.revisions.find((r: any) => r.id === q.currentRevisionId) };
}
const sessionOf = (checkoutUrl: string) => checkoutUrl.split("/").pop()!;
const net30 = { termsHash: termsHash("Net 30"), acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" };

describe("REST", () => {
  test("not configured (a new environment): no tax lines and tax 0 on the revision, the buyer read, the cart and the order", async () => {
    const s = await api("GET", "shipping-tax/settings", { key: key() });
    expect(s.body.data.taxRates).toEqual({});
    const c = await api("POST", "quotes", { key: key(), body: QUOTE });
    expect(c.status).toBe(201);
    expect(c.body.data.workingRevision).toMatchObject({ taxCountry: null, taxLines: [], taxTotal: 0, total: 16500 });
    const { token, rev } = await issue(c.body.data.id);
    expect(rev).toMatchObject({ taxLines: [], taxTotal: 0, total: 16500 });
    const read = (await api("GET", `quote-links/${token}`)).body.data;
    expect(read.revision).toMatchObject({ taxLines: [], taxTotal: 0, total: 16500 });
    const acc = await api("POST", `quote-links/${token}/accept`, { body: { revisionId: rev.id, acceptedByName: "Bea" } });
    expect(acc.status).toBe(200);
    const session = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionOf(acc.body.data.checkoutUrl) } });
    expect((await api("GET", `carts/${session.cartId}`, { key: key() })).body.data).toMatchObject({ taxLines: [], taxTotal: 0, total: 16500 });
    const done = await api("POST", `checkout-sessions/${session.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    expect((await api("GET", `orders/${done.body.data.orderId}`, { key: key() })).body.data).toMatchObject({ taxTotal: 0, total: 16500 });
  });

  test("configured: live on the working revision, frozen at issue, on the buyer read, page and PDF; the accepted selection's tax reaches cart, checkout, order and invoice", async () => {
    expect((await settings({ US: { rateBps: 825, name: "Sales tax" } })).status).toBe(200);
    const c = await api("POST", "quotes", { key: key(), body: { ...QUOTE, paymentTerms: { mode: "net_terms", netN: 30 } } });
    expect(c.status).toBe(201);
    // the single configured rate applies when the revision names no country; 8.25% of 16500 = 1361.25 -> 1361
    const line = { name: "Sales tax", rateBps: 825, jurisdiction: "US", amount: 1361 };
    expect(c.body.data.workingRevision).toMatchObject({ taxCountry: null, subtotal: 15500, shippingTotal: 1000, taxLines: [line], taxTotal: 1361, total: 17861 });
    const { quote, token, rev } = await issue(c.body.data.id);
    expect(rev).toMatchObject({ status: "issued", taxLines: [line], taxTotal: 1361, total: 17861 });

    // frozen: a new rate changes the next working revision, never the issued one
    expect((await settings({ US: { rateBps: 1000, name: "Sales tax" } })).status).toBe(200);
    const work = await api("POST", `quotes/${quote.id}/revisions`, { key: key(), body: {} });
    expect(work.body.data).toMatchObject({ status: "working", taxLines: [{ name: "Sales tax", rateBps: 1000, jurisdiction: "US", amount: 1650 }], taxTotal: 1650, total: 18150 });
    const again = (await api("GET", `quotes/${quote.id}`, { key: key() })).body.data;
    expect(again.revisions.find((r: any) => r.id === rev.id)).toMatchObject({ taxLines: [line], taxTotal: 1361, total: 17861 });

    // the buyer read, the page and the PDF show the frozen tax
    const read = (await api("GET", `quote-links/${token}`)).body.data;
    expect(read.revision).toMatchObject({ id: rev.id, taxLines: [line], taxTotal: 1361, total: 17861 });
    expect(read.revisions).toEqual([expect.objectContaining({ id: rev.id, total: 17861 })]);
    const page = await (await fetch(`${t.url}/q/${token}`)).text();
    for (const s of ["Sales tax (8.25%)", "USD 13.61", "USD 178.61", 'data-tax-bps="825"']) expect(page).toContain(s);
    const pdf = pdfText(await download((await fetch(`${t.url}/api/v1/quote-links/${token}/pdf`, { redirect: "manual" })).headers.get("location")!));
    for (const s of ["Sales tax (8.25%)", "USD 13.61", "USD 178.61"]) expect(pdf).toContain(s);

    // accept without Gadget and with 3 Widgets: 4500 + 10000 + 1000 = 15500 at the frozen 8.25% = 1278.75 -> 1279
    const [widget, gadget] = rev.items;
    const acc = await api("POST", `quote-links/${token}/accept`, {
      body: { revisionId: rev.id, acceptedByName: "Bea", itemSelections: [{ itemId: gadget.id, selected: false }, { itemId: widget.id, quantity: 3 }] },
    });
    expect(acc.status).toBe(200);
    const accepted = { name: "Sales tax", rateBps: 825, jurisdiction: "US", amount: 1279 };
    const sessionId = sessionOf(acc.body.data.checkoutUrl);
    const session = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect((await api("GET", `carts/${session.cartId}`, { key: key() })).body.data).toMatchObject({ subtotal: 14500, shippingTotal: 1000, taxLines: [accepted], taxTotal: 1279, total: 16779 });
    const hosted = await (await fetch(`${t.url}/checkout/${sessionId}`)).text();
    for (const s of ["Tax: Sales tax", "USD 12.79", "USD 167.79"]) expect(hosted).toContain(s);
    // the stamped PDF carries the accepted selection's tax
    const stamped = pdfText(await download((await fetch(`${t.url}/api/v1/quote-links/${token}/pdf`, { redirect: "manual" })).headers.get("location")!));
    for (const s of ["ACCEPTED", "Sales tax (8.25%)", "USD 12.79", "USD 167.79"]) expect(stamped).toContain(s);

    const done = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, billingAddress: ADDRESS, net30Acceptance: net30 } });
    expect(done.status).toBe(200);
    const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: key() })).body.data;
    expect(order).toMatchObject({ subtotal: 14500, shippingTotal: 1000, taxTotal: 1279, total: 16779 });
    const payment = (await api("GET", `payments/${done.body.data.paymentId}`, { key: key() })).body.data;
    expect(payment).toMatchObject({ method: "net30", amount: 16779 });
    const inv = await api("GET", `payments/${done.body.data.paymentId}/invoice-pdf`, { key: key() });
    expect(inv.status).toBe(200);
    const invoice = pdfText(await download(inv.body.data.url));
    for (const s of ["Sales tax (8.25%)", "USD 12.79", "USD 167.79"]) expect(invoice).toContain(s);
  });

  test("the rate's country: the revision's taxCountry (validated, carried to clones), else the only configured rate, else none; a cart's request takes the cart's country", async () => {
    expect((await settings({ US: { rateBps: 825, name: "Sales tax" }, DE: { rateBps: 1900, name: "MwSt" } })).status).toBe(200);
    const c = await api("POST", "quotes", { key: key(), body: { customerEmail: "two@example.com", items: [{ name: "Thing", unitPrice: 10000 }] } });
    expect(c.body.data.workingRevision).toMatchObject({ taxCountry: null, taxLines: [], taxTotal: 0, total: 10000 }); // two rates, no country: no tax
    const revId = c.body.data.workingRevision.id;
    const bad = await api("PATCH", `quotes/${c.body.data.id}/revisions/${revId}`, { key: key(), body: { taxCountry: "DEU" } });
    expect([bad.status, bad.body.error.code]).toEqual([422, "validation_error"]);
    const de = await api("PATCH", `quotes/${c.body.data.id}/revisions/${revId}`, { key: key(), body: { taxCountry: "de" } });
    expect(de.body.data).toMatchObject({ taxCountry: "DE", taxLines: [{ name: "MwSt", rateBps: 1900, jurisdiction: "DE", amount: 1900 }], taxTotal: 1900, total: 11900 });
    const fr = await api("PATCH", `quotes/${c.body.data.id}/revisions/${revId}`, { key: key(), body: { taxCountry: "FR" } });
    expect(fr.body.data).toMatchObject({ taxCountry: "FR", taxLines: [], taxTotal: 0 }); // no rate for FR
    await api("PATCH", `quotes/${c.body.data.id}/revisions/${revId}`, { key: key(), body: { taxCountry: "DE" } });
    const { quote } = await issue(c.body.data.id);
    const clone = await api("POST", `quotes/${quote.id}/revisions`, { key: key(), body: {} });
    expect(clone.body.data).toMatchObject({ taxCountry: "DE", taxTotal: 1900 });
    const cleared = await api("PATCH", `quotes/${quote.id}/revisions/${clone.body.data.id}`, { key: key(), body: { taxCountry: null } });
    expect(cleared.body.data).toMatchObject({ taxCountry: null, taxTotal: 0 });

    const cart = await api("POST", "carts", { key: key(), body: { customerEmail: "cart-tax@example.com" } });
    expect((await api("PATCH", `carts/${cart.body.data.id}`, { key: key(), body: { shippingAddress: { ...ADDRESS, countryCode: "DE" } } })).status).toBe(200);
    await api("POST", `carts/${cart.body.data.id}/items`, { key: key(), body: { name: "Box", unitPrice: 500 } });
    const rq = await api("POST", `carts/${cart.body.data.id}/request-quote`, { key: key(), body: {} });
    expect(rq.status).toBe(201);
    const requested = (await api("GET", `quotes/${rq.body.data.id}`, { key: key() })).body.data;
    expect(requested.workingRevision.taxCountry).toBe("DE");
  });
});

describe("GraphQL", () => {
  test("taxCountry in, taxLines and taxTotal out on the merchant quote and the buyer link; the accepted selection's tax reaches the cart and the order", async () => {
    const cred = { key: key() };
    const rates = await gql(ReplaceShippingTaxSettingsDocument, { flatRates: [], taxRates: [{ countryCode: "US", rateBps: 825, name: "Sales tax" }, { countryCode: "DE", rateBps: 1900, name: "MwSt" }] }, cred);
    expect(rates.errors).toBeNull();
    const c = await gql(TaxCreateQuoteDocument, { customerEmail: "gql-tax@example.com", items: LINES as any, taxCountry: "US", shippingMode: "flat", shippingAmount: 1000 }, cred);
    expect(c.errors).toBeNull();
    const line = { name: "Sales tax", rateBps: 825, jurisdiction: "US", amount: 1361 };
    expect(c.data!.createQuote.workingRevision).toMatchObject({ taxCountry: "US", taxLines: [line], taxTotal: 1361, total: 17861 });
    const id = c.data!.createQuote.id;
    const de = await gql(TaxUpdateRevisionDocument, { id, revisionId: c.data!.createQuote.workingRevision!.id, taxCountry: "DE" }, cred);
    expect(de.data!.updateQuoteRevision).toMatchObject({ taxCountry: "DE", taxTotal: 3135, total: 19635 }); // 19% of 16500
    await gql(TaxUpdateRevisionDocument, { id, revisionId: c.data!.createQuote.workingRevision!.id, taxCountry: "US" }, cred);
    expect((await api("POST", `quotes/${id}/issue`, { key: key(), body: {} })).status).toBe(200);

    await gql(ReplaceShippingTaxSettingsDocument, { flatRates: [], taxRates: [{ countryCode: "US", rateBps: 1000, name: "Sales tax" }] }, cred);
    const q = await gql(TaxQuoteDocument, { id }, cred);
    expect(q.errors).toBeNull();
    const rev = q.data!.quote.revisions.find((r) => r.id === q.data!.quote.currentRevisionId)!;
    expect(rev).toMatchObject({ status: "issued", taxCountry: "US", taxLines: [line], taxTotal: 1361, total: 17861 }); // frozen
    const token = q.data!.quote.shareToken;
    const read = await gql(TaxQuoteLinkDocument, { shareToken: token });
    expect(read.errors).toBeNull();
    expect(read.data!.quoteLink.revision).toMatchObject({ id: rev.id, taxLines: [line], taxTotal: 1361, total: 17861 });

    const gadget = rev.items[1];
    const acc = await gql(TaxAcceptQuoteLinkDocument, { shareToken: token, revisionId: rev.id, acceptedByName: "Bea", itemSelections: [{ itemId: gadget.id, selected: false }] });
    expect(acc.errors).toBeNull();
    const sessionId = sessionOf(acc.data!.acceptQuoteLink.checkoutUrl);
    const session = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId } });
    // 3000 + 10000 + 1000 = 14000 at the frozen 8.25% = 1155
    const cart = await gql(TaxCartDocument, { id: session.cartId }, cred);
    expect(cart.data!.cart).toMatchObject({ taxLines: [{ name: "Sales tax", rateBps: 825, jurisdiction: "US", amount: 1155 }], taxTotal: 1155, total: 15155 });
    const done = await gql(TaxCompleteCheckoutDocument, { id: sessionId, paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS });
    expect(done.errors).toBeNull();
    const order = await gql(TaxOrderDocument, { id: done.data!.completeCheckoutSession.orderId }, cred);
    expect(order.data!.order).toMatchObject({ taxTotal: 1155, total: 15155 });
  });
});
