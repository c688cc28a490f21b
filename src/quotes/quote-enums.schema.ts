// The quote's enums in GraphQL: each domain constant's values, described (quotes.schema.ts and the quote's other
// schema files use them).
import { describedEnum } from "../graphql/shared-types";
import { QUOTE_STATUSES, REVISION_STATUSES } from "./quote.machine";
import type { COMMENT_VISIBILITIES, DELIVERY_METHODS, DEPOSIT_TYPES, SHIPPING_MODES, TERMS_MODES } from "./quotes.inputs";

export const QuoteStatusEnum = describedEnum<(typeof QUOTE_STATUSES)[number]>("QuoteStatus", "Where a quote is in its life (quotes.md part 3)", {
  draft: "Being prepared by the merchant; the buyer link is not live",
  requested: "A buyer asked for pricing; lines wait to be priced",
  under_review: "The merchant is working on it",
  proposed: "A revision is issued and offered at the buyer link",
  revision_requested: "The buyer asked for changes",
  accepted: "The buyer (or a rep) accepted; checkout is under way",
  converted: "Paid: the order exists",
  declined: "Declined by the merchant or the buyer",
  expired: "The offer passed its expiry unaccepted; issuing a new revision revives the link",
  archived: "Put away; the buyer link answers 404",
});
void QUOTE_STATUSES;

export const RevisionStatusEnum = describedEnum<(typeof REVISION_STATUSES)[number]>("QuoteRevisionStatus", "Whether a revision can change", {
  working: "The one editable revision",
  issued: "Frozen and offered at the buyer link",
  superseded: "Frozen; a later issue replaced it",
});
void REVISION_STATUSES;

export const TermsModeEnum = describedEnum<(typeof TERMS_MODES)[number]>("QuotePaymentTermsMode", "How the buyer pays", {
  pay_in_full: "By card at checkout",
  net_terms: "Invoiced, due netN days later",
  deposit_balance: "A deposit by card at acceptance, the balance invoiced at balanceNetN days",
});
export const DeliveryMethodEnum = describedEnum<(typeof DELIVERY_METHODS)[number]>("QuoteDeliveryMethod", "How a line reaches the buyer", {
  shipment: "Shipped: checkout asks for a shipping address",
  in_person: "Handed over in person: also counts as shippable",
  none: "Nothing to deliver (services)",
});
export const ShippingModeEnum = describedEnum<(typeof SHIPPING_MODES)[number]>("QuoteShippingMode", "Whether the offer prices shipping", {
  none: "Shipping is not priced",
  flat: "A flat shippingAmount is part of the total",
  at_checkout: "Shipping is priced at checkout",
});
export const DepositTypeEnum = describedEnum<(typeof DEPOSIT_TYPES)[number]>("QuoteDepositType", "How a deposit is stated", {
  percent: "value is a whole percent (1 to 99) of the total",
  fixed: "value is an amount in minor units",
});
export const CommentVisibilityEnum = describedEnum<(typeof COMMENT_VISIBILITIES)[number]>("QuoteCommentVisibility", "Who sees a comment", {
  shared: "The buyer sees it at the link",
  internal: "The merchant's team only; never in events or buyer reads",
});
export const AuthorTypeEnum = describedEnum<"merchant" | "buyer">("QuoteCommentAuthorType", "Who wrote a comment", { merchant: "The merchant's team or integration", buyer: "The buyer" });
export const SourceEnum = describedEnum<"api" | "dashboard" | "request_form" | "cart">("QuoteSource", "Where the quote came from", {
  api: "Created over the API",
  dashboard: "Created by a dashboard member",
  request_form: "A hosted request form",
  cart: "A cart's request for a quote",
});
export const DeclinedByEnum = describedEnum<"merchant" | "buyer">("QuoteDeclinedBy", "Who declined", { merchant: "The merchant", buyer: "The buyer" });

