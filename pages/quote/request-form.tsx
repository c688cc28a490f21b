/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The hosted request form, {checkout_url}/q/request/{formToken}, and its thank-you page. Item rows are added and
// removed by a small script, or without JavaScript by the "Add another item" and "Remove" submit buttons (the server
// re-renders the form with the values kept). The thank-you page repeats what was sent with the reference number.
import type { BuyerForm } from "../../src/quotes/quote-requests.service";
import { formatMoney } from "../../src/shared/money";
import { Shell } from "../components/shell";
import { type Values, valueOf } from "./format";
import { ITEM_ROWS } from "./scripts";
import { CSS } from "./styles";

export const MAX_ROWS = 50;

/** How many item rows the posted form had (its highest index + 1), at least one. */
export function rowCount(b: Values): number {
  let n = Number(valueOf(b, "rows")) || 0;
  for (const k of Object.keys(b ?? {})) {
    const m = /^items\.(\d{1,3})\./.exec(k);
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return Math.min(MAX_ROWS, Math.max(1, n));
}

function ItemRow(p: { n: number; f: BuyerForm; values: Values; only: boolean }) {
  const { n, f } = p;
  const val = (k: string) => valueOf(p.values, `items.${n}.${k}`);
  return (
    <div class="item-row" data-item-row>
      <div>
        <label for={`item-${n}-name`} data-for="name">
          <span data-row-title>Item {n + 1}</span>
        </label>
        <input type="text" id={`item-${n}-name`} name={`items.${n}.name`} data-field="name" maxLength={200} value={val("name")} />
      </div>
      <div>
        <label for={`item-${n}-quantity`} data-for="quantity">
          Quantity
        </label>
        <input type="number" id={`item-${n}-quantity`} name={`items.${n}.quantity`} data-field="quantity" min="1" step="1" inputMode="numeric" value={val("quantity")} />
      </div>
      {f.fields.targetPrice ? (
        <div>
          <label for={`item-${n}-targetPrice`} data-for="targetPrice">
            Target unit price ({f.currency})
          </label>
          <input type="number" id={`item-${n}-targetPrice`} name={`items.${n}.targetPrice`} data-field="targetPrice" min="0" step="0.01" inputMode="decimal" value={val("targetPrice")} />
        </div>
      ) : (
        <div />
      )}
      <div>
        <button type="submit" class="secondary remove" name="removeRow" value={String(n)} formNoValidate data-remove aria-label={`Remove item ${n + 1}`} hidden={p.only}>
          Remove
        </button>
      </div>
    </div>
  );
}

export function RequestFormPage(p: { nonce: string; formToken: string; f: BuyerForm; loadedAt: number; challenge: { siteKey: string; scriptUrl: string } | null; error?: string | null; values?: Values; rows?: number }) {
  const { f } = p;
  const val = (k: string) => valueOf(p.values, k);
  const rows = Array.from({ length: p.rows ?? 1 }, (_, n) => n);
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Request a quote from ${f.merchant.name}`} brand={f.merchant} script={f.fields.lineItems ? ITEM_ROWS : undefined}>
      <h1>Request a quote</h1>
      <p class="muted">Tell {f.merchant.name} what you need; you will get an offer by email.</p>
      <div role="alert" aria-live="assertive" id="messages">
        {p.error ? <p class="alert">{p.error}</p> : null}
      </div>
      <form class="card" method="post" action={`/q/request/${p.formToken}`} id="request-form">
        <input type="hidden" name="formLoadedAt" value={String(p.loadedAt)} />
        <input type="hidden" name="rows" id="row-count" value={String(rows.length)} />
        <div class="hp" aria-hidden="true">
          <label for="website">Leave this empty</label>
          <input type="text" id="website" name="website" tabIndex={-1} autoComplete="off" />
        </div>
        <div class="grid">
          <div>
            <label for="name">Your name</label>
            <input type="text" id="name" name="name" maxLength={200} autoComplete="name" value={val("name")} />
          </div>
          <div>
            <label for="email">Your email</label>
            <input type="email" id="email" name="email" required maxLength={320} autoComplete="email" value={val("email")} />
          </div>
          <div>
            <label for="companyName">Company (optional)</label>
            <input type="text" id="companyName" name="companyName" maxLength={200} autoComplete="organization" value={val("companyName")} />
          </div>
          <div>
            <label for="phone">Phone (optional)</label>
            <input type="tel" id="phone" name="phone" maxLength={50} autoComplete="tel" value={val("phone")} />
          </div>
        </div>
        <label for="message">What do you need?{f.fields.lineItems ? " (or list items below)" : ""}</label>
        <textarea id="message" name="message" maxLength={5000}>
          {val("message")}
        </textarea>
        {f.fields.lineItems ? (
          <fieldset>
            <legend>Items (optional)</legend>
            <div id="item-rows">
              {rows.map((n) => (
                <ItemRow n={n} f={f} values={p.values} only={rows.length === 1} />
              ))}
            </div>
            <button type="submit" class="secondary" name="addRow" value="1" formNoValidate id="add-row">
              Add another item
            </button>
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

interface SentRequest {
  email?: string;
  name?: string;
  companyName?: string;
  message?: string;
  items?: { name: string; quantity?: number; targetUnitPrice?: number }[];
}

export function RequestSent(p: { nonce: string; f: BuyerForm; number: string | null; sent: SentRequest }) {
  const { f, sent } = p;
  return (
    <Shell css={CSS} nonce={p.nonce} title="Request sent" brand={f.merchant}>
      <h1>Thank you{sent.name ? `, ${sent.name}` : ""}</h1>
      <section class="notice good" role="status" id="sent" aria-label="Request sent">
        <p>
          <strong>{p.number ? `Request ${p.number} sent` : "Request sent"}</strong>
        </p>
        <p>{f.successMessage ?? `${f.merchant.name} received your request and will send you an offer by email${sent.email ? ` to ${sent.email}` : ""}.`}</p>
        {p.number ? <p id="reference">Your reference number is {p.number}; quote it if you write to {f.merchant.name}.</p> : null}
      </section>
      <section class="card" aria-labelledby="summary-h" id="summary">
        <h2 id="summary-h">What you sent</h2>
        {sent.items?.length ? (
          <ul class="summary-list">
            {sent.items.map((i) => (
              <li>
                {i.name} × {i.quantity ?? 1}
                {i.targetUnitPrice != null ? ` (target ${formatMoney(i.targetUnitPrice, f.currency)} each)` : ""}
              </li>
            ))}
          </ul>
        ) : null}
        {sent.message ? <p class="prewrap">{sent.message}</p> : null}
        {sent.companyName ? <p class="muted">For {sent.companyName}</p> : null}
      </section>
    </Shell>
  );
}

export function NotFound(p: { nonce: string; what: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title={`${p.what} not found`} brand={{ name: "", logoUrl: null, brandColor: null }}>
      <h1>{p.what} not found</h1>
      <p>This link is not valid. It may have been replaced by a newer one.</p>
    </Shell>
  );
}
