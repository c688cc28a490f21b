// Quotes, merchant reads (quotes.md parts 2-4): the row graph a view is built from (one statement), the row lock
// every command takes first, the tenant guards, and get / list / the buyer link's lookup / the live stream.
import { type Expression, expressionBuilder, type RawBuilder, sql } from "kysely";
import { Prisma } from "../generated/prisma/client";
import type { DB } from "../db/sql";
import { currentStateFirst, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { filter, pipe } from "graphql-yoga";
import { requirePermission, requireScope, requireTenant } from "../shared/guards";
import { type Ctx } from "../shared/context";
import { sha256Hex } from "../shared/crypto";
import { errors } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { loadShippingTaxConfig } from "../shipping-tax/shipping-tax.service";
import { type TaxRates } from "./quote-tax";
import { type QuoteStatus } from "./quote.machine";
import { quoteListFilters } from "./quotes.inputs";
import { quoteView } from "./quote.view";

export type TenantIds = { applicationId: string; environmentId: string };

// ---- loading --------------------------------------------------------------------------------------------

/** Everything the merchant view shows, in one statement (relation joins). */
const QUOTE_INCLUDE = {
  customer: true,
  application: { select: { name: true, settings: true } },
  revisions: { orderBy: { number: "asc" }, include: { items: { orderBy: { position: "asc" } } } },
  comments: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
} satisfies Prisma.QuoteInclude;
/** With the environment's tax table, which prices a working revision's tax live (quote-tax.ts). */
export type QuoteFull = Prisma.QuoteGetPayload<{ include: typeof QUOTE_INCLUDE }> & { taxRates: TaxRates };
export type RevisionFull = QuoteFull["revisions"][number];
export type ItemRow = RevisionFull["items"][number];
export type CommentRow = QuoteFull["comments"][number];

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const quoteNotFound = () => errors.notFound("Quote");

/** Every column of a quote row, named (no `*`: src/db/prepared.ts). */
export const QUOTE_COLUMNS = Object.values(Prisma.QuoteScalarFieldEnum) as (keyof DB["Quote"] & string)[];

/** Which quote a read opens: by id within its tenant, or by the buyer link's token hash. */
type QuoteKey = ({ id: string } & TenantIds) | { shareTokenHash: string };

/**
 * The quote with its customer (the tenant's own only: GraphQL's Quote.customer reads it from here), application settings, revisions (lines in order) and comments in one statement:
 * PostgreSQL builds the nested JSON (json_agg), so the process only parses it. A quote read is the hottest quote
 * path (merchant reads, the buyer link, every command's answer); Prisma's relation-join include does the same in
 * one statement but costs several times the CPU to shape (bench/quotes.ts). The shape is QUOTE_INCLUDE's.
 */
async function selectQuoteFull(ctx: Ctx, key: QuoteKey): Promise<QuoteFull | null> {
  const row = await ctx.sql
    .selectFrom("Quote as q")
    .leftJoin("Customer as c", (j) => j.onRef("c.id", "=", "q.customerId").onRef("c.applicationId", "=", "q.applicationId").onRef("c.environmentId", "=", "q.environmentId"))
    .innerJoin("Application as a", "a.id", "q.applicationId")
    .select(QUOTE_COLUMNS.map((c) => `q.${c}` as const))
    .select((eb) => [
      sql<unknown>`CASE WHEN ${eb.ref("c.id")} IS NULL THEN NULL ELSE to_jsonb(c) END`.as("customer"),
      sql<unknown>`json_build_object('name', ${eb.ref("a.name")}, 'settings', ${eb.ref("a.settings")})`.as("application"),
      revisionsJson(eb.ref("q.id")).as("revisions"),
      commentsJson(eb.ref("q.id")).as("comments"),
      eb
        .selectFrom("ShippingTaxSettings as st")
        .select("st.taxRates")
        .whereRef("st.applicationId", "=", "q.applicationId")
        .whereRef("st.environmentId", "=", "q.environmentId")
        .as("taxRates"),
    ])
    .where((eb) =>
      "shareTokenHash" in key
        ? eb("q.shareTokenHash", "=", key.shareTokenHash)
        : eb.and([eb("q.id", "=", key.id), eb("q.applicationId", "=", key.applicationId), eb("q.environmentId", "=", key.environmentId)]),
    )
    .executeTakeFirst();
  return row ? shapeQuoteRow(row) : null;
}

/**
 * A quote's revisions as one JSON array, by number, each with its lines by position; `only` narrows it to the
 * revision offered at the link (the quote's currentRevisionId, passed as `currentId`) or the working one.
 */
export function revisionsJson(quoteId: Expression<string>, only?: { current: Expression<string | null> } | "working"): RawBuilder<unknown[]> {
  const eb = expressionBuilder<{ r: DB["QuoteRevision"]; i: DB["QuoteLineItem"] }, "r" | "i">();
  const items = sql`(SELECT coalesce(json_agg(i ORDER BY ${eb.ref("i.position")}), '[]'::json) FROM ${sql.table("QuoteLineItem")} i WHERE ${eb.ref("i.revisionId")} = ${eb.ref("r.id")})`;
  const narrow = only === undefined ? sql`` : only === "working" ? sql` AND ${eb.ref("r.status")} = 'working'` : sql` AND ${eb.ref("r.id")} = ${only.current}`;
  return sql<unknown[]>`(SELECT coalesce(json_agg(r ORDER BY ${eb.ref("r.number")}), '[]'::json) FROM (
    SELECT r.*, ${items} AS items FROM ${sql.table("QuoteRevision")} r WHERE ${eb.ref("r.quoteId")} = ${quoteId}${narrow}) r)`;
}

/** A quote's comments as one JSON array, oldest first. */
export function commentsJson(quoteId: Expression<string>): RawBuilder<unknown[]> {
  const eb = expressionBuilder<{ cm: DB["QuoteComment"] }, "cm">();
  return sql<unknown[]>`(SELECT coalesce(json_agg(cm ORDER BY ${eb.ref("cm.createdAt")}, ${eb.ref("cm.id")}), '[]'::json) FROM ${sql.table("QuoteComment")} cm WHERE ${eb.ref("cm.quoteId")} = ${quoteId})`;
}

const toDate = (v: unknown) => (v == null ? null : new Date(v as string));

/** json_agg carries timestamps as text: back to Dates, as Prisma's include returns them. */
export function shapeQuoteRow(row: any): QuoteFull {
  return {
    ...row,
    revisions: row.revisions.map((r: any) => ({
      ...r,
      issuedAt: toDate(r.issuedAt),
      supersededAt: toDate(r.supersededAt),
      viewedAt: toDate(r.viewedAt),
      repReminderAt: toDate(r.repReminderAt),
      buyerReminderAt: toDate(r.buyerReminderAt),
      createdAt: toDate(r.createdAt),
      updatedAt: toDate(r.updatedAt),
    })),
    comments: row.comments.map((c: any) => ({ ...c, createdAt: toDate(c.createdAt) })),
    customer: row.customer ? { ...row.customer, createdAt: toDate(row.customer.createdAt), updatedAt: toDate(row.customer.updatedAt) } : null,
    taxRates: row.taxRates ?? {},
  };
}

export async function findQuote(ctx: Ctx, t: TenantIds, id: string): Promise<QuoteFull | null> {
  if (!UUID_RE.test(id)) return null;
  return selectQuoteFull(ctx, { id, applicationId: t.applicationId, environmentId: t.environmentId });
}

export async function loadQuote(ctx: Ctx, t: TenantIds, id: string): Promise<QuoteFull> {
  const q = await findQuote(ctx, t, id);
  if (!q) throw quoteNotFound();
  return q;
}

interface LockedQuote {
  id: string;
  status: QuoteStatus;
  currentRevisionId: string | null;
  expiresAt: Date | null;
  currency: string;
}

/** Takes the quote's row lock for the rest of the transaction; unknown and foreign ids are 404. */
export async function lockQuote(tx: Ctx, t: TenantIds, id: string): Promise<LockedQuote> {
  if (!UUID_RE.test(id)) throw quoteNotFound();
  const q = await tx.sql
    .selectFrom("Quote")
    .select(["id", "status", "currentRevisionId", "expiresAt", "currency"])
    .where("id", "=", id)
    .where("applicationId", "=", t.applicationId)
    .where("environmentId", "=", t.environmentId)
    .forUpdate()
    .executeTakeFirst();
  if (!q) throw quoteNotFound();
  return { ...q, status: q.status as QuoteStatus };
}

// ---- tenant guards and reads ---------------------------------------------------------------------------------

function tenantIds(ctx: Ctx): TenantIds {
  const t = requireTenant(ctx);
  return { applicationId: t.applicationId, environmentId: t.environmentId };
}

export function readTenant(ctx: Ctx): TenantIds {
  requireScope(ctx, "quotes:read");
  return tenantIds(ctx);
}

export function writeTenant(ctx: Ctx): TenantIds {
  requireScope(ctx, "quotes:write");
  requirePermission(ctx, "application:quotes:write");
  return tenantIds(ctx);
}

export async function getQuote(ctx: Ctx, id: string) {
  const t = readTenant(ctx);
  return quoteView(ctx, await loadQuote(ctx, t, id));
}

export async function listQuotes(ctx: Ctx, query: unknown) {
  const t = readTenant(ctx);
  const page = parseListQuery(quoteListFilters, query);
  const ks = keyset(page);
  const where: Prisma.QuoteWhereInput = { applicationId: t.applicationId, environmentId: t.environmentId, ...ks.where };
  if (page.status) where.status = page.status;
  if (page.customerId) where.customerId = page.customerId;
  if (page.expiresBefore) where.expiresAt = { lt: page.expiresBefore };
  if (page.q) {
    const contains = { contains: page.q, mode: "insensitive" as const };
    where.AND = [{ OR: [{ number: contains }, { customerEmail: contains }, { companyName: contains }, { buyerReference: contains }] }];
  }
  const [rows, { taxRates }] = await Promise.all([ctx.db.quote.findMany({ where, orderBy: ks.orderBy, take: ks.take, include: QUOTE_INCLUDE }), loadShippingTaxConfig(ctx, t)]);
  const result = toPage(rows.map((q) => ({ ...q, taxRates })), page);
  return { items: result.items.map((q) => quoteView(ctx, q)), pagination: result.pagination };
}

/** For the buyer side: the quote a share token opens (null for unknown or rotated-out tokens). */
export async function findQuoteByShareToken(ctx: Ctx, token: string): Promise<QuoteFull | null> {
  if (!/^qt_[A-Za-z0-9]{32}$/.test(token)) return null;
  return selectQuoteFull(ctx, { shareTokenHash: sha256Hex(token) });
}

/** quoteUpdated(id): the quote's current state first, then one item per quote.* event of this quote. */
export async function subscribeQuoteUpdates(ctx: Ctx, id: string) {
  const t = readTenant(ctx);
  const q = await loadQuote(ctx, t, id);
  const mine = (e: Envelope) => e.type.startsWith("quote.") && (e.data as { quoteId?: string } | null)?.quoteId === q.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
