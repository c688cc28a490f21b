/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The buyer's quote page, {checkout_url}/q/{shareToken}, and the hosted request form, {checkout_url}/q/request/{formToken}.
// Server-rendered with preact (every value escaped by construction), thin callers of the quote services. Every
// action is a plain form POST that works without JavaScript (then 303 back, or to the checkout); a small script only
// recomputes the totals live while the buyer toggles optional lines and changes quantities, by the same rules as the
// server (quote-accept.service.ts acceptedTotals). Accessible: labels on every control, errors in a role="alert"
// region, results announced, keyboard order follows the page.
import express, { Router, type Request, type Response } from "express";
import { submitQuoteRequest } from "../src/quotes/quote-requests.service";
import { requestFormForBuyer, type BuyerForm } from "../src/quotes/quote-requests.service";
import { acceptQuoteLink, addBuyerComment, type BuyerQuoteView, buyerDecline, openQuotePage, requestRevision } from "../src/quotes/quote-links.service";
import { refusedState } from "../src/rest/http";
import { type Deps, makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { formatMoney } from "../src/shared/money";
import { taxLabel } from "../src/quotes/quote-tax";
import { limitHeaders } from "../src/shared/rate-limit";
import { securePage } from "./security";
import { html, Shell } from "./components/shell";
import { formatDay } from "../src/shared/dates";


const CSS = (brand: string) => `
  :root { --brand: ${brand}; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; }
  main { max-width: 860px; margin: 0 auto; padding: 1rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; }
  header img { max-height: 40px; max-width: 160px; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  h1 { font-size: 1.5rem; margin: .25rem 0; } h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
  table { width: 100%; border-collapse: collapse; } th, td { padding: .5rem .35rem; border-bottom: 1px solid #e4e7eb; text-align: left; vertical-align: top; }
  .num { text-align: right; white-space: nowrap; } caption { text-align: left; font-weight: 600; padding-bottom: .5rem; }
  label { display: block; margin: .5rem 0 .2rem; font-weight: 500; }
  input[type=text], input[type=email], input[type=number], textarea { width: 100%; padding: .55rem; border: 1px solid #9aa5b1; border-radius: 6px; font: inherit; }
  input[type=number] { width: 4.5rem; min-width: 4.5rem; } input.price { width: 8rem; } textarea { min-height: 5rem; }
  .scroll { overflow-x: auto; }
  @media (max-width: 520px) { .unit { display: none; } th, td { padding: .45rem .2rem; } main { padding: .5rem; } .card { padding: .75rem; } }
  input:focus, textarea:focus, button:focus, a:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  button, .button { display: inline-block; background: var(--brand); color: #fff; border: 0; padding: .75rem 1.25rem; border-radius: 6px; font-size: 1rem; cursor: pointer; text-decoration: none; }
  button.secondary { background: #fff; color: #1f2933; border: 1px solid #9aa5b1; }
  .muted { color: #52606d; font-size: .9rem; } .status { display: inline-block; padding: .15rem .5rem; border-radius: 999px; background: #e4e7eb; font-size: .85rem; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 1rem 0; }
  .notice { border-left: 4px solid var(--brand); background: #eef6f0; padding: .75rem; margin: 1rem 0; }
  .off td { color: #616e7c; } .off td:first-child { text-decoration: line-through; } .totals td { border: 0; } .grand td { font-weight: 700; font-size: 1.1rem; }
  .grid { display: grid; grid-template-columns: 1fr; gap: 1rem; } @media (min-width: 760px) { .grid { grid-template-columns: 1fr 1fr; } }
  .hp { position: absolute; left: -10000px; width: 1px; height: 1px; overflow: hidden; }
  details summary { cursor: pointer; font-weight: 600; }
`;



/** The hosted checkout's path on this app (/checkout/{sessionId}) from its absolute CHECKOUT_URL address. */
function checkoutPath(url: string) {
  return `/checkout/${encodeURIComponent(new URL(url).pathname.split("/").pop() ?? "")}`;
}

function day(iso: string | null) {
  return iso ? formatDay(iso) : "";
}

const STATUS_TEXT: Record<string, string> = {
  requested: "Request received",
  under_review: "Being prepared",
  proposed: "Awaiting your decision",
  revision_requested: "Changes requested",
  accepted: "Accepted",
  converted: "Ordered",
  declined: "Declined",
  expired: "Expired",
};

function QuotePage(p: { nonce: string; token: string; v: BuyerQuoteView; error?: string | null; done?: string | null; expired: boolean }) {
  const { v, token } = p;
  const q = v.quote;
  const rev = v.revision;
  const money = (n: number) => formatMoney(n, q.currency);
  const open = q.status === "proposed" && !p.expired;
  const base = `/q/${token}`;
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Quote ${q.number} from ${v.merchant.name}`} brand={v.merchant} script={open ? LIVE_TOTALS : undefined}>
      <h1>
        Quote {q.number} <span class="status" id="status">{STATUS_TEXT[q.status] ?? q.status}</span>
      </h1>
      <p class="muted">
        {rev ? `Revision ${rev.number}` : "No offer yet"}
        {q.expiresAt ? ` · valid until ${day(q.expiresAt)}` : ""}
        {q.buyerReference ? ` · your reference ${q.buyerReference}` : ""}
      </p>
      <div id="messages" role="alert" aria-live="assertive">
        {p.error ? <p class="alert">{p.error}</p> : null}
      </div>
      <div role="status" aria-live="polite">
        {p.done ? <p class="notice">{p.done}</p> : null}
      </div>
      {p.expired ? (
        <p class="notice" id="expired">
          This quote expired on {day(q.expiresAt)}. {v.merchant.name} has been told you opened it; ask below for a new offer.
        </p>
      ) : null}
      {q.status === "converted" ? <p class="notice" id="converted">Thank you: your order has been placed.</p> : null}
      {q.status === "accepted" && q.checkoutUrl ? (
        <p class="notice" id="accepted">
          You accepted this quote. <a href={checkoutPath(q.checkoutUrl)}>Continue to checkout</a>
        </p>
      ) : null}
      {q.status === "declined" ? <p class="notice" id="declined">This quote was declined.{q.declinedReason ? ` Reason: ${q.declinedReason}` : ""}</p> : null}

      {rev ? (
        <form class="card" method="post" action={`${base}/accept`} id="accept-form" data-currency={q.currency} data-shipping={String(rev.shippingTotal)} data-deposit={rev.depositAmount ?? ""}>
          <input type="hidden" name="revisionId" value={rev.id} />
          <div class="scroll">
          <table>
            <caption>The offer</caption>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" class="num">Qty</th>
                <th scope="col" class="num unit">Unit price</th>
                <th scope="col" class="num">Amount</th>
              </tr>
            </thead>
            <tbody>
              {rev.items.map((i) => (
                <tr data-line data-price={String(i.unitPrice ?? 0)} data-qty={String(i.quantity)} class={i.selected ? "" : "off"}>
                  <td>
                    {i.optional && open ? (
                      <label style="font-weight:400;margin:0">
                        <input type="checkbox" name={`include.${i.id}`} value="1" checked={i.selected} data-include /> {i.name} <span class="muted">(optional)</span>
                      </label>
                    ) : (
                      <span>
                        {i.name}
                        {i.optional ? <span class="muted"> (optional)</span> : null}
                      </span>
                    )}
                    {i.description ? <div class="muted">{i.description}</div> : null}
                    {i.sku ? <div class="muted">SKU {i.sku}</div> : null}
                    {i.optional && open ? <input type="hidden" name={`optional.${i.id}`} value="1" /> : null}
                  </td>
                  <td class="num">
                    {i.qtyEditable && open ? (
                      <span>
                        <label for={`qty-${i.id}`} class="hp">
                          Quantity of {i.name}
                        </label>
                        <input type="number" id={`qty-${i.id}`} name={`qty.${i.id}`} min="1" max="1000000" step="1" value={String(i.quantity)} data-qty-input aria-label={`Quantity of ${i.name}`} />
                      </span>
                    ) : (
                      i.quantity
                    )}
                  </td>
                  <td class="num unit">{money(i.unitPrice ?? 0)}</td>
                  <td class="num" data-amount>
                    {open || i.selected ? money(i.total ?? 0) : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
            <tbody class="totals">
              <tr>
                <td colSpan={2}>Subtotal</td>
                <td class="unit" />
                <td class="num" id="subtotal">
                  {money(rev.subtotal)}
                </td>
              </tr>
              {rev.shippingTotal ? (
                <tr>
                  <td colSpan={2}>Shipping</td>
                <td class="unit" />
                  <td class="num">{money(rev.shippingTotal)}</td>
                </tr>
              ) : null}
              {rev.taxLines.map((t) => (
                <tr data-tax-line data-tax-bps={String(t.rateBps)}>
                  <td colSpan={2}>{taxLabel(t)}</td>
                  <td class="unit" />
                  <td class="num" data-tax-amount>
                    {money(t.amount)}
                  </td>
                </tr>
              ))}
              <tr class="grand">
                <td colSpan={2}>Total</td>
                <td class="unit" />
                <td class="num" id="total">
                  {money(rev.total)}
                </td>
              </tr>
              {rev.depositAmount !== null ? (
                <tr>
                  <td colSpan={2}>Deposit due today</td>
                <td class="unit" />
                  <td class="num" id="deposit">
                    {money(rev.depositAmount)}
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
          </div>
          <p class="muted" id="terms">
            {rev.paymentTerms.mode === "net_terms"
              ? `Payment: invoiced, due ${rev.paymentTerms.netN ?? 30} days after the order.`
              : rev.paymentTerms.mode === "deposit_balance"
                ? `Payment: the deposit by card today; the balance is invoiced, due ${rev.paymentTerms.balanceNetN ?? 30} days after the order.`
                : "Payment: by card at checkout."}
          </p>
          {open ? (
            <div>
              <label for="acceptedByName">Your name</label>
              <input type="text" id="acceptedByName" name="acceptedByName" required maxLength={200} autoComplete="name" />
              <label for="acceptedByEmail">Your email (optional)</label>
              <input type="email" id="acceptedByEmail" name="acceptedByEmail" maxLength={320} autoComplete="email" />
              <p>
                <button type="submit" id="accept">
                  Accept and continue to checkout
                </button>
              </p>
            </div>
          ) : null}
        </form>
      ) : (
        <p class="card">{v.merchant.name} is preparing your offer. You will get an email when it is ready.</p>
      )}

      <div class="grid">
        <section class="card" aria-labelledby="history-h">
          <h2 id="history-h">Revisions</h2>
          {v.revisions.length ? (
            <ul>
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
            <p>
              <a href={`/api/v1/quote-links/${token}/pdf`} id="pdf">
                Download the PDF
              </a>
            </p>
          ) : null}
        </section>
        <section class="card" aria-labelledby="comments-h" id="comments">
          <h2 id="comments-h">Messages</h2>
          {v.comments.length ? (
            <ul>
              {v.comments.map((c) => (
                <li>
                  <strong>{c.authorName ?? (c.authorType === "buyer" ? "You" : v.merchant.name)}</strong>: {c.body}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No messages yet.</p>
          )}
          <form method="post" action={`${base}/comment`}>
            <label for="comment-body">Write a message</label>
            <textarea id="comment-body" name="body" required maxLength={5000} />
            <label for="comment-name">Your name (optional)</label>
            <input type="text" id="comment-name" name="authorName" maxLength={200} autoComplete="name" />
            <p>
              <button type="submit" class="secondary">
                Send message
              </button>
            </p>
          </form>
        </section>
      </div>

      {q.status === "proposed" && !p.expired ? (
        <div class="grid">
          <form class="card" method="post" action={`${base}/request-changes`}>
            <h2>Ask for changes</h2>
            <label for="changes">What should change?</label>
            <textarea id="changes" name="message" maxLength={5000} />
            <p>
              <button type="submit" class="secondary" id="request-changes">
                Request changes
              </button>
            </p>
          </form>
          <form class="card" method="post" action={`${base}/decline`}>
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
      ) : null}
    </Shell>
  );
}

/**
 * Live totals: the server's rules (selected lines x quantity, plus flat shipping, plus each frozen tax rate on that,
 * half up as shared/money's applyBps; the deposit floor).
 */
const LIVE_TOTALS = `
const form = document.getElementById("accept-form");
if (form) {
  const fmt = new Intl.NumberFormat("en-US", { style: "currency", currency: form.dataset.currency, currencyDisplay: "code" });
  const digits = fmt.resolvedOptions().maximumFractionDigits;
  const money = (n) => fmt.format(n / 10 ** digits).replace(/\\u00a0/g, " ");
  const recompute = () => {
    let subtotal = 0;
    for (const row of form.querySelectorAll("tr[data-line]")) {
      const include = row.querySelector("[data-include]");
      const qtyInput = row.querySelector("[data-qty-input]");
      const qty = qtyInput ? Math.max(1, Math.floor(Number(qtyInput.value) || 0)) : Number(row.dataset.qty);
      const on = include ? include.checked : true;
      const amount = Number(row.dataset.price) * qty;
      row.classList.toggle("off", !on);
      row.querySelector("[data-amount]").textContent = on ? money(amount) : "—";
      if (on) subtotal += amount;
    }
    const taxable = subtotal + Number(form.dataset.shipping || 0);
    let tax = 0;
    for (const row of form.querySelectorAll("tr[data-tax-line]")) {
      const amount = Math.floor((taxable * Number(row.dataset.taxBps) + 5000) / 10000);
      row.querySelector("[data-tax-amount]").textContent = money(amount);
      tax += amount;
    }
    const total = taxable + tax;
    document.getElementById("subtotal").textContent = money(subtotal);
    document.getElementById("total").textContent = money(total);
    const msg = document.getElementById("messages");
    const deposit = form.dataset.deposit ? Number(form.dataset.deposit) : null;
    msg.textContent = deposit !== null && total <= deposit ? "This selection totals less than the deposit; include more lines." : "";
  };
  form.addEventListener("input", recompute);
  form.addEventListener("change", recompute);
}`;

/** The form's fields as the accept body: every optional line listed (unchecked = deselected), quantities changed. */
export function selectionsFromForm(body: Record<string, unknown>) {
  const selections = new Map<string, { itemId: string; selected?: boolean; quantity?: number }>();
  const get = (id: string) => selections.get(id) ?? (selections.set(id, { itemId: id }), selections.get(id)!);
  for (const [k, v] of Object.entries(body)) {
    const m = /^(optional|include|qty)\.(.{1,100})$/.exec(k);
    if (!m) continue;
    if (m[1] === "optional") get(m[2]).selected = body[`include.${m[2]}`] !== undefined;
    if (m[1] === "qty" && typeof v === "string" && v.trim() !== "") get(m[2]).quantity = Number(v);
  }
  return [...selections.values()];
}

const str = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);

function RequestFormPage(p: { nonce: string; formToken: string; f: BuyerForm; loadedAt: number; challenge: { siteKey: string; scriptUrl: string } | null; error?: string | null; values?: Record<string, unknown> }) {
  const { f } = p;
  const val = (k: string) => (typeof p.values?.[k] === "string" ? (p.values[k] as string) : "");
  const rows = [0, 1, 2];
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Request a quote from ${f.merchant.name}`} brand={f.merchant}>
      <h1>Request a quote</h1>
      <p class="muted">Tell {f.merchant.name} what you need; you will get an offer by email.</p>
      <div role="alert" aria-live="assertive" id="messages">
        {p.error ? <p class="alert">{p.error}</p> : null}
      </div>
      <form class="card" method="post" action={`/q/request/${p.formToken}`} id="request-form">
        <input type="hidden" name="formLoadedAt" value={String(p.loadedAt)} />
        <div class="hp" aria-hidden="true">
          <label for="website">Leave this empty</label>
          <input type="text" id="website" name="website" tabIndex={-1} autoComplete="off" />
        </div>
        <label for="email">Your email</label>
        <input type="email" id="email" name="email" required maxLength={320} autoComplete="email" value={val("email")} />
        <label for="companyName">Company (optional)</label>
        <input type="text" id="companyName" name="companyName" maxLength={200} autoComplete="organization" value={val("companyName")} />
        <label for="message">What do you need?{f.fields.lineItems ? " (or list items below)" : ""}</label>
        <textarea id="message" name="message" maxLength={5000}>
          {val("message")}
        </textarea>
        {f.fields.lineItems ? (
          <fieldset>
            <legend>Items (optional)</legend>
            {rows.map((n) => (
              <div class="grid">
                <div>
                  <label for={`item-${n}-name`}>Item {n + 1}</label>
                  <input type="text" id={`item-${n}-name`} name={`items.${n}.name`} maxLength={200} value={val(`items.${n}.name`)} />
                </div>
                <div>
                  <label for={`item-${n}-quantity`}>Quantity</label>
                  <input type="number" id={`item-${n}-quantity`} name={`items.${n}.quantity`} min="1" step="1" value={val(`items.${n}.quantity`)} />
                  {f.fields.targetPrice ? (
                    <span>
                      <label for={`item-${n}-target`}>Target unit price ({f.currency}, optional)</label>
                      <input type="number" id={`item-${n}-target`} name={`items.${n}.targetPrice`} class="price" min="0" step="0.01" value={val(`items.${n}.targetPrice`)} />
                    </span>
                  ) : null}
                </div>
              </div>
            ))}
          </fieldset>
        ) : null}
        {f.fields.requireBotChallenge && p.challenge ? (
          <div>
            <div class="cf-turnstile" data-sitekey={p.challenge.siteKey} data-response-field-name="botChallengeToken" />
            <script src={p.challenge.scriptUrl} nonce={p.nonce} async defer />
          </div>
        ) : f.fields.requireBotChallenge ? (
          <div>
            <label for="botChallengeToken">Verification</label>
            <input type="text" id="botChallengeToken" name="botChallengeToken" required autoComplete="off" aria-describedby="challenge-hint" />
            <p class="muted" id="challenge-hint">
              This form checks that you are a person.
            </p>
          </div>
        ) : null}
        <p>
          <button type="submit" id="send">
            Send request
          </button>
        </p>
      </form>
    </Shell>
  );
}

