// The iframe bridge in a real browser (Debian chromium through playwright-core): the demo dashboard page on the API
// origin hosts an installed extension whose page is served from another origin and imports /extension-bridge.js from
// the API. The ready/session handshake completes, api.get reads the install's orders, a call beyond its scopes is
// 403, the token is refreshed before it expires, resize/toast/navigate/destroy reach the host, and forged messages
// (a third origin framing the extension, another window of the dashboard's own origin) are ignored by both sides.
import { mkdirSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser, Frame, Page } from "playwright-core";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { seedInstalledExtension, setInstallationStatus } from "./helpers/extension-seed";
import { seedOrder } from "./helpers/orders";

const SHOTS = process.env.SCREENSHOT_DIR ?? path.join(tmpdir(), "q2c-screenshots");
/** a short lifetime so the refresh happens within the test */
const TTL_SECONDS = 6;
const NS = "q2c.extension-bridge";

let t: TestApp;
let demo: BootstrapResult;
let browser: Browser;
let extServer: http.Server;
let thirdServer: http.Server;
let extOrigin = "";
let thirdOrigin = "";
let install: Awaited<ReturnType<typeof seedInstalledExtension>>;
let sandboxOrderId: string;

/** The sample extension's page: imports the bridge from the API origin, records what it receives. */
function extensionPage(apiOrigin: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sample extension</title>
<style>body{font-family:system-ui,sans-serif;margin:0;padding:1rem;background:#fff}h2{margin:0 0 .5rem;font-size:1.1rem}</style></head>
<body><h2>Order notes</h2><p id="who">Connecting…</p><button id="save" type="button">Save note</button>
<script type="module">
import { createBridge } from "${apiOrigin}/extension-bridge.js";
window.sessions = [];
const bridge = createBridge({ targetOrigin: ${JSON.stringify(apiOrigin)}, onSession: (c) => window.sessions.push({ at: Date.now(), context: c }) });
window.bridge = bridge;
bridge.ready.then((c) => {
  document.getElementById("who").textContent = "Signed in as " + c.user.email + " in " + c.environment.environmentSlug;
  bridge.resize(document.body.scrollHeight + 20);
});
document.getElementById("save").addEventListener("click", () => bridge.toast("Note saved", "success"));
</script></body></html>`;
}

/** A third origin that frames the extension page and posts it a forged session. */
function attackPage(extUrl: string) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>attacker</title></head><body>
<iframe id="victim" src="${extUrl}" title="victim"></iframe>
<script>
const f = document.getElementById("victim");
f.addEventListener("load", () => {
  const forged = { ns: "${NS}", v: 1, type: "session", token: "forged-token", expiresIn: 600,
    context: { user: { id: "x", email: "attacker@evil.test" }, scopes: ["*"] } };
  for (let i = 0; i < 5; i++) setTimeout(() => f.contentWindow.postMessage(forged, "*"), i * 200);
  window.sent = true;
});
</script></body></html>`;
}

async function listen(handler: http.RequestListener) {
  const s = http.createServer(handler);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return { server: s, origin: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  t = (await startTestApp({ env: { EXTENSION_SESSION_TTL_SECONDS: String(TTL_SECONDS) } }))!;
  demo = await t.bootstrap();
  const ext = await listen((req, res) => {
    if (req.url?.startsWith("/app")) return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(extensionPage(t.url));
    res.writeHead(404).end();
  });
  extServer = ext.server;
  extOrigin = ext.origin;
  const third = await listen((req, res) => {
    if (req.url === "/attack") return void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(attackPage(`${extOrigin}/app`));
    res.writeHead(404).end();
  });
  thirdServer = third.server;
  thirdOrigin = third.origin;
  install = await seedInstalledExtension(t, {
    workspaceId: demo.workspaceId,
    applicationId: demo.applicationId,
    environmentId: demo.environments.sandbox.id,
    scopes: ["orders:read"],
    iframeUrl: `${extOrigin}/app`,
    name: "Order notes",
    version: "1.2.0",
  });
  sandboxOrderId = (await seedOrder(t, demo, { lines: [{ quantity: 2, unitPrice: 1500 }] })).order.id;
  mkdirSync(SHOTS, { recursive: true });
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => extServer?.close(r));
  await new Promise((r) => thirdServer?.close(r));
  await t?.close();
});

