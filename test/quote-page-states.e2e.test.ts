// Issue 35 items 1, 2, 4, 5, 7 over plain HTTP: what the quote page says in each state (text present and absent),
// the buyer read's order, invoice, decline and "what changed" fields, money in errors, an error re-render keeping
// the buyer's choices, a re-accept that sets new choices aside, and the request form's rows, name, phone and
// thank-you page. The same states in Chromium: quote-page-browser.e2e.test.ts.
import { QuoteLinkPageDocument } from "./generated/graphql";
import { gqlClient } from "./helpers/gql";
import { makeQuoteStates, type QuoteStates } from "./helpers/quote-states";

let s: QuoteStates;
beforeAll(async () => {
  s = await makeQuoteStates();
});
afterAll(() => s?.t.close());

const page = async (state: string) => {
  const r = await fetch(`${s.t.url}/q/${s.tokens[state]}`);
  expect(r.status).toBe(200);
  return (await r.text()).replace(/<!-- -->/g, "");
};
const post = (path: string, fields: Record<string, string>) =>
  fetch(`${s.t.url}${path}`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });
const link = async (state: string) => (await s.api("GET", `quote-links/${s.tokens[state]}`)).body.data;
const notices = (html: string) => html.match(/class="notice[^"]*"/g) ?? [];

test("proposed: one notice, the seller and buyer blocks, PO, notes and terms, what changed since revision 1, messages with author and time", async () => {
  const html = await page("proposed");
  expect(notices(html)).toHaveLength(1);
  for (const text of ["Awaiting your decision", "Acme Supplies LLC", "EIN 12-3456789", "500 Industrial Pkwy", "Globex Corporation", "Bea Buyer", "40 Dock Road", "PO-4471", "Prices include packaging.", "Delivery within 3 weeks of payment.", "ACH to Acme Bank"]) expect(html).toContain(text);
  expect(html).toContain("What changed since revision 1");
  expect(html).toContain("Added: Operator training, 1 × USD 3,000.00");
  expect(html).toContain("Removed: On-site setup");
  expect(html).toContain("Changed: Industrial widget, unit price USD 1,500.00 → USD 1,400.00");
  expect(html).toMatch(/<strong>Bea Buyer<\/strong><span class="muted">buyer · <time datetime="[^"]+">Nov 20, 2026, 10:00 UTC<\/time>/);
  expect(html).toMatch(/<strong>Acme Supplies<\/strong><span class="muted">Acme Supplies · <time/);
  expect(html).toContain('id="accept"');
  const v = await link("proposed");
  expect(v.revision.changes).toMatchObject({ fromRevision: 1, added: [{ name: "Operator training" }], removed: [{ name: "On-site setup" }], changed: [{ name: "Industrial widget", from: { unitPrice: 150000 }, to: { unitPrice: 140000 } }] });
  expect(v.quote).toMatchObject({ status: "proposed", expired: false, declinedBy: null });
  expect(v.order).toBeNull();
});

test("expired before the hourly job: the badge and notice say expired, no accept form, no deposit due; the read says expired", async () => {
  const html = await page("expired");
  expect(notices(html)).toHaveLength(1);
  expect(html).toContain('id="status">Expired');
  expect(html).toContain("This quote expired on November 20, 2026");
  expect(html).not.toContain("Awaiting your decision");
  expect(html).not.toContain('id="accept"');
  expect(html).not.toContain("Decline this quote");
  expect(await link("expired")).toMatchObject({ quote: { status: "proposed", expired: true } });
});

test("declined by the buyer: their own reason, not styled as success; by the merchant: the merchant's reason, never 'preparing your offer'", async () => {
  const b = await page("declinedBuyer");
  expect(notices(b)).toEqual(['class="notice bad"']);
  expect(b).toContain("You declined this quote");
  expect(b).toContain("Your reason: We went with a local supplier.");
  expect(b).not.toMatch(/notice good/);
  expect((await link("declinedBuyer")).quote).toMatchObject({ declinedBy: "buyer", declinedReason: "We went with a local supplier." });
  const m = await page("declinedMerchant");
  expect(notices(m)).toEqual(['class="notice bad"']);
  expect(m).toContain("Acme Supplies declined this request");
  expect(m).toContain("Their reason: We no longer ship to your region.");
  expect(m).not.toContain("preparing your offer");
});

test("requested: one notice that the offer is being prepared, with the reference number; no offer table", async () => {
  const html = await page("requested");
  expect(notices(html)).toHaveLength(1);
  expect(html).toContain("Acme Supplies is preparing your offer");
  expect(html).toMatch(/Your reference is Q-\d+/);
  expect(html).not.toContain('id="accept-form"');
});

test("accepted, deposit unpaid: who accepted and when, the accepted lines and quantities, deposit due today, continue to checkout", async () => {
  const html = await page("accepted");
  expect(notices(html)).toEqual(['class="notice good"']);
  expect(html).toContain("Accepted by Bea Buyer on November 20, 2026");
  expect(html).toContain("What you accepted");
  expect(html).toContain("Not included"); // the optional kit left out
  expect(html).toContain("USD 14,500.00"); // 3 x 1,500 + 10,000
  expect(html).toContain("Deposit due today");
  expect(html).toContain("Continue to checkout");
  expect(html).toContain("Download the accepted quote (PDF)");
});

