// quoteEvents(filter): the live list of a tenant's quotes for dashboards. Every quote.* event of the caller's
// application + environment (the hub's tenant topic, fanned out through Redis with REDIS_URL) delivers the quote
// as it is after the event, when it matches the filter. Same checks as quoteUpdated: quotes:read, the tenant,
// and the stream ends (unauthorized) once the credential is revoked.
import { filter, pipe } from "graphql-yoga";
import { whileCredentialLive } from "../events/events.service";
import { liveList } from "../events/live-list";
import type { Ctx } from "../shared/context";
import { type Envelope, tenantTopic } from "../shared/hub";
import { findQuote, readTenant } from "./quote-read.service";
import type { QuoteStatus } from "./quote.machine";
import { quoteView, type QuoteView } from "./quote.view";

export interface QuoteEventsFilter {
  status?: QuoteStatus | null;
  customerId?: string | null;
}

export interface QuoteEventItem {
  /** the event's type, e.g. quote.accepted */
  type: string;
  eventId: string;
  occurredAt: Date;
  quote: QuoteView;
}

const quoteIdOf = (e: Envelope) => (e.data as { quoteId?: unknown } | null)?.quoteId;
const isQuoteEvent = (e: Envelope) => e.type.startsWith("quote.") && typeof quoteIdOf(e) === "string";

export function subscribeQuoteEvents(ctx: Ctx, f: QuoteEventsFilter = {}) {
  const t = readTenant(ctx);
  const events = whileCredentialLive(ctx, pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(isQuoteEvent)));
  return liveList(events, async (e: Envelope): Promise<QuoteEventItem | null> => {
    // read again under the tenant: the quote as it is now (a later event of the same quote may already show)
    const q = await findQuote(ctx, t, String(quoteIdOf(e)));
    if (!q || (f.status && q.status !== f.status) || (f.customerId && q.customerId !== f.customerId)) return null;
    return { type: e.type, eventId: e.id, occurredAt: new Date(e.createdAt), quote: quoteView(ctx, q) };
  });
}