const pageUrl = () => `${t.url}/dashboard/extensions/${install.installation.id}`;

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await fn();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await fn();
  }
  return v;
}

/** A signed-in host page (cookie set through the sign-in form) with the extension's frame handshaken. */
async function openHost(width = 1280): Promise<{ page: Page; frame: Frame; sessionPosts: () => number }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  let posts = 0;
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith(`/dashboard/extensions/${install.installation.id}/session`)) posts++;
  });
  await page.goto(pageUrl());
  if (width < 500) await page.screenshot({ path: path.join(SHOTS, `extension-sign-in-${width}.png`), fullPage: true });
  await page.fill("#token", demo.dashboardToken);
  await Promise.all([page.waitForURL(pageUrl()), page.press("#token", "Enter")]);
  const frame = await until(
    async () => page.frames().find((f) => f.url().startsWith(`${extOrigin}/app`)) ?? null,
    (f) => f !== null,
  );
  expect(frame).not.toBeNull();
  await until(() => frame!.evaluate(() => (window as any).sessions?.length ?? 0), (n) => n >= 1);
  return { page, frame: frame!, sessionPosts: () => posts };
}

browserTest("the host page hosts the extension from another origin; handshake, scoped API calls, resize, toast, navigate", async () => {
  const { page, frame } = await openHost();
  const context = await frame.evaluate(() => (window as any).bridge.context);
  expect(context).toMatchObject({
    installationId: install.installation.id,
    extensionId: install.extension.id,
    version: "1.2.0",
    role: "owner",
    scopes: ["orders:read"],
    user: { email: "owner@example.com" },
    application: { id: demo.applicationId, slug: "demo-store" },
    environment: { environmentId: demo.environments.sandbox.id, environmentSlug: "sandbox", environmentKind: "non_production", providerEnvironment: "sandbox" },
  });
  expect(await frame.textContent("#who")).toBe("Signed in as owner@example.com in sandbox");

  // the API through the bridge: the install's orders; a write beyond its scopes is refused
  const orders = await frame.evaluate(() => (window as any).bridge.api.get("/orders"));
  expect(orders.data.map((o: any) => o.id)).toEqual([sandboxOrderId]);
  const refused = await frame.evaluate(async () => {
    try {
      await (window as any).bridge.api.post("/customers", { email: "n@example.com" });
      return null;
    } catch (e: any) {
      return { name: e.name, status: e.status, code: e.code };
    }
  });
  expect(refused).toEqual({ name: "BridgeApiError", status: 403, code: "insufficient_scopes" });
  const whoami = await frame.evaluate(() => (window as any).bridge.api.get("/whoami"));
  expect(whoami.data.type).toBe("extension_session");

  // resize: the host sizes the frame (within its bounds)
  await frame.evaluate(() => (window as any).bridge.resize(640));
  await until(() => page.$eval("iframe.extension-frame", (f) => (f as HTMLIFrameElement).style.height), (h) => h === "640px");
  // toast: text in the host's live region (never markup)
  await frame.click("#save");
  await page.waitForSelector(".extension-toast-success");
  expect(await page.textContent(".extension-toast-success")).toBe("Note saved");
  await frame.evaluate(() => (window as any).bridge.toast("<img src=x onerror=alert(1)>", "error"));
  await page.waitForSelector(".extension-toast-error");
  expect(await page.$$eval(".extension-toasts img", (n) => n.length)).toBe(0);
  // navigate: handed to the page's handler
  await frame.evaluate(() => (window as any).bridge.navigate("/orders/123"));
  await until(() => page.textContent("#host-status"), (s) => Boolean(s?.includes("/orders/123")));

  // the page's CSP frames only the extension's origin
  const csp = (await page.context().request.get(pageUrl())).headers()["content-security-policy"];
  expect(csp).toContain(`frame-src ${extOrigin}`);

  // screenshots at two widths, with the frame resized to its content
  await frame.evaluate(() => (window as any).bridge.resize(document.body.scrollHeight + 20));
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(SHOTS, "extension-host-1280.png"), fullPage: true });
  await page.context().close();

  const small = await openHost(390);
  await small.frame.evaluate(() => (window as any).bridge.resize(document.body.scrollHeight + 20));
  await small.page.waitForTimeout(300);
  await small.page.screenshot({ path: path.join(SHOTS, "extension-host-390.png"), fullPage: true });
  await small.page.context().close();
});

