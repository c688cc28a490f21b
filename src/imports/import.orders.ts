// Order rows: consecutive rows with the same order number (order.externalId) are one order; its first row carries
// the order-level fields and every row may carry a line. Statuses are read in the vocabulary of the import's
// provider (Shopify, WooCommerce, or ours), and the commit rules turn them into the order's status, a captured
// `external` payment for paid orders, a completed fulfillment for fulfilled ones, and the cancelled, closed and
// completed dates. A batch costs a fixed number of statements whatever its size: one lookup of the batch's order
// numbers, one of its customers, then one createMany per table (orders, lines, payments, transactions,
// fulfillments, fulfillment lines, status history) and at most three bulk updates.
import { randomUUID } from "node:crypto";
import { Prisma } from "../generated/prisma/client";
import { derivePaymentStatus } from "../orders/payment-status";
import type { Address } from "../shared/address";
import type { Tx } from "../shared/context";
import { type CustomerFields, parseCustomerFields, upsertCustomers } from "./import.customers";
import { type BatchOutcome, emptyOutcome, type ImportHandler, type ImportSettings, type MappedRow, type Notes, type RowError } from "./import.handler";
import { type PlannedKey, plannedKeys, planKeys } from "./import.planned";
import { registerUndoStep } from "./import.undo";
import { parseDate, parseEmail, parseInteger, parseMoney, text } from "./import.values";

type OrderStatus = "draft" | "pending" | "processing" | "partially_fulfilled" | "fulfilled" | "cancelled" | "closed";
type Fulfillment = "fulfilled" | "partially_fulfilled" | "unfulfilled";

// ---- status vocabularies ----------------------------------------------------------------------------------------

const OUR_STATUSES: OrderStatus[] = ["draft", "pending", "processing", "partially_fulfilled", "fulfilled", "cancelled", "closed"];
const OUR_PAYMENT = ["pending", "authorized", "processing", "partially_paid", "captured", "partially_refunded", "refunded", "failed", "voided", "disputed", "expired"];
const OUR_FULFILLMENT: Fulfillment[] = ["fulfilled", "partially_fulfilled", "unfulfilled"];

/** What an order status word says about the money and the goods (null: nothing). */
interface Implied {
  status: OrderStatus;
  payment: string | null;
  fulfillment: Fulfillment | null;
}
/** Our own status words: pending and draft orders are unpaid; processing onwards were paid; cancelled and closed say nothing. */
const OUR_STATUS_IMPLIES: Record<OrderStatus, Omit<Implied, "status">> = {
  draft: { payment: "pending", fulfillment: null },
  pending: { payment: "pending", fulfillment: null },
  processing: { payment: "captured", fulfillment: null },
  partially_fulfilled: { payment: "captured", fulfillment: "partially_fulfilled" },
  fulfilled: { payment: "captured", fulfillment: "fulfilled" },
  cancelled: { payment: null, fulfillment: null },
  closed: { payment: null, fulfillment: null },
};
/** WooCommerce order statuses (with or without the `wc-` prefix). */
const WOO_STATUS: Record<string, Implied> = {
  "checkout-draft": { status: "draft", payment: "pending", fulfillment: null },
  pending: { status: "pending", payment: "pending", fulfillment: null },
  "on-hold": { status: "pending", payment: "pending", fulfillment: null },
  processing: { status: "processing", payment: "captured", fulfillment: null },
  completed: { status: "fulfilled", payment: "captured", fulfillment: "fulfilled" },
  cancelled: { status: "cancelled", payment: "pending", fulfillment: null },
  refunded: { status: "closed", payment: "refunded", fulfillment: null },
  failed: { status: "pending", payment: "failed", fulfillment: null },
};
/** Shopify's Financial Status. */
const SHOPIFY_PAYMENT: Record<string, string> = {
  paid: "captured",
  pending: "pending",
  authorized: "authorized",
  partially_paid: "partially_paid",
  partially_refunded: "partially_refunded",
  refunded: "refunded",
  voided: "voided",
  expired: "expired",
};
/** Shopify's Fulfillment Status (an empty cell is unfulfilled; restocked items were never delivered). */
const SHOPIFY_FULFILLMENT: Record<string, Fulfillment> = { fulfilled: "fulfilled", partial: "partially_fulfilled", unfulfilled: "unfulfilled", restocked: "unfulfilled" };
/** Payment statuses under which money arrived and stayed: the order has moved on to processing. */
const PAID_LIKE = new Set(["captured", "partially_paid", "authorized", "partially_refunded", "refunded", "disputed"]);

