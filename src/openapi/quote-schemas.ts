// Response shapes of quotes, the buyer's quote, quote notifications and request forms (see ./schemas.ts).
import { z } from "zod";
import { QuoteParties } from "./party-schemas";
import { orNull } from "./common-schemas";

const id = z.uuid();
const ts = z.iso.datetime();
const money = z.number().int();
const nullable = orNull;

const QuoteLineItem = z
  .object({
    id,
    name: z.string(),
    description: z.string().nullable(),
    unitPrice: money.nullable().meta({ description: "null while unpriced (a request's lines)" }),
    quantity: z.number().int(),
    type: z.string(),
    optional: z.boolean(),
    selected: z.boolean(),
    qtyEditable: z.boolean(),
    sku: z.string().nullable(),
    referenceId: z.string().nullable(),
    note: z.string().nullable(),
    targetUnitPrice: money.nullable().meta({ description: "The buyer's asked price: recorded, never quoted" }),
    deliveryMethod: z.enum(["shipment", "in_person", "none"]),
    total: money.nullable(),
  })
  .strict()
  .meta({ id: "QuoteLineItem" });

const collect = z.object({ shippingAddress: z.boolean(), billingAddress: z.boolean() }).strict();

const QuoteTaxLine = z
  .object({ name: z.string(), rateBps: z.number().int().meta({ description: "Basis points (825 = 8.25%)" }), jurisdiction: z.string().meta({ description: "The country code" }), amount: money })
  .strict()
  .meta({ id: "QuoteTaxLine", description: "Tax on the selected lines plus priced shipping, half up" });

export const QuoteRevision = z
  .object({
    id,
    number: z.number().int(),
    status: z.enum(["working", "issued", "superseded"]),
    items: z.array(QuoteLineItem),
    paymentTerms: z.object({ mode: z.enum(["pay_in_full", "net_terms", "deposit_balance"]), netN: z.number().int().nullable(), balanceNetN: z.number().int().nullable() }).strict(),
    deposit: z.object({ type: z.enum(["percent", "fixed"]), value: z.number().int() }).strict().nullable(),
    depositAmount: money.nullable().meta({ description: "Frozen at issue" }),
    collectShipping: z.boolean().nullable().meta({ description: "Stored override; null derives" }),
    collectBilling: z.boolean().nullable().meta({ description: "Stored override; null derives" }),
    collect: collect.meta({ description: "What checkout will ask for" }),
    collectDefault: collect.meta({ description: "What derivation alone would ask for" }),
    shippingMode: z.enum(["none", "flat", "at_checkout"]),
    shippingAmount: money.nullable(),
    taxCountry: z.string().nullable().meta({ description: "ISO 3166-1 alpha-2: whose rate in the tax table applies; null: the table's only rate, if it has just one" }),
    notes: z.string().nullable().meta({ description: "Shown to the buyer under the lines (the seller's default notes when issued without)" }),
    terms: z.string().nullable().meta({ description: "The offer's terms (the seller's default terms when issued without)" }),
    parties: orNull(QuoteParties).meta({ description: "Frozen at issue; null on a working revision" }),
    subtotal: money,
    shippingTotal: money,
    taxLines: z.array(QuoteTaxLine).meta({ description: "Live from the environment's tax table while working, frozen at issue; empty unless the environment configures tax" }),
    taxTotal: money,
    total: money,
    issuedAt: ts.nullable(),
    supersededAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "QuoteRevision" });

export const QuoteComment = z
  .object({ id, visibility: z.enum(["shared", "internal"]), authorType: z.enum(["merchant", "buyer"]), authorName: z.string().nullable(), body: z.string(), createdAt: ts })
  .strict()
  .meta({ id: "QuoteComment" });

const QuoteAcceptanceRecord = z
  .object({
    by: z.enum(["buyer", "merchant"]),
    name: z.string(),
    email: z.string(),
    items: z.array(z.object({ itemId: id, selected: z.boolean(), quantity: z.number().int() }).strict()),
  })
  .strict();

