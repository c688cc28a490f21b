// An order's totals from its lines (draft creation and line edits): subtotal and discounts from the lines, shipping
// kept, tax recomputed when the tenant has a rate for the shipping (else billing) country, else kept.
import { applyBps, assertSumsFit, sum } from "../shared/money";
import type { ShippingTaxConfig } from "../shipping-tax/shipping-tax.service";

interface TotalsLine {
  unitPrice: number;
  quantity: number;
  taxAmount: number;
  discountAmount: number;
}

/** 422 validation_error at `path` when an order's subtotal, tax or total would not fit its column (shared/money.ts). */
export function assertOrderTotalsFit(t: { subtotal: number; taxTotal: number; total: number }, path: (string | number)[]) {
  assertSumsFit([{ path, value: Math.max(t.subtotal, t.taxTotal, t.total), what: "The order's total" }]);
}

/** 422 validation_error naming each line whose unitPrice x quantity would not fit (its path, then the field). */
export function assertLinesFit(lines: { path: (string | number)[]; unitPrice: number; quantity: number }[]) {
  assertSumsFit(lines.map((l) => ({ path: l.path, value: l.unitPrice * l.quantity, what: "unitPrice x quantity" })));
}

export function orderTotals(
  lines: TotalsLine[],
  o: { shippingTotal: number; taxTotal: number; shippingAddress: unknown; billingAddress: unknown },
  config: ShippingTaxConfig,
) {
  const subtotal = sum(lines.map((l) => l.unitPrice * l.quantity));
  const discountTotal = sum(lines.map((l) => l.discountAmount));
  const shippingTotal = o.shippingTotal;
  const address = (o.shippingAddress ?? o.billingAddress) as { countryCode?: string } | null;
  const rate = address?.countryCode ? config.taxRates[address.countryCode] : undefined;
  const taxTotal = rate ? sum(lines.map((l) => l.taxAmount)) + applyBps(Math.max(0, subtotal - discountTotal + shippingTotal), rate.rateBps) : o.taxTotal;
  return { subtotal, discountTotal, shippingTotal, taxTotal, total: subtotal - discountTotal + shippingTotal + taxTotal };
}
