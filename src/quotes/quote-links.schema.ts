// GraphQL for the buyer side of quotes (keyless: the share token is the authority), a rep's recorded acceptance
// and the merchant's in-app notifications: the same services and views as REST (quote-links.rest routes).
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { QuotePartiesRef } from "./quote-parties.schema";
import { pageArgs, pageInput, pageOf } from "../graphql/shared-types";
import { TaxLineRef } from "../carts/carts.schema";
import { listNotifications, markNotificationRead, type NotificationView } from "../notifications/notifications.service";
import { acceptQuote } from "./quote-accept.service";
import { acceptQuoteLink, addBuyerComment, type BuyerQuoteView, buyerDecline, getQuoteLink, quoteLinkPdfUrl, requestRevision, viewQuoteLink } from "./quote-links.service";
import { LineItemTypeEnum } from "../carts/carts.schema";
import { OrderPaymentStatusEnum } from "../orders/orders.schema";
import type { PAYMENT_STATUSES } from "../orders/orders.service";
type OrderPaymentStatus = (typeof PAYMENT_STATUSES)[number];
import type { LINE_ITEM_TYPES } from "../carts/cart-items.service";
import { NOTIFICATION_TYPES } from "../notifications/notifications.service";
import { AuthorTypeEnum, DeclinedByEnum, DeliveryMethodEnum, QuoteAcceptanceRecordRef, QuoteRef, QuoteStatusEnum, RevisionStatusEnum, ShippingModeEnum, TermsModeEnum } from "./quotes.schema";
import type { QUOTE_STATUSES } from "./quote.machine";

type BQ = BuyerQuoteView;
type BRev = NonNullable<BQ["revision"]>;

const shareToken = "The quote's share token (qt_...), from the buyer link";

const BuyerItemRef = builder.objectRef<BRev["items"][number]>("BuyerQuoteLineItem").implement({
  description: "A line of the offer as the buyer sees it",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The line; itemSelections name it" }),
    name: t.exposeString("name", { description: "What is offered" }),
    description: t.exposeString("description", { nullable: true, description: "Longer text under the name" }),
    unitPrice: t.exposeInt("unitPrice", { nullable: true, description: "Price of one unit, minor units" }),
    quantity: t.exposeInt("quantity", { description: "Units offered (once accepted: the quantity accepted)" }),
    type: t.field({ type: LineItemTypeEnum, description: "What the line sells", resolve: (i) => i.type as (typeof LINE_ITEM_TYPES)[number] }),
    optional: t.exposeBoolean("optional", { description: "May be deselected at acceptance" }),
    selected: t.exposeBoolean("selected", { description: "Selected by default (once accepted: whether the buyer kept it)" }),
    qtyEditable: t.exposeBoolean("qtyEditable", { description: "The buyer may change the quantity at acceptance" }),
    sku: t.exposeString("sku", { nullable: true, description: "Stock keeping unit" }),
    referenceId: t.exposeString("referenceId", { nullable: true, description: "The merchant's product id" }),
    note: t.exposeString("note", { nullable: true, description: "The buyer's note on the line (from a request)" }),
    deliveryMethod: t.field({ type: DeliveryMethodEnum, description: "How it reaches the buyer", resolve: (i) => i.deliveryMethod as "shipment" }),
    total: t.exposeInt("total", { nullable: true, description: "unitPrice x quantity" }),
  }),
});

const BuyerTermsRef = builder.objectRef<BRev["paymentTerms"]>("BuyerQuotePaymentTerms").implement({
  description: "How the buyer pays",
  fields: (t) => ({
    mode: t.field({ type: TermsModeEnum, description: "How the buyer pays", resolve: (p) => p.mode as "pay_in_full" }),
    netN: t.exposeInt("netN", { nullable: true, description: "Net days (net_terms)" }),
    balanceNetN: t.exposeInt("balanceNetN", { nullable: true, description: "The balance's net days (deposit_balance)" }),
  }),
});

