/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The buyer's quote page, {checkout_url}/q/{shareToken}: the number and its state (one badge, one notice), the
// receipt once ordered, the seller and buyer blocks, what changed, the offer with the accept form, notes and terms,
// history and messages. Every action is a plain form POST that works without JavaScript; the small script only
// recomputes the totals while the buyer toggles lines and changes quantities, by the server's rules.
import type { BuyerQuoteView } from "../../src/quotes/quote-links.service";
import { Shell } from "../components/shell";
import { History, Messages, OpenActions, WhatChanged } from "./activity";
import { day, type Values } from "./format";
import { Offer } from "./offer";
import { NotesAndTerms, PartiesBlock } from "./parties";
import { LIVE_TOTALS } from "./scripts";
import { Badge, Receipt, shownState, StateNotice } from "./state";
import { CSS } from "./styles";

/** The hosted checkout's path on this app (/checkout/{sessionId}) from its absolute CHECKOUT_URL address. */
export function checkoutPath(url: string) {
  return `/checkout/${encodeURIComponent(new URL(url).pathname.split("/").pop() ?? "")}`;
}

interface QuotePageProps {
  nonce: string;
  token: string;
  v: BuyerQuoteView;
  error?: string | null;
  /** a confirmation of the buyer's last action (a message sent; accepted choices set aside) */
  done?: string | null;
  sent?: boolean;
  /** the posted form when an action was refused: the page keeps what the buyer entered */
  values?: Values;
}

export function QuotePage(p: QuotePageProps) {
  const { v, token } = p;
  const q = v.quote;
  const rev = v.revision;
  const state = shownState(v);
  const open = state === "proposed";
  const base = `/q/${token}`;
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Quote ${q.number} from ${v.merchant.name}`} brand={v.merchant} script={open ? LIVE_TOTALS : undefined}>
      <h1>
        Quote {q.number} <Badge v={v} />
      </h1>
      <p class="muted meta">
        {rev ? `Revision ${rev.number}` : "No offer yet"}
        {rev && q.expiresAt && (open || state === "expired") ? ` · valid until ${day(q.expiresAt)}` : ""}
        {q.buyerReference ? ` · PO ${q.buyerReference}` : ""}
      </p>
      <div id="messages" role="alert" aria-live="assertive">
        {p.error ? <p class="alert">{p.error}</p> : null}
      </div>
      <StateNotice v={v} checkoutPath={q.checkoutUrl ? checkoutPath(q.checkoutUrl) : null} />
      {p.done ? (
        <p class="notice warn" role="status" id="done">
          {p.done}
        </p>
      ) : null}
      <Receipt v={v} token={token} />
      {rev?.parties ? <PartiesBlock parties={rev.parties} reference={q.buyerReference} /> : null}
      {rev?.changes && open ? <WhatChanged c={rev.changes} number={rev.number} currency={q.currency} total={rev.total} /> : null}
      {rev ? <Offer v={v} rev={rev} open={open} action={`${base}/accept`} values={p.values} /> : null}
      {rev ? <NotesAndTerms notes={rev.notes} terms={rev.terms} paymentInstructions={rev.parties?.seller.paymentInstructions ?? null} /> : null}
      {rev?.changes && !open ? <WhatChanged c={rev.changes} number={rev.number} currency={q.currency} total={rev.total} /> : null}
      <div class="grid">
        <History v={v} token={token} />
        <Messages v={v} action={`${base}/comment`} sent={!!p.sent} values={p.error ? p.values : undefined} />
      </div>
      {open ? <OpenActions base={base} /> : null}
    </Shell>
  );
}
