// The buyer's whole path in a real browser (Debian chromium through playwright-core): open the quote link, deselect
// an optional line, change an editable quantity (the totals follow live), accept, pay with tok_visa on the hosted
// checkout page -> an order of exactly the chosen lines, the quote converted, and the PDF link serving a PDF whose
// text shows Q-…-rev1 and the acceptance stamp. Screenshots of the quote page and the request form at 390 and
// 1280 px go to SCREENSHOT_DIR when it is set (to look at them).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { orderDisplayNumber } from "../src/documents/order-number";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";
import { auditContext, auditPage, WIDTHS } from "./helpers/page-audit";

const SHOTS = process.env.SCREENSHOT_DIR;
let t: TestApp;
let demo: BootstrapResult;
let browser: Browser; // set when Chromium is here; the tests that use it are browserTest (skipped otherwise)

beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
  await client(t.url)("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { name: "Acme Supplies", brandColor: "#0a7d3b" } });
  if (hasChromium) browser = await launchChromium();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const LOGO = "https://cdn.example.com/acme-logo.svg";
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#0a7d3b"/></svg>';

/** Asserts the audit of the page as it is now: nothing overflows at this width, no serious or critical axe rule. */
async function audited(page: Page, name: string) {
  const a = await auditPage(page, name);
  expect({ name, ...a }).toEqual({ name, overflow: [], axe: [] });
}

// Issue 35's acceptance path, at each width: the quote page, the hosted checkout and the converted page are audited
// (no overflow at 390 px, no serious or critical axe violation); the checkout carries the brand colour and the logo;
// the converted page shows the accepted total and the order number.
browserTest.each(WIDTHS)("at %i px: open the link, deselect an optional line, lower a quantity, accept, pay -> the order has exactly those lines; the converted page is the receipt; the PDF is stamped", async (width) => {
  const api = client(t.url);
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { logoUrl: LOGO } });
  const c = await api("POST", "quotes", {
    key: demo.apiKey,
    body: {
      customerEmail: `browser-${width}@example.com`,
      companyName: "Globex",
      buyerReference: "PO-4471",
      items: [
        { name: "Industrial widget", unitPrice: 1500, quantity: 4, qtyEditable: true, sku: "W-100" },
        { name: "Gadget upgrade", unitPrice: 2500, optional: true },
        { name: "On-site setup", unitPrice: 10000, type: "service", description: "Half a day" },
      ],
    },
  });
  await api("POST", `quotes/${c.body.data.id}/comments`, { key: demo.apiKey, body: { body: "Happy to help with the install.", visibility: "shared" } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const ctx = await auditContext(browser, width);
  await ctx.route("https://cdn.example.com/**", (r) => r.fulfill({ status: 200, contentType: "image/svg+xml", body: LOGO_SVG }));
  const page = await ctx.newPage();
  await page.goto(q.buyerUrl);
  expect(await page.textContent("#total")).toBe("USD 185.00");
  await audited(page, `flow-quote`);
  // keyboard only: focus the optional line's checkbox and toggle it with the space bar
  const box = page.locator("input[data-include]");
  await box.focus();
  await page.keyboard.press("Space");
  expect(await box.isChecked()).toBe(false);
  await page.fill("input[data-qty-input]", "3");
  await page.locator("input[data-qty-input]").dispatchEvent("input");
  expect(await page.textContent("#total")).toBe("USD 145.00"); // 3 x 15 + 100: the server's rule, in the page
  await page.fill("#acceptedByName", "Bea Buyer");
  await page.fill("#acceptedByEmail", "bea@globex.test");
  await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/), page.click("#accept")]);

  // the hosted checkout: the accepted total, the brand colour and the logo, the quote's number and PO
  expect(await page.textContent("#total")).toBe("USD 145.00");
  expect(await page.getAttribute("header img", "src")).toBe(LOGO);
  expect(await page.evaluate(() => getComputedStyle(document.querySelector("#submit")!).backgroundColor)).toBe("rgb(10, 125, 59)");
  expect(await page.textContent("main")).toContain("PO-4471");
  await audited(page, `flow-checkout`);
  await page.fill("input[name=email]", "bea@globex.test");
  await page.fill("input[name='shippingAddress.addressLine1']", "1 Main St");
  await page.fill("input[name='shippingAddress.city']", "Springfield");
  expect(await page.isChecked("#same")).toBe(true); // billing: same as shipping, by default
  await page.fill("input[name=paymentToken]", "tok_visa");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  const orderId = await page.getAttribute("#result", "data-order-id");
  const order = (await api("GET", `orders/${orderId}`, { key: demo.apiKey })).body.data;
  expect(order).toMatchObject({ total: 14500, paymentStatus: "captured" });
  expect(order.lineItems.map((l: any) => [l.name, l.quantity])).toEqual([
    ["Industrial widget", 3],
    ["On-site setup", 1],
  ]);
  expect((await api("GET", `quotes/${q.id}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "converted", orderId });

  // the page after ordering reads as the receipt: the accepted total and the order number; and its PDF link
  await page.goto(q.buyerUrl);
  const number = orderDisplayNumber({ id: orderId! });
  expect(await page.textContent("#converted")).toContain(`Order ${number} placed`);
  expect(await page.textContent("#order-number")).toBe(number);
  expect(await page.textContent("#total")).toBe("USD 145.00");
  await audited(page, `flow-converted`);
  const href = await page.getAttribute("#pdf", "href");
  const pdf = await fetch(new URL(href!, t.url));
  expect(pdf.headers.get("content-type")).toBe("application/pdf");
  const dir = mkdtempSync(path.join(os.tmpdir(), "qbrowser-"));
  writeFileSync(path.join(dir, "q.pdf"), Buffer.from(await pdf.arrayBuffer()));
  const text = execFileSync("/usr/bin/pdftotext", ["-layout", path.join(dir, "q.pdf"), "-"], { encoding: "utf8" });
  expect(text).toContain(`${q.number}-rev1`);
  expect(text).toContain("ACCEPTED");
  expect(text).toContain("Accepted by Bea Buyer <bea@globex.test>");
  expect(text).toMatch(/Accepted lines: Industrial widget x 3, On-site setup x 1/);
  await ctx.close();
}, 120_000);

browserTest("the hosted request form in the browser, by keyboard, and its screenshots", async () => {
  const api = client(t.url);
  const f = (await api("POST", "quote-request-forms", { key: demo.apiKey, body: { name: "RFQ", fields: { lineItems: true, targetPrice: true } } })).body.data;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${t.url}/q/request/${f.formToken}`);
  if (SHOTS) {
    await page.screenshot({ path: path.join(SHOTS, "request-1280.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, "request-390.png"), fullPage: true });
  }
  await page.focus("#email");
  await page.keyboard.type("kb@example.com");
  await page.keyboard.press("Tab");
  await page.keyboard.type("Initech");
  await page.keyboard.press("Tab");
  await page.keyboard.type("+1 555 0100");
  await page.keyboard.press("Tab");
  await page.keyboard.type("Two pallets of staplers");
  // the honeypot is not in the tab order
  expect(await page.getAttribute("#website", "tabindex")).toBe("-1");
  await new Promise((r) => setTimeout(r, Number(t.deps.config.QUOTE_REQUEST_MIN_FILL_MS) + 100));
  await Promise.all([page.waitForSelector("#sent"), page.click("#send")]);
  const quotes = await api("GET", "quotes?q=kb@example.com", { key: demo.apiKey });
  expect(quotes.body.data[0]).toMatchObject({ status: "requested", companyName: "Initech" });
  await page.close();
}, 60_000);

browserTest("accepting on a host other than CHECKOUT_URL (a custom domain in front of the app) lands on the checkout", async () => {
  const api = client(t.url);
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "proxy@example.com", items: [{ name: "Kit", unitPrice: 4200, type: "service" }] } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const port = new URL(t.url).port;
  // shop.custom-domain.test resolves to the app: the buyer's address bar never shows CHECKOUT_URL's host
  const viaProxy = await launchChromium(["--host-resolver-rules=MAP shop.custom-domain.test 127.0.0.1"]);
  try {
    const page = await viaProxy.newPage();
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|form-action/i.test(m.text())) refused.push(m.text());
    });
    const origin = `http://shop.custom-domain.test:${port}`;
    expect(new URL(t.deps.config.CHECKOUT_URL).origin).not.toBe(origin);
    await page.goto(`${origin}/q/${q.shareToken}`);
    await page.fill("#acceptedByName", "Pat Proxy");
    await Promise.all([page.waitForURL(/\/checkout\/[0-9a-f-]{36}$/, { timeout: 15_000 }), page.click("#accept")]);
    expect(new URL(page.url()).origin).toBe(origin);
    expect(await page.textContent("#total")).toBe("USD 42.00");
    expect(refused).toEqual([]);
    expect((await api("GET", `quotes/${q.id}`, { key: demo.apiKey })).body.data.status).toBe("accepted");
  } finally {
    await viaProxy.close();
  }
}, 60_000);
