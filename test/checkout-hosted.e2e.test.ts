// The hosted checkout's content over plain HTTP (issue 35 item 6): what is prefilled from the quote and the customer,
// the button's words for each terms, errors in the buyer's words next to their field with what was typed kept, the
// no-JavaScript form post through to the receipt, and Net 30 only for sessions that may offer it.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { BILL_TO, postForm, quoteSession, SHIP_TO, storefrontSession, valueOf } from "./helpers/checkout-fixtures";
import { client } from "./helpers/http";

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off", RATE_LIMIT_CHECKOUT_PER_IP: "off" } }))!;
  demo = await t.bootstrap();
  api = client(t.url);
});
afterAll(() => t?.close());

const page = async (url: string) => (await fetch(url)).text();
const CARD_FORM = {
  email: "guest@example.com",
  "shippingAddress.addressLine1": "1 Main St",
  "shippingAddress.city": "Springfield",
  "shippingAddress.countryCode": "US",
  paymentMethod: "card",
  paymentToken: "tok_visa",
};

describe("Net 30 is offered only where the merchant allows it", () => {
  test("an anonymous storefront session offers card only: not on the page, and net30 at completion is 422 payment_method_not_allowed", async () => {
    const s = await storefrontSession(api, demo);
    expect(s.allowedMethods).toEqual(["card"]);
    const html = await page(s.hostedUrl);
    expect(html).not.toMatch(/Net 30|net30/);
    const r = await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "net30", email: "a@example.com" } });
    expect([r.status, r.body.error.code, r.body.error.details.allowedMethods]).toEqual([422, "payment_method_not_allowed", ["card"]]);
    // the page's own post answers the same in words, on the payment choice
    const posted = await postForm(s.hostedUrl, { ...CARD_FORM, paymentMethod: "net30", companyName: "Acme", billingEmail: "ap@acme.test", acceptTerms: "1" });
    expect(posted.status).toBe(422);
    expect(await posted.text()).toContain("This payment method is not available for this order. Choose another.");
  });

  test("the creator may list net30 for an anonymous session; a session with a customer offers it by default", async () => {
    const listed = await storefrontSession(api, demo, { allowedMethods: ["card", "net30"] });
    expect(listed.allowedMethods).toEqual(["card", "net30"]);
    expect(await page(listed.hostedUrl)).toContain("Invoice on Net 30 terms");
    const known = await storefrontSession(api, demo, { customer: { email: `known-${Date.now()}@example.com` } });
    expect(known.allowedMethods).toEqual(["card", "net30"]);
    const html = await page(known.hostedUrl);
    expect(html).toContain("Place order on Net 30 terms"); // the net30 button label, used when the buyer picks it
  });
});

describe("button copy follows the terms", () => {
  test("card: Pay USD 84.00", async () => {
    const html = await page((await storefrontSession(api, demo)).hostedUrl);
    expect(html).toMatch(/<button[^>]*id="submit"[^>]*>Pay USD 84\.00<\/button>/);
  });

  test("a quote on Net 45 terms: Place order on Net 45 terms, and the terms text says 45 days", async () => {
    const s = await quoteSession(api, demo, { mode: "net_terms", netN: 45 });
    const html = await page(s.hostedUrl);
    expect(html).toMatch(/<button[^>]*id="submit"[^>]*>Place order on Net 45 terms<\/button>/);
    expect(html).toContain("due within 45 days of the invoice date");
    expect(html).not.toContain('value="card"');
  });

  test("a quote on deposit terms: Pay the deposit of USD 1,200.00, the balance on its Net-N terms", async () => {
    const s = await quoteSession(api, demo, { mode: "deposit_balance", balanceNetN: 20 });
    const html = await page(s.hostedUrl);
    expect(html).toMatch(/<button[^>]*id="submit"[^>]*>Pay the deposit of USD 1,200\.00<\/button>/);
    expect(html).toContain("Balance, invoiced on Net 20 terms");
    expect(html).toContain("USD 2,800.00"); // 4,000.00 - 1,200.00
  });
});

