// The buyer's side of a quote, under /quote-links/{shareToken} (quotes.md parts 4-5, decisions.md part 3): no key,
// the token is the authority. A draft or archived quote, an unknown and a rotated-out token are all 404. Every call
// is limited per IP and per token in the shared limiter (429 rate_limited with Retry-After), and nothing a buyer
// reads (buyerQuoteView) carries an internal comment, the internal note, the working revision or a target price.
import { z } from "zod";
import { recordEvent, tenantOf } from "../events/events.service";
import { notify } from "../notifications/notifications.service";
import { type Ctx, reportLimit, withTx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { sha256Hex } from "../shared/crypto";
import { acceptInput, acceptQuoteCore, applySelections } from "./quote-accept.service";
import { acceptedLinesFor } from "./quote-accepted";
import { buyerOrderFacts, buyerQuoteSummary, buyerQuoteView, type BuyerQuoteView, isExpired } from "./quote-buyer.view";
import { queueQuoteEmails } from "./quote-emails";
import { moveQuote } from "./quote.machine";
import { quotePdfUrl } from "./quote-pdf.service";
import { findQuote, findQuoteByShareToken, lockQuote, type QuoteFull } from "./quote-read.service";
import { quoteEventData } from "./quote.view";

/** quote.viewed (and the expired-link notification) at most once per revision per this long. */
const VIEW_EVENT_INTERVAL_MS = 6 * 3600 * 1000;

export const buyerCommentInput = z.strictObject({ body: z.string().trim().min(1).max(5000), authorName: z.string().trim().min(1).max(200).optional() });
export const requestRevisionInput = z.strictObject({ message: z.string().trim().min(1).max(5000).optional() });
export const buyerDeclineInput = z.strictObject({ reason: z.string().trim().min(1).max(2000).optional() });
const emptyInput = z.strictObject({});

/** The limits, then the quote behind the token (404 for anything a buyer may not open). */
async function openLink(ctx: Ctx, token: string): Promise<QuoteFull> {
  const { limits } = ctx.deps;
  const states = await Promise.all([ctx.ip ? limits.consume("quoteLinkIp", ctx.ip) : null, limits.consume("quoteLinkToken", sha256Hex(String(token)).slice(0, 32))]);
  for (const s of states) reportLimit(ctx, s);
  const q = await findQuoteByShareToken(ctx, String(token));
  if (!q || q.status === "draft" || q.status === "archived") throw errors.notFound("Quote");
  return q;
}

const tenantOfQuote = (q: QuoteFull) => ({ applicationId: q.applicationId, environmentId: q.environmentId });

export type { BuyerQuoteView };

/** The buyer read with the order facts once the quote became an order. */
async function buyerRead(ctx: Ctx, q: QuoteFull, token: string): Promise<BuyerQuoteView> {
  return buyerQuoteView(ctx, q, token, await buyerOrderFacts(ctx, q));
}

/**
 * The buyer page's read (pages/quote.page.tsx): one pass of the limits, the buyer view, and (on a page open) the
 * view recorded as POST …/view would. `expired`: past its expiry, whether or not the hourly job has run yet.
 */
export async function openQuotePage(ctx: Ctx, token: string, opts: { record: boolean }) {
  const q = await openLink(ctx, token);
  if (opts.record) await recordView(ctx, q);
  return { view: await buyerRead(ctx, q, token), expired: isExpired(ctx, q) };
}

/** GET /quote-links/{token} */
export async function getQuoteLink(ctx: Ctx, token: string) {
  const q = await openLink(ctx, token);
  return buyerRead(ctx, q, token);
}

/**
 * POST /quote-links/{token}/view (and every page open): quote.viewed at most once per revision per 6 hours, by a
 * compare-and-set on the revision's viewedAt; an expired quote's link also notifies the rep in-app (same throttle).
 */
export async function viewQuoteLink(ctx: Ctx, token: string, body?: unknown) {
  parseInput(emptyInput, body ?? {});
  const q = await openLink(ctx, token);
  await recordView(ctx, q);
}

async function recordView(ctx: Ctx, q: QuoteFull) {
  const rev = q.revisions.find((r) => r.id === q.currentRevisionId && r.status !== "working");
  if (!rev) return;
  const now = ctx.clock.now();
  const expired = isExpired(ctx, q);
  await withTx(ctx, async (tx) => {
    const won = await tx.db.quoteRevision.updateMany({
      where: { id: rev.id, OR: [{ viewedAt: null }, { viewedAt: { lte: new Date(now.getTime() - VIEW_EVENT_INTERVAL_MS) } }] },
      data: { viewedAt: now },
    });
    if (won.count !== 1) return;
    const t = tenantOfQuote(q);
    await recordEvent(tx, await tenantOf(tx, t), "quote.viewed", quoteEventData(q, { revisionId: rev.id, expired }));
    if (expired) {
      await notify(tx, t, { type: "quote.expired_link_opened", quoteId: q.id, title: `${q.number}: the buyer opened the expired quote`, body: "Issue a new revision to reactivate the same link.", data: { revisionId: rev.id } });
    }
  });
}

/** POST /quote-links/{token}/comments: a shared comment from the buyer (201). */
export async function addBuyerComment(ctx: Ctx, token: string, body: unknown) {
  const input = parseInput(buyerCommentInput, body);
  const q0 = await openLink(ctx, token);
  const t = tenantOfQuote(q0);
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, q0.id);
    const row = await tx.db.quoteComment.create({
      data: { quoteId: q.id, visibility: "shared", authorType: "buyer", authorName: input.authorName ?? q0.companyName ?? q0.customerEmail, body: input.body, createdAt: tx.clock.now() },
    });
    const full = (await findQuote(tx, t, q.id))!;
    const comment = { id: row.id, authorType: row.authorType, authorName: row.authorName, body: row.body, createdAt: row.createdAt.toISOString() };
    const ev = await recordEvent(tx, await tenantOf(tx, t), "quote.comment_added", quoteEventData(full, { comment: { ...comment, visibility: "shared" } }));
    queueQuoteEmails(tx, full, ["admin.quote_comment_added"], ev.id, { commentAuthor: row.authorName, commentBody: row.body });
    await notify(tx, t, { type: "quote.comment_added", quoteId: q.id, title: `${full.number}: new comment from the buyer`, body: row.body.slice(0, 280) });
    return comment;
  });
}

