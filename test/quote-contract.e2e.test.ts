// Issue 34, quotes: the published shapes and what the buyer is shown, as an outside client meets them.
// - POST /quotes/{id}/issue answers { quote, revision } (the link is data.quote.shareToken), GraphQL alike.
// - Acceptance answers { quote, checkoutUrl } with the quote itself (data.quote.number), buyer and rep, GraphQL alike.
// - Concurrent first downloads of a quote PDF all succeed with one and the same file.
// - After acceptance the link read, the page and the accepted emails show what was accepted (= the order).
// - The page's accept form redirects to a place its own CSP form-action allows, whatever Host the buyer used.
import { mkdtempSync, readdirSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { findJob } from "../jobs/registry";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { LocalStorage, type Storage } from "../src/shared/storage";
import { startTestApp, type TestApp } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { AcceptQuoteDocument, AcceptQuoteLinkDocument, IssueQuoteDocument, QuoteLinkDocument } from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const key = () => demo.apiKey;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 4, qtyEditable: true },
  { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
  { name: "Setup", unitPrice: 10000, type: "service" },
];

async function draft(email = "contract@example.com") {
  const c = await api("POST", "quotes", { key: key(), body: { customerEmail: email, items: LINES } });
  expect(c.status).toBe(201);
  return c.body.data.id as string;
}

async function issued(email?: string) {
  const r = await api("POST", `quotes/${await draft(email)}/issue`, { key: key(), body: {} });
  expect(r.status).toBe(200);
  return r.body.data as { quote: any; revision: any };
}

describe("issue answers { quote, revision }", () => {
  test("REST: data.quote is the merchant view with shareToken; data.revision is the revision just issued (first issue and re-issue)", async () => {
    const id = await draft();
    const r = await api("POST", `quotes/${id}/issue`, { key: key(), body: {} });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(["quote", "revision"]);
    const { quote, revision } = r.body.data;
    expect(quote).toMatchObject({ id, status: "proposed", shareToken: expect.stringMatching(/^qt_[A-Za-z0-9]{32}$/), currentRevisionId: revision.id, workingRevision: null });
    expect(revision).toMatchObject({ number: 1, status: "issued", issuedAt: expect.any(String), total: 6000 + 2500 + 10000 });
    expect(quote.buyerUrl).toBe(`${t.deps.config.CHECKOUT_URL}/q/${quote.shareToken}`);

    expect((await api("POST", `quotes/${id}/revisions`, { key: key(), body: {} })).status).toBe(201);
    const re = await api("POST", `quotes/${id}/issue`, { key: key(), body: {} });
    expect(re.status).toBe(200);
    expect(re.body.data.revision).toMatchObject({ number: 2, status: "issued" });
    expect(re.body.data.quote).toMatchObject({ currentRevisionId: re.body.data.revision.id, shareToken: quote.shareToken });
    expect(re.body.data.quote.revisions.find((x: any) => x.id === revision.id).status).toBe("superseded");
  });

  test("GraphQL: issueQuote { quote { shareToken } revision }", async () => {
    const id = await draft();
    const r = await gql(IssueQuoteDocument, { id }, { key: key() });
    expect(r.errors).toBeNull();
    const { quote, revision } = r.data!.issueQuote;
    expect(quote).toMatchObject({ id, status: "proposed", shareToken: expect.stringMatching(/^qt_/), currentRevisionId: revision.id });
    expect(revision).toMatchObject({ number: 1, status: "issued", total: 18500 });
  });
});