test("a quote's checkout: quote number and PO in the header; company, emails and both addresses prefilled from the quote and customer", async () => {
  const s = await quoteSession(api, demo, { mode: "net_terms", netN: 30 });
  const html = await page(s.hostedUrl);
  expect(html).toContain(`<strong id="quote-number">${s.quote.number}</strong>`);
  expect(html).toContain('<strong id="po">PO-7781</strong>');
  expect(valueOf(html, "email")).toBe(s.email);
  expect(valueOf(html, "billingEmail")).toBe(s.email);
  expect(valueOf(html, "companyName")).toBe("Northwind Traders");
  for (const [k, v] of Object.entries(SHIP_TO)) expect([k, valueOf(html, `shippingAddress.${k}`)]).toEqual([k, v]);
  for (const [k, v] of Object.entries(BILL_TO)) expect([k, valueOf(html, `billingAddress.${k}`)]).toEqual([k, v]);
  // billing differs from shipping: "same as shipping" starts unticked, so the billing fields show
  expect(html).toMatch(/<input type="checkbox" id="same" name="billingSameAsShipping" value="1"\s*\/?>/);
});

test("field errors are in words, next to their field (role=alert, aria-describedby), and the form keeps what was typed", async () => {
  const s = await storefrontSession(api, demo);
  const r = await postForm(s.hostedUrl, { ...CARD_FORM, email: "not-an-email", "shippingAddress.city": "", "shippingAddress.addressLine1": "77 Typed Lane", "shippingAddress.postalCode": "1".repeat(25) });
  expect(r.status).toBe(422);
  const html = await r.text();
  expect(html).toContain('<p class="field-error" id="err-email" role="alert">Enter an email address like name@example.com.</p>');
  expect(html).toContain('<p class="field-error" id="err-shippingAddress-city" role="alert">Enter the town or city.</p>');
  expect(html).toContain("The postal code is too long: 20 characters at most.");
  expect(html).toMatch(/id="shippingAddress-city"[^>]*aria-invalid="true"[^>]*aria-describedby="err-shippingAddress-city"/);
  expect(html).not.toMatch(/Invalid input|shippingAddress\.city:|validation_error/);
  expect(valueOf(html, "shippingAddress.addressLine1")).toBe("77 Typed Lane");
  expect(valueOf(html, "email")).toBe("not-an-email");

  // a declined card: the words go on the card field, the typed address stays
  const declined = await postForm(s.hostedUrl, { ...CARD_FORM, "shippingAddress.addressLine1": "78 Typed Lane", paymentToken: "tok_card_declined" });
  expect(declined.status).toBe(402);
  const d = await declined.text();
  expect(d).toContain('<p class="field-error" id="err-paymentToken" role="alert">Your card was declined. Check the details or use another card.</p>');
  expect(valueOf(d, "shippingAddress.addressLine1")).toBe("78 Typed Lane");

  // a missing address names the address, not the API field
  const missing = await postForm(s.hostedUrl, { email: "a@example.com", "shippingAddress.countryCode": "US", paymentMethod: "card", paymentToken: "tok_visa" });
  expect(missing.status).toBe(422);
  expect(await missing.text()).toContain("Enter the shipping address.");
});