export const Quote = z
  .object({
    id,
    number: z.string().meta({ description: "Q-{seq}" }),
    status: z.enum(["draft", "requested", "under_review", "proposed", "revision_requested", "accepted", "converted", "declined", "expired", "archived"]),
    currency: z.string(),
    customerId: id.nullable(),
    customer: z.object({ id, email: z.string().nullable() }).strict().nullable(),
    customerEmail: z.string(),
    companyName: z.string().nullable(),
    buyerReference: z.string().nullable(),
    source: z.enum(["api", "dashboard", "request_form", "cart"]),
    shareToken: z.string().meta({ description: "The buyer link's token (rotate-link replaces it)" }),
    buyerUrl: z.string(),
    expiresAt: ts.nullable(),
    declinedReason: z.string().nullable(),
    declinedBy: z.enum(["merchant", "buyer"]).nullable(),
    internalNote: z.string().nullable(),
    currentRevisionId: id.nullable(),
    workingRevision: nullable(QuoteRevision),
    revisions: z.array(QuoteRevision),
    comments: z.array(QuoteComment),
    requestFormId: id.nullable(),
    cartId: id.nullable(),
    acceptedRevisionId: id.nullable(),
    acceptedAt: ts.nullable(),
    acceptance: QuoteAcceptanceRecord.extend({ reason: z.string().nullable() }).strict().nullable(),
    checkoutSessionId: id.nullable().meta({ description: "The accepted quote's checkout (the latest, when a lapsed one was resumed)" }),
    orderId: id.nullable().meta({ description: "Set with the order, in the same transaction (converted)" }),
    convertedAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "Quote", description: "The merchant view: internal notes and comments included" });

export const QuoteAcceptance = z.object({ quote: Quote, checkoutUrl: z.string() }).strict().meta({ id: "QuoteAcceptance" });

const BuyerQuoteLine = QuoteLineItem.omit({ targetUnitPrice: true }).meta({ id: "BuyerQuoteLineItem" });

export const BuyerQuoteComment = z
  .object({ id, authorType: z.enum(["merchant", "buyer"]), authorName: z.string().nullable(), body: z.string(), createdAt: ts })
  .strict()
  .meta({ id: "BuyerQuoteComment" });

const BuyerQuoteSummary = z
  .object({
    number: z.string(),
    status: Quote.shape.status,
    currency: z.string(),
    expiresAt: ts.nullable(),
    buyerReference: z.string().nullable(),
    expired: z.boolean().meta({ description: "Past its expiry (a proposed quote reads expired at once, before the hourly job moves it)" }),
    declinedBy: z.enum(["merchant", "buyer"]).nullable(),
    declinedReason: z.string().nullable().meta({ description: "The reason given with the decline (the buyer's own, or the merchant's)" }),
    acceptedRevisionId: id.nullable(),
    acceptedAt: ts.nullable(),
    acceptance: QuoteAcceptanceRecord.nullable(),
    checkoutUrl: z.string().nullable().meta({ description: "While accepted: the checkout to pay" }),
  })
  .strict()
  .meta({ id: "BuyerQuoteSummary", description: "The quote's own fields as the buyer sees them" });

const BuyerQuoteLineBrief = z.object({ name: z.string(), quantity: z.number().int(), unitPrice: money.nullable() }).strict().meta({ id: "BuyerQuoteLineBrief" });
const BuyerQuoteLineQuantityPrice = z.object({ quantity: z.number().int(), unitPrice: money.nullable() }).strict().meta({ id: "BuyerQuoteLineQuantityPrice" });
const BuyerQuoteRevisionChanges = z
  .object({
    fromRevision: z.number().int(),
    added: z.array(BuyerQuoteLineBrief),
    removed: z.array(BuyerQuoteLineBrief),
    changed: z.array(z.object({ name: z.string(), from: BuyerQuoteLineQuantityPrice, to: BuyerQuoteLineQuantityPrice }).strict()),
    previousTotal: money,
  })
  .strict()
  .meta({ id: "BuyerQuoteRevisionChanges", description: "What changed from the previous issued revision (lines matched by product id, SKU, else name)" });