function Done(p: { nonce: string; f: BuyerForm }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title="Request sent" brand={p.f.merchant}>
      <h1>Thank you</h1>
      <p role="status" id="sent">
        {p.f.successMessage ?? `${p.f.merchant.name} received your request and will send you an offer by email.`}
      </p>
    </Shell>
  );
}

function NotFound(p: { nonce: string; what: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title={`${p.what} not found`} brand={{ name: "", logoUrl: null, brandColor: null }}>
      <h1>{p.what} not found</h1>
      <p>This link is not valid. It may have been replaced by a newer one.</p>
    </Shell>
  );
}

/** The request body of a posted request form, in the shape of POST /quote-requests. */
export function requestBodyFromForm(formToken: string, b: Record<string, unknown>, currencyDigits = 2) {
  const items: Record<string, unknown>[] = [];
  for (let n = 0; n < 20; n++) {
    const name = str(b[`items.${n}.name`]);
    if (!name) continue;
    const qty = str(b[`items.${n}.quantity`]);
    const target = str(b[`items.${n}.targetPrice`]);
    items.push({ name, ...(qty ? { quantity: Number(qty) } : {}), ...(target ? { targetUnitPrice: Math.round(Number(target) * 10 ** currencyDigits) } : {}) });
  }
  return {
    formToken,
    email: str(b.email),
    companyName: str(b.companyName),
    message: str(b.message),
    ...(items.length ? { items } : {}),
    formLoadedAt: Number(b.formLoadedAt),
    website: typeof b.website === "string" ? b.website : undefined,
    botChallengeToken: str(b.botChallengeToken),
  };
}

