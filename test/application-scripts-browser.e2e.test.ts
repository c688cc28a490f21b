// Application scripts on the hosted checkout page, in a real browser (Debian chromium through playwright-core):
// enabled scripts run from their stored copy with integrity checked, disabled and killed ones are not on the page, the
// Content-Security-Policy allows exactly the page's scripts, bytes changed after saving are refused by the browser, and
// the page's beacons reach the health read.
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";

const SHOTS = process.env.SCREENSHOT_DIR ?? path.join(tmpdir(), "q2c-screenshots");
let t: TestApp;
let demo: BootstrapResult;
let browser: Browser | undefined;
let origin: http.Server;
let originUrl = "";
let originHits = 0;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
  api = client(t.url);
  // the script's own host: contacted once, when the script is saved, never by the buyer's browser
  origin = http.createServer((_req, res) => {
    originHits++;
    res.writeHead(200, { "content-type": "text/javascript" }).end('window.__srcScript = 42;\n');
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/tag.js`;
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => origin?.close(r));
  await t?.close();
});

async function openSession() {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 4200, quantity: 2 } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
  expect(s.status).toBe(201);
  return s.body.data as { id: string; hostedUrl: string };
}

async function createScript(body: Record<string, unknown>) {
  const r = await api("POST", "application-scripts", { key: demo.apiKey, body });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; sha256: string; integrity: string; assetUrl: string };
}

async function killSwitch(enabled: boolean) {
  const r = await api("POST", "application-scripts/kill-switch", { key: demo.apiKey, body: { enabled } });
  expect(r.status).toBe(200);
  expect(r.body.data.enabled).toBe(enabled);
}

/** Opens the page and waits until the page's beacons for `settle` scripts went out (their fetches finished). */
async function visit(url: string, settle = 0): Promise<{ page: Page; csp: string; beacons: any[] }> {
  const page = await browser!.newPage();
  const beacons: any[] = [];
  page.on("requestfinished", (req) => {
    if (req.url().endsWith("/script-beacons")) beacons.push(JSON.parse(req.postData() ?? "{}"));
  });
  const res = await page.goto(url);
  const csp = res!.headers()["content-security-policy"];
  const deadline = Date.now() + 5000;
  while (beacons.length < settle && Date.now() < deadline) await page.waitForTimeout(50);
  return { page, csp, beacons };
}

const scriptSrc = (csp: string) => csp.split(";").map((d) => d.trim()).find((d) => d.startsWith("script-src "))!.split(/\s+/).slice(1);
const globals = (page: Page) =>
  page.evaluate(() => {
    const w = window as any;
    return { head: w.__headScript, body: w.__bodyScript, src: w.__srcScript, disabled: w.__disabled, tampered: w.__tampered };
  });

async function until(cond: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await cond()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

async function health() {
  const r = await api("GET", "application-scripts/health", { key: demo.apiKey });
  expect(r.status).toBe(200);
  return r.body.data;
}
async function healthOf(id: string) {
  return (await health()).scripts.find((s: any) => s.scriptId === id);
}

let head: Awaited<ReturnType<typeof createScript>>;
let body: Awaited<ReturnType<typeof createScript>>;
let fromSrc: Awaited<ReturnType<typeof createScript>>;
let disabled: Awaited<ReturnType<typeof createScript>>;

browserTest("enabled scripts run from their stored copy with integrity; a disabled one is not on the page; the CSP allows exactly those", async () => {
  head = await createScript({ name: "Head tag", inline: 'window.__headScript = document.body === null ? "head-ran-before-body" : "late";', placement: "checkout_head" });
  body = await createScript({ name: "Body tag", inline: 'window.__bodyScript = document.getElementById("total") ? "body-ran-after-content" : "early";', placement: "checkout_body" });
  fromSrc = await createScript({ name: "Vendor tag", src: originUrl, placement: "checkout_body" });
  disabled = await createScript({ name: "Paused tag", inline: "window.__disabled = true;", enabled: false });
  expect(originHits).toBe(1);

  const s = await openSession();
  const { page, csp, beacons } = await visit(s.hostedUrl, 3);
  expect(await globals(page)).toEqual({ head: "head-ran-before-body", body: "body-ran-after-content", src: 42, disabled: undefined, tampered: undefined });
  // the browser loaded the stored copy, never the vendor's host
  expect(originHits).toBe(1);
  const tags = await page.$$eval("script[data-application-script]", (els) => els.map((e) => ({ id: e.getAttribute("data-application-script"), src: e.getAttribute("src"), integrity: e.getAttribute("integrity"), crossorigin: e.getAttribute("crossorigin"), inHead: e.parentElement?.tagName === "HEAD" })));
  expect(tags).toEqual([
    { id: head.id, src: head.assetUrl, integrity: head.integrity, crossorigin: "anonymous", inHead: true },
    { id: body.id, src: body.assetUrl, integrity: body.integrity, crossorigin: "anonymous", inHead: false },
    { id: fromSrc.id, src: fromSrc.assetUrl, integrity: fromSrc.integrity, crossorigin: "anonymous", inHead: false },
  ]);

  // script-src: the page's nonce, then each enabled script by exact URL and by hash; nothing else (no host, no 'self')
  const sources = scriptSrc(csp);
  expect(sources[0]).toMatch(/^'nonce-[A-Za-z0-9+/=]+'$/);
  expect(sources.slice(1).sort()).toEqual([head, body, fromSrc].flatMap((x) => [x.assetUrl, `'${x.integrity}'`]).sort());
  expect(csp).not.toContain(disabled.id);
  expect(csp).not.toMatch(/'unsafe-inline'|'unsafe-eval'|'self' [^;]*script|\*/);

  expect(beacons.map((b) => `${b.type}:${b.scriptId}`).sort()).toEqual([head, body, fromSrc].map((x) => `loaded:${x.id}`).sort());
  for (const x of [head, body, fromSrc]) expect(await healthOf(x.id)).toMatchObject({ loaded: 1, error: 0, blocked: 0 });
  expect(await healthOf(disabled.id)).toMatchObject({ loaded: 0, enabled: false });

  // a reload reports nothing new: one outcome per checkout session
  await page.reload();
  await page.waitForTimeout(300);
  expect(await healthOf(head.id)).toMatchObject({ loaded: 1 });

  mkdirSync(SHOTS, { recursive: true });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: path.join(SHOTS, `checkout-scripts-${width}.png`), fullPage: true });
  }
  await page.close();
});

browserTest("the kill switch takes every script off the page at once; switching it off puts the enabled ones back", async () => {
  await killSwitch(true);
  const s = await openSession();
  const killed = await visit(s.hostedUrl);
  expect(await globals(killed.page)).toEqual({ head: undefined, body: undefined, src: undefined, disabled: undefined, tampered: undefined });
  expect(await killed.page.$$("script[data-application-script]")).toHaveLength(0);
  expect(scriptSrc(killed.csp)).toHaveLength(1); // the page's own nonce only
  expect(killed.csp).not.toContain("script-assets");
  await killed.page.close();

  await killSwitch(false);
  const back = await visit(s.hostedUrl, 3);
  expect(await globals(back.page)).toMatchObject({ head: "head-ran-before-body", body: "body-ran-after-content", src: 42, disabled: undefined });
  await back.page.close();
});

browserTest("bytes changed after saving no longer match the integrity hash: the browser refuses them, the page reports blocked", async () => {
  const victim = await createScript({ name: "Tampered tag", inline: 'window.__tampered = "original";', placement: "checkout_body" });
  // someone changes the stored copy (or anything between the store and the browser)
  await t.deps.prisma.applicationScriptAsset.update({
    where: { scriptId_sha256: { scriptId: victim.id, sha256: victim.sha256 } },
    data: { body: new Uint8Array(Buffer.from('window.__tampered = "evil";')) },
  });
  const served = await fetch(victim.assetUrl);
  expect(await served.text()).toBe('window.__tampered = "evil";'); // the server hands out what is stored…

  const s = await openSession();
  const { page, beacons } = await visit(s.hostedUrl, 4);
  const g = await globals(page);
  expect(g.tampered).toBeUndefined(); // …and the browser runs none of it
  expect(g).toMatchObject({ head: "head-ran-before-body", body: "body-ran-after-content", src: 42 });
  expect(beacons).toContainEqual({ type: "blocked", reason: "integrity_mismatch", scriptId: victim.id });
  expect(await healthOf(victim.id)).toMatchObject({ loaded: 0, error: 0, blocked: 1 });
  await page.close();
  await api("DELETE", `application-scripts/${victim.id}`, { key: demo.apiKey });
});

browserTest("a script that throws is reported as error; one that adds a script the CSP does not list is reported as blocked", async () => {
  const thrower = await createScript({ name: "Broken tag", inline: 'throw new Error("broken tag");' });
  const loader = await createScript({ name: "Loader tag", inline: 'const s = document.createElement("script"); s.src = "https://cdn.example.com/more.js?buyer=someone@example.com"; document.head.appendChild(s); window.__loaderRan = true;' });
  const s = await openSession();
  const { page } = await visit(s.hostedUrl, 7);
  expect(await page.evaluate(() => (window as any).__loaderRan)).toBe(true);
  await until(async () => (await healthOf(thrower.id))?.error === 1 && (await healthOf(loader.id))?.blocked === 1);
  expect(await healthOf(thrower.id)).toMatchObject({ loaded: 1, error: 1, blocked: 0 }); // it loaded, then threw

  const events = await api("GET", "events?type=script.blocked", { key: demo.apiKey });
  const blocked = events.body.data.find((e: any) => e.data.scriptId === loader.id);
  // the refused URL is kept without its query string (it can carry buyer data)
  expect(blocked.data).toMatchObject({ checkoutSessionId: s.id, scriptId: loader.id, scriptName: "Loader tag", reason: "csp_violation", blockedUri: "https://cdn.example.com/more.js" });
  expect(blocked.data.violatedDirective).toMatch(/^script-src/);
  const errorsOut = await api("GET", "events?type=script.error", { key: demo.apiKey });
  expect(errorsOut.body.data.find((e: any) => e.data.scriptId === thrower.id).data).toMatchObject({ reason: "runtime_error", checkoutSessionId: s.id });
  await page.close();
  for (const x of [thrower, loader]) await api("DELETE", `application-scripts/${x.id}`, { key: demo.apiKey });
});