type Changes = NonNullable<BRev["changes"]>;
const BuyerLineBriefRef = builder.objectRef<Changes["added"][number]>("BuyerQuoteLineBrief").implement({
  description: "A line named in what changed between revisions",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The line" }),
    quantity: t.exposeInt("quantity", { description: "Units" }),
    unitPrice: t.exposeInt("unitPrice", { nullable: true, description: "Price of one unit, minor units" }),
  }),
});
const BuyerLineQtyPriceRef = builder.objectRef<Changes["changed"][number]["from"]>("BuyerQuoteLineQuantityPrice").implement({
  description: "A line's quantity and unit price at one revision",
  fields: (t) => ({
    quantity: t.exposeInt("quantity", { description: "Units" }),
    unitPrice: t.exposeInt("unitPrice", { nullable: true, description: "Price of one unit, minor units" }),
  }),
});
const BuyerLineChangeRef = builder.objectRef<Changes["changed"][number]>("BuyerQuoteLineChange").implement({
  description: "A line repriced or requantified",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The line" }),
    from: t.field({ type: BuyerLineQtyPriceRef, description: "In the previous revision", resolve: (c) => c.from }),
    to: t.field({ type: BuyerLineQtyPriceRef, description: "In this revision", resolve: (c) => c.to }),
  }),
});
const BuyerChangesRef = builder.objectRef<Changes>("BuyerQuoteRevisionChanges").implement({
  description: "What changed from the previous issued revision (lines matched by product id, SKU, else name)",
  fields: (t) => ({
    fromRevision: t.exposeInt("fromRevision", { description: "The revision compared with" }),
    added: t.field({ type: [BuyerLineBriefRef], description: "Lines new in this revision", resolve: (c) => c.added }),
    removed: t.field({ type: [BuyerLineBriefRef], description: "Lines no longer offered", resolve: (c) => c.removed }),
    changed: t.field({ type: [BuyerLineChangeRef], description: "Lines with a new unit price or quantity", resolve: (c) => c.changed }),
    previousTotal: t.exposeInt("previousTotal", { description: "The previous revision's total, minor units" }),
  }),
});

type Order = NonNullable<BQ["order"]>;
const BuyerInvoiceRef = builder.objectRef<NonNullable<Order["invoice"]>>("BuyerQuoteInvoice").implement({
  description: "The Net-N invoice of the order (net terms, or a deposit's balance)",
  fields: (t) => ({
    number: t.exposeString("number", { description: "INV-{seq}" }),
    amount: t.exposeInt("amount", { description: "Minor units" }),
    dueDate: t.exposeString("dueDate", { nullable: true, description: "YYYY-MM-DD" }),
    paid: t.exposeBoolean("paid", { description: "Marked paid" }),
    downloadUrl: t.exposeString("downloadUrl", { description: "The invoice PDF (the buyer download link invoice emails carry)" }),
  }),
});
const BuyerOrderRef = builder.objectRef<Order>("BuyerQuoteOrder").implement({
  description: "The order the quote became",
  fields: (t) => ({
    number: t.exposeString("number", { description: "The order's number as the buyer reads it" }),
    paymentStatus: t.field({ type: OrderPaymentStatusEnum, description: "Where its money is", resolve: (o) => o.paymentStatus as OrderPaymentStatus }),
    placedAt: t.field({ type: "DateTime", description: "When it was placed", resolve: (o) => o.placedAt }),
    total: t.exposeInt("total", { description: "Minor units" }),
    amountPaid: t.exposeInt("amountPaid", { description: "Collected so far, minor units" }),
    amountDue: t.exposeInt("amountDue", { description: "Still owed, minor units" }),
    invoice: t.field({ type: BuyerInvoiceRef, nullable: true, description: "The Net-N invoice, when there is one", resolve: (o) => o.invoice }),
  }),
});