const BuyerQuoteOrder = z
  .object({
    number: z.string(),
    paymentStatus: z.string(),
    placedAt: ts,
    total: money,
    amountPaid: money,
    amountDue: money,
    invoice: z
      .object({ number: z.string(), amount: money, dueDate: z.string().nullable(), paid: z.boolean(), downloadUrl: z.string().meta({ description: "The invoice PDF (the buyer download link invoice emails carry)" }) })
      .strict()
      .nullable(),
  })
  .strict()
  .meta({ id: "BuyerQuoteOrder", description: "The order the quote became, what was paid and its Net-N invoice" });

export const BuyerQuote = z
  .object({
    quote: BuyerQuoteSummary,
    revision: z
      .object({
        id,
        number: z.number().int(),
        status: z.enum(["issued", "superseded"]),
        items: z.array(BuyerQuoteLine),
        paymentTerms: QuoteRevision.shape.paymentTerms,
        depositAmount: money.nullable(),
        shippingMode: QuoteRevision.shape.shippingMode,
        shippingAmount: money.nullable(),
        subtotal: money,
        shippingTotal: money,
        taxLines: z.array(QuoteTaxLine).meta({ description: "Frozen at issue; empty unless the environment configures tax" }),
        taxTotal: money,
        total: money,
        notes: QuoteRevision.shape.notes,
        terms: QuoteRevision.shape.terms,
        parties: QuoteRevision.shape.parties,
        issuedAt: ts.nullable(),
        changes: orNull(BuyerQuoteRevisionChanges),
      })
      .strict()
      .nullable()
      .meta({ description: "The current offer (null before the first issue); once accepted, as accepted: the buyer's selection, quantities and totals" }),
    revisions: z.array(z.object({ id, number: z.number().int(), status: z.enum(["issued", "superseded"]), issuedAt: ts.nullable(), total: money }).strict()),
    comments: z.array(BuyerQuoteComment),
    merchant: z.object({ name: z.string(), logoUrl: z.string().nullable(), brandColor: z.string().nullable() }).strict(),
    pdfUrl: z.string().nullable(),
    order: orNull(BuyerQuoteOrder),
  })
  .strict()
  .meta({ id: "BuyerQuote", description: "What the buyer link shows: never internal comments or notes, the working revision or target prices" });

export const BuyerQuoteAcceptance = z
  .object({ quote: BuyerQuoteSummary, checkoutUrl: z.string() })
  .strict()
  .meta({ id: "BuyerQuoteAcceptance", description: "The quote itself as the buyer sees it (status accepted) and where to pay" });

export const QuoteIssue = z
  .object({ quote: Quote, revision: QuoteRevision })
  .strict()
  .meta({ id: "QuoteIssue", description: "The issued quote (merchant view; shareToken is the buyer's link) and the revision just issued" });

export const Notification = z
  .object({
    id,
    type: z.string(),
    quoteId: id.nullable(),
    title: z.string(),
    body: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    read: z.boolean(),
    readAt: ts.nullable(),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Notification" });

export const QuoteRequestForm = z
  .object({
    id,
    name: z.string(),
    fields: z.object({ lineItems: z.boolean(), targetPrice: z.boolean(), requireBotChallenge: z.boolean() }).strict(),
    successMessage: z.string().nullable(),
    tokenPrefix: z.string(),
    formToken: z.string().nullable().meta({ description: "The qrf_ token: only in the response that minted it (null on reads and Idempotency-Key replays)" }),
    hostedUrl: z.string().nullable().meta({ description: "The hosted form (carries the token): only when minted" }),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "QuoteRequestForm" });

export const QuoteRequestReceipt = z.object({ received: z.literal(true) }).strict().meta({ id: "QuoteRequestReceipt", description: "The same for every accepted submission" });