describe("acceptance answers { quote, checkoutUrl } with the quote itself", () => {
  const BUYER_QUOTE_KEYS = ["acceptance", "acceptedAt", "acceptedRevisionId", "buyerReference", "checkoutUrl", "currency", "declinedBy", "declinedReason", "expired", "expiresAt", "number", "status"];

  test("REST, buyer: data.quote.number and .status at the top, the buyer-allowed fields only", async () => {
    const { quote, revision } = await issued();
    const r = await api("POST", `quote-links/${quote.shareToken}/accept`, { body: { revisionId: revision.id, acceptedByName: "Bea" } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(["checkoutUrl", "quote"]);
    expect(r.body.data.quote).toMatchObject({ number: quote.number, status: "accepted", acceptedRevisionId: revision.id, checkoutUrl: r.body.data.checkoutUrl, acceptance: { by: "buyer", name: "Bea" } });
    expect(Object.keys(r.body.data.quote).sort()).toEqual(BUYER_QUOTE_KEYS);
    // re-accepting answers the same shape and the same checkout
    const again = await api("POST", `quote-links/${quote.shareToken}/accept`, { body: { revisionId: revision.id, acceptedByName: "Bea" } });
    expect(again.body.data).toEqual({ quote: expect.objectContaining({ number: quote.number, status: "accepted" }), checkoutUrl: r.body.data.checkoutUrl });
  });

  test("REST, rep: data.quote is the merchant view (number, status, internal fields)", async () => {
    const { quote, revision } = await issued();
    const r = await api("POST", `quotes/${quote.id}/accept`, { key: key(), body: { revisionId: revision.id, acceptedByName: "Bea", reason: "by phone" } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(["checkoutUrl", "quote"]);
    expect(r.body.data.quote).toMatchObject({ id: quote.id, number: quote.number, status: "accepted", shareToken: quote.shareToken, acceptance: { by: "merchant", reason: "by phone" } });
  });

  test("GraphQL, buyer and rep: acceptQuoteLink { quote { number status } } and acceptQuote { quote { number status } }", async () => {
    const a = await issued();
    const b = await gql(AcceptQuoteLinkDocument, { shareToken: a.quote.shareToken, revisionId: a.revision.id, acceptedByName: "Bea" });
    expect(b.errors).toBeNull();
    expect(b.data!.acceptQuoteLink.quote).toMatchObject({ number: a.quote.number, status: "accepted", acceptedRevisionId: a.revision.id, checkoutUrl: b.data!.acceptQuoteLink.checkoutUrl });
    const c = await issued();
    const m = await gql(AcceptQuoteDocument, { id: c.quote.id, revisionId: c.revision.id, acceptedByName: "Rep" }, { key: key() });
    expect(m.errors).toBeNull();
    expect(m.data!.acceptQuote.quote).toMatchObject({ id: c.quote.id, number: c.quote.number, status: "accepted" });
  });
});

test("80 parallel first downloads of a quote's PDF all succeed with the same PDF", async () => {
  const { quote } = await issued();
  const N = 80;
  const bytes = await Promise.all(
    Array.from({ length: N }, async () => {
      const r = await fetch(`${t.url}/api/v1/quote-links/${quote.shareToken}/pdf`, { redirect: "manual" });
      if (r.status !== 302) return `status ${r.status}`;
      const f = await fetch(new URL(r.headers.get("location")!, t.url));
      if (f.status !== 200) return `file ${f.status}`;
      return Buffer.from(await f.arrayBuffer()).toString("base64");
    }),
  );
  expect(bytes.filter((b) => b.startsWith("status") || b.startsWith("file"))).toEqual([]);
  expect(new Set(bytes).size).toBe(1);
  expect(Buffer.from(bytes[0], "base64").subarray(0, 5).toString()).toBe("%PDF-");
});

test("two stores on one directory (two processes): 60 racing putIfAbsent keep exactly one file, put never shares a temporary name", async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "store-race-"));
  const stores: Storage[] = [new LocalStorage(t.deps.config, root), new LocalStorage(t.deps.config, root)];
  const won = await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 2].putIfAbsent("quotes/q/r.pdf", Buffer.from(`render ${i}`), "application/pdf")));
  expect(won.filter(Boolean)).toHaveLength(1);
  const winner = won.indexOf(true);
  for (const s of stores) expect((await s.get("quotes/q/r.pdf"))!.toString()).toBe(`render ${winner}`);
  await Promise.all(Array.from({ length: 60 }, (_, i) => stores[i % 2].put("quotes/q/same.pdf", Buffer.from(`v${i}`), "application/pdf")));
  expect((await stores[0].get("quotes/q/same.pdf"))!.toString()).toMatch(/^v\d+$/);
  expect(readdirSync(path.join(root, "quotes/q")).sort()).toEqual(["r.pdf", "same.pdf"]);
});