const BuyerRevisionRef = builder.objectRef<BRev>("BuyerQuoteRevision").implement({
  description: "The current offer; once accepted, as accepted (the buyer's selection, quantities and totals)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The revision; accepting names it" }),
    number: t.exposeInt("number", { description: "1, 2, 3... per quote" }),
    status: t.field({ type: RevisionStatusEnum, description: "issued (or superseded)", resolve: (r) => r.status as "issued" }),
    items: t.field({ type: [BuyerItemRef], description: "The lines, in order", resolve: (r) => r.items }),
    paymentTerms: t.field({ type: BuyerTermsRef, description: "How the buyer pays", resolve: (r) => r.paymentTerms }),
    depositAmount: t.exposeInt("depositAmount", { nullable: true, description: "Due at acceptance (deposit terms)" }),
    shippingMode: t.field({ type: ShippingModeEnum, description: "Whether shipping is priced", resolve: (r) => r.shippingMode as "none" }),
    shippingAmount: t.exposeInt("shippingAmount", { nullable: true, description: "Flat shipping, minor units" }),
    subtotal: t.exposeInt("subtotal", { description: "Selected lines, minor units" }),
    shippingTotal: t.exposeInt("shippingTotal", { description: "Minor units" }),
    taxLines: t.field({ type: [TaxLineRef], description: "Tax frozen at issue (none unless the environment configures tax)", resolve: (r) => r.taxLines }),
    taxTotal: t.exposeInt("taxTotal", { description: "Minor units" }),
    total: t.exposeInt("total", { description: "Minor units" }),
    notes: t.exposeString("notes", { nullable: true, description: "The seller's notes on the offer" }),
    terms: t.exposeString("terms", { nullable: true, description: "The offer's terms" }),
    parties: t.field({ type: QuotePartiesRef, nullable: true, description: "The seller and buyer blocks as they were at issue", resolve: (r) => r.parties }),
    issuedAt: t.field({ type: "DateTime", nullable: true, description: "When it was issued", resolve: (r) => r.issuedAt }),
    changes: t.field({ type: BuyerChangesRef, nullable: true, description: "What changed from the previous revision (null for the first)", resolve: (r) => r.changes }),
  }),
});

const BuyerRevisionSummaryRef = builder.objectRef<BQ["revisions"][number]>("BuyerQuoteRevisionSummary").implement({
  description: "An issued revision in the history",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The revision" }),
    number: t.exposeInt("number", { description: "1, 2, 3... per quote" }),
    status: t.field({ type: RevisionStatusEnum, description: "issued or superseded", resolve: (r) => r.status as "issued" }),
    issuedAt: t.field({ type: "DateTime", nullable: true, description: "When it was issued", resolve: (r) => r.issuedAt }),
    total: t.exposeInt("total", { description: "Its total, minor units" }),
  }),
});

const BuyerCommentRef = builder.objectRef<BQ["comments"][number]>("BuyerQuoteComment").implement({
  description: "A shared comment",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The comment" }),
    authorType: t.field({ type: AuthorTypeEnum, description: "Who wrote it", resolve: (c) => c.authorType as "buyer" }),
    authorName: t.exposeString("authorName", { nullable: true, description: "The name shown with it" }),
    body: t.exposeString("body", { description: "The text" }),
    createdAt: t.field({ type: "DateTime", description: "When it was written", resolve: (c) => c.createdAt }),
  }),
});

const BuyerMerchantRef = builder.objectRef<BQ["merchant"]>("BuyerQuoteMerchant").implement({
  description: "Who is offering",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The application's name" }),
    logoUrl: t.exposeString("logoUrl", { nullable: true, description: "The logo to show" }),
    brandColor: t.exposeString("brandColor", { nullable: true, description: "#rrggbb" }),
  }),
});

