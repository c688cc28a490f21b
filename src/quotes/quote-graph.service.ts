// The quote graph's reads (GraphQL, issue 37): quote rows without their revisions and comments (the `quotes` list,
// Customer.quotes, Order.quote), and the parts a query selects, each for many quotes in one statement (DataLoader
// batches in quote-loaders.ts): every revision, the current or the working one (lines come with a revision: its
// totals are computed from them), the comments, and the activity (the quote.* events). REST keeps the full view
// (quote-read.service.ts). Every read checks quotes:read and filters by the caller's application and environment.
import { type ExpressionBuilder, type Expression, type SqlBool, sql } from "kysely";
import type { DB } from "../db/sql";
import type { Customer } from "../generated/prisma/client";
import { customerView } from "../customers/customers.service";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { type Page, type PageQuery, pageAfter, pagesByParent, parseListQuery, parsePage, toPage } from "../shared/pagination";
import { commentsJson, loadQuote, QUOTE_COLUMNS, readTenant, revisionsJson, shapeQuoteRow, type QuoteFull, type TenantIds } from "./quote-read.service";
import { quoteListFilters } from "./quotes.inputs";
import { commentView, quoteView, revisionView, type QuoteView } from "./quote.view";

type Parts = "revisions" | "workingRevision" | "comments";
/**
 * What GraphQL's Quote is built from: the quote's own fields, with the parts a full read already holds (a mutation's
 * answer, quote(id)); a part that is absent is loaded when the query selects it. `customerRow`: the customer the
 * full read joined (the tenant's own only), so quote(id) answers Quote.customer without another statement.
 */
export type QuoteNode = Omit<QuoteView, Parts> & Partial<Pick<QuoteView, Parts>> & { customerRow?: Customer | null };
export type RevisionV = QuoteView["revisions"][number];
export type CommentV = QuoteView["comments"][number];

/** quote(id): the full read (one statement: quote, customer, revisions, lines, comments). */
export async function getQuoteNode(ctx: Ctx, id: string): Promise<QuoteNode> {
  const t = readTenant(ctx);
  const q = await loadQuote(ctx, t, id);
  return { ...quoteView(ctx, q), customerRow: q.customer };
}

/** Quote.customer from the row quote(id) joined: the same scope and tenant checks as customersByIds. */
export function customerOfQuoteRow(ctx: Ctx, row: Customer | null) {
  requireScope(ctx, "customers:read");
  const t = requireTenant(ctx);
  return row && row.applicationId === t.applicationId && row.environmentId === t.environmentId ? customerView(row) : null;
}

// ---- quote rows --------------------------------------------------------------------------------------------

/** The tenant's quote rows with the application's settings (the buyer link's host): no revisions, no comments. */
function quoteRows(ctx: Ctx, t: TenantIds) {
  return ctx.sql
    .selectFrom("Quote as q")
    .innerJoin("Application as a", "a.id", "q.applicationId")
    .select(QUOTE_COLUMNS.map((c) => `q.${c}` as const))
    .select(["a.name as applicationName", "a.settings as applicationSettings"])
    .where("q.applicationId", "=", t.applicationId)
    .where("q.environmentId", "=", t.environmentId);
}
type QuoteRow = Awaited<ReturnType<ReturnType<typeof quoteRows>["executeTakeFirstOrThrow"]>>;

/** The merchant view of a quote row, without the parts (they load when selected). */
function nodeOf(ctx: Ctx, row: QuoteRow): QuoteNode {
  const { applicationName, applicationSettings, ...q } = row;
  const full = { ...q, application: { name: applicationName, settings: applicationSettings }, customer: null, revisions: [], comments: [], taxRates: {} } as unknown as QuoteFull;
  const { revisions: _r, workingRevision: _w, comments: _c, ...view } = quoteView(ctx, full);
  return view;
}

type QuoteListQuery = ReturnType<typeof parseListQuery<typeof quoteListFilters>>;
/** Customer.quotes: the `quotes` filters but the customer's own. */
const { customerId: _customerId, ...customerQuoteFilters } = quoteListFilters;

