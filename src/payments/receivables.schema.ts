// GraphQL for receivables and disputes: the invoice and dispute fields of Payment, the invoice PDF URL, the buyer's
// token download, resend, and the dispute mutations. Same services (and error codes) as REST.
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { disputePayment, openTestDispute, resolvePaymentDispute } from "./disputes.service";
import { invoiceDownloadTarget, invoicePdfUrl, resendInvoice } from "./invoices.service";
import { PaymentRef } from "./payments.schema";
import { paymentView } from "./payments.service";

type Outcome = "merchant_won" | "buyer_won";
const DisputeOutcomeEnum = describedEnum<Outcome>("DisputeOutcome", "How a dispute ended", {
  merchant_won: "The merchant won: the flag is cleared, the money stays",
  buyer_won: "The buyer won: what was still captured is refunded and the flag is cleared",
});

builder.objectFields(PaymentRef, (t) => ({
  invoiceNumber: t.exposeString("invoiceNumber", { nullable: true, description: "Net-N invoices: INV-{seq}, gap-free per application and environment" }),
  disputeResolvedAt: t.field({ type: "DateTime", nullable: true, description: "When the last dispute was resolved", resolve: (p) => p.disputeResolvedAt }),
  disputeOutcome: t.field({ type: DisputeOutcomeEnum, nullable: true, description: "How the last dispute ended", resolve: (p) => p.disputeOutcome as Outcome | null }),
}));

const InvoiceResendRef = builder.objectRef<{ messageId: string }>("InvoiceResend").implement({
  description: "The queued customer.net30_invoice_issued email",
  fields: (t) => ({ messageId: t.exposeID("messageId", { description: "The email's id (emails query)" }) }),
});

const paymentId = "The payment's id";

builder.queryFields((t) => ({
  invoicePdfUrl: t.field({
    type: "String",
    description: "A Net-N invoice's PDF, as a URL signed for 15 minutes (payments:read or invoices:read)",
    authScopes: { secret: true },
    args: { paymentId: t.arg.id({ required: true, description: paymentId }) },
    resolve: async (_r, a, ctx) => (await invoicePdfUrl(ctx, String(a.paymentId))).url,
  }),
  invoiceDownloadUrl: t.field({
    type: "String",
    description: "Keyless: the buyer's invoice link resolved to a short-lived signed PDF URL (REST answers 302 to it)",
    args: {
      paymentId: t.arg.id({ required: true, description: paymentId }),
      token: t.arg.string({ description: "The signed download token of the invoice email (missing: missing_token)" }),
    },
    resolve: (_r, a, ctx) => invoiceDownloadTarget(ctx, String(a.paymentId), a.token ?? undefined),
  }),
}));

builder.mutationFields((t) => ({
  resendInvoice: t.field({
    type: InvoiceResendRef,
    description: "Queues customer.net30_invoice_issued again with a fresh download link (payments:write or invoices:write)",
    authScopes: { secret: true },
    args: { paymentId: t.arg.id({ required: true, description: paymentId }) },
    resolve: (_r, a, ctx) => resendInvoice(ctx, String(a.paymentId)),
  }),
  disputePayment: t.field({
    type: PaymentRef,
    description: "Opens a dispute on a payment's captured money; the order reads disputed until it is resolved",
    authScopes: { scope: "payment_disputes:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), reason: t.arg.string({ required: true, description: "Why, 1 to 500 characters" }) },
    resolve: async (_r, a, ctx) => paymentView(await disputePayment(ctx, String(a.id), { reason: a.reason })),
  }),
  resolvePaymentDispute: t.field({
    type: PaymentRef,
    description: "Resolves the open dispute: merchant_won clears it; buyer_won refunds what is captured, then clears it",
    authScopes: { scope: "payment_disputes:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), outcome: t.arg({ type: DisputeOutcomeEnum, required: true, description: "Who won" }) },
    resolve: async (_r, a, ctx) => paymentView(await resolvePaymentDispute(ctx, String(a.id), { outcome: a.outcome })),
  }),
  openTestDispute: t.field({
    type: PaymentRef,
    description: "Test processor, non-production only: a chargeback arrives on a card payment, as a card network would send it",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), reason: t.arg.string({ description: "The network's reason (default fraudulent)" }) },
    resolve: async (_r, a, ctx) => paymentView(await openTestDispute(ctx, String(a.id), a.reason == null ? {} : { reason: a.reason })),
  }),
}));
