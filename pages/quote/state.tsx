/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// Where the quote stands, said once: the badge next to the number and exactly one notice per state (requested,
// proposed, changes requested, expired, declined by whom and why, accepted, ordered), then the receipt of an order.
// Declines are styled as declines, never as success; a proposed quote past its expiry reads expired at once.
import type { ComponentChildren } from "preact";
import type { BuyerQuoteView } from "../../src/quotes/quote-links.service";
import { formatMoney } from "../../src/shared/money";
import { day } from "./format";

/** The state the buyer reads: the stored status, except that a proposed quote past its expiry is expired now. */
export function shownState(v: BuyerQuoteView): string {
  return v.quote.expired ? "expired" : v.quote.status;
}

const BADGE: Record<string, [string, string]> = {
  requested: ["Request received", ""],
  under_review: ["Being prepared", ""],
  proposed: ["Awaiting your decision", "warn"],
  revision_requested: ["Changes requested", ""],
  accepted: ["Accepted", "good"],
  converted: ["Ordered", "good"],
  declined: ["Declined", "bad"],
  expired: ["Expired", "bad"],
};

export function Badge(p: { v: BuyerQuoteView }) {
  const s = shownState(p.v);
  const [text, tone] = BADGE[s] ?? [s, ""];
  return (
    <span class={`badge ${tone}`} id="status">
      {text}
    </span>
  );
}

function Notice(p: { id: string; tone: "" | "good" | "bad" | "warn"; title: string; children?: ComponentChildren }) {
  return (
    <section class={`notice ${p.tone}`} id={p.id} aria-label={p.title}>
      <p>
        <strong>{p.title}</strong>
      </p>
      {p.children}
    </section>
  );
}

/** The one notice of the quote's state. */
export function StateNotice(p: { v: BuyerQuoteView; checkoutPath: string | null }) {
  const { v } = p;
  const q = v.quote;
  const m = v.merchant.name;
  const money = (n: number) => formatMoney(n, q.currency);
  const rev = v.revision;
  switch (shownState(v)) {
    case "requested":
    case "under_review":
      return (
        <Notice id="preparing" tone="" title={`${m} is preparing your offer`}>
          <p>You will get an email when it is ready. Your reference is {q.number}.</p>
        </Notice>
      );
    case "revision_requested":
      return (
        <Notice id="changes-requested" tone="" title="You asked for changes">
          <p>{m} is preparing a new revision; you will get an email when it is ready.</p>
        </Notice>
      );
    case "expired":
      return (
        <Notice id="expired" tone="bad" title={`This quote expired on ${day(q.expiresAt)}`}>
          <p>It can no longer be accepted. {m} has been told you opened it; write below to ask for a new offer.</p>
        </Notice>
      );
    case "declined":
      return q.declinedBy === "merchant" ? (
        <Notice id="declined" tone="bad" title={`${m} declined this request`}>
          {q.declinedReason ? <p>Their reason: {q.declinedReason}</p> : null}
        </Notice>
      ) : (
        <Notice id="declined" tone="bad" title="You declined this quote">
          {q.declinedReason ? <p>Your reason: {q.declinedReason}</p> : null}
          <p>Changed your mind? Write to {m} below.</p>
        </Notice>
      );
    case "accepted": {
      const due = rev?.depositAmount ?? rev?.total ?? 0;
      return (
        <Notice id="accepted" tone="good" title={`Accepted by ${q.acceptance?.name ?? "you"} on ${day(q.acceptedAt)}`}>
          <p>
            {rev?.paymentTerms.mode === "net_terms"
              ? "Complete checkout to place the order on invoice terms."
              : rev?.paymentTerms.mode === "deposit_balance"
                ? `Pay the deposit of ${money(due)} at checkout to place the order.`
                : `Pay ${money(due)} at checkout to place the order.`}
          </p>
          {p.checkoutPath ? (
            <p>
              <a class="button" href={p.checkoutPath} id="continue">
                Continue to checkout
              </a>
            </p>
          ) : null}
        </Notice>
      );
    }
    case "converted":
      return (
        <Notice id="converted" tone="good" title={v.order ? `Order ${v.order.number} placed` : "Your order has been placed"}>
          <p>Thank you. This page is your receipt.</p>
        </Notice>
      );
    default:
      return (
        <Notice id="open" tone="" title={`Valid until ${day(q.expiresAt)}`}>
          <p>Choose the options you want, then accept to continue to checkout.</p>
        </Notice>
      );
  }
}

/** The receipt of the order a converted quote became: number, acceptance, payment, invoice, balance. */
export function Receipt(p: { v: BuyerQuoteView; token: string }) {
  const { v } = p;
  const o = v.order;
  const q = v.quote;
  if (!o) return null;
  const money = (n: number) => formatMoney(n, q.currency);
  const deposit = v.revision?.paymentTerms.mode === "deposit_balance";
  return (
    <section class="card" aria-labelledby="receipt-h" id="receipt">
      <h2 id="receipt-h">Your order</h2>
      <dl class="facts">
        <dt>Order number</dt>
        <dd id="order-number">{o.number}</dd>
        <dt>Placed</dt>
        <dd>{day(o.placedAt)}</dd>
        {q.acceptance ? (
          <>
            <dt>Accepted by</dt>
            <dd id="accepted-by">
              {q.acceptance.name} on {day(q.acceptedAt)}
            </dd>
          </>
        ) : null}
        <dt>Total</dt>
        <dd>{money(o.total)}</dd>
        <dt>{deposit ? "Deposit paid" : "Paid so far"}</dt>
        <dd id="paid">{money(o.amountPaid)}</dd>
        {o.amountDue > 0 ? (
          <>
            <dt>{o.invoice?.dueDate ? `Balance due on ${day(o.invoice.dueDate)}` : "Balance due"}</dt>
            <dd id="amount-due">{money(o.amountDue)}</dd>
          </>
        ) : null}
        {o.invoice ? (
          <>
            <dt>Invoice</dt>
            <dd id="invoice">
              {o.invoice.number}
              {o.invoice.dueDate ? `, due ${day(o.invoice.dueDate)}` : ""}
              {o.invoice.paid ? " (paid)" : ""}
            </dd>
          </>
        ) : null}
      </dl>
      <div class="actions">
        {o.invoice ? (
          <a class="action" href={o.invoice.downloadUrl} id="invoice-pdf">
            Download invoice {o.invoice.number} (PDF)
          </a>
        ) : null}
        {v.pdfUrl ? (
          <a class="action" href={`/api/v1/quote-links/${p.token}/pdf`} id="receipt-pdf">
            Download the accepted quote (PDF)
          </a>
        ) : null}
      </div>
    </section>
  );
}
