// What a buyer sees, checked the same way on every buyer page (issue 35): at 390 and 1280 px wide, nothing overflows
// the viewport or its container (scroll widths), and axe-core (npm axe-core, injected into the page) reports no
// serious or critical violation. With Q2C_SCREENSHOTS=1 each audit also writes docs/screenshots/<name>-<width>.png,
// the committed pictures docs/quotes.md links to (`Q2C_SCREENSHOTS=1 npm test -- <file>` refreshes them).
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

export const WIDTHS = [390, 1280] as const;
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export const SCREENSHOT_DIR = path.join(__dirname, "../../docs/screenshots");

/** A context at `width` px that lets the test inject axe-core past the page's CSP (the page's own CSP is untouched). */
export function auditContext(browser: Browser, width: number): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 }, bypassCSP: true });
}

export interface Overflow {
  selector: string;
  right: number;
  limit: number;
}

/** Elements whose box runs past the viewport, or whose content is wider than their own box (clipped or scrolling). */
export async function overflows(page: Page): Promise<Overflow[]> {
  return page.evaluate(() => {
    const out: { selector: string; right: number; limit: number }[] = [];
    const vw = document.documentElement.clientWidth;
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""}`;
    if (document.documentElement.scrollWidth > vw + 1) out.push({ selector: "html", right: document.documentElement.scrollWidth, limit: vw });
    for (const el of Array.from(document.body.querySelectorAll("*"))) {
      const style = getComputedStyle(el);
      if (style.display === "none" || style.visibility === "hidden" || style.position === "absolute" || style.position === "fixed") continue;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > vw + 1) out.push({ selector: name(el), right: Math.round(r.right), limit: vw });
      else if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && style.overflowX !== "visible") out.push({ selector: `${name(el)} (content ${el.scrollWidth} in ${el.clientWidth})`, right: el.scrollWidth, limit: el.clientWidth });
    }
    return out;
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const result = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n: any) => n.target.join(" ")) }));
  });
  return (result as AxeViolation[]).filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * The audit every buyer page passes at each width: no overflow, no serious or critical axe violation. Returns what it
 * found (empty arrays when clean) so a test asserts on it and a failure names the element or rule.
 */
export async function auditPage(page: Page, name: string): Promise<{ overflow: Overflow[]; axe: AxeViolation[] }> {
  const width = page.viewportSize()?.width ?? 0;
  if (process.env.Q2C_SCREENSHOTS === "1") await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
  return { overflow: await overflows(page), axe: await axeViolations(page) };
}
