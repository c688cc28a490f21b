// The hosted checkout and the update-card page in Chromium at 390 and 1280 px (issue 35 items 3 and 6): an anonymous
// card checkout, a field error re-rendered, the receipt, a quote's checkout on Net terms (by keyboard) and on deposit
// terms, and the update-card page with its success state. Each state passes the page audit (nothing overflows, no
// serious or critical axe-core violation); the brand colour and the logo are on the checkout; from 900 px the order
// summary sits beside the form, on a phone above it. Q2C_SCREENSHOTS=1 writes docs/screenshots/checkout-*.png and
// update-card-*.png.
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { quoteSession, storefrontSession } from "./helpers/checkout-fixtures";
import { client } from "./helpers/http";
import { auditContext, auditPage, WIDTHS } from "./helpers/page-audit";

const LOGO = "https://cdn.example.com/northwind-logo.svg";
const BRAND = "#0a7d3b";
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40"><rect width="40" height="40" rx="8" fill="${BRAND}"/><text x="50" y="27" font-family="sans-serif" font-size="18" fill="#1f2933">Acme</text></svg>`;

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let browser: Browser;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off", RATE_LIMIT_CHECKOUT_PER_IP: "off" } }))!;
  demo = await t.bootstrap();
  api = client(t.url);
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { name: "Acme Supplies", brandColor: BRAND, logoUrl: LOGO } });
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function open(width: number, url: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await auditContext(browser, width);
  await ctx.route("https://cdn.example.com/**", (r) => r.fulfill({ status: 200, contentType: "image/svg+xml", body: LOGO_SVG }));
  const page = await ctx.newPage();
  await page.goto(url);
  return { ctx, page };
}

async function expectClean(page: Page, name: string) {
  expect(await auditPage(page, name)).toEqual({ overflow: [], axe: [] });
}

/** Where the summary sits against the form: beside it (desktop) or above it (phone). */
async function layout(page: Page) {
  const s = (await page.locator(".summary").boundingBox())!;
  const f = (await page.locator("#pay").boundingBox())!;
  return s.x + s.width <= f.x + 1 && Math.abs(s.y - f.y) < 40 ? "beside" : s.y + s.height <= f.y + 1 ? "above" : "other";
}

