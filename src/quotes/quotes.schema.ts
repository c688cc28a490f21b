// GraphQL for quotes, merchant side: the same services and views as REST. quote(id) is one SQL statement (quote,
// customer, revisions, items and comments together); a list loads the quote rows only, and the parts a query selects
// load for the whole page at once (quote-loaders.ts). The quote's edges to other resources: quote.edges.ts.
import { LineItemTypeEnum } from "../carts/carts.schema";
import { CustomerRef, customerEdge } from "../customers/customers.schema";
import { compact, withClears } from "../graphql/args";
import type { LINE_ITEM_TYPES } from "../carts/cart-items.service";
import { liveItem } from "../events/events.service";
import { builder } from "../graphql/builder";
import { QuotePartiesRef } from "./quote-parties.schema";
import { pageArgs, pageInput, pageOf } from "../graphql/shared-types";
import { TaxLineRef } from "../carts/carts.schema";
import type { QUOTE_STATUSES, REVISION_STATUSES } from "./quote.machine";
import type { COMMENT_VISIBILITIES, DELIVERY_METHODS, DEPOSIT_TYPES, SHIPPING_MODES, TERMS_MODES } from "./quotes.inputs";
import { addComment, createQuote, rotateLink, updateQuote } from "./quotes.service";
import { createRevision, updateRevision } from "./quote-revisions.service";
import { getQuote, subscribeQuoteUpdates } from "./quote-read.service";
import { type QuoteView } from "./quote.view";
import {
  AuthorTypeEnum,
  CommentVisibilityEnum,
  DeclinedByEnum,
  DeliveryMethodEnum,
  DepositTypeEnum,
  QuoteStatusEnum,
  RevisionStatusEnum,
  ShippingModeEnum,
  SourceEnum,
  TermsModeEnum,
} from "./quote-enums.schema";

export { AuthorTypeEnum, DeclinedByEnum, DeliveryMethodEnum, QuoteStatusEnum, RevisionStatusEnum, ShippingModeEnum, TermsModeEnum };
import { customerOfQuoteRow, getQuoteNode, listQuoteNodes, type QuoteNode } from "./quote-graph.service";
import { commentsEdge, revisionsEdge, workingRevisionEdge } from "./quote-loaders";

type RevisionV = QuoteView["revisions"][number];
type ItemV = RevisionV["items"][number];
type CommentV = QuoteView["comments"][number];

const QuoteLineItemRef = builder.objectRef<ItemV>("QuoteLineItem").implement({
  description: "One line of a revision; amounts are integer minor units",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "What the buyer sees" }),
    description: t.exposeString("description", { nullable: true, description: "Longer text under the name" }),
    unitPrice: t.exposeInt("unitPrice", { nullable: true, description: "Price of one unit; null while unpriced (request lines)" }),
    quantity: t.exposeInt("quantity", { description: "Units, at least 1" }),
    type: t.field({ type: LineItemTypeEnum, description: "What the line sells", resolve: (i) => i.type as (typeof LINE_ITEM_TYPES)[number] }),
    optional: t.exposeBoolean("optional", { description: "An upsell the buyer may deselect at acceptance" }),
    selected: t.exposeBoolean("selected", { description: "Counted in the totals (optional lines start selected)" }),
    qtyEditable: t.exposeBoolean("qtyEditable", { description: "The buyer may change the quantity at acceptance" }),
    sku: t.exposeString("sku", { nullable: true, description: "Stock keeping unit, from a request" }),
    referenceId: t.exposeString("referenceId", { nullable: true, description: "Your product id" }),
    note: t.exposeString("note", { nullable: true, description: "The buyer's note on this line, from a request" }),
    targetUnitPrice: t.exposeInt("targetUnitPrice", { nullable: true, description: "The buyer's asked price; never the quoted one" }),
    deliveryMethod: t.field({ type: DeliveryMethodEnum, description: "How it is delivered", resolve: (i) => i.deliveryMethod as (typeof DELIVERY_METHODS)[number] }),
    total: t.exposeInt("total", { nullable: true, description: "unitPrice × quantity; null while unpriced" }),
  }),
});

