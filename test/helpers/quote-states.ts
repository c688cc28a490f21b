// One quote in each state a buyer can meet on the quote page (issue 35), made through the public API the way a
// merchant and a buyer would: proposed (a second revision, so "what changed" shows), expired before the hourly job,
// declined by the buyer and by the merchant (with reasons), requested, accepted with the deposit unpaid, converted on
// net terms (order and invoice numbers) and converted on deposit terms (deposit paid, balance due). Payments go
// through POST /checkout-sessions/{id}/complete with the test processor, never through the checkout page.
import { termsHash } from "../../src/checkout/checkout-complete.service";
import type { BootstrapResult } from "../../src/platform/bootstrap.service";
import { FixedClock } from "../../src/shared/clock";
import { startTestApp, type TestApp } from "./app";
import { client } from "./http";

export const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const SHIP = { addressLine1: "40 Dock Road", addressLine2: "Bay 7", city: "Portland", stateProvince: "OR", postalCode: "97201", countryCode: "US" };
export const LINES = [
  { name: "Industrial widget", referenceId: "W-100", unitPrice: 150000, quantity: 4, qtyEditable: true, sku: "W-100" },
  { name: "Gadget upgrade kit with extended warranty", referenceId: "G-200", unitPrice: 250000, optional: true },
  { name: "On-site setup", referenceId: "S-1", unitPrice: 1000000, type: "service", description: "Half a day, by our engineer" },
];

export interface QuoteStates {
  t: TestApp;
  api: ReturnType<typeof client>;
  demo: BootstrapResult;
  clock: FixedClock;
  tokens: Record<string, string>;
  ids: Record<string, string>;
  formToken: string;
  brandToken: string;
}