describe.each(WIDTHS)("at %i px", (width) => {
  browserTest("an anonymous card checkout: brand and logo, the layout, a field error kept with what was typed, then the receipt", async () => {
    const s = await storefrontSession(api, demo);
    const { ctx, page } = await open(width, s.hostedUrl);
    expect(await page.getAttribute("header img", "src")).toBe(LOGO);
    expect(await page.$eval("#submit", (b) => getComputedStyle(b).backgroundColor)).toBe("rgb(10, 125, 59)");
    expect(await page.textContent("#submit")).toBe("Pay USD 84.00");
    expect(await layout(page)).toBe(width >= 900 ? "beside" : "above");
    expect(await page.$eval("#email", (e) => parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
    for (const sel of ["#email", "#shippingAddress-countryCode", "#submit"]) expect((await page.locator(sel).boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await page.locator("input[name=paymentMethod][type=radio], #terms").count()).toBe(0); // card only: no Net 30 for an anonymous buyer
    await expectClean(page, "checkout-card");
    // keyboard order follows the page, and the focus shows
    await page.focus("#email");
    const order: string[] = [];
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press("Tab");
      order.push(await page.evaluate(() => document.activeElement?.id ?? ""));
    }
    expect(order).toEqual(["shippingAddress-addressLine1", "shippingAddress-addressLine2", "shippingAddress-city", "shippingAddress-stateProvince", "shippingAddress-postalCode", "shippingAddress-countryCode", "paymentToken"]);
    expect(await page.$eval("#paymentToken", (e) => getComputedStyle(e).outlineStyle)).toBe("solid");

    await page.fill("#email", "guest@example.com");
    await page.fill("#shippingAddress-addressLine1", "12 Typed Street");
    await page.selectOption("#shippingAddress-countryCode", "GB");
    await Promise.all([page.waitForLoadState("load"), page.click("#submit")]);
    await page.waitForSelector("#err-shippingAddress-city");
    expect(await page.textContent("#err-shippingAddress-city")).toBe("Enter the town or city.");
    expect(await page.getAttribute("#shippingAddress-city", "aria-describedby")).toBe("err-shippingAddress-city");
    expect(await page.inputValue("#shippingAddress-addressLine1")).toBe("12 Typed Street");
    expect(await page.inputValue("#shippingAddress-countryCode")).toBe("GB");
    await expectClean(page, "checkout-error");

    await page.fill("#shippingAddress-city", "London");
    await Promise.all([page.waitForURL(`**/checkout/${s.id}`), page.click("#submit")]);
    await page.waitForSelector("#order-number");
    expect(await page.textContent("#result")).toContain("payment received");
    expect(await page.textContent("#paid")).toBe("USD 84.00");
    await expectClean(page, "checkout-receipt");
    await ctx.close();
  });

  browserTest("a quote's checkout on Net 45 terms, by keyboard: header, prefill, the terms accepted with Space, Enter places the order", async () => {
    const s = await quoteSession(api, demo, { mode: "net_terms", netN: 45 });
    const { ctx, page } = await open(width, s.hostedUrl);
    expect(await page.textContent("#quote-number")).toBe(s.quote.number);
    expect(await page.textContent("#po")).toBe("PO-7781");
    expect(await page.textContent("#submit")).toBe("Place order on Net 45 terms");
    expect(await page.isVisible("#billing-fields")).toBe(true); // billing differs from shipping on file
    await page.uncheck("#same").catch(() => undefined);
    await page.check("#same");
    expect(await page.isVisible("#billing-fields")).toBe(false); // ticked: the billing fields hide
    await page.uncheck("#same");
    await expectClean(page, "checkout-net-terms");
    await page.focus("#acceptTerms");
    await page.keyboard.press("Space");
    await page.focus("#billingEmail");
    await Promise.all([page.waitForURL(`**/checkout/${s.id}`), page.keyboard.press("Enter")]);
    await page.waitForSelector("#owed");
    expect(await page.textContent("#owed")).toBe("USD 4,000.00");
    expect(await page.textContent("#quote-number")).toBe(s.quote.number);
    await ctx.close();
  });

  browserTest("a quote's checkout on deposit terms: the deposit is what the button pays", async () => {
    const s = await quoteSession(api, demo, { mode: "deposit_balance", balanceNetN: 30 });
    const { ctx, page } = await open(width, s.hostedUrl);
    expect(await page.textContent("#submit")).toBe("Pay the deposit of USD 1,200.00");
    expect(await page.textContent("#deposit")).toBe("USD 1,200.00");
    expect(await page.textContent("#balance")).toBe("USD 2,800.00");
    await expectClean(page, "checkout-deposit");
    await ctx.close();
  });

  browserTest("the update-card page: brand, no overflow, axe clean; adding a card shows a clear success state", async () => {
    const email = `wallet-${width}-${Date.now()}@example.com`;
    const c = (await api("POST", "customers", { key: demo.apiKey, body: { email } })).body.data.id as string;
    const now = new Date();
    const sub = await t.deps.prisma.subscription.create({
      data: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, customerId: c, status: "active", planReference: "team", planName: "Team plan", interval: "monthly", amount: 1200, quantity: 5, currency: "USD", currentPeriodStart: now, currentPeriodEnd: new Date(now.getTime() + 30 * 86400_000) },
    });
    await api("POST", `customers/${c}/payment-methods`, { key: demo.apiKey, body: { cardBrand: "mastercard", cardLastFour: "5454", cardExpMonth: 8, cardExpYear: 2029 } });
    const tok = (await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c, subscriptionId: sub.id } })).body.data;
    const { ctx, page } = await open(width, tok.updateCardUrl);
    expect(await page.getAttribute("header img", "src")).toBe(LOGO);
    expect(await page.$eval("#paymentToken", (e) => parseFloat(getComputedStyle(e).fontSize))).toBeGreaterThanOrEqual(16);
    await expectClean(page, "update-card");
    await page.fill("#paymentToken", "tok_visa");
    await Promise.all([page.waitForURL(/done=added/), page.click("#add")]);
    expect(await page.textContent("#done")).toContain("Your card was added");
    await expectClean(page, "update-card-added");
    await ctx.close();
  });
});
