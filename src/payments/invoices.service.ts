// Net-N invoices after issue: the PDF (pdfmake, rendered on first request and stored; Payment.invoicePdfKey), its
// signed URL for the merchant, the buyer's token download, and resending customer.net30_invoice_issued.
//
// Codes: 409 not_invoice (not a net30 payment), 409 pdf_not_ready (a net30 payment whose invoice is not issued yet:
// no number), 409 no_recipient (neither a billing email nor an order email), 409 email_not_configured (a production
// environment while this deployment has no SMTP_URL: nothing would reach the buyer; non-production environments keep
// the email in the outbox, GET /emails), 503 storage_unavailable (the file store failed: nothing to sign), 400
// missing_token / 401 invalid_token (the download token).
import { randomUUID } from "node:crypto";
import type { Content, TDocumentDefinitions } from "pdfmake/interfaces";
import type { Order, OrderLineItem, Payment } from "../generated/prisma/client";
import { requireSecretOrDashboard, requireTenant } from "../platform/auth.service";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors } from "../shared/errors";
import { formatMoney } from "../shared/money";
import { renderPdf } from "../shared/pdf";
import { hasScope } from "../shared/scopes";
import { storageFor } from "../shared/storage";
import { invoiceRecipient, queueInvoiceEmail, verifyInvoiceToken } from "./invoice-issue";
import { formatDate } from "./receipts";
import { isUuid } from "../shared/ids";

/** The merchant's signed URL (GET /payments/{id}/invoice-pdf). */
export const INVOICE_URL_TTL_SECONDS = 900;
/** Where a buyer's download link redirects: long enough to start the download. */
export const DOWNLOAD_URL_TTL_SECONDS = 300;

/** Either scope of a pair (e.g. payments:read or invoices:read); 403 naming both otherwise. */
function requireAnyScope(ctx: Ctx, scopes: string[]) {
  const p = requireSecretOrDashboard(ctx);
  if (!scopes.some((s) => hasScope(p.scopes, s))) throw errors.insufficientScopes(scopes);
  return p;
}

async function tenantPayment(ctx: Ctx, id: string): Promise<Payment> {
  const t = requireTenant(ctx);
  const p = isUuid(id) ? await ctx.db.payment.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!p) throw errors.notFound("Payment");
  return p;
}

/** not_invoice / pdf_not_ready, in that order. */
function requireIssued(p: Payment): asserts p is Payment & { invoiceNumber: string } {
  if (p.method !== "net30") throw new DomainError("not_invoice", 409, `This is a ${p.method} payment, not a Net-N invoice`, { method: p.method });
  if (!p.invoiceNumber) throw new DomainError("pdf_not_ready", 409, `The invoice is not issued yet (the payment is ${p.status}); its PDF exists once it is`, { status: p.status });
}

const storageUnavailable = (e: unknown) => {
  console.error("[invoices] storage failed", e);
  return new DomainError("storage_unavailable", 503, "The file store is unavailable; try again shortly");
};

type InvoiceData = { payment: Payment & { invoiceNumber: string }; order: (Order & { lineItems: OrderLineItem[] }) | null; merchant: { name: string; settings: unknown } };

