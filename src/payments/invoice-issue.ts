// Issuing a Net-N invoice (the net30 payment becoming authorized, at checkout or as a quote's balance): its gap-free
// number, the buyer's download token and the customer.net30_invoice_issued email. Kept apart from the invoice routes
// (invoices.service.ts) so that payments.service.ts can call it without an import cycle.
import type { Config } from "../config";
import type { Payment } from "../generated/prisma/client";
import { queueEmail } from "../mail/mail.service";
import type { Ctx } from "../shared/context";
import { formatMoney } from "../shared/money";
import { signToken, verifyToken } from "../shared/signed-token";
import { formatDate } from "./receipts";

const DAY_MS = 86_400_000;

/**
 * INV-{seq}, per application and environment, gap-free: the counter row is incremented in the issuing transaction,
 * so it stays locked until that commits (a concurrent issue waits) and a rollback gives the number back.
 */
export async function nextInvoiceNumber(tx: Ctx, t: { applicationId: string; environmentId: string }): Promise<string> {
  const { lastSeq } = await tx.sql
    .insertInto("DocumentCounter")
    .values({ applicationId: t.applicationId, environmentId: t.environmentId, name: "invoice", lastSeq: 1 })
    .onConflict((oc) => oc.columns(["applicationId", "environmentId", "name"]).doUpdateSet((eb) => ({ lastSeq: eb("DocumentCounter.lastSeq", "+", 1) })))
    .returning("lastSeq")
    .executeTakeFirstOrThrow();
  return `INV-${lastSeq}`;
}

// ---- the download token: a signed token (shared/signed-token.ts) carrying { p: payment id } ----------------------

/** How long a download link works: the payment's snapshotted Net-N term, clamped to 1..365 days. */
function tokenLifetimeMs(p: Pick<Payment, "netN">) {
  return Math.min(365, Math.max(1, p.netN ?? 30)) * DAY_MS;
}

function signInvoiceToken(config: Config, paymentId: string, expiresAt: Date): string {
  return signToken(config, "invoice-download.v1", { p: paymentId }, expiresAt);
}

/** The payment id a token grants, or null when it is malformed, altered or expired. */
export function verifyInvoiceToken(config: Config, token: string, now: Date): string | null {
  const g = verifyToken(config, "invoice-download.v1", token, now, 500);
  return typeof g?.p === "string" ? g.p : null;
}

/** The buyer's link: GET /api/v1/payments/{id}/invoice/download?token=…, valid for the Net-N term from now. */
export function invoiceDownloadUrl(ctx: Ctx, p: Pick<Payment, "id" | "netN">): string {
  const token = signInvoiceToken(ctx.deps.config, p.id, new Date(ctx.clock.now().getTime() + tokenLifetimeMs(p)));
  return `${ctx.deps.config.BASE_URL.replace(/\/+$/, "")}/api/v1/payments/${p.id}/invoice/download?token=${token}`;
}

/** The buyer of an invoice: the billing email accepted with the Net-N terms, else the order's email. */
export function invoiceRecipient(p: Pick<Payment, "metadata">, orderEmail: string | null | undefined): string | null {
  const billing = (p.metadata as { net30Acceptance?: { billingEmail?: unknown } } | null)?.net30Acceptance?.billingEmail;
  return typeof billing === "string" && billing ? billing.toLowerCase() : (orderEmail?.toLowerCase() ?? null);
}

/** Queues customer.net30_invoice_issued with a fresh download link (recipient resolved when the row is written). */
export function queueInvoiceEmail(tx: Ctx, p: Payment, cause: string, id?: string): string | null {
  return queueEmail(tx, p, {
    id,
    template: "customer.net30_invoice_issued",
    cause,
    toPaymentBuyer: true,
    paymentId: p.id,
    orderId: p.orderId,
    vars: {
      merchantName: "",
      invoiceNumber: p.invoiceNumber ?? undefined,
      amount: formatMoney(p.amount, p.currency),
      dueDate: p.dueDate ? formatDate(p.dueDate) : undefined,
      orderId: p.orderId ?? undefined,
      invoiceUrl: invoiceDownloadUrl(tx, p),
    },
  });
}