const ourWord = (w: string) => w.trim().toLowerCase().replace(/[\s-]+/g, "_");
const wooWord = (w: string) =>
  w
    .trim()
    .toLowerCase()
    .replace(/^wc-/, "")
    .replace(/[\s_]+/g, "-");

/** The accepted words of a status column, for the error message. */
export function vocabulary(provider: ImportSettings["provider"], field: "status" | "paymentStatus" | "fulfillmentStatus"): string[] {
  if (field === "status") return provider === "woocommerce" ? Object.keys(WOO_STATUS) : OUR_STATUSES;
  if (field === "paymentStatus") return provider === "shopify" ? Object.keys(SHOPIFY_PAYMENT) : OUR_PAYMENT;
  return provider === "shopify" ? Object.keys(SHOPIFY_FULFILLMENT) : OUR_FULFILLMENT;
}

interface Resolved {
  status: OrderStatus;
  /** our payment word after the rules (captured means "write an external payment") */
  payment: string;
  fulfillment: Fulfillment;
}

/** Reads the three status columns of an order's first row in the provider's vocabulary; unknown words are errors. */
function resolveStatuses(row: MappedRow, s: ImportSettings, cancelled: boolean, errors: RowError[]): Resolved | null {
  const fail = (field: string, raw: string) =>
    errors.push({
      rowNumber: row.rowNumber,
      columnName: row.column(`order.${field}`),
      code: "invalid_status",
      message: `"${raw}" is not ${s.provider ? `a ${s.provider}` : "an accepted"} ${field === "status" ? "order status" : field === "paymentStatus" ? "payment status" : "fulfillment status"} (${vocabulary(s.provider, field as "status").join(", ")})`,
    });
  let implied: Implied | null = null;
  const rawStatus = row.get("order.status");
  if (rawStatus !== undefined) {
    if (s.provider === "woocommerce") {
      implied = WOO_STATUS[wooWord(rawStatus)] ?? null;
    } else {
      const w = ourWord(rawStatus) as OrderStatus;
      implied = OUR_STATUSES.includes(w) ? { status: w, ...OUR_STATUS_IMPLIES[w] } : null;
    }
    if (!implied) fail("status", rawStatus);
  }
  let payment: string | null = null;
  const rawPay = row.get("order.paymentStatus");
  if (rawPay !== undefined) {
    const w = ourWord(rawPay);
    payment = s.provider === "shopify" ? (SHOPIFY_PAYMENT[w] ?? null) : OUR_PAYMENT.includes(w) ? w : null;
    if (!payment) fail("paymentStatus", rawPay);
  }
  let fulfillment: Fulfillment | null = null;
  const rawFul = row.get("order.fulfillmentStatus");
  if (rawFul !== undefined) {
    const w = ourWord(rawFul);
    fulfillment = s.provider === "shopify" ? (SHOPIFY_FULFILLMENT[w] ?? null) : OUR_FULFILLMENT.includes(w as Fulfillment) ? (w as Fulfillment) : null;
    if (!fulfillment) fail("fulfillmentStatus", rawFul);
  }
  if (errors.length) return null;
  // the file's payment column wins, then what the order status implies, then the mapping's emptyPaymentPolicy
  const finalPayment = payment ?? implied?.payment ?? (s.emptyPaymentPolicy === "paid" ? "captured" : "pending");
  const finalFulfillment = fulfillment ?? implied?.fulfillment ?? "unfulfilled";
  let status: OrderStatus;
  if (implied) status = implied.status;
  else if (cancelled) status = "cancelled";
  else if (finalFulfillment === "fulfilled") status = "fulfilled";
  else if (finalFulfillment === "partially_fulfilled") status = "partially_fulfilled";
  else status = PAID_LIKE.has(finalPayment) ? "processing" : "pending";
  return { status, payment: finalPayment, fulfillment: finalFulfillment };
}

// ---- parsing ----------------------------------------------------------------------------------------------------

interface Line {
  rowNumber: number;
  name: string;
  sku: string | null;
  quantity: number;
  unitPrice: number;
  requiresShipping: boolean;
}

