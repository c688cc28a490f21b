// GraphQL for payments: the Payment type and its enums, reads, capture/refund/mark-failed and the test
// processor's 3-D Secure resolve. Same services and view as REST.
import { compact } from "../graphql/args";
import type { Transaction } from "../generated/prisma/client";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import type { PaymentStatus } from "./payment.machine";
import type { METHODS } from "./processor";
import {
  capturePayment,
  getPayment,
  listPayments,
  markPaymentFailed,
  paymentTransactions,
  paymentView,
  refundPayment,
  resolveTestPayment,
  type TransactionStatus,
  type TransactionType,
} from "./payments.service";

export type PaymentV = ReturnType<typeof paymentView>;
type Method = (typeof METHODS)[number] | "cash" | "bank_transfer" | "cheque" | "external";

export const PaymentMethodEnum = describedEnum<Method>("PaymentMethod", "How a buyer pays", {
  card: "A card through the card connector (sandbox test tokens: tok_visa, tok_card_declined, tok_3ds_required)",
  net30: "An invoice payable on Net-N terms through the invoice_terms connector",
  processor_proxy: "The buyer paid on the processor's own page: complete with processorTransactionId (recorded as a card payment)",
  cash: "Recorded by hand: cash (processor manual)",
  bank_transfer: "Recorded by hand: a bank transfer (processor manual)",
  cheque: "Recorded by hand: a cheque (processor manual)",
  external: "Recorded by hand: paid elsewhere (processor manual)",
});

export const PaymentStatusEnum = describedEnum<PaymentStatus>("PaymentStatus", "Where a payment is with the processor", {
  pending: "Created, not yet sent to the processor",
  processing: "Waiting on the buyer or processor, e.g. 3-D Secure",
  authorized: "Funds held (or an invoice issued); capture to collect",
  captured: "Collected",
  partially_refunded: "Collected, part of it refunded",
  refunded: "Collected and refunded in full",
  failed: "Declined or failed; error says why",
  voided: "The authorization was released",
  expired: "The authorization lapsed before capture",
});

const NetNSourceEnum = describedEnum<"cart_override" | "customer" | "default">("NetTermsSource", "Where a net30 payment's terms came from", {
  cart_override: "The checkout session's netN",
  customer: "The customer's own terms",
  default: "The default of 30 days",
});

const TransactionTypeEnum = describedEnum<TransactionType>("PaymentTransactionType", "What was asked of the processor", {
  authorization: "Hold the amount",
  capture: "Collect held funds",
  refund: "Return collected funds",
});
const TransactionStatusEnum = describedEnum<TransactionStatus>("PaymentTransactionStatus", "How the processor answered", {
  pending: "Not answered yet (e.g. waiting on 3-D Secure)",
  succeeded: "Done",
  failed: "Refused",
});

// GraphQL enum names cannot start with a digit: the REST buckets (0_30, …) are named days_0_30, … here.
const AgingEnum = builder.enumType("InvoiceAging", {
  description: "Unpaid invoices by days past due",
  values: {
    days_0_30: { value: "0_30", description: "0 to 30 days past due (REST: 0_30)" },
    days_31_60: { value: "31_60", description: "31 to 60 days (REST: 31_60)" },
    days_61_90: { value: "61_90", description: "61 to 90 days (REST: 61_90)" },
    days_90_plus: { value: "90_plus", description: "More than 90 days (REST: 90_plus)" },
  } as const,
});

const PaymentErrorRef = builder.objectRef<{ code: string; message: string | null }>("PaymentError").implement({
  description: "Why a payment failed",
  fields: (t) => ({
    code: t.exposeString("code", { description: "Machine-readable reason, e.g. card_declined" }),
    message: t.exposeString("message", { nullable: true, description: "Human-readable reason" }),
  }),
});

export const PaymentRef = builder.objectRef<PaymentV>("Payment").implement({
  description: "Money moving for an order through one processor",
  fields: (t) => ({
    id: t.exposeID("id"),
    orderId: t.exposeID("orderId", { nullable: true, description: "The order it pays for" }),
    status: t.field({ type: PaymentStatusEnum, description: "Where it is with the processor", resolve: (p) => p.status as PaymentStatus }),
    amount: t.exposeInt("amount", { description: "What is being paid, in minor units" }),
    currency: t.exposeString("currency"),
    method: t.field({ type: PaymentMethodEnum, description: "card or net30", resolve: (p) => p.method as Method }),
    processor: t.exposeString("processor", { description: "The connector's provider, e.g. test" }),
    authorizedAmount: t.exposeInt("authorizedAmount", { description: "Held, in minor units" }),
    capturedAmount: t.exposeInt("capturedAmount", { description: "Collected, in minor units" }),
    refundedAmount: t.exposeInt("refundedAmount", { description: "Refunded, in minor units" }),
    error: t.field({ type: PaymentErrorRef, nullable: true, description: "Set when it failed", resolve: (p) => p.error }),
    disputed: t.exposeBoolean("disputed", { description: "Whether the buyer disputes it" }),
    disputeReason: t.exposeString("disputeReason", { nullable: true, description: "The dispute's reason" }),
    disputeOpenedAt: t.field({ type: "DateTime", nullable: true, description: "When the dispute was opened", resolve: (p) => p.disputeOpenedAt }),
    netN: t.int({ nullable: true, description: "Net-N terms in days for net30 (REST: net_n)", resolve: (p) => p.net_n }),
    netNSource: t.field({ type: NetNSourceEnum, nullable: true, description: "Where netN came from", resolve: (p) => p.netNSource as "default" | null }),
    metadata: t.field({ type: "JSON", resolve: (p) => p.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (p) => p.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (p) => p.updatedAt }),
  }),
});