test("after acceptance the link read (REST, GraphQL), the page and both accepted emails show the accepted lines and total, the order's", async () => {
  const { quote, revision } = await issued("accepted-surfaces@example.com");
  const [widget, gadget] = revision.items;
  const acc = await api("POST", `quote-links/${quote.shareToken}/accept`, {
    body: { revisionId: revision.id, acceptedByName: "Bea", itemSelections: [{ itemId: gadget.id, selected: false }, { itemId: widget.id, quantity: 2 }] },
  });
  expect(acc.status).toBe(200);
  const ACCEPTED = 2 * 1500 + 10000; // the issued offer was 4 x 1500 + 2500 + 10000 = 18500

  const link = (await api("GET", `quote-links/${quote.shareToken}`)).body.data;
  expect(link.revision).toMatchObject({ id: revision.id, subtotal: ACCEPTED, total: ACCEPTED });
  expect(link.revision.items.map((i: any) => [i.name, i.selected, i.quantity, i.total])).toEqual([
    ["Widget", true, 2, 3000],
    ["Gadget", false, 1, 2500],
    ["Setup", true, 1, 10000],
  ]);
  expect(link.revisions.find((r: any) => r.id === revision.id).total).toBe(ACCEPTED);
  const g = await gql(QuoteLinkDocument, { shareToken: quote.shareToken });
  expect(g.data!.quoteLink.revision).toMatchObject({ total: ACCEPTED, subtotal: ACCEPTED });
  expect(g.data!.quoteLink.revisions[0].total).toBe(ACCEPTED);

  const html = await (await fetch(`${t.url}/q/${quote.shareToken}`)).text();
  expect(html).toContain("USD 130.00");
  expect(html).not.toContain("USD 185.00");
  expect(html).not.toContain("USD 60.00"); // the issued 4 x Widget

  const sessionId = acc.body.data.checkoutUrl.split("/").pop();
  const pay = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
  expect(pay.status).toBe(200);
  const order = (await api("GET", `orders/${pay.body.data.orderId}`, { key: key() })).body.data;
  expect(order.total).toBe(ACCEPTED);
  expect(order.lineItems.map((l: any) => [l.name, l.quantity])).toEqual([["Widget", 2], ["Setup", 1]]);
  // converted: still the accepted lines
  expect((await api("GET", `quote-links/${quote.shareToken}`)).body.data.revision.total).toBe(ACCEPTED);

  // the accepted emails, from the outbox
  await findJob("mail-dispatch")!.run({ deps: t.deps, deliveries: t.deliveries });
  // the job renders MJML synchronously in this process: let the loop turn so that keep-alive sockets the server
  // closed meanwhile are seen closed before the next request reuses one (else ECONNRESET under load)
  await new Promise((r) => setTimeout(r, 200));
  const mails = await t.deps.prisma.email.findMany({ where: { quoteId: quote.id, template: { in: ["customer.quote_accepted", "admin.quote_accepted"] } } });
  expect(mails.map((m) => m.template).sort()).toEqual(["admin.quote_accepted", "customer.quote_accepted"]);
  for (const m of mails) {
    const text = `${m.subject}\n${m.text}\n${m.html}`;
    expect({ template: m.template, total: text.includes("USD 130.00"), issued: text.includes("USD 185.00") }).toEqual({ template: m.template, total: true, issued: false });
    expect(m.text).toContain("Widget x 2");
    expect(m.text).toContain("Setup x 1");
    expect(m.text).not.toContain("Gadget");
  }
});

/** A raw HTTP/1.1 request with the Host a proxy or a custom domain would send (fetch cannot set Host). */
function rawRequest(method: string, path: string, host: string, body?: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const u = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method, path, headers: { host, ...(body ? { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) } : {}) } },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: data }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Whether `target` (absolute) is allowed by a form-action source list, for a page served from `pageOrigin`. */
function formActionAllows(csp: string, pageOrigin: string, target: string) {
  const directive = csp
    .split(";")
    .map((d) => d.trim().split(/\s+/))
    .find(([name]) => name === "form-action");
  if (!directive) return true;
  const origin = new URL(target).origin;
  return directive.slice(1).some((s) => (s === "'self'" ? origin === pageOrigin : s.replace(/\/+$/, "") === origin));
}

test("the page's accept form from a host other than CHECKOUT_URL redirects where the page's CSP form-action allows", async () => {
  const { quote, revision } = await issued();
  const port = new URL(t.url).port;
  for (const host of [`shop.custom-domain.test:${port}`, `localhost:${port}`]) {
    expect(new URL(t.deps.config.CHECKOUT_URL).host).not.toBe(host);
    const pageRes = await rawRequest("GET", `/q/${quote.shareToken}`, host);
    expect(pageRes.status).toBe(200);
    const csp = String(pageRes.headers["content-security-policy"]);
    expect(csp).toContain("form-action");
    expect(pageRes.body).toContain(`action="/q/${quote.shareToken}/accept"`);
    const post = await rawRequest("POST", `/q/${quote.shareToken}/accept`, host, new URLSearchParams({ revisionId: revision.id, acceptedByName: "Bea" }).toString());
    expect(post.status).toBe(303);
    const target = new URL(String(post.headers.location), `http://${host}/q/${quote.shareToken}/accept`).href;
    expect(target).toMatch(/\/checkout\/[0-9a-f-]{36}$/);
    expect({ target, allowed: formActionAllows(csp, `http://${host}`, target) }).toEqual({ target, allowed: true });
    const postCsp = post.headers["content-security-policy"];
    if (postCsp) expect(formActionAllows(String(postCsp), `http://${host}`, target)).toBe(true);
    // the checkout it lands on answers on that host
    const checkout = await rawRequest("GET", new URL(target).pathname, host);
    expect(checkout.status).toBe(200);
  }
});
