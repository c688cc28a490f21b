// The buyer's payment receipt: queued by the events outbox whenever a capture is recorded (payment.captured, or a
// manual record's payment.recorded), in the transaction of the capture, so every path that captures money (hosted and
// embedded checkout, capture routes, 3-D Secure resolution, Net-N mark-paid, manual records, ...) sends it without
// knowing about it. One receipt per payment (the mail outbox dedupes on the payment id).
import { queueEmail } from "../mail/mail.service";
import type { Ctx } from "../shared/context";
import { formatMoney } from "../shared/money";
import { formatDay } from "../shared/dates";

const RECEIPT_EVENTS: ReadonlySet<string> = new Set(["payment.captured", "payment.recorded"]);

const METHOD_LABEL: Record<string, string> = { card: "card", net30: "invoice (Net terms)", manual: "manual payment", external: "external payment" };

export const formatDate = (d: Date | string): string => formatDay(d);

/** Each recorded event, in its transaction (events.service.ts eventRecorded, registered by src/hooks.ts): a capture queues the receipt. */
export function receiptOnCapture(tx: Ctx, tenant: { applicationId: string; environmentId: string }, type: string, data: Record<string, unknown>) {
  if (RECEIPT_EVENTS.has(type)) queuePaymentReceipt(tx, tenant, data);
}

function queuePaymentReceipt(tx: Ctx, tenant: { applicationId: string; environmentId: string }, data: Record<string, unknown>) {
  const paymentId = typeof data.paymentId === "string" ? data.paymentId : null;
  if (!paymentId) return;
  const amount = typeof data.capturedAmount === "number" ? data.capturedAmount : typeof data.amount === "number" ? data.amount : null;
  const currency = typeof data.currency === "string" ? data.currency : null;
  const method = typeof data.method === "string" ? data.method : "card";
  const orderId = typeof data.orderId === "string" ? data.orderId : undefined;
  queueEmail(tx, tenant, {
    template: "customer.payment_receipt",
    cause: `receipt:${paymentId}`,
    toPaymentBuyer: true,
    paymentId,
    orderId: orderId ?? null,
    vars: {
      merchantName: "",
      amount: amount !== null && currency ? formatMoney(amount, currency) : undefined,
      paymentMethod: METHOD_LABEL[method] ?? method,
      paidAt: formatDate(tx.clock.now()),
      orderId,
    },
  });
}
