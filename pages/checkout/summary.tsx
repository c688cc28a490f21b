/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The order summary: each line with its quantity and amount, then each charge named (discount code, shipping method,
// each tax line, the tax carried on the lines), the total, and what is due now and later. Used beside the checkout
// form and on the receipt.
import type { ComponentChildren } from "preact";
import { formatMoney } from "../../src/shared/money";

interface SummaryLine {
  name: string;
  quantity: number;
  total: number;
}

interface SummaryProps {
  currency: string;
  lines: SummaryLine[];
  /** named charges between the lines and the total; zero amounts are left out */
  charges: [label: string, amount: number][];
  total: number;
  /** rows after the total: what is due now and later ({ id } names the amount cell) */
  after?: { label: string; amount: number; id?: string; strong?: boolean }[];
  heading?: string;
  children?: ComponentChildren;
}

export function OrderSummary(p: SummaryProps) {
  const money = (n: number) => formatMoney(n, p.currency);
  return (
    <section class="summary card" aria-labelledby="summary-h">
      <h2 id="summary-h">{p.heading ?? "Order summary"}</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col" class="num">
              Qty
            </th>
            <th scope="col" class="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {p.lines.map((l) => (
            <tr data-line>
              <td>{l.name}</td>
              <td class="num qty">{l.quantity}</td>
              <td class="num">{money(l.total)}</td>
            </tr>
          ))}
        </tbody>
        <tbody class="totals">
          {p.charges
            .filter(([, v]) => v !== 0)
            .map(([k, v]) => (
              <tr>
                <td colSpan={2}>{k}</td>
                <td class="num">{money(v)}</td>
              </tr>
            ))}
          <tr class="grand">
            <th scope="row" colSpan={2}>
              Total
            </th>
            <td class="num" id="total">
              {money(p.total)}
            </td>
          </tr>
          {(p.after ?? []).map((r) => (
            <tr class={r.strong ? "due" : undefined}>
              <td colSpan={2}>{r.label}</td>
              <td class="num" id={r.id}>
                {money(r.amount)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {p.children}
    </section>
  );
}

/** A cart's (or order's) named charges: discount, shipping, tax lines, and the tax carried on the lines. */
export function chargesOf(c: {
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  appliedDiscount?: { code: string } | null;
  selectedShipping?: { displayName: string } | null;
  taxLines?: { name: string; amount: number }[];
  lineTax?: number;
}): [string, number][] {
  return [
    ["Subtotal", c.subtotal],
    [c.appliedDiscount ? `Discount: ${c.appliedDiscount.code}` : "Discount", -c.discountTotal],
    [c.selectedShipping ? `Shipping: ${c.selectedShipping.displayName}` : "Shipping", c.shippingTotal],
    ...(c.taxLines ?? []).map((t): [string, number] => [`Tax: ${t.name}`, t.amount]),
    ["Tax on items", c.lineTax ?? 0],
  ];
}