const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The list filters (status, customer, search text, expiring before) and the keyset, as one condition. */
function matching(eb: ExpressionBuilder<DB & { q: DB["Quote"] }, "q">, page: Partial<QuoteListQuery> & PageQuery): Expression<SqlBool> {
  const c: Expression<SqlBool>[] = [];
  if (page.status) c.push(eb("q.status", "=", page.status));
  if (page.customerId) c.push(eb("q.customerId", "=", page.customerId));
  if (page.expiresBefore) c.push(eb("q.expiresAt", "<", page.expiresBefore));
  if (page.q) {
    const like = likeOf(page.q);
    c.push(eb.or([eb("q.number", "ilike", like), eb("q.customerEmail", "ilike", like), eb("q.companyName", "ilike", like), eb("q.buyerReference", "ilike", like)]));
  }
  const after = pageAfter(page);
  if (after) c.push(eb.or([eb("q.createdAt", "<", after.createdAt), eb.and([eb("q.createdAt", "=", after.createdAt), eb("q.id", "<", after.id)])]));
  return eb.and(c);
}

/** GraphQL's `quotes`: one statement for the page, the parts load only when selected. */
export async function listQuoteNodes(ctx: Ctx, query: unknown): Promise<Page<QuoteNode>> {
  const t = readTenant(ctx);
  const page = parseListQuery(quoteListFilters, query);
  const rows = await quoteRows(ctx, t)
    .where((eb) => matching(eb, page))
    .orderBy("q.createdAt", "desc")
    .orderBy("q.id", "desc")
    .limit(page.limit + 1)
    .execute();
  const p = toPage(rows, page);
  return { items: p.items.map((r) => nodeOf(ctx, r)), pagination: p.pagination };
}

/** Customer.quotes of many customers: one statement (a window per customer), each customer's page newest first. */
export async function quotePagesOfCustomers(ctx: Ctx, customerIds: string[], query: unknown): Promise<Map<string, Page<QuoteNode>>> {
  const t = readTenant(ctx);
  const page = parseListQuery(customerQuoteFilters, query);
  const rows = customerIds.length
    ? await ctx.sql
        .selectFrom(
          quoteRows(ctx, t)
            .select(sql<number>`row_number() over (partition by ${sql.ref("q.customerId")} order by ${sql.ref("q.createdAt")} desc, ${sql.ref("q.id")} desc)`.as("rn"))
            .where("q.customerId", "in", customerIds)
            .where((eb) => matching(eb, page))
            .as("x"),
        )
        .select([...QUOTE_COLUMNS.map((c) => `x.${c}` as const), "x.applicationName", "x.applicationSettings"])
        .where("x.rn", "<=", page.limit + 1)
        .orderBy("x.createdAt", "desc")
        .orderBy("x.id", "desc")
        .execute()
    : [];
  const pages = pagesByParent(customerIds, rows as QuoteRow[], (r) => r.customerId, page);
  return new Map([...pages].map(([id, p]) => [id, { items: p.items.map((r) => nodeOf(ctx, r)), pagination: p.pagination }]));
}

/** Order.quote of many orders: the tenant's quotes converted into them, by order id, in one statement. */
export async function quotesOfOrders(ctx: Ctx, orderIds: string[]): Promise<Map<string, QuoteNode>> {
  const t = readTenant(ctx);
  if (!orderIds.length) return new Map();
  const rows = await quoteRows(ctx, t).where("q.orderId", "in", orderIds).execute();
  return new Map(rows.map((r) => [r.orderId!, nodeOf(ctx, r)]));
}

// ---- the parts of many quotes ------------------------------------------------------------------------------

export type RevisionSet = "all" | "current" | "working";

/**
 * Revisions of many quotes in one statement, by quote id: every one (by number), the one offered at the link (the
 * quote's own currentRevisionId, and only if that revision is the quote's), or the working one. Lines come with
 * each revision; a working revision's tax is live from the environment's tax table, as in the full read.
 */
export async function revisionsOfQuotes(ctx: Ctx, quoteIds: string[], which: RevisionSet): Promise<Map<string, RevisionV[]>> {
  const t = readTenant(ctx);
  if (!quoteIds.length) return new Map();
  const rows = await ctx.sql
    .selectFrom("Quote as q")
    .select((eb) => [
      "q.id",
      revisionsJson(eb.ref("q.id"), which === "all" ? undefined : which === "working" ? "working" : { current: eb.ref("q.currentRevisionId") }).as("revisions"),
      eb
        .selectFrom("ShippingTaxSettings as st")
        .select("st.taxRates")
        .whereRef("st.applicationId", "=", "q.applicationId")
        .whereRef("st.environmentId", "=", "q.environmentId")
        .as("taxRates"),
    ])
    .where("q.id", "in", quoteIds)
    .where("q.applicationId", "=", t.applicationId)
    .where("q.environmentId", "=", t.environmentId)
    .execute();
  return new Map(
    rows.map((r) => {
      const s = shapeQuoteRow({ revisions: r.revisions, comments: [], taxRates: r.taxRates });
      return [r.id, s.revisions.map((rev) => revisionView(rev, s.taxRates))];
    }),
  );
}

