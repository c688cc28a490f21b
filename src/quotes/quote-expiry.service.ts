// The hourly quote-expiry job (quotes.md part 4 "Expiry and PDF rules"): the merchant team is warned 48 hours
// before a proposed quote expires and the buyer 24 hours before, each once per issued revision (a compare-and-set
// stamp on the revision; a re-issue is a new revision, so the reminders re-arm), and a proposed quote past
// expiresAt moves to expired with quote.expired and the expiry emails. Every step is its own transaction; the
// emails are queued in it, keyed by the revision or the event, so running the job twice sends nothing twice.
import { recordEvent, tenantOf } from "../events/events.service";
import { type Ctx, type Deps, makeCtx, withTx } from "../shared/context";
import { moveQuote } from "./quote.machine";
import { queueQuoteEmails } from "./quote-emails";
import { findQuote, lockQuote } from "./quote-read.service";
import { quoteEventData } from "./quote.view";

const H = 3600 * 1000;
const REP_WARNING_MS = 48 * H;
const BUYER_WARNING_MS = 24 * H;
const BATCH = 500;

type Due = { id: string; applicationId: string; environmentId: string; revisionId: string };

async function dueQuotes(ctx: Ctx, until: Date, stamp: "repReminderAt" | "buyerReminderAt" | null): Promise<Due[]> {
  const now = ctx.clock.now();
  return ctx.db.quote
    .findMany({
      where: {
        status: "proposed",
        currentRevisionId: { not: null },
        expiresAt: stamp ? { gt: now, lte: until } : { lte: now },
      },
      select: { id: true, applicationId: true, environmentId: true, currentRevisionId: true },
      orderBy: { expiresAt: "asc" },
      take: BATCH,
    })
    .then((rows) => rows.map((r) => ({ id: r.id, applicationId: r.applicationId, environmentId: r.environmentId, revisionId: r.currentRevisionId! })));
}

async function remind(ctx: Ctx, q: Due, stamp: "repReminderAt" | "buyerReminderAt"): Promise<boolean> {
  return withTx(ctx, async (tx) => {
    const locked = await lockQuote(tx, q, q.id);
    if (locked.status !== "proposed" || locked.currentRevisionId !== q.revisionId) return false;
    const won = await tx.db.quoteRevision.updateMany({ where: { id: q.revisionId, [stamp]: null }, data: { [stamp]: tx.clock.now() } });
    if (won.count !== 1) return false;
    const full = (await findQuote(tx, q, q.id))!;
    const template = stamp === "repReminderAt" ? "admin.quote_expiring" : "customer.quote_expiring";
    queueQuoteEmails(tx, full, [template], `expiring:${q.revisionId}`);
    return true;
  });
}

async function expire(ctx: Ctx, q: Due): Promise<boolean> {
  return withTx(ctx, async (tx) => {
    const locked = await lockQuote(tx, q, q.id);
    if (locked.status !== "proposed" || !locked.expiresAt || locked.expiresAt.getTime() > tx.clock.now().getTime()) return false;
    await moveQuote(tx, locked, "expire", { actorType: "system" });
    const full = (await findQuote(tx, q, q.id))!;
    const ev = await recordEvent(tx, await tenantOf(tx, q), "quote.expired", quoteEventData(full, { revisionId: full.currentRevisionId }));
    queueQuoteEmails(tx, full, ["customer.quote_expired", "admin.quote_expired"], ev.id);
    return true;
  });
}

/** One pass of the job. */
export async function runQuoteExpiry(deps: Deps) {
  const ctx = makeCtx(deps);
  const now = ctx.clock.now();
  const out = { expired: 0, repWarnings: 0, buyerWarnings: 0 };
  for (const q of await dueQuotes(ctx, now, null)) if (await expire(ctx, q)) out.expired++;
  for (const q of await dueQuotes(ctx, new Date(now.getTime() + REP_WARNING_MS), "repReminderAt")) if (await remind(ctx, q, "repReminderAt")) out.repWarnings++;
  for (const q of await dueQuotes(ctx, new Date(now.getTime() + BUYER_WARNING_MS), "buyerReminderAt")) if (await remind(ctx, q, "buyerReminderAt")) out.buyerWarnings++;
  return out;
}
