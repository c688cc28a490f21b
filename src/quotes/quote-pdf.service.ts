// The quote PDF (quotes.md part 4 "Expiry and PDF rules"): rendered lazily with pdfmake from the frozen issued
// revision, cached per revision in storage and named Q-{seq}-rev{n}.pdf; once the quote is accepted (for that
// revision) a second rendering carries the acceptance stamp (who, when, the accepted lines). The buyer's
// GET /quote-links/{token}/pdf answers 302 to a short-lived signed URL of the cached file. Only buyer-safe fields
// are drawn: no internal note or comment, no target price.
import type { Content, TDocumentDefinitions } from "pdfmake/interfaces";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { formatMoney } from "../shared/money";
import { renderPdf } from "../shared/pdf";
import { type Storage, storageFor } from "../shared/storage";
import { acceptedItems, acceptedTotals, type AcceptedLine } from "./quote-accept.service";
import { formatDayOrUndefined } from "./quote-emails";
import { taxLabel } from "./quote-tax";
import type { QuoteFull, RevisionFull } from "./quotes.service";
import { itemTotal, revisionTotals } from "./quotes.service";

/** How long a signed PDF URL works. */
export const PDF_URL_TTL_SECONDS = 300;

const TERMS: Record<string, (r: RevisionFull) => string> = {
  pay_in_full: () => "Paid in full by card at checkout",
  net_terms: (r) => `Net ${r.netN ?? 30}: invoiced, due ${r.netN ?? 30} days after the order`,
  deposit_balance: (r) => `Deposit due at acceptance; the balance is invoiced at Net ${r.balanceNetN ?? 30}`,
};

export interface Stamp {
  name: string;
  email: string;
  at: Date;
  lines: AcceptedLine[];
}

export function pdfName(q: Pick<QuoteFull, "number">, rev: Pick<RevisionFull, "number">) {
  return `${q.number}-rev${rev.number}.pdf`;
}

/** The document: merchant, quote, lines, totals, terms, and the acceptance stamp when given. */
export function quoteDocument(q: QuoteFull, rev: RevisionFull, stamp: Stamp | null): TDocumentDefinitions {
  const money = (n: number) => formatMoney(n, q.currency);
  const items = stamp ? acceptedItems(rev, stamp.lines) : rev.items;
  const totals = stamp ? acceptedTotals(rev, stamp.lines) : revisionTotals(rev);
  const brand = ((q.application.settings ?? {}) as { brandColor?: string }).brandColor;
  const color = brand && /^#[0-9a-fA-F]{6}$/.test(brand) ? brand : "#1f2937";
  const body: Content[] = [
    { text: q.application.name, style: "merchant", color },
    { text: `Quote ${q.number} · revision ${rev.number}`, style: "title" },
    {
      columns: [
        { text: [{ text: "For\n", style: "label" }, q.companyName ? `${q.companyName}\n` : "", q.customerEmail], width: "*" },
        {
          text: [
            { text: "Issued\n", style: "label" },
            `${formatDayOrUndefined(rev.issuedAt) ?? "—"}\n`,
            { text: "Valid until\n", style: "label" },
            formatDayOrUndefined(q.expiresAt) ?? "—",
            ...(q.buyerReference ? [{ text: "\nYour reference\n", style: "label" }, q.buyerReference] : []),
          ],
          width: "auto",
        },
      ],
      margin: [0, 8, 0, 16],
    },
    {
      table: {
        headerRows: 1,
        widths: ["*", "auto", "auto", "auto"],
        body: [
          [
            { text: "Item", style: "th" },
            { text: "Qty", style: "th", alignment: "right" },
            { text: "Unit price", style: "th", alignment: "right" },
            { text: "Amount", style: "th", alignment: "right" },
          ],
          ...items.map((i) => {
            const off = !i.selected;
            const name = [i.name, i.optional ? (off ? " (optional, not selected)" : " (optional)") : "", i.sku ? `\nSKU ${i.sku}` : "", i.description ? `\n${i.description}` : ""].join("");
            return [
              { text: name, color: off ? "#9ca3af" : undefined },
              { text: String(i.quantity), alignment: "right" as const, color: off ? "#9ca3af" : undefined },
              { text: money(i.unitPrice ?? 0), alignment: "right" as const, color: off ? "#9ca3af" : undefined },
              { text: off ? "—" : money(itemTotal(i) ?? 0), alignment: "right" as const, color: off ? "#9ca3af" : undefined },
            ];
          }),
        ],
      },
      layout: "lightHorizontalLines",
    },
    {
      table: {
        widths: ["*", "auto"],
        body: [
          ["Subtotal", { text: money(totals.subtotal), alignment: "right" }],
          ...(totals.shippingTotal ? [["Shipping", { text: money(totals.shippingTotal), alignment: "right" as const }]] : []),
          ...totals.taxLines.map((t) => [taxLabel(t), { text: money(t.amount), alignment: "right" as const }]),
          [{ text: "Total", bold: true }, { text: money(totals.total), alignment: "right", bold: true }],
          ...(rev.depositAmount !== null ? [["Deposit due at acceptance", { text: money(rev.depositAmount), alignment: "right" as const }]] : []),
        ],
      },
      layout: "noBorders",
      margin: [220, 12, 0, 12],
    },
    { text: [{ text: "Payment terms: ", bold: true }, (TERMS[rev.termsMode] ?? (() => rev.termsMode))(rev)], margin: [0, 0, 0, 8] },
  ];
  if (stamp) {
    body.push({
      table: {
        widths: ["*"],
        body: [
          [
            {
              text: [
                { text: "ACCEPTED\n", bold: true, color: "#047857", fontSize: 14 },
                `Accepted by ${stamp.name} <${stamp.email}> on ${stamp.at.toISOString().replace("T", " ").slice(0, 16)} UTC\n`,
                `Accepted lines: ${acceptedItems(rev, stamp.lines)
                  .filter((i) => i.selected)
                  .map((i) => `${i.name} x ${i.quantity}`)
                  .join(", ")}`,
              ],
              margin: [8, 8, 8, 8],
            },
          ],
        ],
      },
      layout: { hLineColor: () => "#047857", vLineColor: () => "#047857" },
      margin: [0, 12, 0, 0],
    });
  }
  return {
    info: { title: `${q.number}-rev${rev.number}`, author: q.application.name, subject: `Quote ${q.number}` },
    pageSize: "A4",
    pageMargins: [40, 48, 40, 48],
    content: body,
    defaultStyle: { font: "Roboto", fontSize: 10 },
    styles: { merchant: { fontSize: 16, bold: true }, title: { fontSize: 13, margin: [0, 4, 0, 0] }, label: { fontSize: 8, color: "#6b7280" }, th: { bold: true } },
    footer: (page, pages) => ({ text: `${q.number}-rev${rev.number} · page ${page} of ${pages}`, alignment: "center", fontSize: 8, color: "#6b7280" }),
  };
}