export function invoiceDocument({ payment: p, order, merchant }: InvoiceData): TDocumentDefinitions {
  const money = (n: number) => formatMoney(n, p.currency);
  const brand = ((merchant.settings ?? {}) as { brandColor?: string; supportEmail?: string }).brandColor;
  const color = brand && /^#[0-9a-fA-F]{6}$/.test(brand) ? brand : "#1f2937";
  const meta = (p.metadata ?? {}) as { invoiceIssuedAt?: string; dueDate?: string; kind?: string; net30Acceptance?: { companyName?: string; billingEmail?: string } };
  const issued = meta.invoiceIssuedAt ? new Date(meta.invoiceIssuedAt) : p.createdAt;
  const due = p.dueDate ? p.dueDate.toISOString().slice(0, 10) : (meta.dueDate ?? null);
  const billTo = [meta.net30Acceptance?.companyName, meta.net30Acceptance?.billingEmail ?? order?.email].filter(Boolean).join("\n") || "—";
  const lines = (order?.lineItems ?? []).sort((a, b) => a.position - b.position);
  const paid = order ? order.total - order.compAmount - p.amount : 0;
  const body: Content[] = [
    { text: merchant.name, style: "merchant", color },
    { text: `Invoice ${p.invoiceNumber}`, style: "title" },
    {
      columns: [
        { text: [{ text: "Bill to\n", style: "label" }, billTo], width: "*" },
        {
          text: [
            { text: "Invoice number\n", style: "label" },
            `${p.invoiceNumber}\n`,
            { text: "Issued\n", style: "label" },
            `${issued.toISOString().slice(0, 10)}\n`,
            { text: "Due date\n", style: "label" },
            due ? `${due} (${formatDate(due)})` : "—",
            ...(order ? [{ text: "\nOrder\n", style: "label" }, order.id] : []),
          ],
          width: "auto",
        },
      ],
      margin: [0, 8, 0, 16],
    },
  ];
  if (lines.length) {
    body.push({
      table: {
        headerRows: 1,
        widths: ["*", "auto", "auto", "auto"],
        body: [
          [
            { text: "Item", style: "th" },
            { text: "Qty", style: "th", alignment: "right" },
            { text: "Unit price", style: "th", alignment: "right" },
            { text: "Amount", style: "th", alignment: "right" },
          ],
          ...lines.map((l) => [l.name, { text: String(l.quantity), alignment: "right" as const }, { text: money(l.unitPrice), alignment: "right" as const }, { text: money(l.unitPrice * l.quantity), alignment: "right" as const }]),
        ],
      },
      layout: "lightHorizontalLines",
    });
  }
  body.push({
    table: {
      widths: ["*", "auto"],
      body: [
        ...(order
          ? [
              ["Subtotal", { text: money(order.subtotal), alignment: "right" as const }],
              ...(order.discountTotal ? [["Discount", { text: `-${money(order.discountTotal)}`, alignment: "right" as const }]] : []),
              ...(order.shippingTotal ? [["Shipping", { text: money(order.shippingTotal), alignment: "right" as const }]] : []),
              ...(order.taxTotal ? [["Tax", { text: money(order.taxTotal), alignment: "right" as const }]] : []),
              ["Order total", { text: money(order.total), alignment: "right" as const }],
              ...(paid > 0 ? [[meta.kind === "balance" ? "Deposit paid" : "Paid or credited", { text: `-${money(paid)}`, alignment: "right" as const }]] : []),
            ]
          : []),
        [{ text: "Amount due", bold: true }, { text: money(p.amount), alignment: "right", bold: true }],
      ],
    },
    layout: "noBorders",
    margin: [220, 12, 0, 12],
  });
  body.push({ text: [{ text: "Payment terms: ", bold: true }, `Net ${p.netN ?? 30}: ${money(p.amount)} due by ${due ?? "—"}`], margin: [0, 0, 0, 8] });
  return {
    info: { title: p.invoiceNumber, author: merchant.name, subject: `Invoice ${p.invoiceNumber}` },
    pageSize: "A4",
    pageMargins: [40, 48, 40, 48],
    content: body,
    defaultStyle: { font: "Roboto", fontSize: 10 },
    styles: { merchant: { fontSize: 16, bold: true }, title: { fontSize: 13, margin: [0, 4, 0, 0] }, label: { fontSize: 8, color: "#6b7280" }, th: { bold: true } },
    footer: (page, pages) => ({ text: `${p.invoiceNumber} · page ${page} of ${pages}`, alignment: "center", fontSize: 8, color: "#6b7280" }),
  };
}

/**
 * The stored PDF's key, rendering and storing it on first request. Two first requests may both render; the file is
 * written whole (rename) under one key, so either copy serves.
 */
