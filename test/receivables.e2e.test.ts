// Receivables: Net-N invoices (INV-{seq} issued with the authorization, the PDF read back with pdftotext, the signed
// URL, resend, the buyer's token download and its expiry), every invoice error code over REST and GraphQL, the
// invoice-overdue and authorization-expiry sweeps, aging buckets against due dates, and the buyer emails (invoice
// issued, payment receipts on every capture) read back from the Email rows.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { findJob } from "../jobs/registry";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { formatDay } from "../src/shared/dates";
import { type BootstrapLike, startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { acceptance, ADDRESS, cardCheckout, netCheckout, openSession, pdfText } from "./helpers/receivables";
import { InvoiceDownloadUrlDocument, InvoicePdfUrlDocument, ReceivablePaymentDocument, ResendInvoiceDocument } from "./generated/graphql";

type Api = ReturnType<typeof client>;
const PDFTOTEXT = "/usr/bin/pdftotext";
const DAY = 86_400_000;
const START = new Date("2026-03-02T12:00:00.000Z");

let t: TestApp;
let api: Api;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let other: BootstrapLike;
let clock: FixedClock;
const jobs = () => ({ deps: t.deps, deliveries: t.deliveries });
const emailsOf = (paymentId: string, template?: string) => t.deps.prisma.email.findMany({ where: { paymentId, ...(template ? { template } : {}) }, orderBy: { createdAt: "asc" } });
const tokenOf = (invoiceUrl: string) => new URL(invoiceUrl).searchParams.get("token")!;

beforeAll(async () => {
  clock = new FixedClock(START);
  t = (await startTestApp({ clock, worker: false }))!;
  api = client(t.url);
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("receivables-other");
});
afterAll(() => t?.close());

describe("Net-N invoices", () => {
  let net: { orderId: string; paymentId: string };
  let invoiceUrl: string;

  test("completion issues INV-{seq} (consecutive), emails the buyer the download link; the PDF shows number, due date and amount", async () => {
    if (!existsSync(PDFTOTEXT)) throw new Error("pdftotext is missing: apt-get install -y poppler-utils");
    net = await netCheckout(api, demo.apiKey, 10);
    const second = await netCheckout(api, demo.apiKey, 45, "ar@other.test");
    const p1 = (await api("GET", `payments/${net.paymentId}`, { key: demo.apiKey })).body.data;
    const p2 = (await api("GET", `payments/${second.paymentId}`, { key: demo.apiKey })).body.data;
    expect(p1).toMatchObject({ status: "authorized", method: "net30", invoiceNumber: expect.stringMatching(/^INV-\d+$/), net_n: 10 });
    expect(Number(p2.invoiceNumber.slice(4))).toBe(Number(p1.invoiceNumber.slice(4)) + 1);
    const authorized = await t.deps.prisma.event.findFirstOrThrow({ where: { type: "payment.authorized", data: { path: ["paymentId"], equals: net.paymentId } } });
    expect(authorized.data).toMatchObject({ invoiceNumber: p1.invoiceNumber });

    const [mail] = await emailsOf(net.paymentId, "customer.net30_invoice_issued");
    expect(mail).toMatchObject({ audience: "buyer", toAddresses: ["ap@acme.test"], orderId: net.orderId, status: "queued" });
    const vars = mail.vars as Record<string, string>;
    expect(vars).toMatchObject({ invoiceNumber: p1.invoiceNumber, amount: "USD 155.00", dueDate: "March 12, 2026" });
    invoiceUrl = vars.invoiceUrl;
    expect(invoiceUrl).toBe(`${t.url}/api/v1/payments/${net.paymentId}/invoice/download?token=${tokenOf(invoiceUrl)}`);

    // the mail job renders it with the button to the link
    await findJob("mail-dispatch")!.run(jobs());
    const sent = await t.deps.prisma.email.findUniqueOrThrow({ where: { id: mail.id } });
    expect(sent.status).toBe("kept");
    expect(sent.subject).toMatch(new RegExp(`^Invoice ${p1.invoiceNumber} from \\S`));
    expect(sent.text).toContain(invoiceUrl);
    expect(sent.text).toContain("due on March 12, 2026");

    const r = await api("GET", `payments/${net.paymentId}/invoice-pdf`, { key: demo.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data.url).toMatch(/\/files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const file = await fetch(r.body.data.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("application/pdf");
    expect(file.headers.get("content-disposition")).toContain(`filename="${p1.invoiceNumber}.pdf"`);
    const text = pdfText(Buffer.from(await file.arrayBuffer()));
    for (const s of [`Invoice ${p1.invoiceNumber}`, "Due date", "March 12, 2026", "Amount due", "USD 155.00", "Acme Corp", "ap@acme.test", "Widget", "Net 10"]) expect(text).toContain(s);
    const stored = await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: net.paymentId } });
    expect(stored.invoicePdfKey).toBe(`invoices/${demo.applicationId}/${net.paymentId}.pdf`);

    // signed for 15 minutes
    clock.advance(901_000);
    expect((await fetch(r.body.data.url)).status).toBe(404);

    // GraphQL: the same URL shape, and the number on Payment
    const g = await gql(InvoicePdfUrlDocument, { paymentId: net.paymentId }, { key: demo.apiKey });
    expect(g.data?.invoicePdfUrl).toMatch(/\/files\//);
    const gp = await gql(ReceivablePaymentDocument, { id: net.paymentId }, { key: demo.apiKey });
    expect(gp.data?.payment).toMatchObject({ invoiceNumber: p1.invoiceNumber, status: "authorized" });
  });

  test("the download token: 302 to the PDF; tampered, another payment's or expired 401 invalid_token; missing 400 missing_token (REST and GraphQL)", async () => {
    const token = tokenOf(invoiceUrl);
    const r = await fetch(invoiceUrl, { redirect: "manual" });
    expect(r.status).toBe(302);
    expect(r.headers.get("cache-control")).toBe("private, no-store");
    const file = await fetch(new URL(r.headers.get("location")!, t.url));
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString()).toBe("%PDF-");
    const g = await gql(InvoiceDownloadUrlDocument, { paymentId: net.paymentId, token }, {});
    expect(g.data?.invoiceDownloadUrl).toMatch(/\/files\//);

    const tampered = token.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    const forged = Buffer.from(JSON.stringify({ p: net.paymentId, e: 4_000_000_000 })).toString("base64url") + "." + token.split(".")[1];
    for (const bad of [tampered, forged, "garbage", "a.b.c", "x".repeat(600)]) {
      const res = await api("GET", `payments/${net.paymentId}/invoice/download?token=${encodeURIComponent(bad)}`);
      expect([bad, res.status, res.body.error.code]).toEqual([bad, 401, "invalid_token"]);
    }
    expect(codeOf(await gql(InvoiceDownloadUrlDocument, { paymentId: net.paymentId, token: tampered }, {}))).toBe("invalid_token");
    // a valid token names its payment: it opens no other
    const card = await cardCheckout(api, demo.apiKey);
    expect((await api("GET", `payments/${card.paymentId}/invoice/download?token=${token}`)).body.error.code).toBe("invalid_token");
    expect((await api("GET", `payments/not-a-uuid/invoice/download?token=${token}`)).status).toBe(401);

    const missing = await api("GET", `payments/${net.paymentId}/invoice/download`);
    expect([missing.status, missing.body.error.code]).toEqual([400, "missing_token"]);
    expect((await api("GET", `payments/${net.paymentId}/invoice/download?token=`)).body.error.code).toBe("missing_token");
    expect((await api("GET", `payments/${net.paymentId}/invoice/download?token=a&token=b`)).status).toBe(400);
    expect(codeOf(await gql(InvoiceDownloadUrlDocument, { paymentId: net.paymentId }, {}))).toBe("missing_token");

    // valid for the Net-N term (10 days) from when it was minted, then 401
    clock.advance(10 * DAY - 901_000 - 1000);
    expect((await fetch(invoiceUrl, { redirect: "manual" })).status).toBe(302);
    clock.advance(2000);
    const expired = await api("GET", `payments/${net.paymentId}/invoice/download?token=${token}`);
    expect([expired.status, expired.body.error.code]).toEqual([401, "invalid_token"]);
    expect(codeOf(await gql(InvoiceDownloadUrlDocument, { paymentId: net.paymentId, token }, {}))).toBe("invalid_token");
  });

  test("resend queues customer.net30_invoice_issued with a fresh link and answers its messageId (REST and GraphQL)", async () => {
    const r = await api("POST", `payments/${net.paymentId}/invoice/resend`, { key: demo.apiKey });
    expect(r.status).toBe(200);
    const row = await t.deps.prisma.email.findUniqueOrThrow({ where: { id: r.body.data.messageId } });
    expect(row).toMatchObject({ template: "customer.net30_invoice_issued", paymentId: net.paymentId, toAddresses: ["ap@acme.test"] });
    const fresh = (row.vars as Record<string, string>).invoiceUrl;
    expect((await fetch(fresh, { redirect: "manual" })).status).toBe(302);
    const listed = await api("GET", `emails?paymentId=${net.paymentId}&template=customer.net30_invoice_issued`, { key: demo.apiKey });
    expect(listed.body.data.map((e: any) => e.id)).toContain(r.body.data.messageId);
    expect(listed.body.data.every((e: any) => e.paymentId === net.paymentId && e.orderId === net.orderId)).toBe(true);
    const g = await gql(ResendInvoiceDocument, { paymentId: net.paymentId }, { key: demo.apiKey });
    expect(g.data?.resendInvoice.messageId).toEqual(expect.any(String));
    expect(g.data?.resendInvoice.messageId).not.toBe(r.body.data.messageId);
    expect(await emailsOf(net.paymentId, "customer.net30_invoice_issued")).toHaveLength(3);
  });

  test("every invoice error code over REST and GraphQL: not_invoice, pdf_not_ready, no_recipient, email_not_configured", async () => {
    const both = async (paymentId: string, key: string) => {
      const pdf = await api("GET", `payments/${paymentId}/invoice-pdf`, { key });
      const resend = await api("POST", `payments/${paymentId}/invoice/resend`, { key });
      const gPdf = await gql(InvoicePdfUrlDocument, { paymentId }, { key });
      const gResend = await gql(ResendInvoiceDocument, { paymentId }, { key });
      return { pdf: [pdf.status, pdf.body.error?.code ?? null], resend: [resend.status, resend.body.error?.code ?? null], gPdf: codeOf(gPdf) ?? null, gResend: codeOf(gResend) ?? null };
    };
    const card = await cardCheckout(api, demo.apiKey);
    expect(await both(card.paymentId, demo.apiKey)).toEqual({ pdf: [409, "not_invoice"], resend: [409, "not_invoice"], gPdf: "not_invoice", gResend: "not_invoice" });

    const tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
    // a Net-N payment whose invoice is not issued yet (still pending: no number)
    const pending = await t.deps.prisma.payment.create({ data: { ...tenant, amount: 1000, currency: "USD", method: "net30", processor: "test", status: "pending", netN: 30 } });
    expect(await both(pending.id, demo.apiKey)).toEqual({ pdf: [409, "pdf_not_ready"], resend: [409, "pdf_not_ready"], gPdf: "pdf_not_ready", gResend: "pdf_not_ready" });

    // an issued invoice with no buyer address anywhere (no acceptance email, no order)
    const orphan = await t.deps.prisma.payment.create({ data: { ...tenant, amount: 1000, currency: "USD", method: "net30", processor: "test", status: "authorized", netN: 30, invoiceNumber: "INV-900001", dueDate: new Date("2026-04-01") } });
    const nr = await both(orphan.id, demo.apiKey);
    expect(nr).toEqual({ pdf: [200, null], resend: [409, "no_recipient"], gPdf: null, gResend: "no_recipient" });

    // production without SMTP_URL: nothing would reach the buyer
    const prodKey = (await mintKeyVia(api, demo, ["*"], demo.environments.production.id)).rawKey;
    const prod = await t.deps.prisma.payment.create({
      data: { applicationId: demo.applicationId, environmentId: demo.environments.production.id, amount: 1000, currency: "USD", method: "net30", processor: "test", status: "authorized", netN: 30, invoiceNumber: "INV-1", metadata: { net30Acceptance: { billingEmail: "ap@prod.test" } } },
    });
    const nc = await both(prod.id, prodKey);
    expect(nc.resend).toEqual([409, "email_not_configured"]);
    expect(nc.gResend).toBe("email_not_configured");
    // sandbox keys never see the production row, nor production keys the sandbox one
    expect((await api("GET", `payments/${prod.id}/invoice-pdf`, { key: demo.apiKey })).status).toBe(404);
    expect((await api("GET", `payments/${net.paymentId}/invoice-pdf`, { key: prodKey })).status).toBe(404);
  });

  test("503 storage_unavailable when the file store fails (REST and GraphQL)", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "inv-store-"));
    writeFileSync(path.join(dataDir, "files"), "not a directory"); // every read and write under files/ fails
    const broken = (await startTestApp({ worker: false, env: { DATA_DIR: dataDir } }))!;
    try {
      const bapi = client(broken.url);
      const bdemo = await broken.bootstrap();
      const n = await netCheckout(bapi, bdemo.apiKey, 30);
      const r = await bapi("GET", `payments/${n.paymentId}/invoice-pdf`, { key: bdemo.apiKey });
      expect([r.status, r.body.error.code]).toEqual([503, "storage_unavailable"]);
      expect(codeOf(await gqlClient(broken.url)(InvoicePdfUrlDocument, { paymentId: n.paymentId }, { key: bdemo.apiKey }))).toBe("storage_unavailable");
      const [mail] = await broken.deps.prisma.email.findMany({ where: { paymentId: n.paymentId, template: "customer.net30_invoice_issued" } });
      const d = await bapi("GET", `payments/${n.paymentId}/invoice/download?token=${tokenOf((mail.vars as Record<string, string>).invoiceUrl)}`);
      expect([d.status, d.body.error.code]).toEqual([503, "storage_unavailable"]);
    } finally {
      await broken.close();
    }
  });

  test("cross-tenant ids are 404 and missing scopes 403 on the invoice routes; payments:read or invoices:read reads the PDF", async () => {
    for (const [m, p] of [["GET", `payments/${net.paymentId}/invoice-pdf`], ["POST", `payments/${net.paymentId}/invoice/resend`]] as const) {
      const r = await api(m, p, { key: other.apiKey });
      expect([p, r.status, r.body.error.code]).toEqual([p, 404, "not_found"]);
    }
    expect(codeOf(await gql(InvoicePdfUrlDocument, { paymentId: net.paymentId }, { key: other.apiKey }))).toBe("not_found");
    expect(codeOf(await gql(ResendInvoiceDocument, { paymentId: net.paymentId }, { key: other.apiKey }))).toBe("not_found");
    const ordersOnly = (await mintKeyVia(api, demo, ["orders:read"])).rawKey;
    for (const [m, p] of [["GET", `payments/${net.paymentId}/invoice-pdf`], ["POST", `payments/${net.paymentId}/invoice/resend`]] as const) {
      const r = await api(m, p, { key: ordersOnly });
      expect([p, r.status, r.body.error.code]).toEqual([p, 403, "insufficient_scopes"]);
    }
    expect(codeOf(await gql(InvoicePdfUrlDocument, { paymentId: net.paymentId }, { key: ordersOnly }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(ResendInvoiceDocument, { paymentId: net.paymentId }, { key: ordersOnly }))).toBe("insufficient_scopes");
    const invoicesRead = (await mintKeyVia(api, demo, ["invoices:read"])).rawKey;
    expect((await api("GET", `payments/${net.paymentId}/invoice-pdf`, { key: invoicesRead })).status).toBe(200);
    expect((await api("POST", `payments/${net.paymentId}/invoice/resend`, { key: invoicesRead })).status).toBe(403);
    const invoicesWrite = (await mintKeyVia(api, demo, ["invoices:write"])).rawKey;
    expect((await api("POST", `payments/${net.paymentId}/invoice/resend`, { key: invoicesWrite })).status).toBe(200);
    // no key at all
    expect((await api("GET", `payments/${net.paymentId}/invoice-pdf`)).status).toBe(401);
    // bad ids are 404, never 5xx
    for (const id of ["nope", "00000000-0000-0000-0000-000000000000", "%E0%A4%A"]) {
      const r = await api("GET", `payments/${id}/invoice-pdf`, { key: demo.apiKey, validate: false });
      expect(r.status).toBeLessThan(500);
      expect(r.status).toBeGreaterThanOrEqual(400);
    }
    expect((await api("POST", `payments/${net.paymentId}/invoice/resend`, { key: demo.apiKey, raw: "{oops" })).status).toBeLessThan(500);
  });
});