function errorText(e: unknown): string {
  if (e instanceof DomainError) {
    const issues = (e.details as { issues?: { path: (string | number)[]; message: string }[] } | undefined)?.issues;
    if (issues?.length) return issues.map((i) => `${i.path.join(".") || "form"}: ${i.message}`).join("; ");
    return e.message;
  }
  return "Something went wrong; please try again.";
}

export function quotePages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 500 });

  async function page(req: Request, res: Response, status: number, extra: { error?: string | null; done?: string | null } = {}) {
    const token = String(req.params.token);
    const ctx = makeCtx(deps, null, req.ip);
    const nonce = await securePage(req, res);
    try {
      const { view, expired } = await openQuotePage(ctx, token, { record: req.method === "GET" });
      res.status(status).type("html").send(html(<QuotePage nonce={nonce} token={token} v={view} expired={expired} {...extra} />));
    } catch (e) {
      sendError(res, nonce, e, "Quote");
    }
  }

  function sendError(res: Response, nonce: string, e: unknown, what: string) {
    if (e instanceof DomainError && e.status === 404) return void res.status(404).type("html").send(html(<NotFound nonce={nonce} what={what} />));
    if (e instanceof DomainError && e.code === "rate_limited") {
      res.set(limitHeaders(refusedState(e), true));
      return void res.status(429).type("html").send(html(<NotFound nonce={nonce} what="Too many requests:" />));
    }
    throw e;
  }

  const SENT: Record<string, string> = { comment: "Your message was sent.", changes: "Your request for changes was sent.", declined: "You declined this quote." };
  r.get("/q/:token", (req, res) => page(req, res, 200, { done: SENT[String(req.query.sent ?? "")] ?? null }));

  /** A POST: run the action; on success 303 (PRG), on a refusal the page again with the error announced. */
  const action = (run: (ctx: ReturnType<typeof makeCtx>, token: string, body: Record<string, unknown>) => Promise<string>) =>
    [
      form,
      async (req: Request, res: Response) => {
        const ctx = makeCtx(deps, null, req.ip);
        try {
          const to = await run(ctx, String(req.params.token), (req.body ?? {}) as Record<string, unknown>);
          res.redirect(303, to);
        } catch (e) {
          if (e instanceof DomainError && e.status !== 404 && e.code !== "rate_limited") return page(req, res, e.status, { error: errorText(e) });
          const nonce = await securePage(req, res);
          sendError(res, nonce, e, "Quote");
        }
      },
    ] as const;

  r.post(
    "/q/:token/accept",
    ...action(async (ctx, token, b) => {
      const r = await acceptQuoteLink(ctx, token, { revisionId: str(b.revisionId) ?? "", acceptedByName: str(b.acceptedByName) ?? "", ...(str(b.acceptedByEmail) ? { acceptedByEmail: str(b.acceptedByEmail) } : {}), itemSelections: selectionsFromForm(b) });
      // relative: the checkout page is this app, on whatever host the buyer reached it (a proxy, a custom domain);
      // an absolute CHECKOUT_URL on another host would be refused by the page's own CSP form-action 'self'
      return checkoutPath(r.checkoutUrl);
    }),
  );
  r.post(
    "/q/:token/comment",
    ...action(async (ctx, token, b) => {
      await addBuyerComment(ctx, token, { body: str(b.body) ?? "", ...(str(b.authorName) ? { authorName: str(b.authorName) } : {}) });
      return `/q/${token}?sent=comment#comments`;
    }),
  );
  r.post(
    "/q/:token/request-changes",
    ...action(async (ctx, token, b) => {
      await requestRevision(ctx, token, str(b.message) ? { message: str(b.message) } : {});
      return `/q/${token}?sent=changes`;
    }),
  );
  r.post(
    "/q/:token/decline",
    ...action(async (ctx, token, b) => {
      await buyerDecline(ctx, token, str(b.reason) ? { reason: str(b.reason) } : {});
      return `/q/${token}?sent=declined`;
    }),
  );

  // The bot-challenge widget (Turnstile-compatible) when a site key is configured; its script and frame are the
  // only third-party origin a page may load, and only forms that require the challenge load it.
  const challenge = deps.config.BOT_CHALLENGE_SITE_KEY ? { siteKey: deps.config.BOT_CHALLENGE_SITE_KEY, scriptUrl: deps.config.BOT_CHALLENGE_SCRIPT_URL } : null;
  async function requestPage(req: Request, res: Response, status: number, extra: { error?: string | null; values?: Record<string, unknown> } = {}) {
    const ctx = makeCtx(deps, null, req.ip);
    let f: BuyerForm;
    try {
      f = await requestFormForBuyer(ctx, String(req.params.formToken));
    } catch (e) {
      return sendError(res, await securePage(req, res), e, "Request form");
    }
    const widget = f.fields.requireBotChallenge ? challenge : null;
    const nonce = await securePage(req, res, { thirdParty: widget ? [new URL(widget.scriptUrl).origin] : [] });
    res.status(status).type("html").send(html(<RequestFormPage nonce={nonce} formToken={String(req.params.formToken)} f={f} loadedAt={ctx.clock.now().getTime()} challenge={widget} {...extra} />));
  }

  r.get("/q/request/:formToken", (req, res) => requestPage(req, res, 200));
  r.post("/q/request/:formToken", form, async (req: Request, res: Response) => {
    const ctx = makeCtx(deps, null, req.ip);
    const token = String(req.params.formToken);
    const b = (req.body ?? {}) as Record<string, unknown>;
    try {
      const f = await requestFormForBuyer(ctx, token);
      await submitQuoteRequest(ctx, requestBodyFromForm(token, b, f.currencyDigits));
      const nonce = await securePage(req, res);
      res.status(200).type("html").send(html(<Done nonce={nonce} f={f} />));
    } catch (e) {
      if (e instanceof DomainError && e.status !== 404 && e.code !== "rate_limited") return requestPage(req, res, e.status, { error: errorText(e), values: b });
      const nonce = await securePage(req, res);
      sendError(res, nonce, e, "Request form");
    }
  });
  return r;
}