const BuyerQuoteSummaryRef = builder.objectRef<BQ["quote"]>("BuyerQuoteSummary").implement({
  description: "The quote's own fields as the buyer sees them",
  fields: (t) => ({
    number: t.exposeString("number", { description: "Q-{seq}" }),
    status: t.field({ type: QuoteStatusEnum, description: "Where the quote is", resolve: (q) => q.status as (typeof QUOTE_STATUSES)[number] }),
    currency: t.exposeString("currency", { description: "ISO 4217" }),
    expiresAt: t.field({ type: "DateTime", nullable: true, description: "When the offer expires", resolve: (q) => q.expiresAt }),
    buyerReference: t.exposeString("buyerReference", { nullable: true, description: "The buyer's reference" }),
    expired: t.exposeBoolean("expired", { description: "Past its expiry (a proposed quote reads expired at once, before the hourly job moves it)" }),
    declinedBy: t.field({ type: DeclinedByEnum, nullable: true, description: "Who declined", resolve: (q) => q.declinedBy as "merchant" | null }),
    declinedReason: t.exposeString("declinedReason", { nullable: true, description: "The reason given with the decline (the buyer's own, or the merchant's)" }),
    acceptedRevisionId: t.exposeID("acceptedRevisionId", { nullable: true, description: "The revision accepted" }),
    acceptedAt: t.field({ type: "DateTime", nullable: true, description: "When it was accepted", resolve: (q) => q.acceptedAt }),
    acceptance: t.field({ type: QuoteAcceptanceRecordRef, nullable: true, description: "Who accepted and what they chose", resolve: (q) => q.acceptance }),
    checkoutUrl: t.exposeString("checkoutUrl", { nullable: true, description: "While accepted: the checkout to pay" }),
  }),
});

const BuyerQuoteRef = builder.objectRef<BQ>("BuyerQuote").implement({
  description: "What the buyer link shows: never internal comments or notes, the working revision or target prices",
  fields: (t) => ({
    quote: t.field({ type: BuyerQuoteSummaryRef, description: "The quote's own fields", resolve: (b) => b.quote }),
    revision: t.field({ type: BuyerRevisionRef, nullable: true, description: "The current offer (null before the first issue)", resolve: (b) => b.revision }),
    revisions: t.field({ type: [BuyerRevisionSummaryRef], description: "Issued revisions, oldest first", resolve: (b) => b.revisions }),
    comments: t.field({ type: [BuyerCommentRef], description: "Shared comments, oldest first", resolve: (b) => b.comments }),
    merchant: t.field({ type: BuyerMerchantRef, description: "Who is offering", resolve: (b) => b.merchant }),
    pdfUrl: t.exposeString("pdfUrl", { nullable: true, description: "The offer as a PDF (302 to a short-lived signed URL)" }),
    order: t.field({ type: BuyerOrderRef, nullable: true, description: "Once converted: the order, what was paid and its invoice", resolve: (b) => b.order }),
  }),
});

const BuyerAcceptanceRef = builder.objectRef<{ quote: BQ["quote"]; checkoutUrl: string }>("BuyerQuoteAcceptance").implement({
  description: "An accepted quote and where to pay",
  fields: (t) => ({
    quote: t.field({ type: BuyerQuoteSummaryRef, description: "The quote itself, as the buyer sees it (status accepted)", resolve: (a) => a.quote }),
    checkoutUrl: t.exposeString("checkoutUrl", { description: "The hosted checkout of the accepted lines" }),
  }),
});

const QuoteAcceptanceRef = builder.objectRef<Awaited<ReturnType<typeof acceptQuote>>>("QuoteAcceptance").implement({
  description: "A quote accepted by a rep and where the buyer pays",
  fields: (t) => ({
    quote: t.field({ type: QuoteRef, description: "The quote, merchant view", resolve: (a) => a.quote }),
    checkoutUrl: t.exposeString("checkoutUrl", { description: "The hosted checkout of the accepted lines" }),
  }),
});