export async function renderQuotePdf(q: QuoteFull, rev: RevisionFull, stamp: Stamp | null): Promise<Buffer> {
  return renderPdf(quoteDocument(q, rev, stamp));
}

const rendering = new WeakMap<Storage, Map<string, Promise<void>>>();

/**
 * Renders and stores `key` once: concurrent first downloads in this process wait for the one rendering, and across
 * processes the first file stored wins (putIfAbsent); a loser's bytes are dropped, so every URL serves one file.
 */
async function renderOnce(storage: Storage, key: string, render: () => Promise<Buffer>): Promise<void> {
  let inFlight = rendering.get(storage);
  if (!inFlight) rendering.set(storage, (inFlight = new Map()));
  let p = inFlight.get(key);
  if (!p) {
    p = (async () => {
      await storage.putIfAbsent(key, await render(), "application/pdf");
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  await p;
}

/**
 * The PDF of the quote's current offer, from the cache or rendered now, as a signed URL: the stamped rendering when
 * the quote was accepted for that revision.
 */
export async function quotePdfUrl(ctx: Ctx, q: QuoteFull): Promise<string> {
  const rev = q.revisions.find((r) => r.id === q.currentRevisionId && r.status !== "working");
  if (!rev) throw errors.notFound("Quote PDF");
  const a = q.acceptance as { name: string; email: string; items: AcceptedLine[] } | null;
  const stamp = a && q.acceptedRevisionId === rev.id && q.acceptedAt ? { name: a.name, email: a.email, at: q.acceptedAt, lines: a.items } : null;
  const filename = pdfName(q, rev);
  const key = `quotes/${q.id}/${rev.id}${stamp ? "-accepted" : ""}.pdf`;
  const storage = storageFor(ctx.deps.config);
  if ((await storage.size(key)) === null) await renderOnce(storage, key, () => renderQuotePdf(q, rev, stamp));
  return storage.signedUrl(key, { filename, contentType: "application/pdf", ttlSeconds: PDF_URL_TTL_SECONDS, now: ctx.clock.now() });
}
