/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The confirmation page, once the session is completed: a receipt. The order number (and the quote number and PO when
// it came from a quote), what was bought, what was paid, and what is still owed and when (a Net-N invoice's due
// date, a deposit's balance), with the way back to the store.
import type { CheckoutPageView, Receipt } from "../../src/checkout/checkout-page.service";
import { formatDay } from "../../src/shared/dates";
import { formatMoney } from "../../src/shared/money";
import { countryName } from "./countries";
import { OrderSummary } from "./summary";

type Payment = Receipt["payments"][number];

/** What one payment means to the buyer, in a sentence. */
function paymentLine(p: Payment, money: (n: number) => string): string {
  if (p.method === "net30") {
    const due = p.dueDate ? formatDay(p.dueDate) : null;
    if (p.status === "captured") return `Invoice${p.invoiceNumber ? ` ${p.invoiceNumber}` : ""} of ${money(p.amount)}: paid.`;
    return `Invoice${p.invoiceNumber ? ` ${p.invoiceNumber}` : ""} of ${money(p.amount)} on Net ${p.netN ?? 30} terms${due ? `, due on ${due}` : ""}.`;
  }
  if (p.status === "captured" || p.status === "partially_refunded") return `${money(p.captured)} paid by card.`;
  if (p.status === "authorized") return `${money(p.amount)} authorized on your card: you are charged when the order ships.`;
  if (p.status === "processing") return `${money(p.amount)} by card, pending confirmation by your bank.`;
  if (p.status === "refunded") return `${money(p.amount)} paid by card, refunded.`;
  return `${money(p.amount)} by card (${p.status}).`;
}

/** The headline: honest about what happened to the money. */
function outcome(r: Receipt): string {
  const card = r.payments.find((p) => p.method !== "net30");
  if (card?.status === "processing") return "Your order is placed. Payment pending confirmation by your bank.";
  if (card?.status === "authorized") return "Your order is placed. Payment authorized: you will be charged when the order ships.";
  const invoiced = r.payments.some((p) => p.method === "net30");
  if (!card && invoiced) return "Your order is placed on invoice terms. Invoice issued.";
  if (invoiced) return "Thank you: your order is placed and your deposit received. The balance is invoiced.";
  return "Thank you: your order is placed and your payment received.";
}

export function ReceiptPage(p: { v: CheckoutPageView; receipt: Receipt }) {
  const { v, receipt: r } = p;
  const o = r.order;
  const money = (n: number) => formatMoney(n, o.currency);
  const back = new URL(v.session.returnUrl);
  back.searchParams.set("checkout_session_id", v.session.id);
  back.searchParams.set("order_id", o.id);
  const balance = r.payments.find((x) => x.method === "net30" && x.status === "authorized");
  const after = [
    { label: "Paid", amount: r.paid, id: "paid" },
    ...(r.owed > 0 ? [{ label: balance?.dueDate ? `Still to pay, due on ${formatDay(balance.dueDate)}` : "Still to pay", amount: r.owed, id: "owed", strong: true }] : []),
  ];
  const a = o.shippingAddress;
  return (
    <>
      <h1>Receipt</h1>
      <p class="ok" id="result" role="status" data-order-id={o.id}>
        {outcome(r)}
      </p>
      <div class="layout">
        <OrderSummary
          heading="What you bought"
          currency={o.currency}
          lines={o.lines}
          charges={[
            ["Subtotal", o.subtotal],
            ["Discount", -o.discountTotal],
            ["Shipping", o.shippingTotal],
            ["Tax", o.taxTotal],
          ]}
          total={o.total}
          after={after}
        />
        <section class="card" aria-labelledby="details-h">
          <h2 id="details-h">Order details</h2>
          <dl class="facts">
            <dt>Order number</dt>
            <dd id="order-number">{o.number}</dd>
            {v.quote ? (
              <>
                <dt>Quote</dt>
                <dd id="quote-number">{v.quote.number}</dd>
              </>
            ) : null}
            {v.quote?.buyerReference ? (
              <>
                <dt>Your PO</dt>
                <dd id="po">{v.quote.buyerReference}</dd>
              </>
            ) : null}
            <dt>Placed on</dt>
            <dd>{formatDay(o.placedAt)}</dd>
            {o.email ? (
              <>
                <dt>Email</dt>
                <dd>{o.email}</dd>
              </>
            ) : null}
            {a ? (
              <>
                <dt>Ships to</dt>
                <dd>
                  <address>
                    {[a.addressLine1, a.addressLine2, [a.postalCode, a.city].filter(Boolean).join(" "), a.stateProvince, countryName(a.countryCode)].filter(Boolean).join(", ")}
                  </address>
                </dd>
              </>
            ) : null}
          </dl>
          <h2 class="spaced">Payment</h2>
          <ul id="payments">
            {r.payments.map((x) => (
              <li>{paymentLine(x, money)}</li>
            ))}
          </ul>
          <div class="actions">
            <a class="button" id="continue" href={back.toString()}>
              {v.quote ? `Back to quote ${v.quote.number}` : `Continue to ${v.merchant.name || "the store"}`}
            </a>
          </div>
        </section>
      </div>
    </>
  );
}
