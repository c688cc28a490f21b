// Emails with content (issue 35 item 9): the quote email carries the lines (optional ones marked), the totals, the
// terms in words, the expiry, the link and the PDF link; invoice and receipt emails name the order number, the quote
// number and the PO (never a UUID), the lines, what was paid and what remains with its due date; comment emails name
// the commenter as they signed, or the seller for a rep; Reply-To is the rep who acted, else the seller's contact;
// the acceptance email goes to the person who accepted and to the quote's customer. And the latency: with the
// process's dispatcher running, a decline's email is rendered in the outbox within 5 seconds (polled).
import { findJob } from "../jobs/registry";
import { MailDispatcher } from "../src/mail/mail-sender";
import { renderEmail, SAMPLE_VARS, TEMPLATE_NAMES } from "../src/mail/templates";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { until } from "./helpers/until";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  const app = await api("PATCH", `applications/${demo.applicationId}`, {
    key: demo.apiKey,
    body: { seller: { legalName: "Acme Supplies LLC", email: "sales@acme-supplies.test" }, supportEmail: "support@acme-supplies.test" },
  });
  expect(app.status).toBe(200);
});
afterAll(() => t?.close());

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const LINES = [
  { name: "Industrial widget", unitPrice: 40000, quantity: 3 },
  { name: "On-site setup", unitPrice: 35000, quantity: 1, optional: true, type: "service" },
];
const drain = () => findJob("mail-dispatch")!.run({ deps: t.deps, deliveries: t.deliveries });
const mailsOf = (where: { quoteId?: string; paymentId?: string }, template: string) => t.deps.prisma.email.findMany({ where: { ...where, template }, orderBy: { createdAt: "asc" } });

async function issued(body: Record<string, unknown> = {}, cred: { key?: string; token?: string; headers?: Record<string, string> } = { key: demo.apiKey }) {
  const c = await api("POST", "quotes", { ...cred, body: { customerEmail: "buyer@buyerco.test", items: LINES, buyerReference: "PO-7781", shippingMode: "flat", shippingAmount: 2500, ...body } });
  expect(c.status).toBe(201);
  const i = await api("POST", `quotes/${c.body.data.id}/issue`, { ...cred, body: {} });
  expect(i.status).toBe(200);
  return i.body.data.quote;
}

test("the quote email: lines (optional marked), totals, terms in words, expiry, link and PDF link; Reply-To the seller's contact", async () => {
  const q = await issued();
  await drain();
  const [m] = await mailsOf({ quoteId: q.id }, "customer.quote_proposed");
  expect(m.status).toBe("kept");
  const text = m.text!;
  const appName = (await t.deps.prisma.application.findUniqueOrThrow({ where: { id: demo.applicationId } })).name;
  expect(m.subject).toBe(`Quote ${q.number} from ${appName}: USD 1,575.00`);
  for (const s of [
    "Industrial widget x 3: USD 1,200.00",
    "On-site setup x 1: USD 350.00 (Optional)",
    "Subtotal: USD 1,550.00",
    "Shipping: USD 25.00",
    "Tax: USD 0.00",
    "Total: USD 1,575.00",
    "Payment terms: Paid in full by card at checkout",
    "Your PO: PO-7781",
    `Valid until: ${new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(new Date(q.expiresAt))}`,
    q.buyerUrl,
    `/api/v1/quote-links/${q.shareToken}/pdf`,
  ])
    expect(text).toContain(s);
  expect(m.html).toContain("Download the quote as a PDF");
  expect(m.html).toContain("Review and accept");
  // an API key is no person: replies go to the seller's contact address
  expect(m.replyTo).toBe("sales@acme-supplies.test");
  const outbox = await api("GET", `emails?quoteId=${q.id}&template=customer.quote_proposed`, { key: demo.apiKey });
  expect(outbox.body.data[0]).toMatchObject({ replyTo: "sales@acme-supplies.test", status: "kept" });
});

test("a rep's own action replies to the rep; comments name the commenter as signed, or the seller for a rep", async () => {
  const rep = { token: demo.dashboardToken, headers: { "x-service-application-id": demo.applicationId, "x-service-environment-id": demo.environments.sandbox.id } };
  const q = await issued({}, rep);
  await api("POST", `quotes/${q.id}/comments`, { key: demo.apiKey, body: { body: "We can ship Monday", visibility: "shared" } });
  await api("POST", `quote-links/${q.shareToken}/comments`, { body: { body: "Great, thanks", authorName: "Bea from BuyerCo" } });
  await drain();
  const [proposed] = await mailsOf({ quoteId: q.id }, "customer.quote_proposed");
  const owner = await t.deps.prisma.user.findFirstOrThrow({ where: { members: { some: { workspaceId: demo.workspaceId, workspaceRole: "owner" } } } });
  expect(proposed.replyTo).toBe(owner.email);
  const [toBuyer] = await mailsOf({ quoteId: q.id }, "customer.quote_comment_added");
  expect(toBuyer.text!.split("\n")[0]).toBe("Acme Supplies LLC wrote");
  const [toTeam] = await mailsOf({ quoteId: q.id }, "admin.quote_comment_added");
  expect(toTeam.subject).toBe(`Bea from BuyerCo commented on ${q.number}`);
  expect(toTeam.replyTo).toBe("buyer@buyerco.test");
});

