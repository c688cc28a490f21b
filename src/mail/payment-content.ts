// What an invoice or receipt email says about its order, read when the email is rendered (seconds after the event, so
// "what remains" is today's): the order number, the quote number and the buyer's PO (never a UUID), the lines, the
// totals, what was paid and what remains with its due date.
import { orderDisplayNumber } from "../documents/order-number";
import type { Ctx } from "../shared/context";
import { formatDay } from "../shared/dates";
import { formatMoney } from "../shared/money";
import type { EmailSummary, EmailVars, TemplateName } from "./templates";

/** The templates whose facts are the payment's order. */
export const PAYMENT_TEMPLATES: ReadonlySet<TemplateName> = new Set(["customer.payment_receipt", "customer.net30_invoice_issued"]);


const OPEN_INVOICE = new Set(["authorized", "pending"]);

export async function paymentContent(ctx: Ctx, paymentId: string, template: TemplateName): Promise<Partial<EmailVars>> {
  const p = await ctx.db.payment.findUnique({
    where: { id: paymentId },
    select: {
      id: true,
      invoiceNumber: true,
      dueDate: true,
      createdAt: true,
      order: { include: { lineItems: { orderBy: { position: "asc" } }, payments: { select: { id: true, status: true, amount: true, capturedAmount: true, refundedAmount: true, dueDate: true, method: true } } } },
    },
  });
  const o = p?.order;
  if (!p || !o) return {};
  const quote = await ctx.db.quote.findFirst({ where: { orderId: o.id }, select: { number: true, buyerReference: true } });
  const money = (n: number) => formatMoney(n, o.currency);
  const paid = o.payments.reduce((s, x) => s + Math.max(0, x.capturedAmount - x.refundedAmount), 0);
  const remaining = Math.max(0, o.total - o.compAmount - paid);
  // the due date of what remains: the open Net-N invoice's (this one for an invoice email), else none
  const open = o.payments.filter((x) => x.dueDate && OPEN_INVOICE.has(x.status) && x.method === "net30").sort((a, b) => a.dueDate!.getTime() - b.dueDate!.getTime());
  const due = (template === "customer.net30_invoice_issued" && p.dueDate) || open[0]?.dueDate || null;
  const orderNumber = orderDisplayNumber(o);
  const balanceText = remaining === 0 ? "Your order is paid in full." : `${money(remaining)} remains${due ? `, due on ${formatDay(due)}` : ""}.`;
  const summary: EmailSummary = {
    facts: [
      ...(p.invoiceNumber && template === "customer.net30_invoice_issued" ? [{ label: "Invoice", value: p.invoiceNumber }] : []),
      { label: "Order", value: orderNumber },
      ...(quote ? [{ label: "Quote", value: quote.number }] : []),
      ...(quote?.buyerReference ? [{ label: "Your PO", value: quote.buyerReference }] : []),
      ...(template === "customer.net30_invoice_issued" ? [{ label: "Issued", value: formatDay(p.createdAt) }] : []),
      ...(due && remaining > 0 ? [{ label: template === "customer.net30_invoice_issued" ? "Due" : "Balance due on", value: formatDay(due) }] : []),
    ],
    lines: o.lineItems.map((l) => ({ name: l.name, quantity: l.quantity, amount: money(l.unitPrice * l.quantity) })),
    totals: [
      { label: "Subtotal", amount: money(o.subtotal) },
      ...(o.discountTotal ? [{ label: "Discount", amount: `-${money(o.discountTotal)}` }] : []),
      { label: "Shipping", amount: money(o.shippingTotal) },
      { label: "Tax", amount: money(o.taxTotal) },
      { label: "Total", amount: money(o.total), strong: true },
      ...(o.compAmount ? [{ label: "Waived", amount: `-${money(o.compAmount)}` }] : []),
      { label: "Paid", amount: money(paid) },
      { label: template === "customer.net30_invoice_issued" ? "Amount due" : "Balance due", amount: money(remaining), strong: true },
    ],
  };
  return {
    orderNumber,
    quoteNumber: quote?.number,
    poNumber: quote?.buyerReference ?? undefined,
    amountPaid: money(paid),
    amountDue: money(remaining),
    balanceText,
    summary,
  };
}