/** Comments of many quotes in one statement, by quote id, oldest first (internal ones included: merchant view). */
export async function commentsOfQuotes(ctx: Ctx, quoteIds: string[]): Promise<Map<string, CommentV[]>> {
  const t = readTenant(ctx);
  if (!quoteIds.length) return new Map();
  const rows = await ctx.sql
    .selectFrom("Quote as q")
    .select((eb) => ["q.id", commentsJson(eb.ref("q.id")).as("comments")])
    .where("q.id", "in", quoteIds)
    .where("q.applicationId", "=", t.applicationId)
    .where("q.environmentId", "=", t.environmentId)
    .execute();
  return new Map(rows.map((r) => [r.id, shapeQuoteRow({ revisions: [], comments: r.comments }).comments.map(commentView)]));
}

// ---- activity ----------------------------------------------------------------------------------------------

/** What a rep sees happen on a quote: its quote.* events (quotes.md part 6), as the event log records them. */
export const ACTIVITY_TYPES = ["requested", "proposed", "viewed", "comment_added", "revision_requested", "declined", "accepted", "converted", "expired"] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

export function activityView(e: { id: string; type: string; data: unknown; createdAt: Date }) {
  const d = (e.data ?? {}) as Record<string, any>;
  const type = e.type.slice("quote.".length) as ActivityType;
  const by: "merchant" | "buyer" | "system" =
    type === "proposed" ? "merchant"
    : type === "converted" || type === "expired" ? "system"
    : type === "comment_added" ? (d.comment?.authorType === "buyer" ? "buyer" : "merchant")
    : type === "declined" ? (d.declinedBy === "merchant" ? "merchant" : "buyer")
    : type === "accepted" ? (d.acceptedBy === "merchant" ? "merchant" : "buyer")
    : "buyer";
  const message = type === "comment_added" ? d.comment?.body : type === "revision_requested" ? d.message : type === "declined" ? d.reason : null;
  return {
    id: e.id,
    type,
    by,
    quoteId: String(d.quoteId),
    status: (d.quote?.status as string | undefined) ?? null,
    revisionId: (d.revisionId as string | undefined) ?? null,
    message: (message as string | undefined) ?? null,
    commentId: (d.comment?.id as string | undefined) ?? null,
    checkoutSessionId: (d.checkoutSessionId as string | undefined) ?? null,
    orderId: (d.orderId as string | undefined) ?? null,
    createdAt: e.createdAt.toISOString(),
  };
}
export type ActivityV = ReturnType<typeof activityView>;

/**
 * Quote.activity of many quotes: one statement, the newest `limit` + 1 quote.* events of each quote (a window per
 * data.quoteId) among the tenant's own events.
 */
export async function activityOfQuotes(ctx: Ctx, quoteIds: string[], query: unknown): Promise<Map<string, Page<ActivityV>>> {
  const t = readTenant(ctx);
  const page = parsePage(query);
  const after = pageAfter(page);
  const quoteIdOf = sql<string>`${sql.ref("e.data")}->>'quoteId'`;
  const rows = quoteIds.length
    ? await ctx.sql
        .selectFrom(
          ctx.sql
            .selectFrom("Event as e")
            .select(["e.id", "e.type", "e.data", "e.createdAt", quoteIdOf.as("quoteId")])
            .select(sql<number>`row_number() over (partition by ${quoteIdOf} order by ${sql.ref("e.createdAt")} desc, ${sql.ref("e.id")} desc)`.as("rn"))
            .where("e.applicationId", "=", t.applicationId)
            .where("e.environmentId", "=", t.environmentId)
            .where("e.type", "in", ACTIVITY_TYPES.map((a) => `quote.${a}`))
            .where(quoteIdOf, "in", quoteIds)
            .where((eb) => (after ? eb.or([eb("e.createdAt", "<", after.createdAt), eb.and([eb("e.createdAt", "=", after.createdAt), eb("e.id", "<", after.id)])]) : eb.and([])))
            .as("x"),
        )
        .select(["x.id", "x.type", "x.data", "x.createdAt", "x.quoteId"])
        .where("x.rn", "<=", page.limit + 1)
        .orderBy("x.createdAt", "desc")
        .orderBy("x.id", "desc")
        .execute()
    : [];
  const pages = pagesByParent(quoteIds, rows, (r) => r.quoteId, page);
  return new Map([...pages].map(([id, p]) => [id, { items: p.items.map(activityView), pagination: p.pagination }]));
}
