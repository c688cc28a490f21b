// Money is integer minor units; arithmetic and rounding live here only.
import { z } from "zod";
import { errors } from "./errors";

/**
 * The largest amount anything may hold, in minor units: money columns are PostgreSQL integer and GraphQL Int
 * (32-bit), so every amount, line and cart/order total stays at or below 2,147,483,647.
 */
export const MAX_AMOUNT = 2_147_483_647;

/** The message every money field gives a fraction or a string: it says the fix. */
const MINOR_UNITS_HINT = "must be an integer amount in minor units, e.g. 1999 for 19.99";
// (A schema-level error applies to every issue: only a wrong type gets the hint, the rest keep zod's wording.)
const minor = () => z.number({ error: (i) => (i.code === "invalid_type" && i.input !== undefined ? MINOR_UNITS_HINT : undefined) }).int(MINOR_UNITS_HINT);
/** A non-negative amount in minor units. */
export const amount = minor().min(0).max(MAX_AMOUNT);
/** A strictly positive amount in minor units. */
export const positiveAmount = minor().min(1).max(MAX_AMOUNT);
/** A sum that must fit a money column: where it comes from in the input (details.issues path) and what it is. */
interface BoundedSum {
  path: (string | number)[];
  value: number;
  /** what the sum is, for the message: "The order's total", "amount x quantity" */
  what: string;
}

/**
 * The one bound of every money sum (carts, quotes, orders, line edits, subscriptions, manual payments): each sum over
 * MAX_AMOUNT is an issue of one 422 validation_error naming its field, thrown before anything is written, so a sum
 * never reaches PostgreSQL's integer range (a 500) or GraphQL's Int.
 */
export function assertSumsFit(sums: BoundedSum[]): void {
  const over = sums.filter((s) => !(s.value <= MAX_AMOUNT));
  if (over.length) throw errors.validation(over.map((s) => ({ path: s.path, message: `${s.what} would exceed ${MAX_AMOUNT} minor units` })));
}

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

interface LineAmounts {
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
// One Intl.NumberFormat per currency and display, built on first use (building one costs tens of microseconds, and
// receipts, emails and pages format amounts on every checkout). Unknown codes throw RangeError, as before.
const currencyFormats = new Map<string, { format: Intl.NumberFormat; digits: number }>();
function currencyFormat(currency: string, display: "code" | "symbol") {
  const key = `${currency}:${display}`;
  let f = currencyFormats.get(key);
  if (!f) {
    const format = new Intl.NumberFormat("en-US", { style: "currency", currency, currencyDisplay: display });
    f = { format, digits: format.resolvedOptions().maximumFractionDigits ?? 2 };
    if (currencyFormats.size >= 512) currencyFormats.clear();
    currencyFormats.set(key, f);
  }
  return f;
}

export function formatMoney(minor: number, currency: string): string {
  try {
    const f = currencyFormat(currency, "code");
    return f.format.format(minor / 10 ** f.digits).replace(/\u00a0/g, " ");
  } catch {
    return `${currency} ${minor}`;
  }
}

/** An amount with its currency symbol ("$12.50", "¥1,200"), for buyer pages; minor units by the currency's digits. */
export function formatMoneySymbol(minor: number, currency: string): string {
  const f = currencyFormat(currency, "symbol");
  return f.format.format(minor / 10 ** f.digits);
}