export const TransactionRef = builder.objectRef<Transaction>("PaymentTransaction").implement({
  description: "One request to the processor and its answer",
  fields: (t) => ({
    id: t.exposeID("id"),
    paymentId: t.exposeID("paymentId", { description: "The payment" }),
    type: t.field({ type: TransactionTypeEnum, description: "What was asked", resolve: (x) => x.type as TransactionType }),
    status: t.field({ type: TransactionStatusEnum, description: "How it was answered", resolve: (x) => x.status as TransactionStatus }),
    amount: t.exposeInt("amount", { description: "In minor units" }),
    currency: t.exposeString("currency"),
    createdAt: t.field({ type: "DateTime", resolve: (x) => x.createdAt }),
  }),
});

const PaymentPage = pageOf<PaymentV>("PaymentPage", PaymentRef, "payments");

const TestOutcomeEnum = describedEnum<"authorized" | "captured" | "failed">("TestPaymentOutcome", "How the sandbox buyer finishes 3-D Secure", {
  authorized: "Authentication passed; funds held",
  captured: "Authentication passed; funds collected",
  failed: "Authentication failed",
});

const paymentId = "The payment's id";

builder.queryFields((t) => ({
  payment: t.field({
    type: PaymentRef,
    description: "One payment",
    authScopes: { scope: "payments:read" },
    args: { id: t.arg.id({ required: true, description: paymentId }) },
    resolve: async (_r, a, ctx) => paymentView(await getPayment(ctx, String(a.id))),
  }),
  paymentTransactions: t.field({
    type: [TransactionRef],
    description: "A payment's processor requests, oldest first",
    authScopes: { scope: "payments:read" },
    args: { paymentId: t.arg.id({ required: true, description: paymentId }) },
    resolve: (_r, a, ctx) => paymentTransactions(ctx, String(a.paymentId)),
  }),
  payments: t.field({
    type: PaymentPage,
    description: "Payments, newest first, filtered",
    authScopes: { scope: "payments:read" },
    args: {
      method: t.arg({ type: PaymentMethodEnum, description: "Only this method" }),
      status: t.arg({ type: [PaymentStatusEnum], description: "Only these statuses" }),
      orderId: t.arg.id({ description: "Only this order's" }),
      dueFrom: t.arg.string({ description: "Invoices due on or after this date, YYYY-MM-DD" }),
      dueTo: t.arg.string({ description: "Invoices due on or before this date, YYYY-MM-DD" }),
      amountMin: t.arg.int({ description: "At least this amount, minor units" }),
      amountMax: t.arg.int({ description: "At most this amount, minor units" }),
      aging: t.arg({ type: AgingEnum, description: "Unpaid (authorized) invoices this many days past due" }),
      ...pageArgs(t),
    },
    resolve: async (_r, a, ctx) => {
      const p = await listPayments(
        ctx,
        compact({
          method: a.method,
          status: a.status,
          order_id: a.orderId ? String(a.orderId) : null,
          due_from: a.dueFrom,
          due_to: a.dueTo,
          amount_min: a.amountMin,
          amount_max: a.amountMax,
          aging: a.aging,
          limit: (a.first ?? a.limit),
          cursor: (a.after ?? a.cursor),
        }),
      );
      return { items: p.items.map(paymentView), pagination: p.pagination };
    },
  }),
}));

builder.mutationFields((t) => ({
  capturePayment: t.field({
    type: PaymentRef,
    description: "Collects an authorized payment, in full or in part",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), amount: t.arg.int({ description: "Minor units to capture (default: all that is held)" }) },
    resolve: async (_r, a, ctx) => paymentView(await capturePayment(ctx, String(a.id), compact({ amount: a.amount }))),
  }),
  refundPayment: t.field({
    type: PaymentRef,
    description: "Refunds a captured payment, in full or in part; send an Idempotency-Key header so a retry refunds once",
    authScopes: { scope: "payment_refunds:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), amount: t.arg.int({ description: "Minor units to refund (default: all that is left)" }) },
    resolve: async (_r, a, ctx) => paymentView(await refundPayment(ctx, String(a.id), compact({ amount: a.amount }))),
  }),
  resolveTestPayment: t.field({
    type: PaymentRef,
    description: "Test processor, non-production only: settles a processing (3-D Secure) payment as the buyer would",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), outcome: t.arg({ type: TestOutcomeEnum, required: true, description: "How it ends" }) },
    resolve: async (_r, a, ctx) => paymentView(await resolveTestPayment(ctx, String(a.id), { outcome: a.outcome })),
  }),
  markPaymentFailed: t.field({
    type: PaymentRef,
    description: "Records that a pending or processing payment failed outside the processor",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: paymentId }), reason: t.arg.string({ required: true, description: "Why; kept as error.message" }) },
    resolve: async (_r, a, ctx) => paymentView(await markPaymentFailed(ctx, String(a.id), { reason: a.reason })),
  }),
}));