/** POST /quote-links/{token}/request-revision: proposed -> revision_requested; the message joins the shared thread. */
export async function requestRevision(ctx: Ctx, token: string, body: unknown) {
  const input = parseInput(requestRevisionInput, body ?? {});
  const q0 = await openLink(ctx, token);
  const t = tenantOfQuote(q0);
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, q0.id);
    await moveQuote(tx, q, "request_revision", { actorType: "buyer", reason: input.message ?? null });
    if (input.message) {
      await tx.db.quoteComment.create({
        data: { quoteId: q.id, visibility: "shared", authorType: "buyer", authorName: q0.companyName ?? q0.customerEmail, body: input.message, createdAt: tx.clock.now() },
      });
    }
    const full = (await findQuote(tx, t, q.id))!;
    const ev = await recordEvent(tx, await tenantOf(tx, t), "quote.revision_requested", quoteEventData(full, { message: input.message ?? null }));
    queueQuoteEmails(tx, full, ["admin.quote_revision_requested"], ev.id, { message: input.message });
    await notify(tx, t, { type: "quote.revision_requested", quoteId: q.id, title: `${full.number}: the buyer asked for changes`, body: input.message ?? null });
    return buyerRead(tx, full, token);
  });
}

/** POST /quote-links/{token}/decline: the buyer declines the issued offer (declinedBy: buyer). */
export async function buyerDecline(ctx: Ctx, token: string, body: unknown) {
  const input = parseInput(buyerDeclineInput, body ?? {});
  const q0 = await openLink(ctx, token);
  const t = tenantOfQuote(q0);
  return withTx(ctx, async (tx) => {
    const q = await lockQuote(tx, t, q0.id);
    await moveQuote(tx, q, "buyer_decline", { actorType: "buyer", reason: input.reason ?? null }, { declinedReason: input.reason ?? null, declinedBy: "buyer" });
    const full = (await findQuote(tx, t, q.id))!;
    const ev = await recordEvent(tx, await tenantOf(tx, t), "quote.declined", quoteEventData(full, { declinedBy: "buyer", reason: input.reason ?? null }));
    queueQuoteEmails(tx, full, ["admin.quote_declined"], ev.id, { reason: input.reason });
    await notify(tx, t, { type: "quote.declined", quoteId: q.id, title: `${full.number} declined by the buyer`, body: input.reason ?? null });
    return buyerRead(tx, full, token);
  });
}

/** GET /quote-links/{token}/pdf: a short-lived signed URL of the current offer's PDF (404 before the first issue). */
export async function quoteLinkPdfUrl(ctx: Ctx, token: string): Promise<string> {
  const q = await openLink(ctx, token);
  return quotePdfUrl(ctx, q);
}

/** POST /quote-links/{token}/accept -> { quote (the quote itself, the buyer-allowed fields: number, status...), checkoutUrl } */
export async function acceptQuoteLink(ctx: Ctx, token: string, body: unknown) {
  const input = parseInput(acceptInput, body);
  const q0 = await openLink(ctx, token);
  const r = await acceptQuoteCore(ctx, tenantOfQuote(q0), q0.id, input, { kind: "buyer" });
  return { quote: buyerQuoteSummary(ctx, r.quote), checkoutUrl: r.checkoutUrl };
}

/**
 * The quote page's accept: as POST …/accept, and whether the buyer's choices were set aside. Accepting a revision that
 * is already accepted returns its checkout as it stands (accept rule 4); when the selection sent differs from the one
 * accepted, the page says so instead of silently taking the buyer to the earlier selection's checkout.
 */
export async function acceptFromPage(ctx: Ctx, token: string, body: unknown) {
  const input = parseInput(acceptInput, body);
  const q0 = await openLink(ctx, token);
  const r = await acceptQuoteCore(ctx, tenantOfQuote(q0), q0.id, input, { kind: "buyer" });
  const before = (q0.status === "accepted" || q0.status === "converted") && q0.acceptedRevisionId === input.revisionId;
  const rev = q0.revisions.find((x) => x.id === input.revisionId);
  let ignored = false;
  if (before && rev) {
    const had = acceptedLinesFor(q0, rev) ?? [];
    let wanted: { itemId: string; selected: boolean; quantity: number }[] | null;
    try {
      wanted = applySelections(rev, input.itemSelections, q0.currency);
    } catch {
      wanted = null;
    }
    const key = (l: { itemId: string; selected: boolean; quantity: number }[]) => JSON.stringify([...l].sort((a, b) => a.itemId.localeCompare(b.itemId)).map((x) => [x.itemId, x.selected, x.quantity]));
    ignored = wanted === null || key(wanted) !== key(had);
  }
  return { checkoutUrl: r.checkoutUrl, status: r.quote.status, selectionsIgnored: ignored };
}
