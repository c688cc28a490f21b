// The status vocabularies of an order import (Shopify, WooCommerce, ours) and what each word says about the order's
// status, its money and its goods.
import { type ImportSettings, type MappedRow, type RowError } from "./import.handler";

type OrderStatus = "draft" | "pending" | "processing" | "partially_fulfilled" | "fulfilled" | "cancelled" | "closed";
type Fulfillment = "fulfilled" | "partially_fulfilled" | "unfulfilled";

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
function vocabulary(provider: ImportSettings["provider"], field: "status" | "paymentStatus" | "fulfillmentStatus"): string[] {
  if (field === "status") return provider === "woocommerce" ? Object.keys(WOO_STATUS) : OUR_STATUSES;
  if (field === "paymentStatus") return provider === "shopify" ? Object.keys(SHOPIFY_PAYMENT) : OUR_PAYMENT;
  return provider === "shopify" ? Object.keys(SHOPIFY_FULFILLMENT) : OUR_FULFILLMENT;
}

export interface Resolved {
  status: OrderStatus;
  /** our payment word after the rules (captured means "write an external payment") */
  payment: string;
  fulfillment: Fulfillment;
}

/** Reads the three status columns of an order's first row in the provider's vocabulary; unknown words are errors. */
export function resolveStatuses(row: MappedRow, s: ImportSettings, cancelled: boolean, errors: RowError[]): Resolved | null {
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
