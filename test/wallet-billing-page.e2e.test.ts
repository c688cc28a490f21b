// The hosted update-card page {checkout_url}/billing/{token}: over plain HTTP (security headers, the expired and
// unknown pages, the no-JavaScript form posts with their errors), and in a real browser (Debian chromium through
// playwright-core, skipped when it is missing): open the link, add a card, make it the default, remove the old one,
// with the keyboard alone, then check the database. Screenshots at 390 and 1280 px go to SCREENSHOT_DIR when set.
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";

const SHOTS = process.env.SCREENSHOT_DIR;
const clock = new FixedClock(new Date("2026-04-01T09:00:00Z"));
let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let browser: Browser; // set when Chromium is here; the tests that use it are browserTest (skipped otherwise)

beforeAll(async () => {
  t = (await startTestApp({ clock }))!;
  demo = await t.bootstrap();
  api = client(t.url);
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { name: "Acme Cloud", brandColor: "#0a7d3b" } });
  if (hasChromium) browser = await launchChromium();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A customer with a subscription (stands in for recurring checkout) and one merchant-attached default card. */
async function setup() {
  const c = (await api("POST", "customers", { key: demo.apiKey, body: { email: `p${Math.random().toString(36).slice(2)}@example.com` } })).body.data.id as string;
  const now = clock.now();
  const sub = await t.deps.prisma.subscription.create({
    data: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, customerId: c, status: "active", planReference: "team", planName: "Team plan", interval: "monthly", amount: 1200, quantity: 5, currency: "USD", currentPeriodStart: now, currentPeriodEnd: new Date("2026-05-01T09:00:00Z") },
  });
  const old = (await api("POST", `customers/${c}/payment-methods`, { key: demo.apiKey, body: { cardBrand: "mastercard", cardLastFour: "5454", cardExpMonth: 8, cardExpYear: 2029 } })).body.data;
  const tok = (await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId: c, subscriptionId: sub.id } })).body.data;
  return { c, sub, old, tok: tok.token as string, url: tok.updateCardUrl as string };
}

const get = (url: string) => fetch(url, { redirect: "manual" });
const post = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

test("the page: subscription, cards, merchant name; security headers; no-JS add, default, remove", async () => {
  const { c, old, url } = await setup();
  const r = await get(url);
  expect(r.status).toBe(200);
  const csp = r.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(r.headers.get("cache-control")).toBe("no-store");
  expect(r.headers.get("referrer-policy")).toBe("no-referrer");
  const body = await r.text();
  for (const s of ["Acme Cloud", "Team plan", "USD 60.00 per month", "5 × USD 12.00", "May 1, 2026", "MASTERCARD ending 5454", 'for="paymentToken"']) expect(body).toContain(s);
  expect(body).not.toContain("<script");

  const bad = await post(url, { action: "add", paymentToken: "tok_card_declined" });
  expect(bad.status).toBe(402);
  expect(await bad.text()).toContain("could not be saved");
  const added = await post(url, { action: "add", paymentToken: "tok_visa" });
  expect([added.status, added.headers.get("location")]).toEqual([303, `${new URL(url).pathname}?done=added`]);
  const visa = await t.deps.prisma.savedCard.findFirstOrThrow({ where: { customerId: c, source: "vault" } });
  expect(visa).toMatchObject({ chargeable: true, isDefault: false });

  const refused = await post(url, { action: "remove", cardId: old.id });
  expect(refused.status).toBe(409);
  expect(await refused.text()).toContain("make another card the default");
  expect((await post(url, { action: "default", cardId: visa.id })).status).toBe(303);
  expect((await post(url, { action: "remove", cardId: old.id })).status).toBe(303);
  const cards = await t.deps.prisma.savedCard.findMany({ where: { customerId: c, deletedAt: null } });
  expect(cards.map((x) => [x.id, x.isDefault])).toEqual([[visa.id, true]]);
  expect((await post(url, { action: "default", cardId: "cpm_nope" })).status).toBe(404);
  expect((await post(url, { action: "bogus" })).status).toBe(400);
});

