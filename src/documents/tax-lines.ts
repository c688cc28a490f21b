// A tax line as carts, orders, quotes and the documents that show them carry it (Cart.taxLines, a revision's frozen
// taxLines), and its label on the page, the PDFs and the emails.

export interface TaxLine {
  name: string;
  amount: number;
  rateBps: number | null;
  jurisdiction: string | null;
}

/** "Sales tax (8.25%)": a line's name and rate, as the page and the PDF show it. */
export function taxLabel(t: { name: string; rateBps: number | null }) {
  return t.rateBps === null ? t.name : `${t.name} (${t.rateBps / 100}%)`;
}