type TermsV = RevisionV["paymentTerms"];
const PaymentTermsRef = builder.objectRef<TermsV>("QuotePaymentTerms").implement({
  description: "How the buyer pays for this revision",
  fields: (t) => ({
    mode: t.field({ type: TermsModeEnum, description: "The terms", resolve: (p) => p.mode as (typeof TERMS_MODES)[number] }),
    netN: t.exposeInt("netN", { nullable: true, description: "Days to pay (net_terms), 1 to 365" }),
    balanceNetN: t.exposeInt("balanceNetN", { nullable: true, description: "Days to pay the balance (deposit_balance)" }),
  }),
});
type DepositV = NonNullable<RevisionV["deposit"]>;
const DepositRef = builder.objectRef<DepositV>("QuoteDeposit").implement({
  description: "The deposit as the rep stated it; depositAmount is what issuing froze",
  fields: (t) => ({
    type: t.field({ type: DepositTypeEnum, description: "Percent or fixed", resolve: (d) => d.type as (typeof DEPOSIT_TYPES)[number] }),
    value: t.exposeInt("value", { description: "Percent, or minor units" }),
  }),
});
type CollectV = RevisionV["collect"];
const CollectRef = builder.objectRef<CollectV>("QuoteCollect").implement({
  description: "Which addresses checkout asks for",
  fields: (t) => ({
    shippingAddress: t.exposeBoolean("shippingAddress", { description: "Ask for a shipping address" }),
    billingAddress: t.exposeBoolean("billingAddress", { description: "Ask for a billing address" }),
  }),
});

