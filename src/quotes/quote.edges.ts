// The quote's edges in the graph (issue 37): Quote.currentRevision, .checkoutSession, .order and .activity, and
// the edges into quotes from lower folders' types, Order.quote and Customer.quotes (declared here: quotes is the
// higher folder). Each edge is nullable with its target's read scope, so a key without that scope loses the edge
// alone (a per-field insufficient_scopes error), and loads through a per-request loader: one statement per edge for
// a whole page of parents, tenant-filtered in the target's read.
import { SessionRef } from "../checkout/checkout.schema";
import { checkoutSessionsByIds } from "../checkout/sessions-by-id.service";
import { CustomerRef } from "../customers/customers.schema";
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import { describedEnum, pageArgs, pageOf } from "../graphql/shared-types";
import { OrderRef } from "../orders/orders.schema";
import { ordersByIds } from "../orders/orders-by-id.service";
import type { ActivityType, ActivityV } from "./quote-graph.service";
import { activityEdge, currentRevisionEdge, customerQuotesEdge, orderQuoteEdge } from "./quote-loaders";
import { isoOf, QuotePage, QuoteRef, QuoteRevisionRef, QuoteStatusEnum, quoteFilterArgs } from "./quotes.schema";
import type { QUOTE_STATUSES } from "./quote.machine";

const ActivityTypeEnum = describedEnum<ActivityType>("QuoteActivityType", "What happened (the quote.* event of that name)", {
  requested: "A buyer asked for a quote (request form or cart)",
  proposed: "A revision was issued to the buyer",
  viewed: "The buyer opened the link (at most once per revision per 6 hours)",
  comment_added: "A shared comment, from the buyer or the merchant",
  revision_requested: "The buyer asked for changes",
  declined: "The buyer or the merchant declined",
  accepted: "The buyer accepted, or a rep recorded the acceptance; checkout began",
  converted: "Checkout completed: the order exists",
  expired: "The offer passed its expiry unaccepted",
});
const ActivityByEnum = describedEnum<ActivityV["by"]>("QuoteActivityActor", "Who made it happen", {
  merchant: "The merchant's team or integration",
  buyer: "The buyer",
  system: "The service itself (checkout completion, the expiry job)",
});

const QuoteActivityRef = builder.objectRef<ActivityV>("QuoteActivity").implement({
  description: "Something that happened on a quote: one of its quote.* events (internal comments and notes never appear)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The event's id (Query.event reads the whole envelope)" }),
    type: t.field({ type: ActivityTypeEnum, description: "What happened", resolve: (a) => a.type }),
    by: t.field({ type: ActivityByEnum, description: "Who made it happen", resolve: (a) => a.by }),
    status: t.field({ type: QuoteStatusEnum, nullable: true, description: "The quote's status right after it", resolve: (a) => a.status as (typeof QUOTE_STATUSES)[number] | null }),
    revisionId: t.exposeID("revisionId", { nullable: true, description: "The revision it concerns (issued, viewed, accepted, expired)" }),
    message: t.exposeString("message", { nullable: true, description: "The shared comment's text, the buyer's change request, or the decline reason" }),
    commentId: t.exposeID("commentId", { nullable: true, description: "The shared comment (comment_added)" }),
    checkoutSessionId: t.exposeID("checkoutSessionId", { nullable: true, description: "The checkout the acceptance began (accepted)" }),
    orderId: t.exposeID("orderId", { nullable: true, description: "The order (converted)" }),
    createdAt: t.field({ type: "DateTime", description: "When it happened", resolve: (a) => a.createdAt }),
  }),
});
const QuoteActivityPage = pageOf<ActivityV>("QuoteActivityPage", QuoteActivityRef, "what happened on a quote");

builder.objectFields(QuoteRef, (t) => ({
  currentRevision: t.field({
    type: QuoteRevisionRef,
    nullable: true,
    description: "The issued revision offered at the buyer link (null before the first issue)",
    authScopes: { scope: "quotes:read" },
    resolve: (q, _a, ctx) => currentRevisionEdge(ctx, q),
  }),
  checkoutSession: t.field({
    type: SessionRef,
    nullable: true,
    description: "The accepted quote's checkout (the latest, when a lapsed one was resumed); needs checkout:write, like the session's own reads",
    authScopes: { scope: "checkout:write" },
    resolve: (q, _a, ctx) => (q.checkoutSessionId ? loader(ctx, "checkoutSessionById", (ids: string[]) => checkoutSessionsByIds(ctx, ids)).load(q.checkoutSessionId) : null),
  }),
  order: t.field({
    type: OrderRef,
    nullable: true,
    description: "The order it was converted into (needs orders:read; without it this field alone errors)",
    authScopes: { scope: "orders:read" },
    resolve: (q, _a, ctx) => (q.orderId ? loader(ctx, "orderById", (ids: string[]) => ordersByIds(ctx, ids)).load(q.orderId) : null),
  }),
  activity: t.field({
    type: QuoteActivityPage,
    nullable: true,
    description: "What happened on the quote, newest first: its quote.* events (activity(first: 1) is the latest)",
    authScopes: { scope: "quotes:read" },
    args: pageArgs(t),
    resolve: (q, a, ctx) => activityEdge(ctx, q.id, a),
  }),
}));

builder.objectFields(OrderRef, (t) => ({
  quote: t.field({
    type: QuoteRef,
    nullable: true,
    description: "The quote converted into this order, if any (needs quotes:read; without it this field alone errors)",
    authScopes: { scope: "quotes:read" },
    resolve: (o, _a, ctx) => orderQuoteEdge(ctx, o.id),
  }),
}));

builder.objectFields(CustomerRef, (t) => ({
  quotes: t.field({
    type: QuotePage,
    nullable: true,
    description: "The customer's quotes, newest first, filtered (needs quotes:read; without it this field alone errors)",
    authScopes: { scope: "quotes:read" },
    args: { ...pageArgs(t), ...quoteFilterArgs(t) },
    resolve: (c, a, ctx) => customerQuotesEdge(ctx, c.id, { ...a, expiresBefore: isoOf(a.expiresBefore) }),
  }),
}));
