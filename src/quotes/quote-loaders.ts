// The quote graph's per-request loaders (src/graphql/loaders.ts): every Quote in a page asks the same loader in one
// tick, so a part (revisions, the current revision, comments, activity) costs one statement for the whole page,
// and none when the query does not select it. A quote read in full (quote(id), a mutation's answer) holds its parts
// already and never asks.
import { loader, pagedLoad } from "../graphql/loaders";
import { pageInput } from "../graphql/shared-types";
import type { Ctx } from "../shared/context";
import { activityOfQuotes, commentsOfQuotes, type QuoteNode, quotePagesOfCustomers, quotesOfOrders, type RevisionSet, revisionsOfQuotes, type RevisionV } from "./quote-graph.service";

const revisions = (ctx: Ctx, which: RevisionSet) => loader(ctx, `quoteRevisions:${which}`, (ids: string[]) => revisionsOfQuotes(ctx, ids, which), { missing: () => [] as RevisionV[] });

/** Quote.revisions: every revision, oldest first. */
export async function revisionsEdge(ctx: Ctx, q: QuoteNode) {
  return q.revisions ?? (await revisions(ctx, "all").load(q.id)) ?? [];
}

/** Quote.workingRevision: the editable one, if any. */
export async function workingRevisionEdge(ctx: Ctx, q: QuoteNode) {
  if (q.workingRevision !== undefined) return q.workingRevision;
  return ((await revisions(ctx, "working").load(q.id)) ?? [])[0] ?? null;
}

/** Quote.currentRevision: the issued revision offered at the link (null before the first issue). */
export async function currentRevisionEdge(ctx: Ctx, q: QuoteNode) {
  if (!q.currentRevisionId) return null;
  if (q.revisions) return q.revisions.find((r) => r.id === q.currentRevisionId) ?? null;
  return ((await revisions(ctx, "current").load(q.id)) ?? [])[0] ?? null;
}

/** Quote.comments: every comment, oldest first. */
export async function commentsEdge(ctx: Ctx, q: QuoteNode) {
  return q.comments ?? (await loader(ctx, "quoteComments", (ids: string[]) => commentsOfQuotes(ctx, ids)).load(q.id)) ?? [];
}

type Args = Record<string, unknown>;

type PageArgs = { first?: number | null; after?: string | null; limit?: number | null; cursor?: string | null };
const queryOf = ({ first, after, limit, cursor, ...filters }: PageArgs & Args) => ({
  ...Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== null && v !== undefined)),
  ...pageInput({ first, after, limit, cursor }),
});

/** Quote.activity: the quote's events, newest first. */
export function activityEdge(ctx: Ctx, quoteId: string, args: PageArgs) {
  return pagedLoad(ctx, "quoteActivity", (ids, query: Args) => activityOfQuotes(ctx, ids, query), quoteId, queryOf(args));
}

/** Customer.quotes: the customer's quotes, newest first, filtered. */
export function customerQuotesEdge(ctx: Ctx, customerId: string, args: PageArgs & Args) {
  return pagedLoad(ctx, "customerQuotes", (ids, query: Args) => quotePagesOfCustomers(ctx, ids, query), customerId, queryOf(args));
}

/** Order.quote: the quote converted into the order, if any. */
export function orderQuoteEdge(ctx: Ctx, orderId: string) {
  return loader(ctx, "quoteByOrder", (ids: string[]) => quotesOfOrders(ctx, ids)).load(orderId);
}
