// Money is integer minor units; arithmetic and rounding live here only.
import { z } from "zod";

/**
 * The largest amount anything may hold, in minor units: money columns are PostgreSQL integer and GraphQL Int
 * (32-bit), so every amount, line and cart/order total stays at or below 2,147,483,647.
 */
export const MAX_AMOUNT = 2_147_483_647;

/** The message every money field gives a fraction or a string: it says the fix. */
export const MINOR_UNITS_HINT = "must be an integer amount in minor units, e.g. 1999 for 19.99";
// (A schema-level error applies to every issue: only a wrong type gets the hint, the rest keep zod's wording.)
const minor = () => z.number({ error: (i) => (i.code === "invalid_type" && i.input !== undefined ? MINOR_UNITS_HINT : undefined) }).int(MINOR_UNITS_HINT);
/** A non-negative amount in minor units. */
export const amount = minor().min(0).max(MAX_AMOUNT);
/** A strictly positive amount in minor units. */
export const positiveAmount = minor().min(1).max(MAX_AMOUNT);
export const currencyCode = z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code like USD");

/** amount * basisPoints / 10000, rounded half up to the minor unit. */
export function applyBps(minor: number, bps: number): number {
  return Math.floor((minor * bps + 5_000) / 10_000);
}

/** percent (may be fractional, e.g. 12.5) of an amount, rounded half up. */
export function percentOf(minor: number, percent: number): number {
  return applyBps(minor, Math.round(percent * 100));
}

export function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

export interface LineAmounts {
  unitPrice: number;
  quantity: number;
  taxAmount?: number;
  discountAmount?: number;
}

/** A line's total: unitPrice x quantity - discount + tax. */
export function lineTotal(l: LineAmounts): number {
  return l.unitPrice * l.quantity - (l.discountAmount ?? 0) + (l.taxAmount ?? 0);
}

/** An amount for people: "USD 1,550.00" from 155000 minor units (the currency's own decimals). */
export function formatMoney(minor: number, currency: string): string {
  try {
    const f = new Intl.NumberFormat("en-US", { style: "currency", currency, currencyDisplay: "code" });
    const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
    return f.format(minor / 10 ** digits).replace(/\u00a0/g, " ");
  } catch {
    return `${currency} ${minor}`;
  }
}
