// The mail subsystem and the quote lifecycle emails (quotes.md part 6): every template renders under MJML's strict
// validation and escapes what it is given; emails are queued with what caused them and sent by the mail job through
// a real SMTP server (smtp-server, in process) or kept in the outbox without SMTP_URL; a job run twice sends nothing
// twice; templates are editable and previewable per application; and the hourly quote-expiry job warns at 48 h and
// 24 h, expires, and re-arms on re-issue, with the injectable clock.
import { simpleParser } from "mailparser";
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { findJob } from "../jobs/registry";
import { EMAIL_TEMPLATES, renderEmail, SAMPLE_VARS, TEMPLATE_NAMES } from "../src/mail/templates";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

interface Received {
  to: string[];
  subject: string;
  html: string;
  text: string;
}
let smtp: SMTPServer;
let smtpPort: number;
let received: Received[] = [];
let refuseNext = 0;

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let clock: FixedClock;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, cb) {
      if (refuseNext > 0) {
        refuseNext--;
        stream.resume();
        stream.on("end", () => cb(Object.assign(new Error("mailbox unavailable"), { responseCode: 450 })));
        return;
      }
      simpleParser(stream)
        .then((m) => {
          const to = (Array.isArray(m.to) ? m.to : m.to ? [m.to] : []).flatMap((a) => a.value.map((v) => v.address ?? ""));
          received.push({ to, subject: m.subject ?? "", html: typeof m.html === "string" ? m.html : "", text: m.text ?? "" });
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", r));
  smtpPort = (smtp.server.address() as AddressInfo).port;
  clock = new FixedClock(new Date("2026-12-01T09:00:00Z"));
  t = (await startTestApp({ clock, env: { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  await api("PATCH", `applications/${demo.applicationId}`, { key: demo.apiKey, body: { supportEmail: "sales@acme.test", brandColor: "#0a7d3b", logoUrl: "https://cdn.example.com/acme.png" } });
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const dispatch = () => findJob("mail-dispatch")!.run({ deps: t.deps, deliveries: t.deliveries });
const expiryJob = () => findJob("quote-expiry")!.run({ deps: t.deps, deliveries: t.deliveries });
const LINES = [{ name: "Widget", unitPrice: 1500, quantity: 2 }];

async function issued(body: Record<string, unknown> = {}) {
  const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "mailbuyer@example.com", items: LINES, ...body } });
  const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  return q;
}
const emailsOf = async (quoteId: string) => t.deps.prisma.email.findMany({ where: { quoteId }, orderBy: { createdAt: "asc" } });

test("every template renders under MJML's strict validation, branded, and escapes every value and the merchant's own text", async () => {
  expect(TEMPLATE_NAMES).toHaveLength(20);
  const brand = { name: "Acme <Supplies>", logoUrl: "https://cdn.example.com/a.png", brandColor: "#123456", supportEmail: "s@acme.test" };
  for (const name of TEMPLATE_NAMES) {
    const r = await renderEmail(name, { ...SAMPLE_VARS, customerEmail: 'eve"<script>alert(1)</script>@x.test', commentBody: "<img src=x onerror=alert(1)>" }, brand);
    expect(r.html).toMatch(/^<!doctype html>/i);
    expect(r.html).not.toMatch(/<script>alert/);
    expect(r.html).not.toContain("<img src=x");
    expect(r.html).toContain("#123456");
    expect(r.html).toContain("https://cdn.example.com/a.png");
    expect(r.html).toContain("Acme &lt;Supplies&gt;");
    expect(r.subject).not.toMatch(/[\r\n]/);
    expect(r.text.length).toBeGreaterThan(10);
    if (EMAIL_TEMPLATES[name].cta) expect(r.html).toContain(SAMPLE_VARS[EMAIL_TEMPLATES[name].cta!]!);
  }
  const custom = await renderEmail("customer.quote_proposed", SAMPLE_VARS, brand, { body: "<b>bold</b> {{quoteNumber}}" });
  expect(custom.html).toContain("&lt;b&gt;bold&lt;/b&gt; Q-1042");
});

test("issuing queues customer.quote_proposed; the mail job sends it over SMTP once, branded, with the link; a second run sends nothing", async () => {
  received = [];
  const q = await issued();
  const queued = await emailsOf(q.id);
  expect(queued.map((e) => [e.template, e.status, e.toAddresses])).toEqual([["customer.quote_proposed", "queued", ["mailbuyer@example.com"]]]);
  expect(await dispatch()).toMatch(/^sent [1-9]/);
  expect(await dispatch()).toBe("sent 0, kept 0, retried 0, failed 0");
  const mine = received.filter((m) => m.subject.includes(q.number));
  expect(mine).toHaveLength(1);
  const appName = (await api("GET", `applications/${demo.applicationId}`, { key: demo.apiKey })).body.data.name;
  expect(mine[0]).toMatchObject({ to: ["mailbuyer@example.com"], subject: `Quote ${q.number} from ${appName}: USD 30.00` });
  expect(mine[0].html).toContain(q.buyerUrl);
  expect(mine[0].html).toContain("#0a7d3b");
  expect(mine[0].text).toContain("USD 30.00");
  const sent = await emailsOf(q.id);
  expect(sent[0]).toMatchObject({ status: "sent", attempts: 1, sentAt: expect.any(Date) });
  const outbox = await api("GET", `emails?quoteId=${q.id}`, { key: demo.apiKey });
  expect(outbox.body.data[0]).toMatchObject({ template: "customer.quote_proposed", status: "sent", to: ["mailbuyer@example.com"], subject: mine[0].subject });
});

test("each quote moment queues its emails; internal comments none; the merchant team is the application's supportEmail", async () => {
  received = [];
  const q = await issued();
  await api("POST", `quotes/${q.id}/comments`, { key: demo.apiKey, body: { body: "internal only", visibility: "internal" } });
  await api("POST", `quotes/${q.id}/comments`, { key: demo.apiKey, body: { body: "We can ship Monday", visibility: "shared" } });
  await api("POST", `quote-links/${q.shareToken}/comments`, { body: { body: "Great, thanks" } });
  await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Bea" } });
  const templates = (await emailsOf(q.id)).map((e) => e.template);
  expect(templates).toEqual(["customer.quote_proposed", "customer.quote_comment_added", "admin.quote_comment_added", "customer.quote_accepted", "admin.quote_accepted"]);
  await dispatch();
  const adminMail = received.find((m) => m.subject.includes("commented on"))!;
  expect(adminMail.to).toEqual(["sales@acme.test"]);
  expect(adminMail.text).toContain("Great, thanks");
  for (const m of received) expect(m.html + m.text).not.toContain("internal only");
  const accepted = received.find((m) => m.subject === `Quote ${q.number} accepted: USD 30.00`)!;
  expect(accepted.html).toContain("/checkout/");

  const d = await issued();
  await api("PATCH", `quotes/${d.id}`, { key: demo.apiKey, body: { status: "declined", declinedReason: "Out of stock" } });
  const declined = (await emailsOf(d.id)).find((e) => e.template === "customer.quote_declined")!;
  expect((declined.vars as any).reason).toBe("Out of stock");
});

test("a refused send is retried with backoff and then sent; without SMTP_URL emails are kept, rendered, in the outbox", async () => {
  await dispatch(); // earlier tests' emails, so that the refusal below is this quote's
  received = [];
  const q = await issued();
  refuseNext = 1;
  expect(await dispatch()).toMatch(/retried 1/);
  const [e] = await emailsOf(q.id);
  expect(e).toMatchObject({ status: "queued", attempts: 1, lastError: expect.stringContaining("mailbox unavailable") });
  expect(await dispatch()).toMatch(/^sent 0/); // not due yet
  clock.advance(61_000);
  expect(await dispatch()).toMatch(/^sent 1/);
  expect(received.filter((m) => m.subject.includes(q.number))).toHaveLength(1);

  const plain = (await startTestApp({ env: {} }))!;
  try {
    const pa = client(plain.url);
    const pd = await plain.bootstrap();
    const c = await pa("POST", "quotes", { key: pd.apiKey, body: { customerEmail: "kept@example.com", items: LINES } });
    await pa("POST", `quotes/${c.body.data.id}/issue`, { key: pd.apiKey, body: {} });
    expect(await findJob("mail-dispatch")!.run({ deps: plain.deps, deliveries: plain.deliveries })).toMatch(/kept 1/);
    const list = await pa("GET", "emails?status=kept", { key: pd.apiKey });
    expect(list.body.data[0]).toMatchObject({ template: "customer.quote_proposed", status: "kept", to: ["kept@example.com"], html: expect.stringContaining("<!doctype html>") });
  } finally {
    await plain.close();
  }
});

test("templates: list, edit with placeholders (unknown ones 422), preview, reset; scopes and tenancy", async () => {
  const list = await api("GET", "email-templates", { key: demo.apiKey });
  expect(list.body.data).toHaveLength(TEMPLATE_NAMES.length);
  const put = await api("PUT", "email-templates/customer.quote_proposed", { key: demo.apiKey, body: { subject: "Offer {{quoteNumber}} inside", ctaLabel: "See it" } });
  expect(put.status).toBe(200);
  expect(put.body.data).toMatchObject({ customized: true, subject: "Offer {{quoteNumber}} inside", ctaLabel: "See it", defaults: { subject: "Quote {{quoteNumber}} from {{merchantName}}: {{total}}" } });
  const bad = await api("PUT", "email-templates/customer.quote_proposed", { key: demo.apiKey, body: { body: "Hi {{firstName}}" } });
  expect([bad.status, bad.body.error.code, bad.body.error.details.issues[0].path]).toEqual([422, "validation_error", ["body"]]);
  const preview = await api("POST", "email-templates/customer.quote_proposed/preview", { key: demo.apiKey, body: { vars: { quoteNumber: "Q-77" } } });
  expect(preview.body.data.subject).toBe("Offer Q-77 inside");
  expect(preview.body.data.html).toContain("See it");
  received = [];
  const q = await issued();
  await dispatch();
  expect(received.map((m) => m.subject)).toContain(`Offer ${q.number} inside`);
  const ro = await mintKeyVia(api, demo, ["applications:read"]);
  expect((await api("PUT", "email-templates/customer.quote_proposed", { key: ro.rawKey, body: { subject: "x" } })).status).toBe(403);
  const other = await t.otherWorkspace("mail-other");
  expect((await api("GET", "email-templates/customer.quote_proposed", { key: other.apiKey })).body.data.customized).toBe(false);
  expect((await api("GET", "emails", { key: other.apiKey })).body.data).toHaveLength(0);
  expect((await api("GET", "email-templates/nope", { key: demo.apiKey })).status).toBe(404);
  const reset = await api("DELETE", "email-templates/customer.quote_proposed", { key: demo.apiKey });
  expect(reset.body.data).toMatchObject({ customized: false, subject: "Quote {{quoteNumber}} from {{merchantName}}: {{total}}" });
});

test("quote-expiry: the rep warned at 48 h and the buyer at 24 h, once each; expiry at expiresAt; twice sends nothing twice; re-issue re-arms", async () => {
  await expiryJob(); // whatever earlier tests left
  const q = await issued({ expiresAt: new Date(clock.now().getTime() + 72 * 3600_000).toISOString() });
  await dispatch(); // the offer's own email
  const templates = async () => (await emailsOf(q.id)).map((e) => e.template).filter((n) => n !== "customer.quote_proposed");
  await expiryJob();
  expect(await templates()).toEqual([]);
  clock.advance(25 * 3600_000); // 47 h left
  expect(await expiryJob()).toMatch(/1 rep and 0 buyer/);
  expect(await expiryJob()).toMatch(/0 rep and 0 buyer/);
  expect(await templates()).toEqual(["admin.quote_expiring"]);
  clock.advance(24 * 3600_000); // 23 h left
  await expiryJob();
  await expiryJob();
  expect(await templates()).toEqual(["admin.quote_expiring", "customer.quote_expiring"]);
  clock.advance(23 * 3600_000 + 1);
  expect(await expiryJob()).toMatch(/^expired 1/);
  expect(await expiryJob()).toMatch(/^expired 0/);
  // the two expired emails are queued in one statement with one createdAt: their order between them is not defined
  expect((await templates()).sort()).toEqual(["admin.quote_expired", "admin.quote_expiring", "customer.quote_expired", "customer.quote_expiring"]);
  const m = (await api("GET", `quotes/${q.id}`, { key: demo.apiKey })).body.data;
  expect(m.status).toBe("expired");
  expect(await t.deps.prisma.event.count({ where: { type: "quote.expired", data: { path: ["quoteId"], equals: q.id } } })).toBe(1);
  received = [];
  await dispatch();
  await dispatch();
  expect(received.filter((x) => x.subject.includes(q.number)).length).toBe(4); // each once

  // Re-issue at the same link: proposed again, reminders re-armed for the new revision.
  await api("POST", `quotes/${q.id}/revisions`, { key: demo.apiKey, body: {} });
  await api("PATCH", `quotes/${q.id}`, { key: demo.apiKey, body: { expiresAt: new Date(clock.now().getTime() + 40 * 3600_000).toISOString() } });
  const re = (await api("POST", `quotes/${q.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
  expect([re.status, re.shareToken]).toEqual(["proposed", q.shareToken]);
  expect(await expiryJob()).toMatch(/1 rep and 0 buyer/);
  expect((await templates()).filter((n) => n === "admin.quote_expiring")).toHaveLength(2);
});
