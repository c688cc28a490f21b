// Which lifecycle email each quote moment sends (quotes.md part 6), with the values the templates may use. Only
// buyer-safe values go in (never an internal comment or note); the mail job renders them later. Every quote email
// carries the facts (quote number, PO, terms, expiry), the lines (optional ones marked) and the totals.
import { queueEmail } from "../mail/mail.service";
import type { EmailSummary, TemplateName } from "../mail/templates";
import type { Ctx } from "../shared/context";
import { formatDay } from "../shared/dates";
import { formatMoney } from "../shared/money";
import { acceptedItemsText, asAccepted } from "./quote-accepted";
import { taxLabel } from "../documents/tax-lines";
import { buyerBaseUrl, depositAmountOf, itemTotal, openShareToken, revisionTotals } from "./quote.view";
import { type QuoteFull, type RevisionFull } from "./quote-read.service";

function formatDayOrUndefined(d: Date | null): string | undefined {
  return d ? formatDay(d) : undefined;
}

interface QuoteEmailExtra {
  commentAuthor?: string | null;
  commentBody?: string | null;
  reason?: string | null;
  message?: string | null;
  acceptedBy?: string | null;
  /** the person who accepted: customer.quote_accepted goes to them and to the quote's customer */
  acceptedByEmail?: string | null;
  checkoutUrl?: string | null;
}

/** The payment terms of a revision in words, with the deposit as money. */
function paymentTermsText(rev: Pick<RevisionFull, "termsMode" | "netN" | "balanceNetN" | "depositAmount">, currency: string): string {
  if (rev.termsMode === "net_terms") return `Net ${rev.netN ?? 30}: invoiced, due ${rev.netN ?? 30} days after the order`;
  if (rev.termsMode === "deposit_balance") {
    const deposit = rev.depositAmount !== null ? `Deposit of ${formatMoney(rev.depositAmount, currency)}` : "Deposit";
    return `${deposit} at acceptance, balance invoiced at Net ${rev.balanceNetN ?? 30}`;
  }
  return "Paid in full by card at checkout";
}

/** The lines and totals of `rev` (as accepted, once accepted), and the quote's references. */
function quoteSummary(q: QuoteFull, rev: RevisionFull): EmailSummary {
  const money = (n: number) => formatMoney(n, q.currency);
  const shown = asAccepted(q, rev);
  const totals = revisionTotals(shown);
  const accepted = shown !== rev;
  return {
    facts: [
      { label: "Quote", value: `${q.number} (revision ${rev.number})` },
      ...(q.buyerReference ? [{ label: "Your PO", value: q.buyerReference }] : []),
      ...(q.expiresAt && !accepted ? [{ label: "Valid until", value: formatDay(q.expiresAt) }] : []),
      { label: "Payment terms", value: paymentTermsText(rev, q.currency) },
    ],
    lines: shown.items
      .filter((i) => !accepted || i.selected)
      .map((i) => ({ name: i.name, quantity: i.quantity, amount: money(itemTotal(i) ?? 0), ...(i.optional ? { note: accepted ? "Optional, chosen" : "Optional" } : {}) })),
    totals: [
      { label: "Subtotal", amount: money(totals.subtotal) },
      ...(rev.shippingMode === "at_checkout" ? [{ label: "Shipping", amount: "At checkout" }] : [{ label: "Shipping", amount: money(totals.shippingTotal) }]),
      ...(totals.taxLines.length ? totals.taxLines.map((t) => ({ label: taxLabel(t), amount: money(t.amount) })) : [{ label: "Tax", amount: money(0) }]),
      { label: "Total", amount: money(totals.total), strong: true },
      ...((): EmailSummary["totals"] => {
        const deposit = rev.termsMode === "deposit_balance" ? (rev.depositAmount ?? depositAmountOf(rev, totals.total)) : null;
        return deposit ? [{ label: "Deposit at acceptance", amount: money(deposit) }] : [];
      })(),
    ],
  };
}

/** Queues `templates` for quote `q` in the caller's transaction; `cause` (an event id, a reminder key) dedupes them. */
export function queueQuoteEmails(tx: Ctx, q: QuoteFull, templates: TemplateName[], cause: string, extra: QuoteEmailExtra = {}) {
  const rev = q.revisions.find((r) => r.id === q.currentRevisionId) ?? null;
  const { acceptedByEmail, ...rest } = extra;
  const token = openShareToken(tx, q);
  const vars = {
    quoteNumber: q.number,
    merchantName: q.application.name,
    customerEmail: q.customerEmail,
    revisionNumber: rev ? String(rev.number) : undefined,
    // after acceptance: what was accepted (selection, quantities, total), the checkout's and the order's amounts
    total: rev ? formatMoney(revisionTotals(asAccepted(q, rev)).total, q.currency) : undefined,
    acceptedItems: rev ? acceptedItemsText(q, rev) : undefined,
    expiresAt: formatDayOrUndefined(q.expiresAt),
    paymentTerms: rev ? paymentTermsText(rev, q.currency) : undefined,
    poNumber: q.buyerReference ?? undefined,
    quoteUrl: `${buyerBaseUrl(tx, q.application.settings)}/q/${token}`,
    pdfUrl: rev && rev.status !== "working" ? `${tx.deps.config.BASE_URL.replace(/\/+$/, "")}/api/v1/quote-links/${token}/pdf` : undefined,
    summary: rev && rev.status !== "working" ? quoteSummary(q, rev) : undefined,
    // Reply-To: the rep who acted, when a person (a dashboard or OAuth member) did; else the seller's contact
    repEmail: tx.principal?.member?.email ?? tx.principal?.extension?.user.email ?? undefined,
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined)),
  };
  for (const template of templates) {
    const to = template === "customer.quote_accepted" && acceptedByEmail ? [...new Set([acceptedByEmail.toLowerCase(), q.customerEmail.toLowerCase()])] : [q.customerEmail];
    queueEmail(tx, q, { template, to, vars, cause, quoteId: q.id });
  }
}

