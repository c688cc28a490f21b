// An order's totals from its lines (draft creation and line edits): subtotal and discounts from the lines, shipping
// kept, tax recomputed when the tenant has a rate for the shipping (else billing) country, else kept.
import { applyBps, sum } from "../shared/money";
import type { ShippingTaxConfig } from "../shipping-tax/shipping-tax.service";

export interface TotalsLine {
  unitPrice: number;
  quantity: number;
  taxAmount: number;
  discountAmount: number;
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