test("the acceptance email goes to the person who accepted and to the quote's customer, once each", async () => {
  const q = await issued();
  const rev = q.revisions.find((r: any) => r.id === q.currentRevisionId);
  const setup = rev.items.find((i: any) => i.name === "On-site setup");
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, {
    body: { revisionId: rev.id, acceptedByName: "Bea Buyer", acceptedByEmail: "Bea@BuyerCo.test", itemSelections: [{ itemId: setup.id, selected: false }] },
  });
  expect(acc.status).toBe(200);
  await drain();
  const [m] = await mailsOf({ quoteId: q.id }, "customer.quote_accepted");
  expect(m.toAddresses).toEqual(["bea@buyerco.test", "buyer@buyerco.test"]);
  expect(m.text).toContain("Total: USD 1,225.00");
  expect(m.text).not.toContain("On-site setup");
  // the same person as the customer: one address
  const q2 = await issued();
  await api("POST", `quote-links/${q2.shareToken}/accept`, { body: { revisionId: q2.currentRevisionId, acceptedByName: "Bea", acceptedByEmail: "buyer@buyerco.test" } });
  await drain();
  expect((await mailsOf({ quoteId: q2.id }, "customer.quote_accepted"))[0].toAddresses).toEqual(["buyer@buyerco.test"]);
});

test("deposit terms: the receipt and the balance invoice name order, quote and PO (no UUID), the lines, paid and what remains with its due date", async () => {
  const q = await issued({ paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "fixed", value: 50000 } });
  const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Bea Buyer" } });
  expect(acc.status).toBe(200);
  const sessionId = acc.body.data.checkoutUrl.split("/").pop();
  const pay = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
  expect(pay.status).toBe(200);
  await drain();
  const balance = await t.deps.prisma.payment.findFirstOrThrow({ where: { orderId: pay.body.data.orderId, method: "net30" } });
  const due = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(balance.dueDate!);

  const [receipt] = await mailsOf({ paymentId: pay.body.data.paymentId }, "customer.payment_receipt");
  expect(receipt.status).toBe("kept");
  const [invoice] = await mailsOf({ paymentId: balance.id }, "customer.net30_invoice_issued");
  expect(invoice.status).toBe("kept");
  for (const m of [receipt, invoice]) {
    expect(`${m.subject}\n${m.text}`.replace(/https?:\/\/\S+/g, "")).not.toMatch(UUID); // links aside
    expect(m.text).toMatch(/Order: [0-9A-F]{8}/);
    expect(m.text).toContain(`Quote: ${q.number}`);
    expect(m.text).toContain("Your PO: PO-7781");
    expect(m.text).toContain("Industrial widget x 3: USD 1,200.00");
    expect(m.text).toContain("Total: USD 1,575.00");
    expect(m.text).toContain("Paid: USD 500.00");
  }
  expect(receipt.text).toContain(`Balance due on: ${due}`);
  expect(receipt.text).toContain("Balance due: USD 1,075.00");
  expect(invoice.text).toContain(`Due: ${due}`);
  expect(invoice.text).toContain("Amount due: USD 1,075.00");
  expect(receipt.subject).toMatch(/^Receipt from .+: USD 500\.00 paid for order [0-9A-F]{8}$/);
  expect(receipt.text).toContain(`USD 1,075.00 remains, due on ${due}.`);
  expect(invoice.subject).toBe(`Invoice ${balance.invoiceNumber} from ${receipt.subject!.split(" from ")[1].split(":")[0]}: USD 1,075.00 due ${due}`);
  expect(invoice.text).toContain(`Invoice: ${balance.invoiceNumber}`);
});

test("latency: with the dispatcher running, a merchant decline's email is rendered in the outbox within 5 seconds", async () => {
  const mail = new MailDispatcher(t.deps).start();
  try {
    const q = await issued();
    const d = await api("PATCH", `quotes/${q.id}`, { key: demo.apiKey, body: { status: "declined", declinedReason: "Out of stock until March" } });
    expect(d.status).toBe(200);
    const listed = await until(
      async () => (await api("GET", `emails?quoteId=${q.id}&template=customer.quote_declined`, { key: demo.apiKey })).body.data[0],
      (e: any) => e?.status === "kept" && typeof e.html === "string",
      5_000,
    );
    expect(listed.html).toContain("Out of stock until March");
    expect(listed.to).toEqual(["buyer@buyerco.test"]);
  } finally {
    await mail.stop();
  }
});

// Last in the file: rendering every template blocks the event loop for seconds, and a kept-alive connection of the
// test's HTTP client can then race the server's idle timeout (ECONNRESET on the next request).
test("every template renders, with the facts block, under MJML's strict validation", async () => {
  const brand = { name: "Acme", legalName: "Acme Supplies LLC", logoUrl: null, brandColor: "#0a7d3b", supportEmail: "s@acme.test" };
  for (const name of TEMPLATE_NAMES) {
    const r = await renderEmail(name, SAMPLE_VARS, brand); // strict validation throws on any MJML error
    expect(r.html).toContain("<!doctype html>");
    expect(r.subject).not.toContain("{{");
    expect(r.text).toContain("Industrial widget x 3: USD 1,200.00");
    expect(r.html).toContain("On-site setup");
  }
});
