// Tax on quotes (decisions.md part 3: "Quotes carry no tax unless the environment configures tax"). The rate comes
// from the built-in provider's tax table (PUT /shipping-tax/settings, taxRates per country): the revision's
// `taxCountry` when it names one, else the table's only country when it has exactly one, else none (no tax). A working
// revision's tax is computed live from the table as it stands; issuing freezes the tax lines (name, rate, country and
// amount) on the revision, and every later amount (the issued offer, the buyer's accepted selection, the cart and the
// order it becomes) is the frozen rate on that selection's taxable amount, half up via shared/money.
import type { TaxLine } from "../documents/tax-lines";
import { applyBps, sum } from "../shared/money";
import type { TaxRate } from "../shipping-tax/shipping-tax.service";

/** The environment's tax table: { "US": { rateBps, name } } (empty when nothing is configured). */
export type TaxRates = Record<string, TaxRate>;

/** A quote's tax line: always from a rate, so rateBps and jurisdiction are set. */
export interface QuoteTaxLine extends TaxLine {
  rateBps: number;
  jurisdiction: string;
}

/** The revision fields tax reads. */
export interface TaxedRevision {
  status: string;
  taxCountry: string | null;
  taxLines: unknown;
}

/** The rates (amounts aside) that tax a working revision under `rates`: its country's, or the table's only one. */
function liveTaxRates(rates: TaxRates | null | undefined, taxCountry: string | null): Omit<QuoteTaxLine, "amount">[] {
  const table = rates ?? {};
  const countries = Object.keys(table);
  const country = taxCountry ?? (countries.length === 1 ? countries[0] : null);
  const rate = country ? table[country] : undefined;
  return rate && country ? [{ name: rate.name ?? "Tax", rateBps: rate.rateBps, jurisdiction: country }] : [];
}

/** The frozen lines of an issued revision (none on revisions issued before quotes carried tax). */
function frozenTaxLines(r: Pick<TaxedRevision, "taxLines">): QuoteTaxLine[] {
  return Array.isArray(r.taxLines) ? (r.taxLines as QuoteTaxLine[]) : [];
}

/** The rates that tax revision `r`: frozen once issued, live from the table while working. */
export function revisionTaxRates(r: TaxedRevision, rates: TaxRates | null | undefined) {
  return r.status === "working" ? liveTaxRates(rates, r.taxCountry) : frozenTaxLines(r);
}

/** Tax lines for a taxable amount (selected lines plus priced shipping): each rate on it, half up. */
export function taxLinesFor(taxRates: Omit<QuoteTaxLine, "amount">[], taxable: number): QuoteTaxLine[] {
  return taxRates.map((t) => ({ name: t.name, rateBps: t.rateBps, jurisdiction: t.jurisdiction, amount: applyBps(Math.max(0, taxable), t.rateBps) }));
}

export const taxTotalOf = (lines: TaxLine[]) => sum(lines.map((l) => l.amount));
