// Net-N invoices after issue: the PDF (invoice-pdf.ts; rendered on first request and stored; Payment.invoicePdfKey), its
// signed URL for the merchant, the buyer's token download, and resending customer.net30_invoice_issued.
//
// Codes: 409 not_invoice (not a net30 payment), 409 pdf_not_ready (a net30 payment whose invoice is not issued yet:
// no number), 409 no_recipient (neither a billing email nor an order email), 409 email_not_configured (a production
// environment while this deployment has no SMTP_URL: nothing would reach the buyer; non-production environments keep
// the email in the outbox, GET /emails), 503 storage_unavailable (the file store failed: nothing to sign), 400
// missing_token / 401 invalid_token (the download token).
import { randomUUID } from "node:crypto";
import type { Payment } from "../generated/prisma/client";
import { requireSecretOrDashboard, requireTenant } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors } from "../shared/errors";
import { renderPdf } from "../shared/pdf";
import { hasScope } from "../shared/scopes";
import { storageFor } from "../shared/storage";
import { invoiceRecipient, queueInvoiceEmail, verifyInvoiceToken } from "./invoice-issue";
import { invoiceData, invoiceDocument } from "./invoice-pdf";
import { isUuid } from "../shared/ids";

/** The merchant's signed URL (GET /payments/{id}/invoice-pdf). */
const INVOICE_URL_TTL_SECONDS = 900;
/** Where a buyer's download link redirects: long enough to start the download. */
const DOWNLOAD_URL_TTL_SECONDS = 300;

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
  if (p.method !== "net30") throw new DomainError("not_invoice", `This is a ${p.method} payment, not a Net-N invoice`, { method: p.method });
  if (!p.invoiceNumber) throw new DomainError("pdf_not_ready", `The invoice is not issued yet (the payment is ${p.status}); its PDF exists once it is`, { status: p.status });
}

const storageUnavailable = (e: unknown) => {
  console.error("[invoices] storage failed", e);
  return new DomainError("storage_unavailable", "The file store is unavailable; try again shortly");
};

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
  const bytes = await renderPdf(invoiceDocument(await invoiceData(ctx, p)));
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
    throw new DomainError("email_not_configured", "Email delivery is not configured (SMTP_URL) for this production environment; the invoice cannot be sent");
  }
  const order = p.orderId ? await ctx.db.order.findUnique({ where: { id: p.orderId }, select: { email: true } }) : null;
  if (!invoiceRecipient(p, order?.email)) throw new DomainError("no_recipient", "Neither the Net-N acceptance nor the order has a buyer email to send the invoice to");
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
  if (typeof token !== "string" || token === "") throw new DomainError("missing_token", "The token query parameter is required");
  const granted = verifyInvoiceToken(ctx.deps.config, token, ctx.clock.now());
  const invalid = () => new DomainError("invalid_token", "The download link is invalid or has expired; ask the merchant to resend the invoice");
  if (!granted || granted !== id) throw invalid();
  const p = await ctx.db.payment.findUnique({ where: { id: granted } });
  if (!p || p.method !== "net30" || !p.invoiceNumber) throw invalid();
  return signedPdfUrl(ctx, p as Payment & { invoiceNumber: string }, DOWNLOAD_URL_TTL_SECONDS);
}