export const QuoteRevisionRef = builder.objectRef<RevisionV>("QuoteRevision").implement({
  description: "One version of the offer; frozen once issued",
  fields: (t) => ({
    id: t.exposeID("id"),
    number: t.exposeInt("number", { description: "1, 2, 3… per quote" }),
    status: t.field({ type: RevisionStatusEnum, description: "Working, issued or superseded", resolve: (r) => r.status as (typeof REVISION_STATUSES)[number] }),
    items: t.field({ type: [QuoteLineItemRef], description: "Lines in order", resolve: (r) => r.items }),
    paymentTerms: t.field({ type: PaymentTermsRef, description: "How the buyer pays", resolve: (r) => r.paymentTerms }),
    deposit: t.field({ type: DepositRef, nullable: true, description: "The deposit (deposit_balance terms)", resolve: (r) => r.deposit }),
    depositAmount: t.exposeInt("depositAmount", { nullable: true, description: "The deposit in minor units, frozen at issue" }),
    collectShipping: t.exposeBoolean("collectShipping", { nullable: true, description: "Stored override for the shipping address; null derives it" }),
    collectBilling: t.exposeBoolean("collectBilling", { nullable: true, description: "Stored override for the billing address; null derives it" }),
    collect: t.field({ type: CollectRef, description: "What checkout will ask for", resolve: (r) => r.collect }),
    collectDefault: t.field({ type: CollectRef, description: "What derivation alone would ask for", resolve: (r) => r.collectDefault }),
    shippingMode: t.field({ type: ShippingModeEnum, description: "Whether shipping is priced", resolve: (r) => r.shippingMode as (typeof SHIPPING_MODES)[number] }),
    shippingAmount: t.exposeInt("shippingAmount", { nullable: true, description: "Flat shipping in minor units (shippingMode flat)" }),
    subtotal: t.exposeInt("subtotal", { description: "Selected lines' totals" }),
    shippingTotal: t.exposeInt("shippingTotal", { description: "Flat shipping, else 0" }),
    taxCountry: t.exposeString("taxCountry", { nullable: true, description: "Whose rate in the tax table applies; null: the table's only rate, if it has just one" }),
    notes: t.exposeString("notes", { nullable: true, description: "Shown to the buyer under the lines (the seller's default notes when issued without)" }),
    terms: t.exposeString("terms", { nullable: true, description: "The offer's terms (the seller's default terms when issued without)" }),
    parties: t.field({ type: QuotePartiesRef, nullable: true, description: "The seller and buyer blocks, frozen at issue; null on a working revision", resolve: (r) => r.parties }),
    taxLines: t.field({
      type: [TaxLineRef],
      description: "Tax on the selected lines plus shipping: live from the environment's tax table while working, frozen at issue; none unless the environment configures tax",
      resolve: (r) => r.taxLines,
    }),
    taxTotal: t.exposeInt("taxTotal", { description: "The tax lines' sum (none unless the environment configures tax)" }),
    total: t.exposeInt("total", { description: "subtotal + shippingTotal + taxTotal" }),
    issuedAt: t.field({ type: "DateTime", nullable: true, description: "When it was issued", resolve: (r) => r.issuedAt }),
    supersededAt: t.field({ type: "DateTime", nullable: true, description: "When a later issue replaced it", resolve: (r) => r.supersededAt }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

export const QuoteCommentRef = builder.objectRef<CommentV>("QuoteComment").implement({
  description: "A comment on a quote: shared with the buyer, or internal",
  fields: (t) => ({
    id: t.exposeID("id"),
    visibility: t.field({ type: CommentVisibilityEnum, description: "Shared or internal", resolve: (c) => c.visibility as (typeof COMMENT_VISIBILITIES)[number] }),
    authorType: t.field({ type: AuthorTypeEnum, description: "Merchant or buyer", resolve: (c) => c.authorType as "merchant" | "buyer" }),
    authorName: t.exposeString("authorName", { nullable: true, description: "The name shown with it" }),
    body: t.exposeString("body", { description: "The text" }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

type AcceptanceV = NonNullable<QuoteView["acceptance"]>;
const AcceptedLineRef = builder.objectRef<AcceptanceV["items"][number]>("QuoteAcceptedLine").implement({
  description: "A line as accepted",
  fields: (t) => ({
    itemId: t.exposeID("itemId", { description: "The revision's line" }),
    selected: t.exposeBoolean("selected", { description: "Bought (false: an optional line deselected)" }),
    quantity: t.exposeInt("quantity", { description: "Units bought" }),
  }),
});

export const QuoteAcceptanceRecordRef = builder.objectRef<Omit<AcceptanceV, "reason"> & { reason?: string | null }>("QuoteAcceptanceRecord").implement({
  description: "Who accepted a quote and what they chose",
  fields: (t) => ({
    by: t.exposeString("by", { description: "buyer (at the link) or merchant (a rep recorded it)" }),
    name: t.exposeString("name", { description: "The accepting person's name" }),
    email: t.exposeString("email", { description: "The accepting person's email" }),
    reason: t.string({ nullable: true, description: "The rep's note on a recorded acceptance (merchant view only)", resolve: (a) => a.reason ?? null }),
    items: t.field({ type: [AcceptedLineRef], description: "Every line of the revision as accepted", resolve: (a) => a.items }),
  }),
});

export const QuoteRef = builder.objectRef<QuoteNode>("Quote").implement({
  description: "A sales quote, merchant view: revisions, comments (internal too) and the buyer link",
  fields: (t) => ({
    id: t.exposeID("id"),
    number: t.exposeString("number", { description: "Q-{seq}, consecutive per application and environment" }),
    status: t.field({ type: QuoteStatusEnum, description: "Where it is in its life", resolve: (q) => q.status as (typeof QUOTE_STATUSES)[number] }),
    currency: t.exposeString("currency"),
    customerId: t.exposeID("customerId", { nullable: true, description: "The linked customer" }),
    customer: t.field({
      type: CustomerRef,
      nullable: true,
      description: "The linked customer (needs customers:read; without it this field alone errors)",
      authScopes: { scope: "customers:read" },
      resolve: (q, _a, ctx) => (q.customerRow !== undefined ? customerOfQuoteRow(ctx, q.customerRow) : customerEdge(ctx, q.customerId)),
    }),
    customerEmail: t.exposeString("customerEmail", { description: "The buyer's email" }),
    companyName: t.exposeString("companyName", { nullable: true, description: "The buyer's company" }),
    buyerReference: t.exposeString("buyerReference", { nullable: true, description: "The buyer's own reference (PO number, …)" }),
    source: t.field({ type: SourceEnum, description: "Where it came from", resolve: (q) => q.source as "api" }),
    shareToken: t.exposeString("shareToken", { description: "The buyer link's token; rotateQuoteLink replaces it" }),
    buyerUrl: t.exposeString("buyerUrl", { description: "The buyer's page (the application's checkoutLinkBaseUrl when set)" }),
    expiresAt: t.field({ type: "DateTime", nullable: true, description: "When the offer expires (set at issue when empty)", resolve: (q) => q.expiresAt }),
    declinedReason: t.exposeString("declinedReason", { nullable: true, description: "Why it was declined" }),
    declinedBy: t.field({ type: DeclinedByEnum, nullable: true, description: "Who declined", resolve: (q) => q.declinedBy as "merchant" | null }),
    internalNote: t.exposeString("internalNote", { nullable: true, description: "Your team's note; never shown to the buyer or sent in events" }),
    currentRevisionId: t.exposeID("currentRevisionId", { nullable: true, description: "The issued revision offered at the link" }),
    workingRevision: t.field({ type: QuoteRevisionRef, nullable: true, description: "The editable revision, if any", resolve: (q, _a, ctx) => workingRevisionEdge(ctx, q) }),
    revisions: t.field({ type: [QuoteRevisionRef], description: "Every revision, oldest first", resolve: (q, _a, ctx) => revisionsEdge(ctx, q) }),
    comments: t.field({ type: [QuoteCommentRef], description: "Every comment, oldest first, internal ones included", resolve: (q, _a, ctx) => commentsEdge(ctx, q) }),
    requestFormId: t.exposeID("requestFormId", { nullable: true, description: "The request form it came from" }),
    cartId: t.exposeID("cartId", { nullable: true, description: "The cart it was requested from" }),
    acceptedRevisionId: t.exposeID("acceptedRevisionId", { nullable: true, description: "The revision accepted" }),
    acceptedAt: t.field({ type: "DateTime", nullable: true, description: "When it was accepted", resolve: (q) => q.acceptedAt }),
    acceptance: t.field({ type: QuoteAcceptanceRecordRef, nullable: true, description: "Who accepted and what they chose", resolve: (q) => q.acceptance }),
    checkoutSessionId: t.exposeID("checkoutSessionId", { nullable: true, description: "The accepted quote's checkout (the latest, when a lapsed one was resumed)" }),
    orderId: t.exposeID("orderId", { nullable: true, description: "The order, set in the transaction that created it (converted)" }),
    convertedAt: t.field({ type: "DateTime", nullable: true, description: "When the order was created", resolve: (q) => q.convertedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (q) => q.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (q) => q.updatedAt }),
  }),
});

export const QuotePage = pageOf<QuoteNode>("QuotePage", QuoteRef, "quotes");

// ---- inputs -------------------------------------------------------------------------------------------------

const QuoteLineItemInput = builder.inputType("QuoteLineItemInput", {
  description: "A line of a revision; amounts are integer minor units",
  fields: (t) => ({
    id: t.id({ description: "Keep this existing line (updateQuoteRevision); omit for a new line" }),
    name: t.string({ required: true, description: "What the buyer sees" }),
    description: t.string({ description: "Longer text" }),
    unitPrice: t.int({ description: "Price of one unit; omit to leave unpriced" }),
    quantity: t.int({ description: "Units, default 1" }),
    type: t.field({ type: LineItemTypeEnum, description: "Default product" }),
    optional: t.boolean({ description: "An upsell the buyer may deselect (default false)" }),
    qtyEditable: t.boolean({ description: "The buyer may change the quantity (default false)" }),
    sku: t.string({ description: "Stock keeping unit" }),
    referenceId: t.string({ description: "Your product id" }),
    note: t.string({ description: "A note on the line" }),
    targetUnitPrice: t.int({ description: "The buyer's asked price (recorded, never quoted)" }),
    deliveryMethod: t.field({ type: DeliveryMethodEnum, description: "Default none for services, else shipment" }),
  }),
});
const PaymentTermsInput = builder.inputType("QuotePaymentTermsInput", {
  description: "How the buyer pays",
  fields: (t) => ({
    mode: t.field({ type: TermsModeEnum, required: true, description: "The terms" }),
    netN: t.int({ description: "Days to pay, 1 to 365 (net_terms)" }),
    balanceNetN: t.int({ description: "Days to pay the balance, 1 to 365 (deposit_balance)" }),
  }),
});
const DepositInput = builder.inputType("QuoteDepositInput", {
  description: "A deposit (deposit_balance terms)",
  fields: (t) => ({
    type: t.field({ type: DepositTypeEnum, required: true, description: "Percent or fixed" }),
    value: t.int({ required: true, description: "Whole percent 1 to 99, or minor units" }),
  }),
});
const CollectInput = builder.inputType("QuoteCollectInput", {
  description: "Address overrides: an omitted flag is unchanged, null returns it to the derived default",
  fields: (t) => ({
    shippingAddress: t.boolean({ description: "Ask for a shipping address" }),
    billingAddress: t.boolean({ description: "Ask for a billing address" }),
  }),
});

/** GraphQL args of a revision's fields, mapped onto the REST body (explicit nulls kept where they clear). */
function revisionArgs(t: any) {
  return {
    items: t.arg({ type: [QuoteLineItemInput], description: "The full list of lines (replaces them)" }),
    paymentTerms: t.arg({ type: PaymentTermsInput, description: "How the buyer pays" }),
    deposit: t.arg({ type: DepositInput, description: "The deposit; null removes it" }),
    collect: t.arg({ type: CollectInput, description: "Address overrides" }),
    shippingMode: t.arg({ type: ShippingModeEnum, description: "Whether shipping is priced" }),
    shippingAmount: t.arg.int({ description: "Flat shipping in minor units; null clears it" }),
    taxCountry: t.arg.string({ description: "ISO 3166-1 alpha-2 country whose tax rate applies; null: the tax table's only rate, if it has just one" }),
    notes: t.arg.string({ description: "Shown to the buyer under the lines; null clears it (issue then takes the seller's default)" }),
    terms: t.arg.string({ description: "The offer's terms; null clears it (issue then takes the seller's default)" }),
  };
}
const itemsBody = (items: Record<string, unknown>[] | null | undefined) => items?.map((i) => compact(i));
const collectBody = (c: Record<string, unknown> | null | undefined) => (c ? withClears(c, ["shippingAddress", "billingAddress"]) : c);

const quoteId = "The quote's id";

/** The filters of a quote list (the `quotes` query and Customer.quotes): status, search text, expiring before. */
export function quoteFilterArgs(t: any) {
  return {
    status: t.arg({ type: QuoteStatusEnum, description: "Only this status" }),
    q: t.arg.string({ description: "Number, buyer email, company or reference contains this (case-insensitive)" }),
    expiresBefore: t.arg({ type: "DateTime", description: "Only quotes whose expiresAt is before this instant (quotes without an expiry never match)" }),
  };
}
/** A DateTime argument as the services' ISO 8601 text. */
export const isoOf = (d: unknown) => (d == null ? null : new Date(d as string).toISOString());

builder.queryFields((t) => ({
  quote: t.field({
    type: QuoteRef,
    description: "A quote of the credential's application and environment (404 otherwise)",
    authScopes: { scope: "quotes:read" },
    args: { id: t.arg.id({ required: true, description: quoteId }) },
    resolve: (_r, a, ctx) => getQuoteNode(ctx, String(a.id)),
  }),
  quotes: t.field({
    type: QuotePage,
    description: "Quotes, newest first",
    authScopes: { scope: "quotes:read" },
    args: {
      ...pageArgs(t),
      customerId: t.arg.id({ description: "Only this customer's (`cus_` prefix optional)" }),
      ...quoteFilterArgs(t),
    },
    resolve: (_r, { first, after, limit, cursor, ...a }, ctx) =>
      listQuoteNodes(ctx, { ...compact({ ...a, customerId: a.customerId == null ? null : String(a.customerId), expiresBefore: isoOf(a.expiresBefore) }), ...pageInput({ first, after, limit, cursor }) }),
  }),
}));

builder.mutationFields((t) => ({
  createQuote: t.field({
    type: QuoteRef,
    description: "A draft quote with its working revision (number 1)",
    authScopes: { scope: "quotes:write" },
    args: {
      customerEmail: t.arg.string({ required: true, description: "The buyer's email; the customer is found or created" }),
      companyName: t.arg.string({ description: "The buyer's company" }),
      buyerReference: t.arg.string({ description: "The buyer's reference" }),
      expiresAt: t.arg({ type: "DateTime", description: "Expiry (default 30 days after issue)" }),
      internalNote: t.arg.string({ description: "Your team's note" }),
      ...revisionArgs(t),
    },
    resolve: (_r, a, ctx) => createQuote(ctx, { ...compact({ ...a, collect: undefined, items: undefined, expiresAt: a.expiresAt ? new Date(a.expiresAt as any).toISOString() : undefined }), items: itemsBody(a.items as any) ?? undefined, collect: collectBody(a.collect as any) ?? undefined }),
  }),
  updateQuote: t.field({
    type: QuoteRef,
    description: "Decline, review or archive (status), or change the reference, expiry or internal note; null clears",
    authScopes: { scope: "quotes:write" },
    args: {
      id: t.arg.id({ required: true, description: quoteId }),
      status: t.arg({ type: QuoteStatusEnum, description: "declined, under_review or archived (409 invalid_quote_transition otherwise)" }),
      declinedReason: t.arg.string({ description: "With status declined: why (sent to the buyer)" }),
      buyerReference: t.arg.string({ description: "The buyer's reference; null clears" }),
      expiresAt: t.arg({ type: "DateTime", description: "Expiry; null clears (issue then sets 30 days)" }),
      internalNote: t.arg.string({ description: "Your team's note; null clears" }),
    },
    resolve: (_r, { id, ...a }, ctx) =>
      updateQuote(ctx, String(id), withClears({ ...a, expiresAt: a.expiresAt ? new Date(a.expiresAt as any).toISOString() : a.expiresAt }, ["buyerReference", "expiresAt", "internalNote"])),
  }),
  createQuoteRevision: t.field({
    type: QuoteRevisionRef,
    description: "A new working revision cloned from the issued one (409 working_revision_exists)",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: quoteId }) },
    resolve: (_r, a, ctx) => createRevision(ctx, String(a.id), {}),
  }),
  updateQuoteRevision: t.field({
    type: QuoteRevisionRef,
    description: "Edits the working revision (409 revision_not_editable otherwise)",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: quoteId }), revisionId: t.arg.id({ required: true, description: "The revision's id" }), ...revisionArgs(t) },
    resolve: (_r, { id, revisionId, ...a }, ctx) =>
      updateRevision(ctx, String(id), String(revisionId), {
        ...withClears({ ...a, items: undefined, collect: undefined }, ["deposit", "shippingAmount", "taxCountry", "notes", "terms"]),
        ...(a.items ? { items: itemsBody(a.items as any) } : {}),
        ...(a.collect ? { collect: collectBody(a.collect as any) } : {}),
      }),
  }),
  addQuoteComment: t.field({
    type: QuoteCommentRef,
    description: "A comment: shared (the buyer sees it; quote.comment_added) or internal",
    authScopes: { scope: "quotes:write" },
    args: {
      id: t.arg.id({ required: true, description: quoteId }),
      body: t.arg.string({ required: true, description: "The text, 1 to 5000 characters" }),
      visibility: t.arg({ type: CommentVisibilityEnum, required: true, description: "Shared or internal" }),
      authorName: t.arg.string({ description: "Name shown with it (default the application's name)" }),
    },
    resolve: (_r, { id, ...a }, ctx) => addComment(ctx, String(id), compact(a)),
  }),
  rotateQuoteLink: t.field({
    type: QuoteRef,
    description: "A new share token; the old link answers 404 at once",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: quoteId }) },
    resolve: (_r, a, ctx) => rotateLink(ctx, String(a.id), {}),
  }),
}));

builder.subscriptionFields((t) => ({
  quoteUpdated: t.field({
    type: QuoteRef,
    description: "The quote: its current state first, then re-read after each of its quote.* events",
    authScopes: { scope: "quotes:read" },
    args: { id: t.arg.id({ required: true, description: quoteId }) },
    subscribe: (_r, a, ctx) => subscribeQuoteUpdates(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return getQuote(ctx, String(a.id));
    },
  }),
}));
