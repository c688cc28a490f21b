/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// What happened around the offer: what changed since the previous revision, the revision history with the PDF link,
// the shared messages (who wrote each and when) with the message form, and, while the quote is open, the forms to
// ask for changes or decline.
import type { BuyerQuoteView } from "../../src/quotes/quote-links.service";
import { formatMoney } from "../../src/shared/money";
import { day, moment, type Values, valueOf } from "./format";

type Changes = NonNullable<NonNullable<BuyerQuoteView["revision"]>["changes"]>;

export function WhatChanged(p: { c: Changes; number: number; currency: string; total: number }) {
  const { c } = p;
  const money = (n: number | null) => formatMoney(n ?? 0, p.currency);
  const none = !c.added.length && !c.removed.length && !c.changed.length;
  return (
    <section class="card changes" aria-labelledby="changes-h" id="what-changed">
      <h2 id="changes-h">
        What changed since revision {c.fromRevision}
      </h2>
      {none ? <p>The lines are the same as in revision {c.fromRevision}.</p> : null}
      <ul>
        {c.added.map((i) => (
          <li>
            Added: {i.name}, {i.quantity} × {money(i.unitPrice)}
          </li>
        ))}
        {c.removed.map((i) => (
          <li>Removed: {i.name}</li>
        ))}
        {c.changed.map((i) => (
          <li>
            Changed: {i.name}
            {i.from.quantity !== i.to.quantity ? `, quantity ${i.from.quantity} → ${i.to.quantity}` : ""}
            {i.from.unitPrice !== i.to.unitPrice ? `, unit price ${money(i.from.unitPrice)} → ${money(i.to.unitPrice)}` : ""}
          </li>
        ))}
      </ul>
      <p class="muted">
        Total {money(c.previousTotal)} → {money(p.total)}
      </p>
    </section>
  );
}

export function History(p: { v: BuyerQuoteView; token: string }) {
  const { v } = p;
  const money = (n: number) => formatMoney(n, v.quote.currency);
  const stamped = v.quote.status === "accepted" || v.quote.status === "converted";
  return (
    <section class="card" aria-labelledby="history-h">
      <h2 id="history-h">Revisions</h2>
      {v.revisions.length ? (
        <ul class="plain">
          {v.revisions.map((r) => (
            <li>
              Revision {r.number} · {day(r.issuedAt)} · {money(r.total)} {r.status === "superseded" ? <span class="muted">(replaced)</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None yet.</p>
      )}
      {v.pdfUrl ? (
        <p class="flush-bottom">
          <a class="action" href={`/api/v1/quote-links/${p.token}/pdf`} id="pdf">
            {stamped ? "Download the accepted quote (PDF)" : "Download the quote (PDF)"}
          </a>
        </p>
      ) : null}
    </section>
  );
}

export function Messages(p: { v: BuyerQuoteView; action: string; sent: boolean; values: Values }) {
  const { v } = p;
  return (
    <section class="card" aria-labelledby="comments-h" id="comments">
      <h2 id="comments-h">Messages</h2>
      {v.comments.length ? (
        <ul class="plain">
          {v.comments.map((c) => (
            <li>
              <div class="msg-head">
                <strong>{c.authorName ?? (c.authorType === "buyer" ? "You" : v.merchant.name)}</strong>
                <span class="muted">
                  {c.authorType === "buyer" ? "buyer" : v.merchant.name} · <time dateTime={c.createdAt}>{moment(c.createdAt)}</time>
                </span>
              </div>
              <p class="msg-body">{c.body}</p>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">No messages yet.</p>
      )}
      <div role="status">{p.sent ? <p id="comment-sent">Your message was sent.</p> : null}</div>
      <form method="post" action={p.action}>
        <label for="comment-body">Write a message</label>
        <textarea id="comment-body" name="body" required maxLength={5000}>
          {valueOf(p.values, "body")}
        </textarea>
        <label for="comment-name">Your name (optional)</label>
        <input type="text" id="comment-name" name="authorName" maxLength={200} autoComplete="name" value={valueOf(p.values, "authorName")} />
        <p>
          <button type="submit" class="secondary">
            Send message
          </button>
        </p>
      </form>
    </section>
  );
}

export function OpenActions(p: { base: string }) {
  return (
    <div class="grid">
      <form class="card" method="post" action={`${p.base}/request-changes`}>
        <h2>Ask for changes</h2>
        <label for="changes">What should change?</label>
        <textarea id="changes" name="message" maxLength={5000} />
        <p>
          <button type="submit" class="secondary" id="request-changes">
            Request changes
          </button>
        </p>
      </form>
      <form class="card" method="post" action={`${p.base}/decline`}>
        <h2>Decline</h2>
        <label for="reason">Reason (optional)</label>
        <textarea id="reason" name="reason" maxLength={2000} />
        <p>
          <button type="submit" class="secondary" id="decline">
            Decline this quote
          </button>
        </p>
      </form>
    </div>
  );
}
