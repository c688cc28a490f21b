// What the buyer accepted (quotes.md accept rule 3): the accepted revision's lines with the buyer's selection and
// quantities. Once a quote is accepted every buyer surface (the link read, the page, the accepted emails, the stamped
// PDF) shows these lines and their totals, the ones the checkout and the order carry, not the issued offer.
import type { QuoteFull, RevisionFull } from "./quote-read.service";

export interface AcceptedLine {
  itemId: string;
  selected: boolean;
  quantity: number;
}

/** The revision's lines as accepted: the chosen selection and quantities over the issued lines. */
export function acceptedItems(rev: RevisionFull, lines: AcceptedLine[]) {
  const by = new Map(lines.map((l) => [l.itemId, l]));
  return rev.items.map((i) => ({ ...i, selected: by.get(i.id)?.selected ?? i.selected, quantity: by.get(i.id)?.quantity ?? i.quantity }));
}

/** The accepted lines recorded on the quote when `rev` is its accepted revision, else null. */
export function acceptedLinesFor(q: Pick<QuoteFull, "acceptance" | "acceptedRevisionId">, rev: Pick<RevisionFull, "id">): AcceptedLine[] | null {
  const a = q.acceptance as { items?: AcceptedLine[] } | null;
  return a && Array.isArray(a.items) && q.acceptedRevisionId === rev.id ? a.items : null;
}

/** `rev` as the buyer accepted it when it is the quote's accepted revision (totals follow the items), else as issued. */
export function asAccepted<R extends RevisionFull>(q: Pick<QuoteFull, "acceptance" | "acceptedRevisionId">, rev: R): R {
  const lines = acceptedLinesFor(q, rev);
  return lines ? { ...rev, items: acceptedItems(rev, lines) } : rev;
}

/** "Widget x 2, Setup x 1": the selected lines of `rev` as accepted. */
export function acceptedItemsText(q: Pick<QuoteFull, "acceptance" | "acceptedRevisionId">, rev: RevisionFull): string | undefined {
  if (!acceptedLinesFor(q, rev)) return undefined;
  return asAccepted(q, rev)
    .items.filter((i) => i.selected)
    .map((i) => `${i.name} x ${i.quantity}`)
    .join(", ");
}
