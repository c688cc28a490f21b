// Three buyer emails as a recipient sees them (issue 35 item 9): the quote (customer.quote_proposed), the balance
// invoice (customer.net30_invoice_issued) and the deposit's receipt (customer.payment_receipt), rendered by the real
// flow into the outbox, opened in Chromium from their HTML at 390 and 1280 px: nothing overflows, axe-core finds no
// serious or critical violation. With Q2C_SCREENSHOTS=1 it writes docs/screenshots/email-<name>-<width>.png.
import type { Browser } from "playwright-core";
import { findJob } from "../jobs/registry";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";
import { auditContext, auditPage, WIDTHS } from "./helpers/page-audit";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let browser: Browser | null = null;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

browserTest("the quote, invoice and receipt emails read well at 390 and 1280 px: no overflow, no serious axe violation", async () => {
  await api("PATCH", `applications/${demo.applicationId}`, {
    key: demo.apiKey,
    body: { name: "Acme Supplies", brandColor: "#0a7d3b", supportEmail: "support@acme-supplies.test", seller: { legalName: "Acme Supplies LLC", email: "sales@acme-supplies.test" } },
  });
  const c = await api("POST", "quotes", {
    key: demo.apiKey,
    body: {
      customerEmail: "dana@northwind.test",
      companyName: "Northwind Traders",
      buyerReference: "PO-7781",
      items: [
        { name: "Industrial widget, stainless", unitPrice: 40000, quantity: 3 },
        { name: "Mounting brackets (set of 4)", unitPrice: 2450, quantity: 6 },
        { name: "On-site setup and training", unitPrice: 35000, quantity: 1, optional: true, type: "service" },
      ],
      shippingMode: "flat",
      shippingAmount: 2500,
      paymentTerms: { mode: "deposit_balance", balanceNetN: 30 },
      deposit: { type: "percent", value: 30 },
    },
  });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Dana Scully" } });
  const pay = await api("POST", `checkout-sessions/${acc.body.data.checkoutUrl.split("/").pop()}/complete`, {
    body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS },
  });
  expect(pay.status).toBe(200);
  await findJob("mail-dispatch")!.run({ deps: t.deps, deliveries: t.deliveries });
  const balance = await t.deps.prisma.payment.findFirstOrThrow({ where: { orderId: pay.body.data.orderId, method: "net30" } });
  const emails = {
    "quote-proposed": await t.deps.prisma.email.findFirstOrThrow({ where: { quoteId: q.id, template: "customer.quote_proposed" } }),
    "invoice-issued": await t.deps.prisma.email.findFirstOrThrow({ where: { paymentId: balance.id, template: "customer.net30_invoice_issued" } }),
    receipt: await t.deps.prisma.email.findFirstOrThrow({ where: { paymentId: pay.body.data.paymentId, template: "customer.payment_receipt" } }),
  };
  browser = await launchChromium();
  for (const [name, e] of Object.entries(emails)) {
    expect(e.html).toBeTruthy();
    for (const width of WIDTHS) {
      const ctx = await auditContext(browser, width);
      const page = await ctx.newPage();
      // links stay where they are: the email is looked at, not followed
      await page.route("**/*", (r) => r.abort());
      await page.setContent(e.html!, { waitUntil: "load" });
      expect(await page.title()).toBe(e.subject);
      expect({ name, width, ...(await auditPage(page, `email-${name}`)) }).toEqual({ name, width, overflow: [], axe: [] });
      await ctx.close();
    }
  }
});
