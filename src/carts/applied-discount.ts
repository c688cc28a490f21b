// The promotion code on a cart, as stored in Cart.appliedDiscount, and what it takes off. Pure: carts.service.ts
// derives the cart's totals with it on every read, so a percent code follows the lines as they change.
import { percentOf } from "../shared/money";

/** Cart.appliedDiscount: a snapshot of the code when it was applied (discountId names the row redeemed at order). */
export interface AppliedDiscountSnapshot {
  discountId: string;
  code: string;
  type: "percent" | "fixed";
  value: number;
  currency: string | null;
  minSubtotal: number | null;
}

/** What the cart's and order's `appliedDiscount` read. */
interface AppliedDiscountView {
  code: string;
  type: "percent" | "fixed";
  value: number;
  amount: number;
}

export function snapshotOf(json: unknown): AppliedDiscountSnapshot | null {
  if (!json || typeof json !== "object") return null;
  const s = json as AppliedDiscountSnapshot;
  return typeof s.code === "string" && (s.type === "percent" || s.type === "fixed") && Number.isInteger(s.value) ? s : null;
}

/**
 * The code's amount on a base (the subtotal less the lines' own discounts): percent rounds half up to the minor
 * unit; a fixed amount never takes more than the base, so a total never goes below shipping + tax.
 */
export function discountAmountOn(d: Pick<AppliedDiscountSnapshot, "type" | "value">, base: number): number {
  if (base <= 0) return 0;
  return d.type === "percent" ? Math.min(base, percentOf(base, d.value)) : Math.min(base, d.value);
}

export function appliedDiscountView(json: unknown, base: number): AppliedDiscountView | null {
  const s = snapshotOf(json);
  return s && { code: s.code, type: s.type, value: s.value, amount: discountAmountOn(s, base) };
}
