// The hosted checkout page completes a payment in a real browser (Debian chromium through playwright-core).
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { netTermsText } from "../src/checkout/checkout-page.service";
import { termsHash } from "../src/checkout/checkout-complete.service";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserTest, hasChromium, launchChromium } from "./helpers/browser";
import { client } from "./helpers/http";

let t: TestApp;
let demo: BootstrapResult;
let browser: Browser; // set when Chromium is here; the tests that use it are browserTest (skipped otherwise)

beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openSession(extra: Record<string, unknown> = {}) {
  const api = client(t.url);
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget <b>Pro</b>", unitPrice: 4200, quantity: 2 } });
  // net30 listed: an anonymous session offers it only when its creator says so
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", allowedMethods: ["card", "net30"], ...extra } });
  expect(s.status).toBe(201);
  return s.body.data as { id: string; hostedUrl: string };
}

browserTest("a buyer pays by card on the hosted page", async () => {
  const s = await openSession();
  const page = await browser.newPage();
  await page.goto(s.hostedUrl);
  expect(await page.textContent("#total")).toBe("USD 84.00");
  expect(await page.content()).toContain("Widget &lt;b&gt;Pro&lt;/b&gt;");
  await page.fill("input[name=email]", "buyer@example.com");
  await page.fill("input[name='shippingAddress.addressLine1']", "1 Main St");
  await page.fill("input[name='shippingAddress.city']", "Springfield");
  await page.fill("input[name=paymentToken]", "tok_visa");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  const orderId = await page.getAttribute("#result", "data-order-id");
  const order = await client(t.url)("GET", `orders/${orderId}`, { key: demo.apiKey });
  expect(order.body.data).toMatchObject({ status: "processing", paymentStatus: "captured", total: 8400, email: "buyer@example.com" });
  await page.reload();
  expect(await page.textContent("h1")).toBe("Receipt");
  expect(await page.textContent("#result")).toContain("your order is placed");
  await page.close();
});

browserTest("a declined card shows the error and lets the buyer retry; Net 30 terms are accepted with their hash", async () => {
  const s = await openSession();
  const page = await browser.newPage();
  await page.goto(s.hostedUrl);
  await page.fill("input[name=email]", "retry@example.com");
  await page.fill("input[name='shippingAddress.addressLine1']", "2 Main St");
  await page.fill("input[name='shippingAddress.city']", "Springfield");
  await page.fill("input[name=paymentToken]", "tok_card_declined");
  await page.click("#submit");
  await page.waitForSelector("#err-paymentToken");
  expect(await page.textContent("#err-paymentToken")).toContain("declined");
  expect(await page.inputValue("input[name='shippingAddress.addressLine1']")).toBe("2 Main St"); // kept after the error
  await page.check("input[name=paymentMethod][value=net30]");
  expect(await page.isVisible("input[name=paymentToken]")).toBe(false); // only the chosen method's fields show
  expect(await page.textContent("#submit")).toBe("Place order on Net 30 terms");
  await page.fill("input[name=companyName]", "Acme");
  await page.fill("input[name=billingEmail]", "ap@acme.test");
  await page.check("input[name=acceptTerms]");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  const orderId = await page.getAttribute("#result", "data-order-id");
  const payments = await client(t.url)("GET", `orders/${orderId}/payments`, { key: demo.apiKey });
  const net30 = payments.body.data.find((p: any) => p.method === "net30");
  expect(net30).toMatchObject({ status: "authorized", metadata: { net30Acceptance: { companyName: "Acme", termsHash: expect.stringMatching(/^[0-9a-f]{64}$/) } } });
  expect(net30.metadata.net30Acceptance.termsHash).toBe(termsHash(netTermsText(30)));
  await page.close();
});

test("an unknown session answers 404 with a page", async () => {
  const res = await fetch(`${t.url}/checkout/00000000-0000-4000-8000-000000000000`);
  expect(res.status).toBe(404);
  expect(await res.text()).toContain("Checkout not found");
});

test("the page sends its security headers: nonce CSP, frame-ancestors, no referrer, nosniff, no-store", async () => {
  const s = await openSession();
  const res = await fetch(s.hostedUrl);
  const csp = res.headers.get("content-security-policy")!;
  const html = await res.text();
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(html).toContain(`<script nonce="${nonce}">`);
  expect(html).toContain(`<style nonce="${nonce}">`);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("cache-control")).toBe("no-store");
  const again = await fetch(s.hostedUrl);
  expect(again.headers.get("content-security-policy")).not.toContain(nonce!); // a fresh nonce per response
  const missing = await fetch(`${t.url}/checkout/00000000-0000-4000-8000-000000000000`);
  expect(missing.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
});

