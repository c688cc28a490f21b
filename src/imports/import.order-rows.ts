// Parsing an order import's rows: consecutive rows with one order number are one order; its first row carries the
// order-level fields, every row may carry a line.
import type { Address } from "../shared/address";
import { type CustomerFields, parseCustomerFields } from "./import.customers";
import { type ImportSettings, type MappedRow, type RowError } from "./import.handler";
import { parseDate, parseEmail, parseInteger, parseMoney, text } from "./import.values";
import { type Resolved, resolveStatuses } from "./import.order-statuses";

export interface Line {
  rowNumber: number;
  name: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  requiresShipping: boolean;
}

export interface ParsedOrder {
  number: string;
  rowNumber: number;
  date: Date;
  currency: string;
  fileSubtotal?: number;
  fileTotal?: number;
  tax: number;
  shipping: number;
  discount: number;
  notes?: string;
  statuses: Resolved;
  email: string | null;
  guest: boolean;
  customer: CustomerFields;
  billingAddress: Address | null;
  shippingAddress: Address | null;
  lines: Line[];
}

const BOOL: Record<string, boolean> = { true: true, false: false, yes: true, no: false, y: true, n: false, "1": true, "0": false };

/** The line of a row, if it carries one; errors name the row's columns. */
export function parseLine(row: MappedRow, currency: string, errors: RowError[]): Line | null {
  const name = text(row.get("line.name"), 500);
  const sku = text(row.get("line.sku"), 200) ?? null;
  const qty = row.get("line.quantity");
  const price = row.get("line.unitPrice");
  const ship = row.get("line.requiresShipping");
  if (!name && !sku && qty === undefined && price === undefined) return null;
  const fail = (field: string, code: string, message: string) => errors.push({ rowNumber: row.rowNumber, columnName: row.column(field), code, message });
  const n = errors.length;
  let quantity = 1;
  if (qty !== undefined) {
    const p = parseInteger(qty, 1, 1_000_000);
    if (p.ok) quantity = p.value;
    else fail("line.quantity", p.code, p.message);
  }
  let unitPrice = 0;
  if (price !== undefined) {
    const p = parseMoney(price, currency);
    if (!p.ok) fail("line.unitPrice", p.code, p.message);
    else if (p.value < 0) fail("line.unitPrice", "invalid_money", `"${price}" is negative`);
    else unitPrice = p.value;
  }
  let requiresShipping = true;
  if (ship !== undefined) {
    const b = BOOL[ship.trim().toLowerCase()];
    if (b === undefined) fail("line.requiresShipping", "invalid_boolean", `"${ship}" is not true or false`);
    else requiresShipping = b;
  }
  if (!name && !sku) fail("line.name", "missing_required", "a line needs a name (or a SKU)");
  if (errors.length > n) return null;
  return { rowNumber: row.rowNumber, name: name ?? sku!, sku, quantity, unitPrice, requiresShipping };
}

function money(row: MappedRow, field: string, currency: string, errors: RowError[]): number | undefined {
  const raw = row.get(field);
  if (raw === undefined) return undefined;
  const p = parseMoney(raw, currency);
  if (p.ok) return p.value;
  errors.push({ rowNumber: row.rowNumber, columnName: row.column(field), code: p.code, message: p.message });
  return undefined;
}

/** A canonical address from `prefix` (billing, shipping) when its required parts are there; a bad country is an error. */
function parseAddress(row: MappedRow, prefix: string, errors: RowError[]): Address | null {
  const g = (k: string) => text(row.get(`${prefix}.${k}`), k === "postalCode" ? 20 : k === "city" || k === "stateProvince" ? 100 : 200);
  const country = g("countryCode");
  if (country !== undefined && !/^[A-Za-z]{2}$/.test(country)) {
    errors.push({ rowNumber: row.rowNumber, columnName: row.column(`${prefix}.countryCode`), code: "invalid_address", message: `"${country}" is not a two-letter country code (ISO 3166-1 alpha-2)` });
    return null;
  }
  const line1 = g("addressLine1");
  const city = g("city");
  if (!line1 || !city || !country) return null;
  return { addressLine1: line1, addressLine2: g("addressLine2") ?? null, city, stateProvince: g("stateProvince") ?? null, postalCode: g("postalCode") ?? null, countryCode: country.toUpperCase() };
}