const ItemSelectionInput = builder.inputType("QuoteItemSelectionInput", {
  description: "A change to one issued line at acceptance; lines not listed keep their issued state",
  fields: (t) => ({
    itemId: t.id({ required: true, description: "The line" }),
    selected: t.boolean({ description: "false deselects an optional line" }),
    quantity: t.int({ description: "A new quantity for a quantity-editable line" }),
  }),
});

const NOTIFICATION_DESCRIPTIONS: Record<(typeof NOTIFICATION_TYPES)[number], string> = {
  "quote.expired_link_opened": "The buyer opened an expired quote's link",
  "quote.comment_added": "The buyer commented",
  "quote.revision_requested": "The buyer asked for changes",
  "quote.declined": "The buyer declined",
  "quote.accepted": "The quote was accepted",
};
/** GraphQL names cannot hold dots: quote_comment_added stands for quote.comment_added (REST's value). */
const NotificationTypeEnum = builder.enumType("NotificationType", {
  description: "What a notification is about (the REST value with _ for .)",
  values: Object.fromEntries(NOTIFICATION_TYPES.map((v) => [v.replace(".", "_"), { value: v, description: NOTIFICATION_DESCRIPTIONS[v] }])) as Record<string, { value: (typeof NOTIFICATION_TYPES)[number]; description: string }>,
});

const NotificationRef = builder.objectRef<NotificationView>("Notification").implement({
  description: "An in-app notification for the merchant team",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The notification" }),
    type: t.field({ type: NotificationTypeEnum, description: "What happened", resolve: (n) => n.type as (typeof NOTIFICATION_TYPES)[number] }),
    quoteId: t.exposeID("quoteId", { nullable: true, description: "The quote it is about" }),
    title: t.exposeString("title", { description: "One line to show" }),
    body: t.exposeString("body", { nullable: true, description: "More, when there is more" }),
    revisionId: t.id({ nullable: true, description: "The revision it is about, when one", resolve: (n) => ((n.data as { revisionId?: string } | null)?.revisionId ?? null) }),
    read: t.exposeBoolean("read", { description: "Marked read" }),
    readAt: t.field({ type: "DateTime", nullable: true, description: "When it was marked read", resolve: (n) => n.readAt }),
    createdAt: t.field({ type: "DateTime", description: "When it happened", resolve: (n) => n.createdAt }),
  }),
});
const NotificationPage = pageOf("NotificationPage", NotificationRef, "notifications");

const selections = (a: { itemId: string | number; selected?: boolean | null; quantity?: number | null }[] | null | undefined) =>
  a ? a.map((s) => compact({ ...s, itemId: String(s.itemId) })) : undefined;

builder.queryFields((t) => ({
  quoteLink: t.field({
    type: BuyerQuoteRef,
    description: "Keyless: the buyer's read of a quote link (404 for draft, archived and rotated-out links)",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }) },
    resolve: (_r, a, ctx) => getQuoteLink(ctx, a.shareToken),
  }),
  quoteLinkPdfUrl: t.field({
    type: "String",
    description: "Keyless: a short-lived signed URL of the current offer's PDF (Q-{seq}-rev{n}.pdf; stamped once accepted)",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }) },
    resolve: (_r, a, ctx) => quoteLinkPdfUrl(ctx, a.shareToken),
  }),
  notifications: t.field({
    type: NotificationPage,
    description: "In-app notifications, newest first",
    authScopes: { scope: "quotes:read" },
    args: {
      ...pageArgs(t),
      type: t.arg({ type: NotificationTypeEnum, description: "Only this type" }),
      quoteId: t.arg.id({ description: "Only this quote's" }),
      unread: t.arg.boolean({ description: "true: unread only; false: read only" }),
    },
    resolve: (_r, { first, after, limit, cursor, ...a }, ctx) => listNotifications(ctx, { ...pageInput({ first, after, limit, cursor }), ...compact({ ...a, quoteId: a.quoteId == null ? a.quoteId : String(a.quoteId), unread: a.unread == null ? a.unread : String(a.unread) }) }),
  }),
}));