describe("quote deposit terms", () => {
  test("the balance invoice gets the next INV number and its email when the deposit is paid; the deposit gets a receipt; its PDF shows the deposit paid", async () => {
    const c = await api("POST", "quotes", { key: demo.apiKey, body: { customerEmail: "dep@example.com", items: [{ name: "Kit", unitPrice: 20000, type: "service" }], paymentTerms: { mode: "deposit_balance", balanceNetN: 45 }, deposit: { type: "percent", value: 25 } } });
    expect(c.status).toBe(201);
    const q = (await api("POST", `quotes/${c.body.data.id}/issue`, { key: demo.apiKey, body: {} })).body.data.quote;
    const acc = await api("POST", `quote-links/${q.shareToken}/accept`, { body: { revisionId: q.currentRevisionId, acceptedByName: "Dee" } });
    expect(acc.status).toBe(200);
    const before = await t.deps.prisma.documentCounter.findUnique({ where: { applicationId_environmentId_name: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, name: "invoice" } } });
    const done = await api("POST", `checkout-sessions/${acc.body.data.checkoutUrl.split("/").pop()}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", billingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    const payments = await t.deps.prisma.payment.findMany({ where: { orderId: done.body.data.orderId }, orderBy: { createdAt: "asc" } });
    expect(payments.map((p) => [p.method, p.status, p.amount, p.invoiceNumber])).toEqual([
      ["card", "captured", 5000, null],
      ["net30", "authorized", 15000, `INV-${(before?.lastSeq ?? 0) + 1}`],
    ]);
    const balance = payments[1];
    const [mail] = await emailsOf(balance.id, "customer.net30_invoice_issued");
    expect(mail).toMatchObject({ toAddresses: ["dep@example.com"] });
    expect(mail.vars).toMatchObject({ invoiceNumber: balance.invoiceNumber, amount: "USD 150.00" });
    expect((await emailsOf(payments[0].id, "customer.payment_receipt")).map((e) => e.vars)).toEqual([expect.objectContaining({ amount: "USD 50.00" })]);
    const url = (await api("GET", `payments/${balance.id}/invoice-pdf`, { key: demo.apiKey })).body.data.url;
    const text = pdfText(Buffer.from(await (await fetch(url)).arrayBuffer()));
    for (const s of [`Invoice ${balance.invoiceNumber}`, "Deposit paid", "-USD 50.00", "Amount due", "USD 150.00", "Net 45", formatDay(balance.dueDate!)]) expect(text).toContain(s);
  });
});

describe("sweeps and aging", () => {
  test("invoice-overdue: invoice.overdue once over two runs, status stays authorized; the authorization sweep never emits it", async () => {
    const n = await netCheckout(api, demo.apiKey, 10);
    const overdue = () => t.deps.prisma.event.findMany({ where: { type: "invoice.overdue", data: { path: ["paymentId"], equals: n.paymentId } } });
    expect(await findJob("invoice-overdue")!.run(jobs())).toMatch(/invoice\(s\) newly overdue/);
    expect(await overdue()).toHaveLength(0);
    clock.advance(10 * DAY); // due today: not yet overdue
    await findJob("invoice-overdue")!.run(jobs());
    expect(await overdue()).toHaveLength(0);
    clock.advance(DAY);
    await findJob("payment-authorization-expiry")!.run(jobs());
    expect(await overdue()).toHaveLength(0);
    await findJob("invoice-overdue")!.run(jobs());
    await findJob("invoice-overdue")!.run(jobs());
    const evs = await overdue();
    expect(evs).toHaveLength(1);
    const p = (await api("GET", `payments/${n.paymentId}`, { key: demo.apiKey })).body.data;
    expect(evs[0].data).toMatchObject({ paymentId: n.paymentId, orderId: n.orderId, invoiceNumber: p.invoiceNumber, dueDate: p.metadata.dueDate });
    expect(p.status).toBe("authorized");
    expect((await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: n.paymentId } })).overdueNotifiedAt).not.toBeNull();
  });

  test("aging buckets follow days past the due date (the injectable clock): 0_30, 31_60, 61_90, 90_plus; paid invoices leave them", async () => {
    const n = await netCheckout(api, demo.apiKey, 5);
    const fresh = await netCheckout(api, demo.apiKey, 60);
    const bucket = async () => {
      const found: string[] = [];
      for (const b of ["0_30", "31_60", "61_90", "90_plus"]) {
        const r = await api("GET", `payments?aging=${b}&order_id=${n.orderId}`, { key: demo.apiKey });
        expect(r.status).toBe(200);
        if (r.body.data.some((p: any) => p.id === n.paymentId)) found.push(b);
      }
      return found;
    };
    const freshAged = async () => {
      let hits = 0;
      for (const b of ["0_30", "31_60", "61_90", "90_plus"]) hits += (await api("GET", `payments?aging=${b}&order_id=${fresh.orderId}`, { key: demo.apiKey })).body.data.length;
      return hits;
    };
    expect(await bucket()).toEqual([]); // due in 5 days
    expect(await freshAged()).toBe(0); // not due yet: in no bucket
    const steps: [number, string][] = [[5, "0_30"], [30, "0_30"], [1, "31_60"], [29, "31_60"], [1, "61_90"], [29, "61_90"], [1, "90_plus"]];
    let past = -5;
    for (const [days, want] of steps) {
      clock.advance(days * DAY);
      past += days;
      expect([past, await bucket()]).toEqual([past, [want]]);
    }
    const r = await api("GET", `payments?aging=90_plus&method=net30`, { key: demo.apiKey });
    expect(r.body.data.map((p: any) => p.id)).toContain(n.paymentId);
    expect((await api("GET", `payments?aging=31_60&order_id=${fresh.orderId}`, { key: demo.apiKey })).body.data.map((p: any) => p.id)).toEqual([fresh.paymentId]);
    // marked paid: out of every bucket
    expect((await api("POST", `payments/${n.paymentId}/capture`, { key: demo.apiKey, body: {} })).status).toBe(200);
    expect((await api("GET", `payments?aging=90_plus&order_id=${n.orderId}`, { key: demo.apiKey })).body.data).toHaveLength(0);
    expect((await api("GET", "payments?aging=12_34", { key: demo.apiKey })).status).toBe(422);
  });

  test("payment-authorization-expiry: a lapsed card authorization becomes expired through the machine, with payment.expired once", async () => {
    const c = await cardCheckout(api, demo.apiKey, "tok_visa_authorize");
    expect(c.paymentStatus).toBe("authorized");
    const expired = () => t.deps.prisma.event.findMany({ where: { type: "payment.expired", data: { path: ["paymentId"], equals: c.paymentId } } });
    await findJob("payment-authorization-expiry")!.run(jobs());
    expect(await expired()).toHaveLength(0);
    clock.advance(7 * DAY + 1000);
    expect(await findJob("payment-authorization-expiry")!.run(jobs())).toMatch(/^expired [1-9]\d* authorization/);
    await findJob("payment-authorization-expiry")!.run(jobs());
    const evs = await expired();
    expect(evs).toHaveLength(1);
    expect(evs[0].data).toMatchObject({ paymentId: c.paymentId, orderId: c.orderId, status: "expired", method: "card", amount: 15500, authorizedAmount: 15500 });
    expect((await api("GET", `payments/${c.paymentId}`, { key: demo.apiKey })).body.data.status).toBe("expired");
    const order = (await api("GET", `orders/${c.orderId}`, { key: demo.apiKey })).body.data;
    expect(order.paymentStatus).toBe("expired");
    expect((await api("POST", `payments/${c.paymentId}/capture`, { key: demo.apiKey, body: {} })).status).toBe(409);
  });
});

describe("buyer emails", () => {
  const receipts = (paymentId: string) => emailsOf(paymentId, "customer.payment_receipt");

  test("a receipt on every capture: hosted card, a later capture, 3-D Secure, Net-N mark-paid, embedded checkout; once per payment", async () => {
    const hosted = await cardCheckout(api, demo.apiKey, "tok_visa", "hosted@example.com");
    const [r1] = await receipts(hosted.paymentId);
    expect(r1).toMatchObject({ audience: "buyer", toAddresses: ["hosted@example.com"], orderId: hosted.orderId, status: "queued" });
    expect(r1.vars).toMatchObject({ amount: "USD 155.00", paymentMethod: "card", orderId: hosted.orderId });

    const later = await cardCheckout(api, demo.apiKey, "tok_visa_authorize", "later@example.com");
    expect(await receipts(later.paymentId)).toHaveLength(0);
    expect((await api("POST", `payments/${later.paymentId}/capture`, { key: demo.apiKey, body: { amount: 10000 } })).status).toBe(200);
    const [r2] = await receipts(later.paymentId);
    expect(r2).toMatchObject({ toAddresses: ["later@example.com"] });
    expect(r2.vars).toMatchObject({ amount: "USD 100.00" });

    const threeDs = await cardCheckout(api, demo.apiKey, "tok_3ds_required", "3ds@example.com");
    expect(await receipts(threeDs.paymentId)).toHaveLength(0);
    expect((await api("POST", `test-processor/payments/${threeDs.paymentId}/resolve`, { key: demo.apiKey, body: { outcome: "captured" } })).status).toBe(200);
    expect((await receipts(threeDs.paymentId)).map((e) => e.toAddresses)).toEqual([["3ds@example.com"]]);

    const net = await netCheckout(api, demo.apiKey, 30, "pay@acme.test");
    expect(await receipts(net.paymentId)).toHaveLength(0);
    expect((await api("POST", `payments/${net.paymentId}/capture`, { key: demo.apiKey, body: {} })).status).toBe(200);
    const [r4] = await receipts(net.paymentId);
    expect(r4).toMatchObject({ toAddresses: ["pay@acme.test"] });
    expect(r4.vars).toMatchObject({ paymentMethod: "invoice (Net terms)", amount: "USD 155.00" });

    const embed = await api("POST", "checkout-sessions/embed-token", { key: demo.apiKey, body: { amount: 2599, currency: "USD" } });
    const done = await api("POST", `checkout-sessions/${embed.body.data.checkoutSessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", email: "Embed@Example.com" } });
    expect(done.status).toBe(200);
    const [r5] = await receipts(done.body.data.paymentId);
    expect(r5).toMatchObject({ toAddresses: ["embed@example.com"] });
    expect(r5.vars).toMatchObject({ amount: "USD 25.99" });

    // the mail job renders a receipt with the merchant's name
    await findJob("mail-dispatch")!.run(jobs());
    const rendered = await t.deps.prisma.email.findUniqueOrThrow({ where: { id: r1.id } });
    expect(rendered.status).toBe("kept");
    expect(rendered.text).toContain("received USD 155.00 by card");
    expect(rendered.subject).toMatch(/^Receipt from .+: USD 155\.00 paid for order [0-9A-F]{8}$/);
  });

  test("the two templates are editable per application and preview", async () => {
    for (const name of ["customer.payment_receipt", "customer.net30_invoice_issued"]) {
      const pv = await api("POST", `email-templates/${name}/preview`, { key: demo.apiKey, body: {} });
      expect(pv.status).toBe(200);
      expect(pv.body.data.html).toContain("<html");
    }
    const put = await api("PUT", "email-templates/customer.net30_invoice_issued", { key: demo.apiKey, body: { subject: "Bill {{invoiceNumber}} due {{dueDate}}" } });
    expect(put.status).toBe(200);
    const pv = await api("POST", "email-templates/customer.net30_invoice_issued/preview", { key: demo.apiKey, body: { vars: { invoiceNumber: "INV-7", dueDate: "May 1, 2026" } } });
    expect(pv.body.data.subject).toBe("Bill INV-7 due May 1, 2026");
    const n = await netCheckout(api, demo.apiKey, 30);
    await findJob("mail-dispatch")!.run(jobs());
    const [mail] = await emailsOf(n.paymentId, "customer.net30_invoice_issued");
    const p = (await api("GET", `payments/${n.paymentId}`, { key: demo.apiKey })).body.data;
    expect(mail.subject).toBe(`Bill ${p.invoiceNumber} due ${(mail.vars as Record<string, string>).dueDate}`);
    await api("DELETE", "email-templates/customer.net30_invoice_issued", { key: demo.apiKey });
  });
});

describe("on PostgreSQL", () => {
  postgresPassTest("invoice numbers stay gap-free and unique under 20 concurrent Net-N completions", async () => {
    const sessions: string[] = [];
    for (let i = 0; i < 20; i++) sessions.push(await openSession(api, demo.apiKey, { allowedMethods: ["net30"], paymentTerms: { netN: 30 } }));
    const done = await Promise.all(sessions.map((s) => api("POST", `checkout-sessions/${s}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: acceptance() } })));
    expect(done.map((d) => d.status)).toEqual(sessions.map(() => 200));
    const all = await t.deps.prisma.payment.findMany({ where: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, invoiceNumber: { not: null }, NOT: { invoiceNumber: { startsWith: "INV-9000" } } } });
    const seqs = all.map((p) => Number(p.invoiceNumber!.slice(4))).sort((a, b) => a - b);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1)); // 1..N: no gap, no repeat
  });
});