test("a past-due subscription: the page offers the payment again; it fails on the merchant-attached card, then succeeds on a vaulted default", async () => {
  const { c, sub, url } = await setup();
  // the last renewal failed (stands in for the renewal job's decline)
  await t.deps.prisma.subscription.update({ where: { id: sub.id }, data: { status: "past_due", failureCount: 1, nextRetryAt: new Date(clock.now().getTime() + 86_400_000) } });
  const page = await (await get(url)).text();
  expect(page).toContain("Pay USD 60.00 now");
  const declined = await post(url, { action: "retry", subscriptionId: sub.id });
  expect(declined.status).toBe(402);
  expect(await declined.text()).toContain("did not go through");
  expect((await post(url, { action: "add", paymentToken: "tok_visa" })).status).toBe(303);
  const visa = await t.deps.prisma.savedCard.findFirstOrThrow({ where: { customerId: c, source: "vault" } });
  expect((await post(url, { action: "default", cardId: visa.id })).status).toBe(303);
  const paid = await post(url, { action: "retry", subscriptionId: sub.id });
  expect([paid.status, paid.headers.get("location")]).toEqual([303, `${new URL(url).pathname}?done=retried`]);
  expect(await (await get(`${url}?done=retried`)).text()).toContain("active again");
  expect(await t.deps.prisma.subscription.findUniqueOrThrow({ where: { id: sub.id } })).toMatchObject({ status: "active", failureCount: 0 });
  expect((await post(url, { action: "retry", subscriptionId: sub.id })).status).toBe(422);
});

test("an expired link shows a clear page (410), an unknown one 404; never a stack trace", async () => {
  const { url } = await setup();
  const unknown = await get(`${t.url}/billing/pmt_${"x".repeat(40)}`);
  expect(unknown.status).toBe(404);
  expect(await unknown.text()).toContain("Link not found");
  expect((await get(`${t.url}/billing/%00garbage`)).status).toBe(404);
  clock.advance(14 * 86_400_000);
  const expired = await get(url);
  expect(expired.status).toBe(410);
  const text = await expired.text();
  expect(text).toContain("This link has expired");
  expect(text).not.toMatch(/at .*\.ts:\d+/);
  const posted = await post(url, { action: "add", paymentToken: "tok_visa" });
  expect(posted.status).toBe(410);
  clock.set(new Date("2026-04-01T09:00:00Z"));
});

browserTest("in Chromium with the keyboard alone: add a card, make it default, remove the old one", async () => {
  const { c, old, url } = await setup();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  if (SHOTS) {
    await page.screenshot({ path: path.join(SHOTS, "billing-1280.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SHOTS, "billing-390.png"), fullPage: true });
  }
  // Tab order: Remove (old card), the token field, Add card.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Remove MASTERCARD ending 5454");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("paymentToken");
  await page.keyboard.type("tok_visa");
  await Promise.all([page.waitForURL(/done=added/), page.keyboard.press("Enter")]);
  expect(await page.textContent("#done")).toContain("Your card was added");
  // Make the new card the default: Tab to its button (old card's Remove, then the new card's Make default).
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Make default: VISA ending 4242");
  await Promise.all([page.waitForURL(/done=default/), page.keyboard.press("Enter")]);
  // the old card now offers Make default, then Remove
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Remove MASTERCARD ending 5454");
  await Promise.all([page.waitForURL(/done=removed/), page.keyboard.press("Enter")]);
  expect(await page.textContent("#done")).toContain("The card was removed");
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, "billing-after-390.png"), fullPage: true });
  await page.close();
  const cards = await t.deps.prisma.savedCard.findMany({ where: { customerId: c, deletedAt: null } });
  expect(cards).toHaveLength(1);
  expect(cards[0]).toMatchObject({ cardLastFour: "4242", isDefault: true, chargeable: true, source: "vault" });
  expect((await t.deps.prisma.savedCard.findUniqueOrThrow({ where: { id: old.id } })).deletedAt).not.toBeNull();
});