async function ensureInvoicePdf(ctx: Ctx, p: Payment & { invoiceNumber: string }): Promise<string> {
  const storage = storageFor(ctx.deps.config);
  const key = p.invoicePdfKey ?? `invoices/${p.applicationId}/${p.id}.pdf`;
  let present: boolean;
  try {
    present = p.invoicePdfKey !== null && (await storage.get(key)) !== null;
  } catch (e) {
    throw storageUnavailable(e);
  }
  if (present) return key;
  const [order, merchant] = await Promise.all([
    p.orderId ? ctx.db.order.findUnique({ where: { id: p.orderId }, include: { lineItems: true } }) : null,
    ctx.db.application.findUniqueOrThrow({ where: { id: p.applicationId }, select: { name: true, settings: true } }),
  ]);
  const bytes = await renderPdf(invoiceDocument({ payment: p, order, merchant }));
  try {
    await storage.put(key, bytes, "application/pdf");
  } catch (e) {
    throw storageUnavailable(e);
  }
  if (p.invoicePdfKey === null) await ctx.db.payment.updateMany({ where: { id: p.id, invoicePdfKey: null }, data: { invoicePdfKey: key } });
  return key;
}

async function signedPdfUrl(ctx: Ctx, p: Payment & { invoiceNumber: string }, ttlSeconds: number) {
  const key = await ensureInvoicePdf(ctx, p);
  try {
    return await storageFor(ctx.deps.config).signedUrl(key, { filename: `${p.invoiceNumber}.pdf`, contentType: "application/pdf", ttlSeconds, now: ctx.clock.now() });
  } catch (e) {
    throw storageUnavailable(e);
  }
}

/** GET /payments/{id}/invoice-pdf -> { url } signed for 15 minutes (payments:read or invoices:read). */
export async function invoicePdfUrl(ctx: Ctx, id: string) {
  requireAnyScope(ctx, ["payments:read", "invoices:read"]);
  const p = await tenantPayment(ctx, id);
  requireIssued(p);
  return { url: await signedPdfUrl(ctx, p, INVOICE_URL_TTL_SECONDS) };
}

/** POST /payments/{id}/invoice/resend -> { messageId }: queues customer.net30_invoice_issued with a fresh link. */
export async function resendInvoice(ctx: Ctx, id: string) {
  const principal = requireAnyScope(ctx, ["payments:write", "invoices:write"]);
  const p = await tenantPayment(ctx, id);
  requireIssued(p);
  if (principal.environment.kind === "production" && !ctx.deps.config.SMTP_URL) {
    throw new DomainError("email_not_configured", 409, "Email delivery is not configured (SMTP_URL) for this production environment; the invoice cannot be sent");
  }
  const order = p.orderId ? await ctx.db.order.findUnique({ where: { id: p.orderId }, select: { email: true } }) : null;
  if (!invoiceRecipient(p, order?.email)) throw new DomainError("no_recipient", 409, "Neither the Net-N acceptance nor the order has a buyer email to send the invoice to");
  const messageId = randomUUID();
  await withTx(ctx, async (tx) => {
    queueInvoiceEmail(tx, p, `invoice-resend:${messageId}`, messageId);
  });
  return { messageId };
}

/**
 * GET /payments/{id}/invoice/download?token= (no key; the token is the authority) -> a short-lived signed URL of the
 * PDF. 400 missing_token; 401 invalid_token for an altered or expired token, or one for another payment.
 */
export async function invoiceDownloadTarget(ctx: Ctx, id: string, token: unknown) {
  if (typeof token !== "string" || token === "") throw new DomainError("missing_token", 400, "The token query parameter is required");
  const granted = verifyInvoiceToken(ctx.deps.config, token, ctx.clock.now());
  const invalid = () => new DomainError("invalid_token", 401, "The download link is invalid or has expired; ask the merchant to resend the invoice");
  if (!granted || granted !== id) throw invalid();
  const p = await ctx.db.payment.findUnique({ where: { id: granted } });
  if (!p || p.method !== "net30" || !p.invoiceNumber) throw invalid();
  return signedPdfUrl(ctx, p as Payment & { invoiceNumber: string }, DOWNLOAD_URL_TTL_SECONDS);
}