builder.mutationFields((t) => ({
  viewQuoteLink: t.field({
    type: "Boolean",
    description: "Keyless: records a view (quote.viewed at most once per revision per 6 hours); true",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }) },
    resolve: async (_r, a, ctx) => {
      await viewQuoteLink(ctx, a.shareToken, {});
      return true;
    },
  }),
  addQuoteLinkComment: t.field({
    type: BuyerCommentRef,
    description: "Keyless: a shared comment from the buyer",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }), body: t.arg.string({ required: true, description: "1 to 5000 characters" }), authorName: t.arg.string({ description: "The name to show" }) },
    resolve: (_r, { shareToken: token, ...a }, ctx) => addBuyerComment(ctx, token, compact(a)),
  }),
  requestQuoteLinkRevision: t.field({
    type: BuyerQuoteRef,
    description: "Keyless: the buyer asks for changes (proposed -> revision_requested)",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }), message: t.arg.string({ description: "What should change" }) },
    resolve: (_r, { shareToken: token, ...a }, ctx) => requestRevision(ctx, token, compact(a)),
  }),
  declineQuoteLink: t.field({
    type: BuyerQuoteRef,
    description: "Keyless: the buyer declines the offer",
    args: { shareToken: t.arg.string({ required: true, description: shareToken }), reason: t.arg.string({ description: "Why" }) },
    resolve: (_r, { shareToken: token, ...a }, ctx) => buyerDecline(ctx, token, compact(a)),
  }),
  acceptQuoteLink: t.field({
    type: BuyerAcceptanceRef,
    description: "Keyless: the buyer accepts the current revision (409 revision_superseded, accept_in_progress; 410 quote_expired; 400 invalid_item_selection)",
    args: {
      shareToken: t.arg.string({ required: true, description: shareToken }),
      revisionId: t.arg.id({ required: true, description: "The current issued revision" }),
      acceptedByName: t.arg.string({ required: true, description: "Who accepts" }),
      acceptedByEmail: t.arg.string({ description: "Their email (default the quote's)" }),
      itemSelections: t.arg({ type: [ItemSelectionInput], description: "Deselected optional lines and changed quantities" }),
    },
    resolve: (_r, { shareToken: token, ...a }, ctx) => acceptQuoteLink(ctx, token, compact({ ...a, revisionId: String(a.revisionId), itemSelections: selections(a.itemSelections) })),
  }),
  acceptQuote: t.field({
    type: QuoteAcceptanceRef,
    description: "A rep records the buyer's phone or email acceptance: the revision becomes a cart and a checkout session",
    authScopes: { scope: "quotes:write" },
    args: {
      id: t.arg.id({ required: true, description: "The quote's id" }),
      revisionId: t.arg.id({ required: true, description: "The current issued revision" }),
      acceptedByName: t.arg.string({ required: true, description: "Who accepted" }),
      acceptedByEmail: t.arg.string({ description: "Their email (default the quote's)" }),
      reason: t.arg.string({ description: "How it was accepted (phone, email...); merchant side only" }),
      itemSelections: t.arg({ type: [ItemSelectionInput], description: "Deselected optional lines and changed quantities" }),
    },
    resolve: (_r, { id, ...a }, ctx) => acceptQuote(ctx, String(id), compact({ ...a, revisionId: String(a.revisionId), itemSelections: selections(a.itemSelections) })),
  }),
  markNotificationRead: t.field({
    type: NotificationRef,
    description: "Marks a notification read (idempotent)",
    authScopes: { scope: "quotes:write" },
    args: { id: t.arg.id({ required: true, description: "The notification" }) },
    resolve: (_r, a, ctx) => markNotificationRead(ctx, String(a.id)),
  }),
}));