browserTest("the token is refreshed before it expires, and calls keep working past the first token's lifetime", async () => {
  const { page, frame, sessionPosts } = await openHost();
  const first = await frame.evaluate(() => (window as any).bridge.getToken());
  // wait past two lifetimes
  const sessions = await until(
    () => frame.evaluate(() => (window as any).sessions.map((s: any) => s.at) as number[]),
    (at) => at.length >= 3,
    TTL_SECONDS * 3000,
  );
  expect(sessions.length).toBeGreaterThanOrEqual(3);
  // each new session arrived before the one before it expired
  for (let i = 1; i < sessions.length; i++) expect(sessions[i] - sessions[i - 1]).toBeLessThan(TTL_SECONDS * 1000);
  const now = await frame.evaluate(() => (window as any).bridge.getToken());
  expect(now).not.toBe(first);
  expect(sessionPosts()).toBeGreaterThanOrEqual(3);
  const orders = await frame.evaluate(() => (window as any).bridge.api.get("/orders"));
  expect(orders.data).toHaveLength(1);
  // the first token itself has expired by now: the API refuses it
  const old = await fetch(`${t.url}/api/v1/orders`, { headers: { authorization: `Bearer ${first}` } });
  expect(old.status).toBe(401);
  await page.context().close();
});

browserTest("forged messages are ignored: a third origin framing the extension, and another window of the dashboard's origin", async () => {
  // (1) a third origin frames the extension page and posts it a session: the bridge takes nothing
  const ctx = await browser.newContext();
  const attack = await ctx.newPage();
  await attack.goto(`${thirdOrigin}/attack`);
  const victim = await until(async () => attack.frames().find((f) => f.url().startsWith(`${extOrigin}/app`)) ?? null, (f) => f !== null);
  await until(() => attack.evaluate(() => (window as any).sent === true), (s) => s);
  await attack.waitForTimeout(1500);
  expect(await victim!.evaluate(() => (window as any).sessions.length)).toBe(0);
  expect(await victim!.evaluate(() => (window as any).bridge.context)).toBeNull();
  expect(await victim!.textContent("#who")).toBe("Connecting…");
  await ctx.close();

  // (2) in the real host page, a second window of the dashboard's own origin posts to the extension and to the host
  const { page, frame, sessionPosts } = await openHost();
  const token = await frame.evaluate(() => (window as any).bridge.getToken());
  const count = await frame.evaluate(() => (window as any).sessions.length);
  const postsBefore = sessionPosts();
  await page.evaluate(() => {
    const sib = document.createElement("iframe");
    sib.id = "sibling";
    document.body.appendChild(sib); // about:blank: same origin as the dashboard, another window
  });
  const sibling = await until(async () => page.frames().find((f) => f !== page.mainFrame() && f.url() === "about:blank") ?? null, (f) => f !== null);
  await sibling!.evaluate((ns) => {
    const ext = window.parent.frames[0];
    ext.postMessage({ ns, v: 1, type: "session", token: "forged-token", expiresIn: 600, context: { user: { id: "x", email: "attacker@evil.test" }, scopes: ["*"] } }, "*");
    // to the host, as if from the extension: not from the extension's window, so nothing happens
    window.parent.postMessage({ ns, v: 1, type: "toast", message: "FORGED", level: "error" }, "*");
    window.parent.postMessage({ ns, v: 1, type: "ready" }, "*");
    window.parent.postMessage({ ns, v: 1, type: "destroy" }, "*");
  }, NS);
  await page.waitForTimeout(1000);
  expect(await frame.evaluate(() => (window as any).bridge.getToken())).toBe(token);
  expect(await frame.evaluate(() => (window as any).sessions.length)).toBe(count);
  expect(await frame.evaluate(() => (window as any).bridge.context.user.email)).toBe("owner@example.com");
  expect(await page.$$eval(".extension-toast", (n) => n.map((e) => e.textContent))).not.toContain("FORGED");
  expect(sessionPosts()).toBe(postsBefore);
  expect(await page.$("iframe.extension-frame")).not.toBeNull();

  // the extension itself may close: the host removes the frame
  await frame.evaluate(() => (window as any).bridge.destroy());
  await until(() => page.$("iframe.extension-frame"), (f) => f === null);
  expect(await page.textContent("#host-status")).toBe("The extension closed itself.");
  await page.context().close();
});