browserTest("only the application's allowedOrigins can frame the checkout page (headless Chromium)", async () => {
  // Two pages on other origins (other ports of localhost) embed the checkout page in an iframe.
  const framers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<http.Server>((resolve) => {
          const srv = http.createServer((req, res) => {
            const src = new URL(req.url!, "http://x").searchParams.get("src");
            if (!src) return void res.writeHead(404).end();
            res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><iframe id="f" src="${src.replace(/"/g, "")}" width="600" height="400"></iframe>`);
          });
          srv.listen(0, "127.0.0.1", () => resolve(srv));
        }),
    ),
  );
  const origin = (srv: http.Server) => `http://localhost:${(srv.address() as AddressInfo).port}`;
  const [allowed, other] = framers.map(origin);
  try {
    const app = await t.deps.prisma.application.findUniqueOrThrow({ where: { id: demo.applicationId } });
    await t.deps.prisma.application.update({ where: { id: app.id }, data: { settings: { ...(app.settings as object), allowedOrigins: [allowed, "javascript:alert(1)", "https://x.test; script-src *"] } } });
    const s = await openSession();
    const res = await fetch(s.hostedUrl);
    expect(res.headers.get("content-security-policy")).toMatch(new RegExp(`frame-ancestors ${allowed}(;|$)`));

    const framedFrom = async (framer: string) => {
      const page = await browser!.newPage();
      await page.goto(`${framer}/?src=${encodeURIComponent(`${s.hostedUrl}?embed=1`)}`);
      const frame = page.frameLocator("#f");
      const shown = await frame.locator("#total").textContent({ timeout: 3000 }).catch(() => null);
      await page.close();
      return shown;
    };
    expect(await framedFrom(allowed)).toBe("USD 84.00");
    expect(await framedFrom(other)).toBeNull();
  } finally {
    for (const f of framers) f.close();
    await t.deps.prisma.application.update({ where: { id: demo.applicationId }, data: { settings: {} } });
  }
});

browserTest("every address field the cart holds survives the hosted page into the order (stateProvince, addressLine2)", async () => {
  const api = client(t.url);
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId } });
  const shippingAddress = { addressLine1: "1 Main St", addressLine2: "Suite 400", city: "Austin", stateProvince: "TX", postalCode: "78701", countryCode: "US" };
  await api("PATCH", `carts/${cart.body.data.id}`, { key: demo.apiKey, body: { shippingAddress } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1000 } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
  const page = await browser.newPage();
  await page.goto(s.body.data.hostedUrl);
  expect(await page.inputValue("input[name='shippingAddress.stateProvince']")).toBe("TX");
  await page.fill("input[name=email]", "state@example.com");
  await page.fill("input[name='shippingAddress.addressLine2']", "Suite 401");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  const orderId = await page.getAttribute("#result", "data-order-id");
  await page.close();
  const order = await api("GET", `orders/${orderId}`, { key: demo.apiKey });
  expect(order.body.data.shippingAddress).toEqual({ ...shippingAddress, addressLine2: "Suite 401" });
});

browserTest("the page names the merchant, flags the sandbox, labels each charge, links to cancelUrl, and returns to returnUrl with an honest outcome", async () => {
  const api = client(t.url);
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, customerEmail: "cart-email@example.com" } });
  const id = cart.body.data.id;
  await api("POST", `carts/${id}/items`, { key: demo.apiKey, body: { name: "Widget", unitPrice: 1000, taxAmount: 50 } });
  await api("POST", `carts/${id}/shipping`, { key: demo.apiKey, body: { methodId: "ground", displayName: "Ground (3-5 days)", rateAmount: 700 } });
  await api("PUT", `carts/${id}/tax-lines`, { key: demo.apiKey, body: { lines: [{ name: "State tax", amount: 80 }] } });
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: id, returnUrl: "https://shop.example.com/ok?from=checkout", cancelUrl: "https://shop.example.com/cart" } });
  expect(s.body.data.customerEmail).toBe("cart-email@example.com"); // taken from the cart when the session names none

  const page = await browser.newPage();
  await page.route("https://shop.example.com/**", (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<p id='shop'>back at the shop</p>" }));
  await page.goto(s.body.data.hostedUrl);
  const app = await t.deps.prisma.application.findUniqueOrThrow({ where: { id: demo.applicationId } });
  expect(await page.textContent("header strong")).toBe(app.name);
  expect(await page.textContent("#sandbox")).toContain("Sandbox");
  expect(await page.getAttribute("#cancel", "href")).toBe("https://shop.example.com/cart");
  const rows = await page.$$eval("tbody tr", (trs) => trs.map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, " ").trim()));
  expect(rows).toEqual(expect.arrayContaining(["Shipping: Ground (3-5 days) USD 7.00", "Tax: State tax USD 0.80", "Tax on items USD 0.50", "Total USD 18.30"]));
  expect(await page.inputValue("input[name=email]")).toBe("cart-email@example.com");
  await page.fill("input[name='shippingAddress.addressLine1']", "1 Main St");
  await page.fill("input[name='shippingAddress.city']", "Springfield");
  await page.fill("input[name=paymentToken]", "tok_visa_authorize");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  expect(await page.textContent("#result")).toContain("Payment authorized");
  const orderId = await page.getAttribute("#result", "data-order-id");
  // the receipt's way back to the store: returnUrl with the session and the order
  expect(await page.textContent("#continue")).toBe(`Continue to ${app.name}`);
  await page.click("#continue");
  await page.waitForURL(/^https:\/\/shop\.example\.com\/ok\?/, { timeout: 10_000 });
  const back = new URL(page.url());
  expect(Object.fromEntries(back.searchParams)).toEqual({ from: "checkout", checkout_session_id: s.body.data.id, order_id: orderId });
  await page.close();
});

browserTest("3-D Secure pending is shown as pending confirmation, not as received", async () => {
  const s = await openSession();
  const page = await browser.newPage();
  await page.route("https://shop.example.com/**", (route) => route.fulfill({ status: 200, body: "shop" }));
  await page.goto(s.hostedUrl);
  await page.fill("input[name=email]", "3ds@example.com");
  await page.fill("input[name='shippingAddress.addressLine1']", "1 Main St");
  await page.fill("input[name='shippingAddress.city']", "Springfield");
  await page.fill("input[name=paymentToken]", "tok_3ds_required");
  await page.click("#submit");
  await page.waitForSelector("#result.ok");
  expect(await page.textContent("#result")).toContain("pending confirmation");
  expect(await page.textContent("#result")).not.toContain("received");
  await page.close();
});
