// The quote PDF's document (quotes.md part 4 "Expiry and PDF rules", issue 35 item 5): the seller and buyer blocks
// frozen with the revision at issue, the quote number, revision, issue and expiry dates, the lines (optional and
// deselected ones marked), totals with tax lines, the payment terms in words, the seller's payment instructions,
// notes and terms, and the acceptance stamp once accepted. Only buyer-safe fields: no internal note or comment, no
// target price. Drawn with the shared blocks of shared/pdf.ts; quote-pdf.service.ts renders and caches it.
import type { Content, TDocumentDefinitions } from "pdfmake/interfaces";
import { formatDay } from "../shared/dates";
import { formatMoney } from "../shared/money";
import { blockRow, box, brandColorOf, header, linesTable, metaTable, partyBlock, pdfDocument, section, sellerParty, addressLines, totalsTable, type TotalRow } from "../shared/pdf";
import { acceptedItems, type AcceptedLine } from "./quote-accepted";
import type { QuoteParties } from "../documents/parties";
import { taxLabel } from "../documents/tax-lines";
import type { QuoteFull, RevisionFull } from "./quote-read.service";
import { itemTotal, revisionTotals } from "./quote.view";

export interface Stamp {
  name: string;
  email: string;
  at: Date;
  lines: AcceptedLine[];
}

/** The revision's payment terms as a buyer reads them. */
function termsInWords(rev: Pick<RevisionFull, "termsMode" | "netN" | "balanceNetN" | "depositAmount" | "depositType" | "depositValue">, total: number, money: (n: number) => string): string {
  if (rev.termsMode === "net_terms") {
    const n = rev.netN ?? 30;
    return `Net ${n}: invoiced when the order is placed, payable within ${n} days of the invoice date.`;
  }
  if (rev.termsMode === "deposit_balance") {
    const deposit = rev.depositAmount ?? 0;
    const pct = rev.depositType === "percent" && rev.depositValue !== null ? ` (${rev.depositValue}%)` : "";
    const n = rev.balanceNetN ?? 30;
    return `Deposit of ${money(deposit)}${pct} due at acceptance, by card. The balance of ${money(Math.max(0, total - deposit))} is invoiced when the deposit is paid, payable at Net ${n} (within ${n} days of the invoice date).`;
  }
  return "Paid in full by card at checkout.";
}

const at = (d: Date) => `${formatDay(d)} at ${d.toISOString().slice(11, 16)} UTC`;

/** The document: header, parties, lines, totals, terms, notes, and the acceptance stamp when given. */
export function quoteDocument(q: QuoteFull, rev: RevisionFull, stamp: Stamp | null, parties: QuoteParties): TDocumentDefinitions {
  const money = (n: number) => formatMoney(n, q.currency);
  const items = stamp ? acceptedItems(rev, stamp.lines) : rev.items;
  const totals = revisionTotals({ ...rev, items });
  const issuedQty = new Map(rev.items.map((i) => [i.id, i.quantity]));
  const { seller, buyer } = parties;
  const color = brandColorOf(q.application.settings);
  const ref = `${q.number}-rev${rev.number}`;

  const totalRows: TotalRow[] = [
    { label: "Subtotal", amount: money(totals.subtotal) },
    ...(totals.shippingTotal ? [{ label: "Shipping", amount: money(totals.shippingTotal) }] : []),
    ...totals.taxLines.map((t) => ({ label: taxLabel(t), amount: money(t.amount) })),
    { label: stamp ? "Accepted total" : "Total", amount: money(totals.total), strong: true },
    ...(rev.depositAmount !== null
      ? [
          { label: "Deposit due at acceptance", amount: money(rev.depositAmount) },
          { label: `Balance, Net ${rev.balanceNetN ?? 30}`, amount: money(Math.max(0, totals.total - rev.depositAmount)) },
        ]
      : []),
  ];

  const body: Content[] = [
    ...header({ wordmark: q.application.name, color, title: "QUOTE", subtitle: `${q.number} · revision ${rev.number}` }),
    blockRow([
      partyBlock(sellerParty(seller)),
      metaTable([
        ["Quote number", q.number],
        ["Revision", String(rev.number)],
        ["Issued", rev.issuedAt ? formatDay(rev.issuedAt) : null],
        ["Valid until", q.expiresAt ? formatDay(q.expiresAt) : null],
        ["PO / reference", buyer.reference ?? q.buyerReference],
      ]),
    ]),
    blockRow([
      partyBlock({ label: "Prepared for", name: buyer.company, lines: [buyer.name, buyer.email, ...addressLines(buyer.billingAddress)] }),
      partyBlock({ label: "Ship to", name: buyer.shippingAddress ? (buyer.company ?? buyer.name) : null, lines: addressLines(buyer.shippingAddress) }),
    ], [0, 0, 0, 18]),
    linesTable(
      items.map((i) => {
        const off = !i.selected;
        const was = issuedQty.get(i.id);
        return {
          name: i.name,
          flag: i.optional ? (off ? "optional, not selected" : "optional") : null,
          details: [i.sku ? `SKU ${i.sku}` : null, i.description, stamp && was !== undefined && was !== i.quantity ? `Quantity changed at acceptance (offered: ${was})` : null],
          quantity: i.quantity,
          unitPrice: money(i.unitPrice ?? 0),
          amount: off ? "—" : money(itemTotal(i) ?? 0),
          off,
        };
      }),
    ),
    totalsTable(totalRows),
  ];
  if (stamp) {
    const accepted = items.filter((i) => i.selected).map((i) => `${i.name} x ${i.quantity}`);
    body.push(
      box(
        {
          stack: [
            { text: "ACCEPTED", bold: true, color: "#047857", fontSize: 14, characterSpacing: 1 },
            { text: `Accepted by ${stamp.name} <${stamp.email}> on ${at(stamp.at)}`, margin: [0, 3, 0, 0] },
            { text: `Accepted lines: ${accepted.join(", ")}` },
            { text: [{ text: "Accepted total: ", bold: true }, money(totals.total)] },
          ],
        },
        "#047857",
        "#ecfdf5",
      ),
    );
  }
  body.push(
    ...section("Payment terms", termsInWords(rev, totals.total, money)),
    ...section("Payment instructions", seller.paymentInstructions),
    ...section("Notes", rev.notes),
    ...section("Terms and conditions", rev.terms),
  );
  return pdfDocument({ title: ref, author: seller.name, subject: `Quote ${q.number}`, footer: `${ref} · ${seller.name}`, content: body });
}
