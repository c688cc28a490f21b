// Cell values of an import row to typed values: dates read with the mapping's dateOrder, money to integer minor
// units of the currency, emails, integers. Each parser returns the value or an error code with a message the
// error report shows next to the row and column.
import { z } from "zod";

type Parsed<T> = { ok: true; value: T } | { ok: false; code: string; message: string };
const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (code: string, message: string): Parsed<never> => ({ ok: false, code, message });

/** Currencies without a minor unit (ISO 4217 exponent 0) and with three decimals; the rest have two. */
const ZERO_DECIMAL = new Set(["BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF"]);
const THREE_DECIMAL = new Set(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]);
function currencyExponent(currency: string): number {
  const c = currency.toUpperCase();
  return ZERO_DECIMAL.has(c) ? 0 : THREE_DECIMAL.has(c) ? 3 : 2;
}

/**
 * "1,234.50", "1234.5", "$12", "12.00 USD", "-3.10", "1.234,50" (comma decimal when the last separator is a comma
 * followed by one or two digits) -> minor units. More decimals than the currency has is an error, never rounded.
 */
export function parseMoney(raw: string, currency: string): Parsed<number> {
  let s = raw.trim().replace(/\s+/g, "").replace(/^[A-Z]{3}|[A-Z]{3}$/gi, "").replace(/[$€£¥]/g, "");
  let negative = false;
  if (/^\(.*\)$/.test(s)) [s, negative] = [s.slice(1, -1), true];
  if (s.startsWith("-")) [s, negative] = [s.slice(1), !negative];
  if (!/^[0-9][0-9.,']*$/.test(s)) return bad("invalid_money", `"${raw}" is not an amount`);
  const lastComma = s.lastIndexOf(",");
  const lastDot = s.lastIndexOf(".");
  let decimalSep: "," | "." | null = null;
  if (lastComma > lastDot && /^,\d{1,2}$/.test(s.slice(lastComma)) && (lastDot >= 0 || !/^\d{1,3}(,\d{3})+$/.test(s))) decimalSep = ",";
  else if (lastDot >= 0) decimalSep = ".";
  const [intPart, frac = ""] = decimalSep ? [s.slice(0, s.lastIndexOf(decimalSep)), s.slice(s.lastIndexOf(decimalSep) + 1)] : [s, ""];
  const digits = intPart.replace(/[.,']/g, "");
  if (!/^\d+$/.test(digits) || !/^\d*$/.test(frac)) return bad("invalid_money", `"${raw}" is not an amount`);
  const exp = currencyExponent(currency);
  const trimmedFrac = frac.replace(/0+$/, "");
  if (trimmedFrac.length > exp) return bad("invalid_money", `"${raw}" has more decimals than ${currency.toUpperCase()} allows (${exp})`);
  const minor = Number(digits) * 10 ** exp + Number((trimmedFrac + "000").slice(0, exp) || "0");
  if (!Number.isSafeInteger(minor) || minor > 2_000_000_000) return bad("invalid_money", `"${raw}" is too large`);
  return ok(negative ? -minor : minor);
}

/**
 * A date cell read with the mapping's day/month order: "31/01/2026", "01-31-2026 14:05", "2026-01-31" (ISO is
 * always year-month-day), "2026-01-31T14:05:00Z", "2026-01-31 14:05:00 +0100" (Shopify). Without a zone, UTC.
 */
export function parseDate(raw: string, dateOrder: "dmy" | "mdy"): Parsed<Date> {
  const s = raw.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  let y: number, mo: number, d: number, h: number, mi: number, se: number, zone: string | undefined;
  if (m) {
    [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    [h, mi, se] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
    zone = m[7];
  } else {
    m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/.exec(s);
    if (!m) return bad("invalid_date", `"${raw}" is not a date (expected ${dateOrder === "dmy" ? "DD/MM/YYYY" : "MM/DD/YYYY"} or YYYY-MM-DD)`);
    const [a, b] = [Number(m[1]), Number(m[2])];
    [d, mo] = dateOrder === "dmy" ? [a, b] : [b, a];
    y = Number(m[3]);
    [h, mi, se] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  }
  let t = Date.UTC(y, mo - 1, d, h, mi, se);
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (mo < 1 || mo > 12 || check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1 || h > 23 || mi > 59 || se > 59) {
    return bad("invalid_date", `"${raw}" is not a valid date read as ${dateOrder === "dmy" ? "day/month/year" : "month/day/year"}`);
  }
  if (zone && zone !== "Z") {
    const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
    t -= (zm[1] === "-" ? -1 : 1) * (Number(zm[2]) * 60 + Number(zm[3])) * 60_000;
  }
  if (y < 1970 || y > 2100) return bad("invalid_date", `"${raw}" is outside 1970-2100`);
  return ok(new Date(t));
}

const emailSchema = z.email();
export function parseEmail(raw: string): Parsed<string> {
  const s = raw.trim().toLowerCase();
  if (s.length > 254 || !emailSchema.safeParse(s).success) return bad("invalid_email", `"${raw}" is not an email address`);
  return ok(s);
}

export function parseInteger(raw: string, min: number, max: number): Parsed<number> {
  const s = raw.trim().replace(/\.0+$/, "");
  if (!/^-?\d+$/.test(s)) return bad("invalid_number", `"${raw}" is not a whole number`);
  const n = Number(s);
  if (n < min || n > max) return bad("invalid_number", `${n} is outside ${min}..${max}`);
  return ok(n);
}

/** Text cut to a column's length, trimmed; "" -> undefined. */
export function text(raw: string | undefined, max = 500): string | undefined {
  const s = raw?.trim();
  return s ? s.slice(0, max) : undefined;
}
