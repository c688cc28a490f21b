/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The offer: its lines (a table on wide screens, one card per line below 520 px), the totals, how it is paid and, while
// the quote is open, the accept form with its sticky total-and-Accept bar. Once accepted, the lines read as accepted
// (the buyer's selection and quantities) and the deposit reads as paid once it is.
import type { BuyerQuoteView } from "../../src/quotes/quote-links.service";
import { taxLabel } from "../../src/documents/tax-lines";
import { formatMoney } from "../../src/shared/money";
import { day, type Values, valueOf } from "./format";

type Rev = NonNullable<BuyerQuoteView["revision"]>;

function termsText(rev: Rev, v: BuyerQuoteView) {
  const t = rev.paymentTerms;
  if (t.mode === "net_terms") return v.order ? `Payment: invoiced on Net ${t.netN ?? 30} terms.` : `Payment: invoiced, due ${t.netN ?? 30} days after the order.`;
  if (t.mode === "deposit_balance")
    return v.order ? `Payment: deposit paid by card; the balance is invoiced on Net ${t.balanceNetN ?? 30} terms.` : `Payment: the deposit by card at checkout; the balance is invoiced, due ${t.balanceNetN ?? 30} days after the order.`;
  return "Payment: by card at checkout.";
}

export function Offer(p: { v: BuyerQuoteView; rev: Rev; open: boolean; action: string; values: Values }) {
  const { v, rev, open } = p;
  const money = (n: number) => formatMoney(n, v.quote.currency);
  // an error re-render: the buyer's own choices, not the issued defaults
  const posted = p.values !== undefined;
  const isOn = (id: string, def: boolean, optional: boolean) => (posted && optional ? p.values![`include.${id}`] !== undefined : def);
  const qtyOf = (id: string, def: number) => (posted && valueOf(p.values, `qty.${id}`) !== "" ? valueOf(p.values, `qty.${id}`) : String(def));
  const accepted = !!v.quote.acceptedAt && (v.quote.status === "accepted" || v.quote.status === "converted");
  const depositPaid = rev.depositAmount !== null && v.order !== null;
  const balanceDue = v.order?.invoice?.dueDate ?? null;
  return (
    <form class="card" method="post" action={p.action} id="accept-form" data-currency={v.quote.currency} data-shipping={String(rev.shippingTotal)} data-deposit={rev.depositAmount ?? ""}>
      <input type="hidden" name="revisionId" value={rev.id} />
      <table class="lines">
        <caption>{accepted ? "What you accepted" : "The offer"}</caption>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" class="num">Qty</th>
            <th scope="col" class="num">Unit price</th>
            <th scope="col" class="num">Amount</th>
          </tr>
        </thead>
        <tbody>
          {rev.items.map((i) => {
            const on = open ? isOn(i.id, i.selected, i.optional) : i.selected;
            return (
              <tr data-line data-price={String(i.unitPrice ?? 0)} data-qty={String(i.quantity)} class={on ? "" : "off"}>
                <td>
                  {i.optional && open ? (
                    <label class="check">
                      <input type="checkbox" name={`include.${i.id}`} value="1" checked={on} data-include />
                      <span>
                        <span class="name">{i.name}</span> <span class="muted">(optional)</span>
                      </span>
                    </label>
                  ) : (
                    <div>
                      <span class="name">{i.name}</span>
                      {i.optional ? <span class="muted"> (optional{on ? "" : ", not included"})</span> : null}
                    </div>
                  )}
                  {i.description ? <div class="muted">{i.description}</div> : null}
                  {i.sku ? <div class="muted">SKU {i.sku}</div> : null}
                  {i.optional && open ? <input type="hidden" name={`optional.${i.id}`} value="1" /> : null}
                </td>
                <td class="num" data-label="Quantity">
                  {i.qtyEditable && open ? (
                    <input type="number" class="qty" id={`qty-${i.id}`} name={`qty.${i.id}`} min="1" max="1000000" step="1" inputMode="numeric" value={qtyOf(i.id, i.quantity)} data-qty-input aria-label={`Quantity of ${i.name}`} />
                  ) : (
                    i.quantity
                  )}
                </td>
                <td class="num" data-label="Unit price">
                  {money(i.unitPrice ?? 0)}
                </td>
                <td class="num amount" data-label="Amount" data-amount>
                  {on ? money(i.total ?? 0) : "Not included"}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <table class="totals">
        <caption class="hp">Totals</caption>
        <tbody>
          <tr>
            <td>Subtotal</td>
            <td class="num" id="subtotal">
              {money(rev.subtotal)}
            </td>
          </tr>
          {rev.shippingTotal ? (
            <tr>
              <td>Shipping</td>
              <td class="num">{money(rev.shippingTotal)}</td>
            </tr>
          ) : null}
          {rev.taxLines.map((t) => (
            <tr data-tax-line data-tax-bps={String(t.rateBps)}>
              <td>{taxLabel(t)}</td>
              <td class="num" data-tax-amount>
                {money(t.amount)}
              </td>
            </tr>
          ))}
          <tr class="grand">
            <td>Total</td>
            <td class="num" id="total">
              {money(rev.total)}
            </td>
          </tr>
          {rev.depositAmount !== null && depositPaid ? (
            <tr>
              <td>Deposit paid</td>
              <td class="num" id="deposit">
                {money(rev.depositAmount)}
              </td>
            </tr>
          ) : rev.depositAmount !== null && v.quote.status !== "declined" && !v.quote.expired ? (
            <tr>
              <td>Deposit due today</td>
              <td class="num" id="deposit">
                {money(rev.depositAmount)}
              </td>
            </tr>
          ) : null}
          {depositPaid && v.order ? (
            <tr>
              <td>{balanceDue ? `Balance due on ${day(balanceDue)}` : "Balance due"}</td>
              <td class="num" id="balance">
                {money(v.order.amountDue)}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <p class="muted" id="terms">
        {termsText(rev, v)}
      </p>
      {open ? (
        <div>
          <label for="acceptedByName">Your name</label>
          <input type="text" id="acceptedByName" name="acceptedByName" required maxLength={200} autoComplete="name" value={valueOf(p.values, "acceptedByName")} />
          <label for="acceptedByEmail">Your email (optional)</label>
          <input type="email" id="acceptedByEmail" name="acceptedByEmail" maxLength={320} autoComplete="email" value={valueOf(p.values, "acceptedByEmail")} />
          <div class="bar">
            <span class="sum">
              Total <span id="bar-total">{money(rev.total)}</span>
            </span>
            <button type="submit" id="accept">
              Accept and continue to checkout
            </button>
          </div>
        </div>
      ) : null}
    </form>
  );
}
