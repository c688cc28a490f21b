// Which lifecycle email each quote moment sends (quotes.md part 6), with the values the templates may use. Only
// buyer-safe values go in (never an internal comment or note); the mail job renders them later.
import { queueEmail } from "../mail/mail.service";
import type { TemplateName } from "../mail/templates";
import type { Ctx } from "../shared/context";
import { formatDay } from "../shared/dates";
import { formatMoney } from "../shared/money";
import { acceptedItemsText, asAccepted } from "./quote-accepted";
import { buyerBaseUrl, openShareToken, type QuoteFull, revisionTotals } from "./quotes.service";

export function formatDayOrUndefined(d: Date | null): string | undefined {
  return d ? formatDay(d) : undefined;
}

export interface QuoteEmailExtra {
  commentAuthor?: string | null;
  commentBody?: string | null;
  reason?: string | null;
  message?: string | null;
  acceptedBy?: string | null;
  checkoutUrl?: string | null;
}

/** Queues `templates` for quote `q` in the caller's transaction; `cause` (an event id, a reminder key) dedupes them. */
export function queueQuoteEmails(tx: Ctx, q: QuoteFull, templates: TemplateName[], cause: string, extra: QuoteEmailExtra = {}) {
  const rev = q.revisions.find((r) => r.id === q.currentRevisionId) ?? null;
  const vars = {
    quoteNumber: q.number,
    merchantName: q.application.name,
    customerEmail: q.customerEmail,
    revisionNumber: rev ? String(rev.number) : undefined,
    // after acceptance: what was accepted (selection, quantities, total), the checkout's and the order's amounts
    total: rev ? formatMoney(revisionTotals(asAccepted(q, rev)).total, q.currency) : undefined,
    acceptedItems: rev ? acceptedItemsText(q, rev) : undefined,
    expiresAt: formatDayOrUndefined(q.expiresAt),
    quoteUrl: `${buyerBaseUrl(tx, q.application.settings)}/q/${openShareToken(tx, q)}`,
    ...Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== null && v !== undefined)),
  };
  for (const template of templates) {
    queueEmail(tx, q, { template, to: [q.customerEmail], vars, cause, quoteId: q.id });
  }
}
