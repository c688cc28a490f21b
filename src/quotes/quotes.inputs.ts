// Request bodies of the merchant quote routes (quotes.md parts 2 and 4, decisions.md part 3), as zod schemas: the
// services parse with them, the OpenAPI document describes them, and GraphQL inputs map onto them.
import { z } from "zod";
import { LINE_ITEM_TYPES } from "../carts/cart-items.service";
import { emailSchema } from "../shared/email";
import { UNSAFE_TEXT } from "../shared/errors";
import { amount, positiveAmount } from "../shared/money";
import { QUOTE_STATUSES } from "./quote.machine";

export const TERMS_MODES = ["pay_in_full", "net_terms", "deposit_balance"] as const;
export const DELIVERY_METHODS = ["shipment", "in_person", "none"] as const;
export const SHIPPING_MODES = ["none", "flat", "at_checkout"] as const;
export const DEPOSIT_TYPES = ["percent", "fixed"] as const;
export const COMMENT_VISIBILITIES = ["shared", "internal"] as const;
/** Most lines one revision holds. */
export const MAX_QUOTE_ITEMS = 200;

const safe = (s: z.ZodString) => s.refine((v) => !UNSAFE_TEXT.test(v), "must not contain NUL characters or unpaired surrogates");
export const text = (max: number) => safe(z.string().trim().min(1).max(max));
/** Optional free text: null or "" clears it. */
export const clearable = (max: number) =>
  safe(z.string().trim().max(max))
    .nullish()
    .transform((v) => (v === undefined ? undefined : v ? v : null));
const isoDateTime = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date-time, e.g. 2027-01-31T17:00:00Z" }).transform((s) => new Date(s));

const lineItemInput = z.strictObject({
  /** PATCH of a revision: an item with its id keeps it (it must be one of this revision's items) */
  id: z.uuid("must be the id of one of this revision's items").optional(),
  name: text(500),
  description: clearable(5_000),
  /** absent or null: unpriced (a request's lines); issuing needs every line priced */
  unitPrice: amount.nullish(),
  quantity: z.number().int().min(1).max(1_000_000).default(1),
  type: z.enum(LINE_ITEM_TYPES).default("product"),
  optional: z.boolean().default(false),
  qtyEditable: z.boolean().default(false),
  sku: clearable(200),
  referenceId: clearable(200),
  note: clearable(2_000),
  targetUnitPrice: amount.nullish(),
  /** default: none for type service, else shipment */
  deliveryMethod: z.enum(DELIVERY_METHODS).optional(),
});
export type LineItemInput = z.output<typeof lineItemInput>;

const paymentTermsInput = z
  .strictObject({
    mode: z.enum(TERMS_MODES),
    netN: z.number().int().min(1).max(365).nullish(),
    balanceNetN: z.number().int().min(1).max(365).nullish(),
  })
  .superRefine((t, c) => {
    if (t.mode === "net_terms" && t.netN == null) c.addIssue({ code: "custom", path: ["netN"], message: "is required for net_terms (1 to 365)" });
    if (t.mode !== "net_terms" && t.netN != null) c.addIssue({ code: "custom", path: ["netN"], message: "applies to net_terms only" });
    if (t.mode === "deposit_balance" && t.balanceNetN == null) c.addIssue({ code: "custom", path: ["balanceNetN"], message: "is required for deposit_balance (the balance's Net days, 1 to 365)" });
    if (t.mode !== "deposit_balance" && t.balanceNetN != null) c.addIssue({ code: "custom", path: ["balanceNetN"], message: "applies to deposit_balance only" });
  });

const depositInput = z
  .strictObject({ type: z.enum(DEPOSIT_TYPES), value: positiveAmount })
  .refine((d) => d.type !== "percent" || d.value <= 99, { path: ["value"], message: "a percent deposit is 1 to 99" });

/** Each flag: omitted leaves it as is, null returns it to the derived default, a boolean overrides. */
const collectInput = z.strictObject({ shippingAddress: z.boolean().nullable().optional(), billingAddress: z.boolean().nullable().optional() });

/** The editable fields of a revision (PATCH of the working revision; also accepted by POST /quotes). */
const revisionFields = {
  items: z.array(lineItemInput).max(MAX_QUOTE_ITEMS).optional(),
  paymentTerms: paymentTermsInput.optional(),
  deposit: depositInput.nullable().optional(),
  collect: collectInput.optional(),
  shippingMode: z.enum(SHIPPING_MODES).optional(),
  shippingAmount: amount.nullable().optional(),
  /** whose rate in the environment's tax table applies (ISO 3166-1 alpha-2); null: the table's only rate, if just one */
  taxCountry: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 country code, e.g. US")
    .transform((c) => c.toUpperCase())
    .nullable()
    .optional(),
  /** shown to the buyer under the lines; null at issue takes the seller's default notes */
  notes: clearable(5_000),
  /** the offer's terms and conditions; null at issue takes the seller's default terms */
  terms: clearable(5_000),
};
export const updateRevisionInput = z.strictObject(revisionFields);
export type RevisionInput = z.output<typeof updateRevisionInput>;

export const createQuoteInput = z.strictObject({
  customerEmail: emailSchema,
  companyName: clearable(200),
  buyerReference: clearable(200),
  expiresAt: isoDateTime.nullish(),
  internalNote: clearable(10_000),
  ...revisionFields,
});

export const updateQuoteInput = z.strictObject({
  /** declined, under_review or archived; any other status is a move the table does not allow (409) */
  status: z.enum(QUOTE_STATUSES).optional(),
  declinedReason: clearable(2_000),
  buyerReference: clearable(200),
  expiresAt: isoDateTime.nullish(),
  internalNote: clearable(10_000),
});

export const issueQuoteInput = z.strictObject({});

export const commentInput = z.strictObject({
  body: text(5_000),
  visibility: z.enum(COMMENT_VISIBILITIES),
  /** shown to the buyer on shared comments; default the application's name */
  authorName: text(200).optional(),
});

export const quoteListFilters = {
  status: z.enum(QUOTE_STATUSES).optional(),
  customerId: z
    .string()
    .trim()
    .transform((s) => (s.startsWith("cus_") ? s.slice(4) : s))
    .pipe(z.uuid("must be a customer id"))
    .optional(),
  /** matches the number, the buyer's email, company or reference (case-insensitive substring) */
  q: text(200).optional(),
  /** quotes whose expiresAt is before this instant (quotes without an expiry never match) */
  expiresBefore: isoDateTime.optional(),
};