test("converted on net terms: a receipt with the order number, invoice number, due date and the buyer's invoice download link", async () => {
  const v = await link("convertedNet");
  expect(v.order).toMatchObject({ number: expect.stringMatching(/^[0-9A-F]{8}$/), paymentStatus: "authorized", amountPaid: 0, invoice: { number: expect.stringMatching(/^INV-\d+$/), dueDate: "2026-12-20", paid: false } });
  expect(v.order.invoice.downloadUrl).toMatch(/\/api\/v1\/payments\/[0-9a-f-]+\/invoice\/download\?token=/);
  const html = await page("convertedNet");
  expect(notices(html)).toEqual(['class="notice good"']);
  for (const text of [`Order ${v.order.number} placed`, "This page is your receipt", v.order.invoice.number, "due December 20, 2026", `Download invoice ${v.order.invoice.number} (PDF)`, "Bea Buyer on November 20, 2026"]) expect(html).toContain(text);
  expect(html).not.toContain('id="accept"');
  const pdf = await fetch(v.order.invoice.downloadUrl.replace(/^https?:\/\/[^/]+/, s.t.url), { redirect: "manual" });
  expect([302, 303]).toContain(pdf.status);
});

test("converted on deposit terms: 'Deposit paid' and 'Balance due on {date}', never 'Deposit due today'", async () => {
  const v = await link("convertedDeposit");
  expect(v.order).toMatchObject({ paymentStatus: "partially_paid", amountPaid: 462500, amountDue: 1387500, invoice: { dueDate: "2026-12-20" } });
  const html = await page("convertedDeposit");
  expect(html).toContain("Deposit paid");
  expect(html).toContain("Balance due on December 20, 2026");
  expect(html).toContain("USD 13,875.00");
  expect(html).not.toContain("Deposit due today");
});

test("acceptance errors name money, keep the buyer's choices and name; a re-accept with other choices says they were not applied", async () => {
  const p = await link("proposed");
  const [widget, kit] = p.revision.items;
  // deposit floor in money words, from a deposit quote
  const dep = await s.api("POST", "quotes", { key: s.demo.apiKey, body: { customerEmail: "floor@globex.example", items: [{ name: "Base", unitPrice: 100000, quantity: 1, qtyEditable: true }, { name: "Extra", unitPrice: 500000, optional: true }], paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "fixed", value: 200000 } } });
  const di = (await s.api("POST", `quotes/${dep.body.data.id}/issue`, { key: s.demo.apiKey, body: {} })).body.data;
  const [base, extra] = di.revision.items;
  const r = await post(`/q/${di.quote.shareToken}/accept`, { revisionId: di.revision.id, acceptedByName: "Carla Keep", [`optional.${extra.id}`]: "1", [`qty.${base.id}`]: "1" });
  expect(r.status).toBe(400);
  const html = await r.text();
  expect(html).toContain("The selection totals USD 1,000.00, at or below the deposit of USD 2,000.00");
  expect(html).not.toMatch(/totals 100000|deposit of 200000/);
  expect(html).toContain('value="Carla Keep"');
  expect(html).toMatch(new RegExp(`name="include\\.${extra.id}" value="1" data-include`)); // unchecked, as the buyer left it
  expect(html).not.toMatch(new RegExp(`name="include\\.${extra.id}" value="1" checked`));
  const api = await s.api("POST", `quote-links/${di.quote.shareToken}/accept`, { body: { revisionId: di.revision.id, acceptedByName: "X", itemSelections: [{ itemId: extra.id, selected: false }] } });
  expect(api.body.error.message).toContain("USD 1,000.00");

  // a quantity kept after an error (a missing name)
  const q = await post(`/q/${s.tokens.proposed}/accept`, { revisionId: p.revision.id, acceptedByName: "", [`optional.${kit.id}`]: "1", [`qty.${widget.id}`]: "7" });
  expect(q.status).toBe(422);
  expect(await q.text()).toMatch(new RegExp(`name="qty\\.${widget.id}"[^>]*value="7"`));

  // accept, then the same revision again with other choices: set aside, and said so
  const first = await post(`/q/${s.tokens.proposed}/accept`, { revisionId: p.revision.id, acceptedByName: "Bea Buyer", [`optional.${kit.id}`]: "1", [`include.${kit.id}`]: "1", [`qty.${widget.id}`]: "4" });
  expect(first.status).toBe(303);
  const again = await post(`/q/${s.tokens.proposed}/accept`, { revisionId: p.revision.id, acceptedByName: "Bea Buyer", [`optional.${kit.id}`]: "1", [`qty.${widget.id}`]: "9" });
  expect(again.status).toBe(200);
  expect(await again.text()).toContain("the changes you just made were not applied");
  const same = await post(`/q/${s.tokens.proposed}/accept`, { revisionId: p.revision.id, acceptedByName: "Bea Buyer", [`optional.${kit.id}`]: "1", [`include.${kit.id}`]: "1", [`qty.${widget.id}`]: "4" });
  expect(same.status).toBe(303);
});

