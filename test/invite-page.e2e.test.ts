// The hosted accept page of an invitation ({DASHBOARD_URL}/invites/{token}): the email's link opens it, it shows
// the workspace, email and roles, refuses a wrong or foreign session in its alert region, and accepts with the
// invitee's session; in Chromium with the keyboard alone, at 390 and 1280 px.
import { mkdirSync } from "node:fs";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { randomToken } from "../src/shared/crypto";
import { startWithDemo, type TestApp } from "./helpers/app";
import { browserTest, launchChromium } from "./helpers/browser";
import type { client } from "./helpers/http";
import { inviteLinkFromOutbox, userSession } from "./helpers/team";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo({}));
});
afterAll(async () => {
  await t?.close();
});

const fresh = () => `page-${randomToken(8).toLowerCase()}@example.com`;
async function invitedLink(email: string) {
  const r = await api("POST", `workspaces/${demo.workspaceId}/invites`, { token: demo.dashboardToken, body: { email, applicationRoles: [{ applicationId: demo.applicationId, role: "developer" }] } });
  expect(r.status).toBe(201);
  const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  expect(link?.url).toBeTruthy();
  return { url: link!.url!, token: link!.token! };
}
const form = (session: string) => ({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ session }).toString() });

test("without JavaScript: the page shows the invitation; a wrong session is refused in the alert region; the invitee's session joins", async () => {
  const email = fresh();
  const link = await invitedLink(email);
  const page = await fetch(link.url);
  expect(page.status).toBe(200);
  const body = await page.text();
  expect(body).toContain(email);
  expect(body).toContain("Developer of");
  expect(page.headers.get("content-security-policy")).toContain("default-src");
  expect(page.headers.get("referrer-policy")).toBe("no-referrer");

  const wrong = await fetch(link.url, form("dst_not-a-session"));
  expect(wrong.status).toBe(401);
  expect(await wrong.text()).toMatch(/<p class="alert" id="error">That session token is not valid/);
  const someoneElse = (await userSession(t, fresh())).dashboardToken;
  const mismatch = await fetch(link.url, form(someoneElse));
  expect(mismatch.status).toBe(400);
  expect(await mismatch.text()).toContain("belongs to someone else");

  const mine = (await userSession(t, email)).dashboardToken;
  const ok = await fetch(link.url, form(mine));
  expect(ok.status).toBe(200);
  expect(await ok.text()).toContain('id="joined"');
  const members = await api("GET", `workspaces/${demo.workspaceId}/members`, { token: demo.dashboardToken });
  expect(JSON.stringify(members.body)).toContain(email);
  // the token is consumed: the link no longer opens
  expect((await fetch(link.url)).status).toBe(404);
  const unknown = await fetch(`${t.url}/invites/inv_${"x".repeat(40)}`);
  expect(unknown.status).toBe(404);
  expect(await unknown.text()).not.toMatch(/at .*\.ts/);
});

test("an invitation without roles says that the member joins with no application access yet", async () => {
  const email = fresh();
  const r = await api("POST", `workspaces/${demo.workspaceId}/invites`, { token: demo.dashboardToken, body: { email } });
  expect(r.status).toBe(201);
  const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  const page = await fetch(link!.url!);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<dd id="roles">No application access yet/);
});

browserTest("in Chromium with the keyboard alone, at 390 and 1280 px", async () => {
  const browser = await launchChromium();
  try {
    const email = fresh();
    const link = await invitedLink(email);
    const session = (await userSession(t, email)).dashboardToken;
    mkdirSync("/tmp/q2c-screenshots", { recursive: true });
    for (const width of [390, 1280]) {
      const ctx = await browser.newContext({ viewport: { width, height: 800 } });
      const p = await ctx.newPage();
      await p.goto(link.url);
      await p.screenshot({ path: `/tmp/q2c-screenshots/invite-${width}.png`, fullPage: true });
      await ctx.close();
    }
    const ctx = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const p = await ctx.newPage();
    await p.goto(link.url);
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("session");
    await p.keyboard.type(session);
    await p.keyboard.press("Tab");
    expect(await p.evaluate(() => document.activeElement?.id)).toBe("accept");
    await Promise.all([p.waitForLoadState("load"), p.keyboard.press("Enter")]);
    await p.waitForSelector("#joined");
    await p.screenshot({ path: "/tmp/q2c-screenshots/invite-joined-390.png", fullPage: true });
    expect(await p.textContent("#joined")).toContain("You joined");
    await ctx.close();
  } finally {
    await browser.close();
  }
});
