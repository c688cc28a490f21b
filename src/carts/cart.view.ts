// What a cart looks like to its callers: the JSON columns read back, the totals derived from the lines, the selected
// shipping and the tax lines (never stored, so they cannot drift from what they sum), and the cart and line views.
import { type Cart, type CartLineItem } from "../generated/prisma/client";
import { lineTotal, sum } from "../shared/money";
import { appliedDiscountView, discountAmountOn, snapshotOf } from "./applied-discount";
import { type CartWithItems, type SelectedShipping } from "./carts.service";
import type { TaxLine } from "../documents/tax-lines";

export function selectedShippingOf(cart: Pick<Cart, "selectedShipping">): SelectedShipping | null {
  return (cart.selectedShipping as SelectedShipping | null) ?? null;
}

export function taxLinesOf(cart: Pick<Cart, "taxLines">): TaxLine[] {
  return Array.isArray(cart.taxLines) ? (cart.taxLines as unknown as TaxLine[]) : [];
}

export interface CartTotals {
  subtotal: number;
  discountTotal: number;
  shippingTotal: number;
  taxTotal: number;
  total: number;
}

/** A cart's parts, as numbers or as SQL expressions: its lines' gross, every discount, shipping, every tax. */
export interface CartParts<T> {
  subtotal: T;
  discount: T;
  shipping: T;
  tax: T;
}

/** Sums and differences over numbers or over SQL expressions, for a formula that serves both. */
export interface Arithmetic<T> {
  plus(...terms: T[]): T;
  minus(a: T, b: T): T;
}

export const NUMBERS: Arithmetic<number> = { plus: (...terms) => terms.reduce((a, b) => a + b, 0), minus: (a, b) => a - b };

/** The totals of a cart from its parts, in either arithmetic: total = subtotal - discount + shipping + tax. */
export function totalsOf<T>(p: CartParts<T>, ar: Arithmetic<T>) {
  return { subtotal: p.subtotal, discountTotal: p.discount, shippingTotal: p.shipping, taxTotal: p.tax, total: ar.plus(ar.minus(p.subtotal, p.discount), p.shipping, p.tax) };
}

/**
 * totalsOf the lines and the cart's charges; tax is the lines' own tax plus the cart's tax lines. The
 * discount total is the lines' own discounts plus the applied promotion code's amount (a cart-level discount on
 * what the lines' discounts leave).
 */
export function cartTotals(cart: {
  lineItems: Pick<CartLineItem, "unitPrice" | "quantity" | "taxAmount" | "discountAmount">[];
  selectedShipping: SelectedShipping | null;
  taxLines: TaxLine[];
  appliedDiscount?: unknown;
}): CartTotals {
  const subtotal = sum(cart.lineItems.map((l) => lineTotal({ unitPrice: l.unitPrice, quantity: l.quantity })));
  const lineDiscounts = sum(cart.lineItems.map((l) => l.discountAmount));
  const code = snapshotOf(cart.appliedDiscount);
  const discountTotal = lineDiscounts + (code ? discountAmountOn(code, subtotal - lineDiscounts) : 0);
  const shippingTotal = cart.selectedShipping?.rateAmount ?? 0;
  const taxTotal = sum(cart.lineItems.map((l) => l.taxAmount)) + sum(cart.taxLines.map((t) => t.amount));
  return totalsOf({ subtotal, discount: discountTotal, shipping: shippingTotal, tax: taxTotal }, NUMBERS);
}

/** What a promotion code applies to: the subtotal less the lines' own discounts. */
export function codeDiscountBase(lineItems: Pick<CartLineItem, "unitPrice" | "quantity" | "discountAmount">[]): number {
  return sum(lineItems.map((l) => l.unitPrice * l.quantity - l.discountAmount));
}

export function lineItemView(l: CartLineItem) {
  return {
    id: l.id,
    type: l.type,
    referenceId: l.referenceId,
    name: l.name,
    description: l.description,
    unitPrice: l.unitPrice,
    quantity: l.quantity,
    taxAmount: l.taxAmount,
    discountAmount: l.discountAmount,
    imageUrl: l.imageUrl,
    requiresShipping: l.requiresShipping,
    metadata: l.metadata,
    total: lineTotal(l),
  };
}

export function cartView(cart: CartWithItems) {
  const selectedShipping = selectedShippingOf(cart);
  const taxLines = taxLinesOf(cart);
  return {
    id: cart.id,
    status: cart.status,
    currency: cart.currency,
    applicationId: cart.applicationId,
    customerId: cart.customerId,
    customerEmail: cart.customer?.email ?? cart.customerEmail,
    externalCartId: cart.externalCartId,
    lineItems: cart.lineItems.map(lineItemView),
    ...cartTotals({ lineItems: cart.lineItems, selectedShipping, taxLines, appliedDiscount: cart.appliedDiscount }),
    appliedDiscount: appliedDiscountView(cart.appliedDiscount, codeDiscountBase(cart.lineItems)),
    selectedShipping,
    taxLines,
    shippingAddress: cart.shippingAddress ?? null,
    billingAddress: cart.billingAddress ?? null,
    notes: cart.notes,
    metadata: cart.metadata,
    expiresAt: cart.expiresAt?.toISOString() ?? null,
    createdAt: cart.createdAt.toISOString(),
    updatedAt: cart.updatedAt.toISOString(),
  };
}