/** Name, company and phone for a customer created from the order: customer.* columns, else billing, else shipping. */
function contactOf(row: MappedRow, base: CustomerFields): CustomerFields {
  const nameOf = (p: string) => text(row.get(`${p}.name`), 200) ?? (text([row.get(`${p}.firstName`), row.get(`${p}.lastName`)].filter(Boolean).join(" "), 200) || undefined);
  return {
    email: base.email,
    name: base.name ?? nameOf("billing") ?? nameOf("shipping"),
    company: base.company ?? text(row.get("billing.company"), 200) ?? text(row.get("shipping.company"), 200),
    phone: base.phone ?? text(row.get("billing.phone"), 50) ?? text(row.get("shipping.phone"), 50),
  };
}

/** The order-level fields of a group's first row and the lines of all its rows; null (with errors) when any is wrong. */
export function parseOrder(group: MappedRow[], s: ImportSettings, errors: RowError[]): ParsedOrder | null {
  const first = group[0]!;
  const n = errors.length;
  const fail = (field: string, code: string, message: string) => errors.push({ rowNumber: first.rowNumber, columnName: first.column(field), code, message });
  const number = orderNumber(first)!;
  let date: Date | undefined;
  const rawDate = first.get("order.date");
  if (rawDate === undefined) fail("order.date", "missing_required", `order ${number} has no date on its first row`);
  else {
    const p = parseDate(rawDate, s.dateOrder);
    if (p.ok) date = p.value;
    else fail("order.date", p.code, p.message);
  }
  let cancelled = false;
  const rawCancelled = first.get("order.cancelledAt");
  if (rawCancelled !== undefined) {
    const p = parseDate(rawCancelled, s.dateOrder);
    if (p.ok) cancelled = true;
    else fail("order.cancelledAt", p.code, p.message);
  }
  let currency = s.currency.toUpperCase();
  const rawCurrency = first.get("order.currency");
  if (rawCurrency !== undefined) {
    if (/^[A-Za-z]{3}$/.test(rawCurrency)) currency = rawCurrency.toUpperCase();
    else fail("order.currency", "invalid_currency", `"${rawCurrency}" is not a three-letter currency code (ISO 4217)`);
  }
  const statusErrors: RowError[] = [];
  const statuses = resolveStatuses(first, s, cancelled, statusErrors);
  errors.push(...statusErrors);
  const fileSubtotal = money(first, "order.subtotal", currency, errors);
  const fileTotal = money(first, "order.total", currency, errors);
  const tax = money(first, "order.taxTotal", currency, errors) ?? 0;
  const shipping = money(first, "order.shippingTotal", currency, errors) ?? 0;
  const discount = Math.abs(money(first, "order.discountTotal", currency, errors) ?? 0);

  // customer: matched by email (customer.email, else billing.email); a guest sentinel means no customer
  const isSentinel = (v: string | undefined) => v !== undefined && s.guestSentinels.has(v.trim().toLowerCase());
  const guest = ["customer.email", "billing.email", "customer.externalId", "customer.name"].some((f) => isSentinel(first.get(f)));
  let email: string | null = null;
  const emailField = first.get("customer.email") !== undefined && !isSentinel(first.get("customer.email")) ? "customer.email" : "billing.email";
  const rawEmail = first.get(emailField);
  if (rawEmail !== undefined && !isSentinel(rawEmail)) {
    const p = parseEmail(rawEmail);
    if (p.ok) email = p.value;
    else fail(emailField, p.code, p.message);
  }
  const { fields } = parseCustomerFields(first);
  const customer = contactOf(first, { ...fields, email: email ?? undefined });
  const billingAddress = parseAddress(first, "billing", errors);
  const shippingAddress = parseAddress(first, "shipping", errors);
  const lines: Line[] = [];
  for (const row of group) {
    const l = parseLine(row, currency, errors);
    if (l) lines.push(l);
  }
  if (errors.length > n || !date || !statuses) return null;
  return {
    number,
    rowNumber: first.rowNumber,
    date,
    currency,
    fileSubtotal,
    fileTotal,
    tax,
    shipping,
    discount,
    notes: text(first.get("order.notes"), 5000),
    statuses,
    email,
    guest,
    customer,
    billingAddress,
    shippingAddress,
    lines,
  };
}

/** Shopify writes numbers as "#1001"; a leading apostrophe (spreadsheet text marker) is dropped. */
export function orderNumber(row: MappedRow): string | null {
  const v = row.get("order.externalId")?.replace(/^'/, "").trim();
  return v ? v.slice(0, 200) : null;
}
