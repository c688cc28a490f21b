// Issue 35 items 1-3, 7, 8 in Chromium: every state of the quote page, the request form and its thank-you page at 390
// and 1280 px pass the page audit (nothing overflows, no serious or critical axe-core violation), with screenshots
// (Q2C_SCREENSHOTS=1) named quote-<state>-<width>.png, request-form-<width>.png and request-sent-<width>.png. At 390 px
// the lines are cards, inputs are 16 px and controls at least 44 px tall; a light brand colour (#ffd400) keeps its
// button text readable. The page's text in each state is checked over HTTP in quote-page-states.e2e.test.ts.
import type { Browser, Page } from "playwright-core";
import { auditContext, auditPage, WIDTHS } from "./helpers/page-audit";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { makeQuoteStates, type QuoteStates, setBrand } from "./helpers/quote-states";

let s: QuoteStates;
let browser: Browser;
beforeAll(async () => {
  s = await makeQuoteStates();
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await s?.t.close();
});

const STATES: [string, string][] = [
  ["proposed", "proposed"],
  ["expired", "expired"],
  ["declinedBuyer", "declined-buyer"],
  ["declinedMerchant", "declined-merchant"],
  ["requested", "requested"],
  ["accepted", "accepted"],
  ["convertedNet", "converted"],
  ["convertedDeposit", "converted-deposit"],
];

async function audited(page: Page, name: string) {
  const r = await auditPage(page, name);
  expect({ name, ...r }).toEqual({ name, overflow: [], axe: [] });
}

/** Inputs of at least 16 px (no zoom on focus) and controls at least 44 px tall. */
async function touchAndType(page: Page) {
  return page.evaluate(() => {
    const bad: string[] = [];
    for (const el of Array.from(document.querySelectorAll("main input:not([type=hidden]):not([type=checkbox]), main textarea, main button, main a.button, main a.action, main label.check"))) {
      const st = getComputedStyle(el);
      if ((el as HTMLElement).offsetParent === null || el.closest(".hp")) continue;
      const r = el.getBoundingClientRect();
      if (r.height < 44) bad.push(`${el.tagName}#${el.id} ${Math.round(r.height)}px tall`);
      if ((el.tagName === "INPUT" || el.tagName === "TEXTAREA") && parseFloat(st.fontSize) < 16) bad.push(`${el.tagName}#${el.id} font ${st.fontSize}`);
    }
    return bad;
  });
}

browserTest("every quote page state at 390 and 1280 px: no overflow, no axe violation; at 390 px lines are cards and targets are 44 px", async () => {
  for (const width of WIDTHS) {
    const ctx = await auditContext(browser, width);
    const page = await ctx.newPage();
    for (const [state, name] of STATES) {
      await page.goto(`${s.t.url}/q/${s.tokens[state]}`);
      await audited(page, `quote-${name}`);
      expect({ name, width, bad: await touchAndType(page) }).toEqual({ name, width, bad: [] });
      if (width === 390 && (await page.locator("tr[data-line]").count()) > 0) {
        // a line is a card: its cells stack, so the amount sits inside the viewport below the name
        expect(await page.locator("tr[data-line] td").first().evaluate((td) => getComputedStyle(td).display)).toBe("block");
      }
    }
    await ctx.close();
  }
});

browserTest("the pages keep to their own Content-Security-Policy (no inline style or script outside the nonce)", async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  const refused: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/.test(m.text())) refused.push(m.text());
  });
  for (const [state] of STATES) await page.goto(`${s.t.url}/q/${s.tokens[state]}`);
  await page.goto(`${s.t.url}/q/request/${s.formToken}`);
  await page.click("#add-row");
  expect(refused).toEqual([]);
  await page.close();
});

browserTest("a light brand colour (#ffd400): the Accept button's text is dark, the page passes the audit", async () => {
  await setBrand(s, "#ffd400");
  try {
    const fresh = await s.api("POST", "quotes", { key: s.demo.apiKey, body: { customerEmail: "buyer@globex.example", items: [{ name: "Widget", unitPrice: 150000, quantity: 2, qtyEditable: true }, { name: "Gadget", unitPrice: 25000, optional: true }] } });
    const q = (await s.api("POST", `quotes/${fresh.body.data.id}/issue`, { key: s.demo.apiKey, body: {} })).body.data.quote;
    for (const width of WIDTHS) {
      const ctx = await auditContext(browser, width);
      const page = await ctx.newPage();
      await page.goto(`${s.t.url}/q/${q.shareToken}`);
      // a deselected line stays legible
      await page.locator("input[data-include]").uncheck();
      expect(await page.textContent("#total")).toBe("USD 3,000.00");
      expect(await page.locator("#accept").evaluate((b) => getComputedStyle(b).color)).toBe("rgb(0, 0, 0)");
      await audited(page, "quote-proposed-brand");
      await ctx.close();
    }
  } finally {
    await setBrand(s, "#0a5bd3");
  }
});

browserTest("the request form: add and remove rows with the script, keyboard only; the thank-you page; both audited at both widths", async () => {
  for (const width of WIDTHS) {
    const ctx = await auditContext(browser, width);
    const page = await ctx.newPage();
    await page.goto(`${s.t.url}/q/request/${s.formToken}`);
    await page.fill("#name", "Dana Keys");
    await page.fill("#email", `keys${width}@globex.example`);
    await page.fill("#phone", "+1 555 0123");
    await page.fill("#message", "Fasteners for the new line.");
    await page.fill("#item-0-name", "Bolts");
    await page.fill("#item-0-quantity", "500");
    await page.focus("#add-row");
    await page.keyboard.press("Enter");
    await page.keyboard.type("Nuts"); // focus moved into the new row's name
    await page.fill("#item-1-quantity", "200");
    await page.click("#add-row");
    await page.fill("#item-2-name", "Spare");
    expect(await page.locator("[data-item-row]").count()).toBe(3);
    await page.locator("[data-item-row]").nth(2).locator("[data-remove]").click();
    expect(await page.locator("[data-item-row]").count()).toBe(2);
    expect(await touchAndType(page)).toEqual([]);
    await audited(page, "request-form");
    await page.focus("#send");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#sent");
    const text = await page.textContent("main");
    expect(text).toMatch(/Request Q-\d+ sent/);
    expect(text).toContain("Bolts × 500");
    expect(text).toContain("Nuts × 200");
    expect(text).not.toContain("Spare");
    await audited(page, "request-sent");
    await ctx.close();
  }
});