test("request form: add and remove rows without JavaScript (values kept), name and phone onto the customer, a thank-you with the reference and what was sent", async () => {
  const url = `/q/request/${s.formToken}`;
  const form = await (await fetch(`${s.t.url}${url}`)).text();
  for (const f of ['name="name"', 'name="phone"', 'type="tel"', 'name="items.0.name"', 'id="add-row"']) expect(form).toContain(f);
  expect(form).not.toContain('name="items.1.name"');
  const loadedAt = /name="formLoadedAt" value="(\d+)"/.exec(form)![1];
  const base = { formLoadedAt: loadedAt, rows: "1", email: "rows@globex.example", name: "Dana Rows", phone: "+1 555 0199", message: "Quote please", "items.0.name": "Bolts", "items.0.quantity": "500" };
  const added = await (await post(url, { ...base, addRow: "1" })).text();
  expect(added).toContain('name="items.1.name"');
  expect(added).toContain('value="Bolts"');
  expect(added).toContain('value="Dana Rows"');
  const three = { ...base, rows: "3", "items.1.name": "Nuts", "items.1.quantity": "200", "items.2.name": "Washers", "items.2.quantity": "300" };
  const removed = await (await post(url, { ...three, removeRow: "1" })).text();
  expect(removed).not.toContain('value="Nuts"');
  expect(removed).toMatch(/name="items\.1\.name"[^>]*value="Washers"/);
  expect(removed).not.toContain('name="items.2.name"');
  const sent = await post(url, three);
  expect(sent.status).toBe(200);
  const done = (await sent.text()).replace(/<!-- -->/g, "");
  const number = /Request (Q-\d+) sent/.exec(done)?.[1];
  expect(number).toBeDefined();
  for (const text of ["Thank you, Dana Rows", `Your reference number is ${number}`, "Bolts × 500", "Nuts × 200", "Washers × 300", "Quote please"]) expect(done).toContain(text);
  const c = await s.t.deps.prisma.customer.findFirstOrThrow({ where: { email: "rows@globex.example" } });
  expect([c.name, c.phone]).toEqual(["Dana Rows", "+1 555 0199"]);
  // an existing customer's name is never overwritten; an empty phone is filled
  const api = await s.api("POST", "quote-requests", { body: { formToken: s.formToken, email: "buyer@globex.example", name: "Someone Else", phone: "+1 555 0142", message: "More", formLoadedAt: 0 } });
  expect(api.status).toBe(202);
  expect(api.body.data).toEqual({ received: true });
  const b = await s.t.deps.prisma.customer.findFirstOrThrow({ where: { email: "buyer@globex.example" } });
  expect([b.name, b.phone]).toEqual(["Bea Buyer", "+1 555 0142"]);
});

test("a merchant-declined request (never issued): declined with the merchant's reason, never 'preparing your offer'", async () => {
  const r = await s.api("POST", "quote-requests", { body: { formToken: s.formToken, email: "nooffer@globex.example", message: "Anything for us?", formLoadedAt: 0 } });
  expect(r.status).toBe(202);
  const q = (await s.api("GET", "quotes?q=nooffer@globex.example", { key: s.demo.apiKey })).body.data[0];
  expect((await s.api("PATCH", `quotes/${q.id}`, { key: s.demo.apiKey, body: { status: "declined", declinedReason: "Out of stock until spring." } })).status).toBe(200);
  const html = (await (await fetch(`${s.t.url}/q/${q.shareToken}`)).text()).replace(/<!-- -->/g, "");
  expect(notices(html)).toEqual(['class="notice bad"']);
  expect(html).toContain("Their reason: Out of stock until spring.");
  expect(html).not.toContain("preparing");
});

test("GraphQL reads the same order, invoice, changes, expiry and decline as REST", async () => {
  const gql = gqlClient(s.t.url);
  for (const state of ["convertedNet", "proposed", "expired", "declinedBuyer"]) {
    const g = await gql(QuoteLinkPageDocument, { shareToken: s.tokens[state] });
    expect(g.errors ?? []).toEqual([]);
    const rest = await link(state);
    const { invoice, ...order } = rest.order ?? { invoice: null };
    expect(g.data!.quoteLink.order).toEqual(rest.order ? { ...order, invoice: invoice && { ...invoice, downloadUrl: expect.stringContaining("/invoice/download?token=") } } : null);
    expect(g.data!.quoteLink.quote).toEqual({ status: rest.quote.status, expired: rest.quote.expired, declinedBy: rest.quote.declinedBy, declinedReason: rest.quote.declinedReason });
    expect(g.data!.quoteLink.revision!.changes).toEqual(rest.revision.changes);
  }
});