browserTest("keyboard: skip link, sign out, the frame; an uninstalled install's page is 404 and its tokens stop", async () => {
  const { page, frame } = await openHost();
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to the extension");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign out");
  await page.keyboard.press("Tab");
  // the frame is another process: Chromium hands focus to it asynchronously, so the host may read BODY for a moment
  expect(await until(() => page.evaluate(() => document.activeElement?.tagName), (tag) => tag === "IFRAME", 3000)).toBe("IFRAME");
  // into the frame: its first control is reached by Tab (Chromium may stop once on the frame's document first)
  for (let i = 0; i < 3 && (await frame.evaluate(() => document.activeElement?.id)) !== "save"; i++) await page.keyboard.press("Tab");
  expect(await frame.evaluate(() => document.activeElement?.id)).toBe("save");
  await page.keyboard.press("Enter");
  await page.waitForSelector(".extension-toast-success");

  const token = await frame.evaluate(() => (window as any).bridge.getToken());
  await setInstallationStatus(t, install.installation.id, "uninstalled");
  try {
    const r = await fetch(`${t.url}/api/v1/orders`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(401);
    const failed = await frame.evaluate(async () => {
      try {
        await (window as any).bridge.api.get("/orders");
        return null;
      } catch (e: any) {
        return e.status ?? e.message;
      }
    });
    // the bridge asked for a fresh session once; the host could not mint one (404) and the call failed
    expect(failed).not.toBeNull();
    const res = await page.goto(pageUrl());
    expect(res!.status()).toBe(404);
    expect(await page.textContent("h1")).toBe("Extension not found");
  } finally {
    await setInstallationStatus(t, install.installation.id, "active");
  }
  // sign out: back to the sign-in form
  await page.goto(pageUrl());
  await Promise.all([page.waitForURL(pageUrl()), page.click("text=Sign out")]);
  expect(await page.isVisible("#token")).toBe(true);
  await page.context().close();
});

test("the session endpoint of the page refuses cross-origin and cookieless requests", async () => {
  const url = `${t.url}/dashboard/extensions/${install.installation.id}/session`;
  const noCookie = await fetch(url, { method: "POST", headers: { origin: t.url, "content-type": "application/json" }, body: "{}" });
  expect(noCookie.status).toBe(401);
  const cookie = `q2c_dashboard_session=${demo.dashboardToken}`;
  const cross = await fetch(url, { method: "POST", headers: { origin: thirdOrigin, cookie, "content-type": "application/json" }, body: "{}" });
  expect(cross.status).toBe(403);
  const form = await fetch(url, { method: "POST", headers: { origin: t.url, cookie, "content-type": "application/x-www-form-urlencoded" }, body: "" });
  expect(form.status).toBe(403);
  const good = await fetch(url, { method: "POST", headers: { origin: t.url, cookie, "content-type": "application/json" }, body: "{}" });
  expect(good.status).toBe(201);
  expect(((await good.json()) as any).data.expiresIn).toBe(TTL_SECONDS);
});
