// The OAuth login and consent page in a real browser (Debian chromium through playwright-core): the authorize URL
// leads to the sign-in step, then to consent; everything by keyboard only; the browser lands on the client's
// redirect_uri with a code the client exchanges. Screenshots at 390 and 1280 px.
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithDemo, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";
import { authorizationUrl, discover, exchange, register } from "./helpers/oauth";

const SHOTS = process.env.SCREENSHOT_DIR ?? path.join(tmpdir(), "q2c-screenshots");
let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let browser: Browser; // set when Chromium is here; the test is a browserTest (skipped otherwise, failing under REQUIRE_BROWSER=1)
/** the client's own callback page: where the browser lands with the code */
let app: http.Server;
let callback = "";
const landings: URL[] = [];

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
  app = http.createServer((req, res) => {
    if (req.url!.startsWith("/callback")) landings.push(new URL(req.url!, callback)); // not /favicon.ico
    res.writeHead(200, { "content-type": "text/html" }).end("<p>back in the app</p>");
  });
  await new Promise<void>((r) => app.listen(0, "127.0.0.1", r));
  callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback`;
  if (!hasChromium) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => app?.close(r));
  await t?.close();
});

browserTest("sign in and approve by keyboard only; the client gets a working code", async () => {
  const as = await discover(t.url);
  const c = await register(as, { client_name: "Claude Desktop", redirect_uris: [callback] });
  const started = await authorizationUrl(as, c.client_id, "quotes:read quotes:write orders:read", { redirect_uri: callback });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const cspViolations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
  });

  await page.goto(started.url.href);
  await page.waitForSelector("#token");
  expect(await page.textContent("#client-name")).toBe("Claude Desktop");
  // the token field has focus on arrival
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("token");
  await page.screenshot({ path: path.join(SHOTS, "oauth-login-1280.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SHOTS, "oauth-login-390.png"), fullPage: true });

  // a wrong token first: the error is announced, the form stays
  await page.keyboard.type("dst_wrongwrongwrong");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#error");
  expect(await page.textContent("#error")).toContain("not a valid dashboard session");
  await page.focus("#token");
  await page.keyboard.type(demo.dashboardToken);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#approve");
  expect(await page.textContent("#who")).toBe("owner@example.com");
  expect(await page.textContent("#scopes")).toContain("Create and change quotes");
  await page.screenshot({ path: path.join(SHOTS, "oauth-consent-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SHOTS, "oauth-consent-1280.png"), fullPage: true });

  // keyboard only: tab through sign-out, application, environment to Approve, and the focus ring is visible
  const visited: string[] = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press("Tab");
    const id = await page.evaluate(() => document.activeElement?.id ?? "");
    visited.push(id);
    if (id === "approve") break;
  }
  expect(visited).toEqual(["sign-out", "applicationId", "environmentId", "approve"]);
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).toBe("solid");
  // pick the environment by keyboard: the first choice is sandbox (non-production first)
  const envChoice = await page.$eval("#environmentId", (e) => (e as HTMLSelectElement).value);
  expect(envChoice).toBe(demo.environments.sandbox.id);
  await page.keyboard.press("Enter");
  await page.waitForURL((u) => u.href.startsWith(callback));
  expect(landings).toHaveLength(1);
  const landed = landings[0];
  expect(landed.searchParams.get("state")).toBe(started.state);
  expect(cspViolations).toEqual([]);

  const tokens = await exchange(as, c, started, landed);
  const who = await api("GET", "whoami", { token: tokens.access_token });
  expect(who.body.data).toMatchObject({ type: "oauth", environment: { id: demo.environments.sandbox.id }, oauth: { clientName: "Claude Desktop" } });
  await page.close();
});
