// The quote PDF (quotes.md part 4 "Expiry and PDF rules"): rendered lazily with pdfmake from the frozen issued
// revision, cached per revision in storage and named Q-{seq}-rev{n}.pdf; once the quote is accepted (for that
// revision) a second rendering carries the acceptance stamp (who, when, the accepted lines). The buyer's
// GET /quote-links/{token}/pdf answers 302 to a short-lived signed URL of the cached file. Only buyer-safe fields
// are drawn: no internal note or comment, no target price.
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { renderPdf } from "../shared/pdf";
import { type Storage, storageFor } from "../shared/storage";
import type { AcceptedLine } from "./quote-accepted";
import { currentParties, frozenParties, type QuoteParties } from "../documents/parties";
import { quoteDocument, type Stamp } from "./quote-pdf-document";
import type { QuoteFull, RevisionFull } from "./quote-read.service";

export { quoteDocument, type Stamp } from "./quote-pdf-document";

/** How long a signed PDF URL works. */
const PDF_URL_TTL_SECONDS = 300;

function pdfName(q: Pick<QuoteFull, "number">, rev: Pick<RevisionFull, "number">) {
  return `${q.number}-rev${rev.number}.pdf`;
}

async function renderQuotePdf(q: QuoteFull, rev: RevisionFull, stamp: Stamp | null, parties: QuoteParties): Promise<Buffer> {
  return renderPdf(quoteDocument(q, rev, stamp, parties));
}

/**
 * The seller and buyer as the revision froze them at issue; a revision issued before parties existed shows the
 * application's and the customer's current details.
 */
async function partiesOf(ctx: Ctx, q: QuoteFull, rev: RevisionFull): Promise<QuoteParties> {
  const frozen = frozenParties(rev.parties);
  if (frozen) return frozen;
  const { seller, buyer } = await currentParties(ctx, q.id);
  return { seller, buyer };
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
  if ((await storage.size(key)) === null) await renderOnce(storage, key, async () => renderQuotePdf(q, rev, stamp, await partiesOf(ctx, q, rev)));
  return storage.signedUrl(key, { filename, contentType: "application/pdf", ttlSeconds: PDF_URL_TTL_SECONDS, now: ctx.clock.now() });
}