export async function makeQuoteStates(): Promise<QuoteStates> {
  const clock = new FixedClock(new Date("2026-11-20T10:00:00Z"));
  const t = (await startTestApp({ clock, env: { QUOTE_REQUEST_MIN_FILL_MS: "0", RATE_LIMIT_QUOTE_REQUESTS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off", RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  const api = client(t.url);
  const demo = await t.bootstrap();
  const key = demo.apiKey;
  await api("PATCH", `applications/${demo.applicationId}`, {
    key,
    body: {
      name: "Acme Supplies",
      brandColor: "#0a5bd3",
      seller: { legalName: "Acme Supplies LLC", address: { addressLine1: "500 Industrial Pkwy", city: "Dayton", stateProvince: "OH", postalCode: "45402", countryCode: "US" }, taxId: "EIN 12-3456789", email: "sales@acme.example", phone: "+1 555 0100", paymentInstructions: "ACH to Acme Bank, routing 000000000, account 123456." },
    },
  });
  await api("POST", "customers", { key, body: { email: "buyer@globex.example", name: "Bea Buyer", company: "Globex Corporation", billingAddress: ADDRESS, shippingAddress: SHIP } });

  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const create = async (name: string, extra: Record<string, unknown> = {}) => {
    const c = await api("POST", "quotes", { key, body: { customerEmail: "buyer@globex.example", companyName: "Globex Corporation", buyerReference: "PO-4471", items: LINES, notes: "Prices include packaging.", terms: "Delivery within 3 weeks of payment.", ...extra } });
    if (c.status !== 201) throw new Error(`${name}: ${JSON.stringify(c.body)}`);
    ids[name] = c.body.data.id;
    return c.body.data.id as string;
  };
  const issue = async (name: string, id: string) => {
    const r = await api("POST", `quotes/${id}/issue`, { key, body: {} });
    if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
    tokens[name] = r.body.data.quote.shareToken;
    return r.body.data as { quote: any; revision: any };
  };
  const accept = async (name: string, revisionId: string, extra: Record<string, unknown> = {}) => {
    const r = await api("POST", `quote-links/${tokens[name]}/accept`, { body: { revisionId, acceptedByName: "Bea Buyer", acceptedByEmail: "bea@globex.example", ...extra } });
    if (r.status !== 200) throw new Error(`${name}: ${JSON.stringify(r.body)}`);
    return r.body.data.checkoutUrl.split("/").pop() as string;
  };

  // proposed, revision 2: the widget repriced, the setup line removed, a training line added
  const p = await create("proposed");
  await issue("proposed", p);
  await api("POST", `quotes/${p}/comments`, { key, body: { body: "Happy to help with the install.", visibility: "shared" } });
  await api("POST", `quote-links/${tokens.proposed}/comments`, { body: { body: "Can you do better on the widgets?", authorName: "Bea Buyer" } });
  const w = (await api("POST", `quotes/${p}/revisions`, { key, body: {} })).body.data;
  const items = w.items.filter((i: any) => i.name !== "On-site setup").map((i: any) => (i.name === "Industrial widget" ? { ...i, unitPrice: 140000 } : i));
  await api("PATCH", `quotes/${p}/revisions/${w.id}`, { key, body: { items: [...items.map(({ id, name, unitPrice, quantity, optional, qtyEditable, sku, referenceId, type }: any) => ({ id, name, unitPrice, quantity, optional, qtyEditable, sku, referenceId, type })), { name: "Operator training", referenceId: "T-1", unitPrice: 300000, type: "service" }] } });
  await issue("proposed", p);

  // declined by the buyer, declined by the merchant, requested
  await issue("declinedBuyer", await create("declinedBuyer"));
  await api("POST", `quote-links/${tokens.declinedBuyer}/decline`, { body: { reason: "We went with a local supplier." } });
  const dm = await create("declinedMerchant");
  await issue("declinedMerchant", dm);
  await api("PATCH", `quotes/${dm}`, { key, body: { status: "declined", declinedReason: "We no longer ship to your region." } });
  const form = (await api("POST", "quote-request-forms", { key, body: { name: "RFQ", fields: { lineItems: true, targetPrice: true } } })).body.data;
  const requested = await api("POST", "quote-requests", { body: { formToken: form.formToken, email: "req@globex.example", companyName: "Globex Corporation", message: "Need 40 widgets by March.", items: [{ name: "Industrial widget", quantity: 40 }], formLoadedAt: 0 } });
  if (requested.status !== 202) throw new Error(`requested: ${JSON.stringify(requested.body)}`);
  const rq = (await api("GET", "quotes?q=req@globex.example", { key })).body.data[0];
  ids.requested = rq.id;
  tokens.requested = rq.shareToken;

  // accepted with a deposit (unpaid): a widget fewer, the optional kit left out
  const dep = { paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "percent", value: 25 } };
  const a = await issue("accepted", await create("accepted", dep));
  const [widget, kit] = a.revision.items;
  await accept("accepted", a.revision.id, { itemSelections: [{ itemId: widget.id, quantity: 3 }, { itemId: kit.id, selected: false }] });

  // converted on net terms (order and invoice numbers) and on deposit terms (deposit paid, balance due)
  const n = await issue("convertedNet", await create("convertedNet", { paymentTerms: { mode: "net_terms", netN: 30 } }));
  const ns = await accept("convertedNet", n.revision.id);
  const net30Acceptance = { termsHash: termsHash("Net 30"), acceptedAt: clock.now().toISOString(), companyName: "Globex Corporation", billingEmail: "ap@globex.example" };
  const paidNet = await api("POST", `checkout-sessions/${ns}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, billingAddress: ADDRESS, net30Acceptance } });
  if (paidNet.status !== 200) throw new Error(`convertedNet: ${JSON.stringify(paidNet.body)}`);
  const d = await issue("convertedDeposit", await create("convertedDeposit", dep));
  const ds = await accept("convertedDeposit", d.revision.id);
  const paidDep = await api("POST", `checkout-sessions/${ds}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
  if (paidDep.status !== 200) throw new Error(`convertedDeposit: ${JSON.stringify(paidDep.body)}`);

  // expired: past expiresAt, the hourly job not run (the quote is still `proposed` in the database)
  const e = await create("expired");
  await issue("expired", e);
  await api("PATCH", `quotes/${e}`, { key, body: { expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() } });
  clock.advance(61_000);

  return { t, api, demo, clock, tokens, ids, formToken: form.formToken, brandToken: tokens.proposed };
}

/** The merchant's brand colour changed (a light yellow, to prove text on it stays readable). */
export async function setBrand(s: QuoteStates, color: string) {
  await s.api("PATCH", `applications/${s.demo.applicationId}`, { key: s.demo.apiKey, body: { brandColor: color } });
}
