// Subscription.quoteEvents: the live list a dashboard's quote list view keeps current (quote-events.service.ts).
import { liveItem } from "../events/events.service";
import { builder } from "../graphql/builder";
import { QuoteRef, QuoteStatusEnum } from "./quotes.schema";
import { type QuoteEventItem, subscribeQuoteEvents } from "./quote-events.service";

const QuoteEventRef = builder.objectRef<QuoteEventItem>("QuoteEvent").implement({
  description: "A change to one of the tenant's quotes, with the quote as it is after it",
  fields: (t) => ({
    type: t.exposeString("type", { description: "The event's type (quote.proposed, quote.accepted, …; Query.eventTypes lists them)" }),
    eventId: t.exposeID("eventId", { description: "The event's id (Query.event reads it, webhooks carry the same id)" }),
    occurredAt: t.field({ type: "DateTime", description: "When the event was recorded", resolve: (e) => e.occurredAt }),
    quote: t.field({ type: QuoteRef, description: "The quote, read again when the event arrived", resolve: (e) => e.quote }),
  }),
});

const QuoteEventsFilterInput = builder.inputType("QuoteEventsFilter", {
  description: "Which quotes' changes to deliver; every field narrows, none delivers every quote of the tenant",
  fields: (t) => ({
    status: t.field({ type: QuoteStatusEnum, description: "Only quotes in this status after the change" }),
    customerId: t.id({ description: "Only this customer's quotes" }),
  }),
});

builder.subscriptionFields((t) => ({
  quoteEvents: t.field({
    type: QuoteEventRef,
    description: "The tenant's quotes as they change: one item per quote.* event whose quote matches the filter, for a list view (quoteUpdated follows one quote)",
    authScopes: { scope: "quotes:read" },
    args: { filter: t.arg({ type: QuoteEventsFilterInput, description: "Narrows the quotes delivered" }) },
    subscribe: (_r, a, ctx) => subscribeQuoteEvents(ctx, { status: a.filter?.status ?? null, customerId: a.filter?.customerId ? String(a.filter.customerId) : null }),
    resolve: (e) => liveItem(e as QuoteEventItem),
  }),
}));
