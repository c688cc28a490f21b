// The buyer pages over plain HTTP, as a browser without JavaScript uses them: the quote page (offer, toggles,
// quantities, history, messages, actions) and the hosted request form, every action a form POST answered with 303
// (or the page again with the error announced), escaping by construction, the page headers, 404 and rate limits.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { QUOTE_REQUEST_MIN_FILL_MS: "0", RATE_LIMIT_QUOTE_REQUESTS_PER_IP: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { brandColor: "#0a7d3b", logoUrl: "https://cdn.example.com/logo.png" } });
});
afterAll(() => t?.close());

const EVIL = `Widget "><script>alert(1)</script>`;

async function issued() {
  const c = await api("POST", "quotes", {
    key: demo.apiKey,
    body: {
      customerEmail: "page@example.com",
      internalNote: "NOTE-INTERNAL-1",
      items: [
        { name: EVIL, unitPrice: 1500, quantity: 2, qtyEditable: true },
        { name: "Gadget", unitPrice: 2500, optional: true },
        { name: "Setup", unitPrice: 10000, type: "service" },
      ],
    },
  });
  await api("POST", `quotes/${c.body.data.id}/comments`, { key: demo.apiKey, body: { body: "COMMENT-INTERNAL-2", visibility: "internal" } });
  return (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
}
const get = (path: string) => fetch(`${t.url}${path}`, { redirect: "manual" });
const post = (path: string, fields: Record<string, string>) =>
  fetch(`${t.url}${path}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

test("the quote page: the offer escaped, branded, nothing internal, the page headers, a recorded view", async () => {
  const q = await issued();
  const r = await get(`/q/${q.shareToken}`);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-security-policy")).toMatch(/script-src 'nonce-/);
  expect(r.headers.get("referrer-policy")).toBe("no-referrer");
  const page = await r.text();
  expect(page).toContain(`Quote ${q.number}`);
  expect(page).not.toContain("<script>alert(1)</script>");
  expect(page).toContain("&lt;script>alert(1)&lt;/script>"); // preact escapes < & and quotes; a bare > is harmless text
  expect(page).toContain("#0a7d3b");
  expect(page).toContain('src="https://cdn.example.com/logo.png"');
  for (const s of ["NOTE-INTERNAL-1", "COMMENT-INTERNAL-2"]) expect(page).not.toContain(s);
  expect(page).toMatch(/<label[^>]*><input type="checkbox" name="include\.[0-9a-f-]+"/);
  expect(page).toMatch(/<input type="number"[^>]* id="qty-/);
  expect(page).toContain("USD 155.00");
  expect(await t.deps.prisma.event.count({ where: { type: "quote.viewed", data: { path: ["quoteId"], equals: q.id } } })).toBe(1);
  expect((await get("/q/qt_nope")).status).toBe(404);
});

test("without JavaScript: deselect an optional line and change a quantity -> 303 to the checkout of exactly those lines", async () => {
  const q = await issued();
  const rev = q.revisions.find((x: any) => x.id === q.currentRevisionId);
  const [widget, gadget] = rev.items;
  // an unchecked checkbox is simply absent from the form; the hidden optional.<id> says the line was offered
  const r = await post(`/q/${q.shareToken}/accept`, { revisionId: rev.id, acceptedByName: "Bea", [`optional.${gadget.id}`]: "1", [`qty.${widget.id}`]: "4" });
  expect(r.status).toBe(303);
  const location = r.headers.get("location")!;
  expect(location).toMatch(/\/checkout\/[0-9a-f-]{36}$/);
  const s = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: location.split("/").pop()! }, include: { cart: { include: { lineItems: true } } } });
  expect(s.cart.lineItems.map((l) => [l.name, l.quantity]).sort()).toEqual([
    ["Setup", 1],
    [EVIL, 4],
  ]);
  const after = await (await get(`/q/${q.shareToken}`)).text();
  expect(after).toContain("Continue to checkout");
});

test("a refused action shows the page again with the error in the alert region (status of the error)", async () => {
  const q = await issued();
  const rev = q.revisions.find((x: any) => x.id === q.currentRevisionId);
  const r = await post(`/q/${q.shareToken}/accept`, { revisionId: rev.id, acceptedByName: "Bea", [`qty.${rev.items[2].id}`]: "3" });
  expect(r.status).toBe(400);
  const page = await r.text();
  expect(page).toMatch(/<div id="messages" role="alert" aria-live="assertive"><p class="alert">[^<]*fixed at 1/);
  const noName = await post(`/q/${q.shareToken}/accept`, { revisionId: rev.id });
  expect(noName.status).toBe(422);
  expect(await noName.text()).toContain("acceptedByName");
});

test("messages, changes and decline by form POST, each answered 303 back to the page", async () => {
  const q = await issued();
  const c = await post(`/q/${q.shareToken}/comment`, { body: "Could you ship Friday?", authorName: "Bea" });
  expect([c.status, c.headers.get("location")]).toEqual([303, `/q/${q.shareToken}?sent=comment#comments`]);
  const page = await (await get(`/q/${q.shareToken}?sent=comment`)).text();
  expect(page).toContain("Could you ship Friday?");
  expect(page).toContain("Your message was sent");
  const ch = await post(`/q/${q.shareToken}/request-changes`, { message: "Net 60 please" });
  expect(ch.status).toBe(303);
  expect((await api("GET", `quotes/${q.id}`, { key: demo.apiKey })).body.data.status).toBe("revision_requested");
  const q2 = await issued();
  expect((await post(`/q/${q2.shareToken}/decline`, { reason: "Budget" })).status).toBe(303);
  expect((await api("GET", `quotes/${q2.id}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "declined", declinedBy: "buyer", declinedReason: "Budget" });
});

test("the hosted request form: honeypot, fill time, items and target prices; a submission becomes a requested quote", async () => {
  const f = (await api("POST", "quote-request-forms", { key: demo.apiKey, body: { name: "RFQ", fields: { lineItems: true, targetPrice: true }, successMessage: "Thanks! <b>We</b> reply in a day." } })).body.data;
  const r = await get(`/q/request/${f.formToken}`);
  expect(r.status).toBe(200);
  const page = await r.text();
  expect(page).toMatch(/<input type="hidden" name="formLoadedAt" value="\d+"/);
  expect(page).toMatch(/<div class="hp" aria-hidden="true">/);
  expect(page).toContain('name="items.0.targetPrice"');
  const loadedAt = /name="formLoadedAt" value="(\d+)"/.exec(page)![1];
  const sent = await post(`/q/request/${f.formToken}`, { formLoadedAt: loadedAt, email: "rfq@example.com", companyName: "Initech", message: "Need staplers", "items.0.name": "Stapler", "items.0.quantity": "12", "items.0.targetPrice": "9.50", website: "" });
  expect(sent.status).toBe(200);
  const done = await sent.text();
  expect(done).toContain("Thanks! &lt;b>We&lt;/b> reply in a day.");
  const quotes = await api("GET", "quotes?q=rfq@example.com", { key: demo.apiKey });
  expect(quotes.body.data[0]).toMatchObject({ status: "requested", source: "request_form", companyName: "Initech" });
  expect(quotes.body.data[0].workingRevision.items[0]).toMatchObject({ name: "Stapler", quantity: 12, targetUnitPrice: 950, unitPrice: null });
  // honeypot: the same answer, nothing created
  const before = (await api("GET", "quotes?q=bot@example.com", { key: demo.apiKey })).body.data.length;
  const bot = await post(`/q/request/${f.formToken}`, { formLoadedAt: loadedAt, email: "bot@example.com", message: "spam", website: "http://spam" });
  expect(bot.status).toBe(200);
  expect((await api("GET", "quotes?q=bot@example.com", { key: demo.apiKey })).body.data.length).toBe(before);
  // a refused submission: the form again, values kept, the error announced
  const bad = await post(`/q/request/${f.formToken}`, { formLoadedAt: loadedAt, email: "not-an-email", message: "x" });
  expect(bad.status).toBe(422);
  const again = await bad.text();
  expect(again).toMatch(/role="alert"[^>]*><p class="alert">Email:/);
  expect(again).toContain('value="not-an-email"');
  expect((await get("/q/request/qrf_nope")).status).toBe(404);
});

test("a deposit quote's hosted checkout shows the deposit due today and the invoiced balance, and charges the deposit", async () => {
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "dep@example.com", items: [{ name: "Kit", unitPrice: 20000, type: "service" }], paymentTerms: { mode: "deposit_balance", balanceNetN: 45 }, deposit: { type: "percent", value: 25 } } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  const r = await post(`/q/${q.shareToken}/accept`, { revisionId: q.currentRevisionId, acceptedByName: "Dee" });
  const checkout = await (await get(new URL(r.headers.get("location")!, t.url).pathname)).text();
  // the rebuilt checkout page (issue 35 item 6) writes amounts as "USD 50.00"
  expect(checkout).toMatch(/Deposit due today<\/td><td class="num" id="deposit">USD 50\.00/);
  expect(checkout).toMatch(/Balance, invoiced on Net 45 terms<\/td><td class="num" id="balance">USD 150\.00/);
  expect(checkout).toContain("Pay the deposit of USD 50.00");
});

test("a form that requires the bot challenge loads the configured widget, and the page's CSP allows only its origin", async () => {
  const w = (await startTestApp({ env: { BOT_CHALLENGE_SITE_KEY: "0x4AAAAsite", BOT_CHALLENGE_SCRIPT_URL: "https://challenges.example.com/turnstile/v0/api.js" } }))!;
  try {
    const wa = client(w.url);
    const d = await w.bootstrap();
    const guarded = (await wa("POST", "quote-request-forms", { key: d.apiKey, body: { name: "Guarded", fields: { requireBotChallenge: true } } })).body.data;
    const plain = (await wa("POST", "quote-request-forms", { key: d.apiKey, body: { name: "Plain" } })).body.data;
    const r = await fetch(`${w.url}/q/request/${guarded.formToken}`);
    const page = await r.text();
    expect(page).toContain('<div class="cf-turnstile" data-sitekey="0x4AAAAsite" data-response-field-name="botChallengeToken">');
    expect(page).toMatch(/<script src="https:\/\/challenges\.example\.com\/turnstile\/v0\/api\.js" nonce="[^"]+" async defer>/);
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toMatch(/script-src 'nonce-[^']+' https:\/\/challenges\.example\.com;/);
    expect(csp).toContain("frame-src https://challenges.example.com");
    const p = await fetch(`${w.url}/q/request/${plain.formToken}`);
    expect(await p.text()).not.toContain("cf-turnstile");
    expect(p.headers.get("content-security-policy")).toContain("frame-src 'none'");
  } finally {
    await w.close();
  }
});