interface ParsedOrder {
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
function parseLine(row: MappedRow, currency: string, errors: RowError[]): Line | null {
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
function parseOrder(group: MappedRow[], s: ImportSettings, errors: RowError[]): ParsedOrder | null {
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
function orderNumber(row: MappedRow): string | null {
  const v = row.get("order.externalId")?.replace(/^'/, "").trim();
  return v ? v.slice(0, 200) : null;
}

// ---- the batch --------------------------------------------------------------------------------------------------

/** An order this pass wrote (or, in a dry run, would have): later rows of its number append lines to it. */
interface Known {
  id: string;
  currency: string;
  lineCount: number;
  /** the fulfillment this import created for it, which appended shippable lines join */
  fulfillmentId: string | null;
}

interface Plan {
  id: string;
  parsed: ParsedOrder;
  /** null: a new order; else the existing order being rewritten */
  existing: Found | null;
  customerId: string | null;
  rows: number;
}

type Found = {
  id: string;
  externalId: string | null;
  status: string;
  paymentStatus: string;
  currency: string;
  _count: { lineItems: number; payments: number; fulfillments: number; returns: number };
  fulfillments: { id: string }[];
};

function note(notes: Notes, key: string, count: number, sample: string) {
  const n = (notes[key] ??= { count: 0, sample: [] });
  n.count += count;
  if (n.sample.length < 10 && !n.sample.includes(sample)) n.sample.push(sample);
}

export const orderHandler: ImportHandler = {
  groupKey: orderNumber,
  async runBatch(db, s, groups, write) {
    const out = emptyOutcome();

    // one lookup for the batch's order numbers, one for which of them this import already wrote (a commit: they
    // are in the database) or would have written (a dry run: its planned keys)
    const numbers = [...new Set(groups.map((g) => orderNumber(g[0]!)).filter((n): n is string => !!n))];
    const found: Found[] = numbers.length
      ? await db.order.findMany({
          where: { applicationId: s.applicationId, environmentId: s.environmentId, externalId: { in: numbers } },
          select: {
            id: true,
            externalId: true,
            status: true,
            paymentStatus: true,
            currency: true,
            _count: { select: { lineItems: true, payments: true, fulfillments: true, returns: true } },
            fulfillments: { select: { id: true }, orderBy: { createdAt: "asc" }, take: 1 },
          },
        })
      : [];
    const byNumber = new Map(found.map((f) => [f.externalId!, f]));
    // the orders this commit wrote in earlier batches (or before a crash), and the fulfillments it gave them
    const ours = new Set(
      write && found.length
        ? (
            await db.importRecord.findMany({
              where: { importId: s.importId, entityType: { in: ["order", "fulfillment"] }, entityId: { in: found.flatMap((f) => [f.id, ...f.fulfillments.map((x) => x.id)]) } },
              select: { entityId: true },
            })
          ).map((r) => r.entityId)
        : [],
    );
    const planned = write ? new Map<string, PlannedKey>() : await plannedKeys(db, s.importId, numbers.map((n) => `o:${n}`));
    const earlierOrder = (number: string, f: Found | undefined): Known | undefined => {
      if (!write) {
        const p = planned.get(`o:${number}`);
        return p && { id: "", currency: p.ref, lineCount: 0, fulfillmentId: null };
      }
      if (!f || !ours.has(f.id)) return undefined;
      const fulfillment = f.fulfillments[0];
      return { id: f.id, currency: f.currency, lineCount: f._count.lineItems, fulfillmentId: fulfillment && ours.has(fulfillment.id) ? fulfillment.id : null };
    };

    const plans = new Map<string, Plan>(); // by order number: orders created or rewritten in this batch
    const appendTo = new Map<string, { known: Known; lines: Line[] }>(); // orders written in earlier batches
    for (const group of groups) {
      const first = group[0]!;
      const number = orderNumber(first);
      const errors: RowError[] = [];
      const failGroup = () => {
        out.errors.push(...errors);
        const bad = new Set(errors.map((e) => e.rowNumber));
        for (const r of group) {
          if (bad.has(r.rowNumber)) out.failed++;
          else out.skipped++;
        }
      };
      if (!number) {
        errors.push({ rowNumber: first.rowNumber, columnName: first.column("order.externalId"), code: "missing_required", message: "a row needs an order number" });
        failGroup();
        continue;
      }
      const inBatch = plans.get(number);
      const f = byNumber.get(number);
      const earlier = earlierOrder(number, f);
      if (inBatch || earlier) {
        // rows of an order this import already wrote (not next to its first rows): their lines are appended
        const currency = inBatch ? inBatch.parsed.currency : earlier!.currency;
        const lines: Line[] = [];
        for (const row of group) {
          const l = parseLine(row, currency, errors);
          if (l) lines.push(l);
        }
        if (errors.length) {
          failGroup();
          continue;
        }
        if (inBatch) inBatch.parsed.lines.push(...lines);
        else {
          const a = appendTo.get(number) ?? { known: earlier!, lines: [] };
          a.lines.push(...lines);
          appendTo.set(number, a);
        }
        out.skipped += group.length;
        note(out.notes, "rows_appended", group.length, number);
        continue;
      }
      const parsed = parseOrder(group, s, errors);
      if (!parsed) {
        failGroup();
        continue;
      }
      if (f && f._count.payments > 0 && parsed.currency !== f.currency) {
        errors.push({ rowNumber: first.rowNumber, columnName: first.column("order.currency"), code: "invalid_currency", message: `order ${number} already exists with payments in ${f.currency}, not ${parsed.currency}` });
        failGroup();
        continue;
      }
      plans.set(number, { id: f?.id ?? randomUUID(), parsed, existing: f ?? null, customerId: null, rows: group.length });
      if (f) {
        out.updated++;
        note(out.notes, "orders_rewritten", 1, number);
      } else out.created++;
      out.skipped += group.length - 1;
    }

    await resolveCustomers(db, s, [...plans.values()], write, out);

    // totals, and what each order gets: a payment when paid, a fulfillment when fulfilled
    const orderRows: Prisma.OrderCreateManyInput[] = [];
    const rewrites: Record<string, unknown>[] = [];
    const lineRows: Prisma.OrderLineItemCreateManyInput[] = [];
    const replaceLinesOf: string[] = [];
    const payments: Prisma.PaymentCreateManyInput[] = [];
    const transactions: Prisma.TransactionCreateManyInput[] = [];
    const fulfillments: Prisma.FulfillmentCreateManyInput[] = [];
    const fulfillmentLines: Prisma.FulfillmentLineCreateManyInput[] = [];
    const history: Prisma.OrderStatusHistoryCreateManyInput[] = [];
    for (const plan of plans.values()) {
      const { parsed: p, existing } = plan;
      const linesSum = p.lines.reduce((a, l) => a + l.unitPrice * l.quantity, 0);
      const subtotal = p.lines.length ? linesSum : (p.fileSubtotal ?? 0);
      const expected = subtotal - p.discount + p.shipping + p.tax;
      const total = p.fileTotal ?? expected;
      if (p.fileTotal !== undefined && p.fileTotal !== expected) note(out.notes, "total_mismatches", 1, p.number);
      const status = p.statuses.status;
      const fulfilled = p.statuses.fulfillment === "fulfilled";
      const hasPayments = (existing?._count.payments ?? 0) > 0;
      const hasFulfillments = (existing?._count.fulfillments ?? 0) + (existing?._count.returns ?? 0) > 0;
      const writePayment = p.statuses.payment === "captured" && !hasPayments && total > 0;
      const keepLines = !!existing && hasFulfillments; // lines that fulfillments or returns point at stay
      const shippable = keepLines ? [] : p.lines.filter((l) => l.requiresShipping);
      const fulfillmentId = fulfilled && !hasFulfillments && shippable.length ? randomUUID() : null;
      const dates = {
        cancelledAt: status === "cancelled" ? p.date : null,
        closedAt: status === "closed" ? p.date : null,
        completedAt: status === "fulfilled" || (status === "closed" && fulfilled) ? p.date : null,
      };
      const paymentStatus = hasPayments ? existing!.paymentStatus : p.statuses.payment;
      if (!write) continue;
      const fields = {
        customerId: plan.customerId,
        email: p.email,
        status,
        paymentStatus,
        currency: p.currency,
        subtotal,
        taxTotal: p.tax,
        shippingTotal: p.shipping,
        discountTotal: p.discount,
        total,
        notes: p.notes ?? null,
        ...dates,
      };
      if (existing) {
        rewrites.push({ id: plan.id, ...fields, billingAddress: p.billingAddress, shippingAddress: p.shippingAddress, createdAt: p.date });
        out.records.push({ entityType: "order", entityId: plan.id, action: "updated", rowNumber: p.rowNumber });
        if (existing.status !== status) history.push({ orderId: plan.id, fromStatus: existing.status, toStatus: status, actorType: "system", reason: "rewritten by an import", source: "migration", createdAt: s.now });
        if (!keepLines) replaceLinesOf.push(plan.id);
      } else {
        orderRows.push({
          id: plan.id,
          applicationId: s.applicationId,
          environmentId: s.environmentId,
          ...fields,
          ...(p.billingAddress ? { billingAddress: p.billingAddress } : {}),
          ...(p.shippingAddress ? { shippingAddress: p.shippingAddress } : {}),
          source: "import",
          importId: s.importId,
          externalId: p.number,
          createdAt: p.date,
          updatedAt: s.now,
        });
        out.records.push({ entityType: "order", entityId: plan.id, action: "created", rowNumber: p.rowNumber });
        history.push({ orderId: plan.id, fromStatus: null, toStatus: status, actorType: "system", reason: "imported", source: "migration", createdAt: p.date });
      }
      if (!keepLines) {
        p.lines.forEach((l, i) => {
          const lineId = randomUUID();
          const handed = fulfillmentId && l.requiresShipping ? l.quantity : 0;
          lineRows.push({ id: lineId, orderId: plan.id, name: l.name, referenceId: l.sku, unitPrice: l.unitPrice, quantity: l.quantity, requiresShipping: l.requiresShipping, position: i, fulfilledQuantity: handed });
          if (handed) fulfillmentLines.push({ fulfillmentId: fulfillmentId!, lineItemId: lineId, quantity: l.quantity });
        });
      }
      if (writePayment) {
        const paymentId = randomUUID();
        payments.push({
          id: paymentId,
          applicationId: s.applicationId,
          environmentId: s.environmentId,
          orderId: plan.id,
          status: "captured",
          amount: total,
          currency: p.currency,
          method: "external",
          processor: "manual",
          authorizedAmount: total,
          capturedAmount: total,
          receivedAt: p.date,
          recordedBy: "import",
          metadata: { importId: s.importId },
          createdAt: p.date,
          updatedAt: s.now,
        });
        transactions.push({ paymentId, type: "capture", status: "succeeded", amount: total, currency: p.currency, createdAt: p.date });
        out.records.push({ entityType: "payment", entityId: paymentId, action: "created", rowNumber: p.rowNumber });
      }
      if (fulfillmentId) {
        fulfillments.push({ id: fulfillmentId, applicationId: s.applicationId, environmentId: s.environmentId, orderId: plan.id, status: "completed", hasShipment: false, note: "imported", createdAt: p.date, updatedAt: s.now });
        out.records.push({ entityType: "fulfillment", entityId: fulfillmentId, action: "created", rowNumber: p.rowNumber });
      }
    }

    // lines appended to orders written by earlier batches; their totals follow unless the file gives them
    const totalsAdd: { id: string; add: number }[] = [];
    for (const { known, lines } of appendTo.values()) {
      let add = 0;
      for (const l of lines) {
        const lineId = randomUUID();
        const handed = known.fulfillmentId && l.requiresShipping ? l.quantity : 0;
        if (write) lineRows.push({ id: lineId, orderId: known.id, name: l.name, referenceId: l.sku, unitPrice: l.unitPrice, quantity: l.quantity, requiresShipping: l.requiresShipping, position: known.lineCount++, fulfilledQuantity: handed });
        else known.lineCount++;
        if (write && handed) fulfillmentLines.push({ fulfillmentId: known.fulfillmentId!, lineItemId: lineId, quantity: l.quantity });
        add += l.unitPrice * l.quantity;
      }
      if (add) totalsAdd.push({ id: known.id, add });
    }
    if (!write) {
      await planKeys(db, s.importId, new Map([...plans.values()].map((p) => [`o:${p.parsed.number}`, { ref: p.parsed.currency, ext: null }])));
      return out;
    }

    if (orderRows.length) await db.order.createMany({ data: orderRows });
    if (rewrites.length) await rewriteOrders(db, rewrites, s.now);
    if (replaceLinesOf.length) await db.orderLineItem.deleteMany({ where: { orderId: { in: replaceLinesOf } } });
    if (lineRows.length) await db.orderLineItem.createMany({ data: lineRows });
    if (totalsAdd.length) {
      // the subtotal is the sum of the lines; the total too, unless the file gives the order's total
      const totalFromFile = groups[0]![0]!.column("order.total") !== null;
      await db.$executeRaw`
        UPDATE "Order" AS o SET
          "subtotal" = o."subtotal" + x."add",
          "total" = CASE WHEN ${totalFromFile} THEN o."total" ELSE o."total" + x."add" END,
          "updatedAt" = ${s.now}
        FROM jsonb_to_recordset(${JSON.stringify(totalsAdd)}::jsonb) AS x("id" uuid, "add" int)
        WHERE o."id" = x."id"`;
      if (!totalFromFile) {
        // the import's own captured payment paid the whole order: it grows with it (amount and capture row)
        await db.$executeRaw`
          UPDATE "Transaction" AS t SET "amount" = t."amount" + x."add"
          FROM "Payment" AS p, jsonb_to_recordset(${JSON.stringify(totalsAdd)}::jsonb) AS x("id" uuid, "add" int)
          WHERE t."paymentId" = p."id" AND t."type" = 'capture' AND p."orderId" = x."id" AND p."metadata"->>'importId' = ${s.importId}`;
        await db.$executeRaw`
          UPDATE "Payment" AS p SET "amount" = p."amount" + x."add", "authorizedAmount" = p."authorizedAmount" + x."add",
            "capturedAmount" = p."capturedAmount" + x."add", "updatedAt" = ${s.now}
          FROM jsonb_to_recordset(${JSON.stringify(totalsAdd)}::jsonb) AS x("id" uuid, "add" int)
          WHERE p."orderId" = x."id" AND p."metadata"->>'importId' = ${s.importId}`;
      }
    }
    if (payments.length) {
      await db.payment.createMany({ data: payments });
      await db.transaction.createMany({ data: transactions });
    }
    if (fulfillments.length) await db.fulfillment.createMany({ data: fulfillments });
    if (fulfillmentLines.length) await db.fulfillmentLine.createMany({ data: fulfillmentLines });
    if (history.length) await db.orderStatusHistory.createMany({ data: history });
    return out;
  },
};

/** Orders of another source rewritten from the file, in one statement. */
async function rewriteOrders(db: Tx, rows: Record<string, unknown>[], now: Date) {
  await db.$executeRaw`
    UPDATE "Order" AS o SET
      "customerId" = x."customerId", "email" = x."email", "status" = x."status", "paymentStatus" = x."paymentStatus",
      "currency" = x."currency", "subtotal" = x."subtotal", "taxTotal" = x."taxTotal", "shippingTotal" = x."shippingTotal",
      "discountTotal" = x."discountTotal", "total" = x."total", "notes" = x."notes", "billingAddress" = x."billingAddress",
      "shippingAddress" = x."shippingAddress", "cancelledAt" = x."cancelledAt", "closedAt" = x."closedAt",
      "completedAt" = x."completedAt", "createdAt" = x."createdAt", "updatedAt" = ${now}
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
      "id" uuid, "customerId" uuid, "email" text, "status" text, "paymentStatus" text, "currency" text, "subtotal" int,
      "taxTotal" int, "shippingTotal" int, "discountTotal" int, "total" int, "notes" text, "billingAddress" jsonb,
      "shippingAddress" jsonb, "cancelledAt" timestamptz, "closedAt" timestamptz, "completedAt" timestamptz, "createdAt" timestamptz)
    WHERE o."id" = x."id"`;
}

/**
 * Customers of the batch's orders: found by email (one query); missing ones created from the order's contact
 * details when the mapping says createMissingCustomers (a `customers_created` note, not a row count).
 */
async function resolveCustomers(db: Tx, s: ImportSettings, plans: Plan[], write: boolean, out: BatchOutcome) {
  const wanted = plans.filter((p) => p.parsed.email && !p.parsed.guest);
  const emails = [...new Set(wanted.map((p) => p.parsed.email!))];
  if (!emails.length) return;
  const known = await db.customer.findMany({ where: { applicationId: s.applicationId, environmentId: s.environmentId, email: { in: emails } }, select: { id: true, email: true } });
  const byEmail = new Map(known.map((c) => [c.email!, c.id]));
  if (s.createMissingCustomers) {
    const items: Parameters<typeof upsertCustomers>[2] = [];
    const seen = new Set<string>();
    for (const p of wanted) {
      const e = p.parsed.email!;
      if (byEmail.has(e) || seen.has(e)) continue;
      seen.add(e);
      items.push({ rowNumber: p.parsed.rowNumber, fields: p.parsed.customer, column: () => null });
    }
    if (items.length) {
      const ids = await upsertCustomers(db, s, items, write, out, { countRows: false });
      for (const item of items) {
        const id = ids.get(item.rowNumber);
        if (id) byEmail.set(item.fields.email!, id);
      }
    }
  }
  for (const p of wanted) p.customerId = byEmail.get(p.parsed.email!) ?? null;
}

// ---- undo -------------------------------------------------------------------------------------------------------

/** Payments the import created go, with their ledger rows. */
registerUndoStep("payment", async (tx, imp, ids) => {
  const pays = await tx.payment.findMany({ where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId }, select: { id: true } });
  const present = pays.map((p) => p.id);
  if (present.length) {
    await tx.transaction.deleteMany({ where: { paymentId: { in: present } } });
    await tx.payment.deleteMany({ where: { id: { in: present } } });
  }
  return { deleted: ids, kept: {} };
});

/** Fulfillments the import created go (their lines cascade); the lines they handed over are counted again. */
registerUndoStep("fulfillment", async (tx, imp, ids) => {
  const rows = await tx.fulfillment.findMany({ where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId }, select: { id: true, orderId: true } });
  if (rows.length) {
    await tx.fulfillment.deleteMany({ where: { id: { in: rows.map((r) => r.id) } } });
    const orderIds = [...new Set(rows.map((r) => r.orderId))];
    await tx.$executeRaw`
      UPDATE "OrderLineItem" AS li SET "fulfilledQuantity" = COALESCE((
        SELECT sum(fl."quantity") FROM "FulfillmentLine" fl JOIN "Fulfillment" f ON f."id" = fl."fulfillmentId"
        WHERE fl."lineItemId" = li."id" AND f."status" <> 'cancelled'), 0)
      WHERE li."orderId" IN (${Prisma.join(orderIds.map((id) => Prisma.sql`${id}::uuid`))})`;
  }
  return { deleted: ids, kept: {} };
});

/**
 * Orders the import created go (lines, status history, activity cascade) unless something from elsewhere now
 * hangs on them: payments, fulfillments or returns (the import's own payments and fulfillments are gone by now).
 */
registerUndoStep("order", async (tx, imp, ids) => {
  const orders = await tx.order.findMany({
    where: { id: { in: ids }, applicationId: imp.applicationId, environmentId: imp.environmentId },
    select: { id: true, total: true, compAmount: true, paymentStatus: true, _count: { select: { payments: true, fulfillments: true, returns: true } } },
  });
  const kept: Record<string, string[]> = {};
  const keep = new Set<string>();
  for (const o of orders) {
    const reason = o._count.payments ? "order_has_payments" : o._count.fulfillments ? "order_has_fulfillments" : o._count.returns ? "order_has_returns" : null;
    if (!reason) continue;
    keep.add(o.id);
    (kept[reason] ??= []).push(o.id);
  }
  const deleted = ids.filter((id) => !keep.has(id));
  if (deleted.length) await tx.order.deleteMany({ where: { id: { in: deleted }, applicationId: imp.applicationId, environmentId: imp.environmentId } });
  // a kept order lost the import's payment: its paymentStatus is rolled up again from what it still has. The import
  // wrote a payment exactly for the orders it marked captured, so those are rolled up even with no payment left
  // (else they would still say captured); a status the file gave without a payment (refunded, authorized…) stays.
  const paid = orders.filter((o) => keep.has(o.id) && (o._count.payments || o.paymentStatus === "captured"));
  if (paid.length) {
    const payments = await tx.payment.findMany({ where: { orderId: { in: paid.map((o) => o.id) } }, select: { orderId: true, status: true, capturedAmount: true, refundedAmount: true, disputed: true } });
    for (const o of paid) {
      const next = derivePaymentStatus(o, payments.filter((p) => p.orderId === o.id));
      if (next !== o.paymentStatus) await tx.order.update({ where: { id: o.id }, data: { paymentStatus: next } });
    }
  }
  return { deleted, kept };
});