test("the form works without JavaScript: post, 303 to the receipt with the order's lines, amount paid and order number; billing same as shipping", async () => {
  const s = await storefrontSession(api, demo, { collect: { billingAddress: true } });
  const html = await page(s.hostedUrl);
  expect(html).toMatch(/<input type="checkbox" id="same" name="billingSameAsShipping" value="1" checked/);
  const r = await postForm(s.hostedUrl, { ...CARD_FORM, billingSameAsShipping: "1" });
  expect([r.status, r.headers.get("location")]).toEqual([303, `/checkout/${s.id}`]);
  const session = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: s.id } });
  const order = (await api("GET", `orders/${session.orderId}`, { key: demo.apiKey })).body.data;
  expect(order.billingAddress).toEqual(order.shippingAddress);
  expect(order.shippingAddress).toMatchObject({ addressLine1: "1 Main St", city: "Springfield", countryCode: "US" });
  const receipt = await page(s.hostedUrl);
  expect(receipt).toContain("<h1>Receipt</h1>");
  expect(receipt).toContain(`<dd id="order-number">${session.orderId!.slice(0, 8).toUpperCase()}</dd>`);
  expect(receipt).toMatch(/<td>Widget<\/td><td class="num qty">2<\/td><td class="num">USD 84\.00<\/td>/);
  expect(receipt).toMatch(/<td colSpan="2">Paid<\/td><td class="num" id="paid">USD 84\.00<\/td>|id="paid">USD 84\.00/);
  expect(receipt).toContain("USD 84.00 paid by card.");
  expect(receipt).not.toContain('id="owed"');
  // posting again after completion goes to the receipt, never a second order
  const again = await postForm(s.hostedUrl, CARD_FORM);
  expect(again.status).toBe(303);
});

test("a quote on deposit terms through the form: the receipt says the deposit was paid and when the balance is due", async () => {
  const s = await quoteSession(api, demo, { mode: "deposit_balance", balanceNetN: 20 });
  const html = await page(s.hostedUrl);
  const fields: Record<string, string> = { paymentMethod: "card", paymentToken: "tok_visa", email: valueOf(html, "email")! };
  for (const k of Object.keys(SHIP_TO)) fields[`shippingAddress.${k}`] = valueOf(html, `shippingAddress.${k}`)!;
  fields.billingSameAsShipping = "1";
  const r = await postForm(s.hostedUrl, fields);
  expect(r.status).toBe(303);
  const receipt = await page(s.hostedUrl);
  expect(receipt).toContain("your deposit received. The balance is invoiced.");
  expect(receipt).toMatch(/id="paid">USD 1,200\.00/);
  const day = new Date(Date.now() + 20 * 86400_000).toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  expect(receipt).toContain(`Still to pay, due on ${day}`);
  expect(receipt).toMatch(/id="owed">USD 2,800\.00/);
  expect(receipt).toContain("USD 1,200.00 paid by card.");
  expect(receipt).not.toContain("Deposit due today");
});

test("a quote on Net 30 terms through the form: the receipt names the quote, the PO, and what is owed and when", async () => {
  const s = await quoteSession(api, demo, { mode: "net_terms", netN: 30 });
  const html = await page(s.hostedUrl);
  const fields: Record<string, string> = { paymentMethod: "net30", email: valueOf(html, "email")!, companyName: valueOf(html, "companyName")!, billingEmail: valueOf(html, "billingEmail")! };
  for (const k of Object.keys(SHIP_TO)) fields[`shippingAddress.${k}`] = valueOf(html, `shippingAddress.${k}`)!;
  for (const k of Object.keys(BILL_TO)) fields[`billingAddress.${k}`] = valueOf(html, `billingAddress.${k}`) ?? "";
  // the terms must be accepted: said on the checkbox
  const unaccepted = await postForm(s.hostedUrl, fields);
  expect(unaccepted.status).toBe(422);
  expect(await unaccepted.text()).toContain('<p class="field-error" id="err-acceptTerms" role="alert">Tick the box to accept the Net 30 terms.</p>');
  const r = await postForm(s.hostedUrl, { ...fields, acceptTerms: "1" });
  expect(r.status).toBe(303);
  const receipt = await page(s.hostedUrl);
  expect(receipt).toContain(`<dd id="quote-number">${s.quote.number}</dd>`);
  expect(receipt).toContain('<dd id="po">PO-7781</dd>');
  const due = new Date(Date.now() + 30 * 86400_000);
  const day = due.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  expect(receipt).toContain(`Still to pay, due on ${day}`);
  expect(receipt).toMatch(/id="owed">USD 4,000\.00/);
  expect(receipt).toContain("Industrial widget");
  const order = (await api("GET", `quotes/${s.quote.id}`, { key: demo.apiKey })).body.data;
  expect(order.status).toBe("converted");
});
