/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The hosted update-card page, {checkout_url}/billing/{token}: the token in the path is the buyer's wallet client
// token (pmt_…). It shows the subscription the token names (plan, amount x quantity, status, next charge), the
// customer's cards, and lets the buyer make a card the default, remove one, and add one through the zero-amount
// vault flow. Every action is a plain form POST back to this page (then 303 back: no JavaScript needed). Thin: the
// wallet services do the work; no SQL here.
import express, { Router, type Request, type Response } from "express";
import { type Ctx, type Deps, makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { formatMoney } from "../src/shared/money";
import { refusalHeaders } from "../src/shared/rate-limit";
import { pageSession } from "../src/wallet/pm-tokens.service";
import { addCardFromPage, billingPageView, removeMyCard, retryMySubscription, setMyDefault } from "../src/wallet/saved-cards.service";
import { securePage } from "./security";
import { html, Shell } from "./components/shell";
import { formatDay } from "../src/shared/dates";


// Shell sets --brand, --on-brand (text on the brand) and --brand-text (the brand as text on white).
const CSS = () => `
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; }
  main { max-width: 720px; margin: 0 auto; padding: 1rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; }
  header img { max-height: 40px; max-width: 160px; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  h1 { font-size: 1.5rem; margin: .25rem 0; } h2 { font-size: 1.15rem; margin: 0 0 .5rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; } dt { color: #52606d; } dd { margin: 0; font-weight: 500; }
  ul.cards { list-style: none; padding: 0; margin: 0; }
  ul.cards li { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem; padding: .75rem 0; border-bottom: 1px solid #e4e7eb; }
  ul.cards li:last-child { border-bottom: 0; }
  .actions { display: flex; gap: .5rem; flex-wrap: wrap; } .actions form { margin: 0; }
  label { display: block; margin: .5rem 0 .2rem; font-weight: 500; }
  input[type=text] { width: 100%; max-width: 22rem; min-height: 44px; padding: .55rem; border: 1px solid #7b8794; border-radius: 6px; font: inherit; font-size: 1rem; }
  input[aria-invalid=true] { border: 2px solid #ab091e; }
  .field-error { color: #ab091e; margin: .3rem 0; font-weight: 500; }
  input:focus, button:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  button { display: inline-block; min-height: 44px; background: var(--brand); color: var(--on-brand); border: 0; padding: .6rem 1rem; border-radius: 6px; font-size: 1rem; font-weight: 600; cursor: pointer; }
  button.secondary { background: #fff; color: #1f2933; border: 1px solid #7b8794; }
  form.add { display: flex; flex-direction: column; align-items: flex-start; gap: .25rem; }
  .muted { color: #52606d; font-size: .9rem; } .status { display: inline-block; padding: .15rem .5rem; border-radius: 999px; background: #e4e7eb; font-size: .85rem; }
  .default { display: inline-block; padding: .1rem .45rem; border-radius: 4px; background: #eef6f0; color: #0e5a2c; border: 1px solid #8ecfa5; font-size: .85rem; margin-left: .4rem; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 1rem 0; }
  .notice { border-left: 4px solid #0e7c3a; background: #eef6f0; color: #0e3d22; padding: .75rem 1rem; margin: 1rem 0; font-weight: 500; }
  .notice strong { display: block; font-size: 1.05rem; }
  @media (max-width: 520px) { main { padding: .5rem; } .card { padding: .75rem; } }
`;

type View = Awaited<ReturnType<typeof billingPageView>>;


const day = (iso: string | null) => (iso ? formatDay(iso) : "");
const STATUS: Record<string, string> = { active: "Active", trialing: "Trial", past_due: "Payment overdue", paused: "Paused", cancelled: "Cancelled", unpaid: "Unpaid" };
const INTERVAL: Record<string, string> = { weekly: "week", monthly: "month", quarterly: "quarter", yearly: "year" };
const DONE: Record<string, string> = {
  added: "Your card was added.",
  default: "Your default card was changed.",
  removed: "The card was removed.",
  retried: "Payment received: your subscription is active again.",
};

/** `tokenError`: what is wrong with the card the buyer tried to add, shown under its field. */
function BillingPage(p: { nonce: string; token: string; v: View; error?: string | null; tokenError?: string | null; done?: string | null }) {
  const { v } = p;
  const s = v.subscription;
  const action = `/billing/${p.token}`;
  const cardName = (c: View["cards"][number]) => `${c.cardBrand.toUpperCase()} ending ${c.cardLastFour}`;
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Payment details · ${v.merchant.name}`} brand={v.merchant}>
      <h1>Your payment details</h1>
      <p class="muted">Manage the cards {v.merchant.name} charges for you.</p>
      <div role="alert" aria-live="assertive">{p.error ? <p class="alert" id="error">{p.error}</p> : null}</div>
      <div role="status" aria-live="polite">
        {p.done ? (
          <p class="notice" id="done">
            <strong>Done</strong>
            {p.done}
          </p>
        ) : null}
      </div>
      {s ? (
        <section class="card" aria-labelledby="sub-h">
          <h2 id="sub-h">
            {s.planName ?? s.planReference} <span class="status">{STATUS[s.status] ?? s.status}</span>
          </h2>
          <dl>
            <dt>Amount</dt>
            <dd id="sub-amount">
              {formatMoney(s.amount * s.quantity, s.currency)} per {INTERVAL[s.interval] ?? s.interval}
              {s.quantity > 1 ? ` (${s.quantity} × ${formatMoney(s.amount, s.currency)})` : ""}
            </dd>
            <dt>{s.status === "past_due" ? "Payment due since" : "Next charge"}</dt>
            <dd>{s.status === "cancelled" || s.cancelAtPeriodEnd ? `Ends ${day(s.currentPeriodEnd)}` : day(s.currentPeriodEnd)}</dd>
            <dt>Charged to</dt>
            <dd>{s.paymentMethod ? `${s.paymentMethod.cardBrand.toUpperCase()} ending ${s.paymentMethod.cardLastFour}` : "No card on file"}</dd>
          </dl>
          {s.status === "past_due" ? (
            <form method="post" action={action}>
              <input type="hidden" name="action" value="retry" />
              <input type="hidden" name="subscriptionId" value={s.id} />
              <p class="muted">The last payment failed. Check your default card below, then try the payment again.</p>
              <button type="submit" id="retry">Pay {formatMoney(s.amount * s.quantity, s.currency)} now</button>
            </form>
          ) : null}
        </section>
      ) : null}
      <section class="card" aria-labelledby="cards-h">
        <h2 id="cards-h">Saved cards</h2>
        {v.cards.length === 0 ? <p class="muted">No saved cards yet.</p> : null}
        <ul class="cards">
          {v.cards.map((c) => (
            <li id={`card-${c.id}`}>
              <span>
                {cardName(c)} <span class="muted">expires {String(c.cardExpMonth).padStart(2, "0")}/{c.cardExpYear}</span>
                {c.isDefault ? <span class="default">Default</span> : null}
                {!c.isActive ? <span class="muted"> (paused)</span> : null}
              </span>
              <span class="actions">
                {!c.isDefault ? (
                  <form method="post" action={action}>
                    <input type="hidden" name="action" value="default" />
                    <input type="hidden" name="cardId" value={c.id} />
                    <button type="submit" aria-label={`Make default: ${cardName(c)}`}>Make default</button>
                  </form>
                ) : null}
                <form method="post" action={action}>
                  <input type="hidden" name="action" value="remove" />
                  <input type="hidden" name="cardId" value={c.id} />
                  <button type="submit" class="secondary" aria-label={`Remove ${cardName(c)}`}>Remove</button>
                </form>
              </span>
            </li>
          ))}
        </ul>
      </section>
      <section class="card" aria-labelledby="add-h">
        <h2 id="add-h">Add a card</h2>
        <form method="post" action={action} class="add">
          <input type="hidden" name="action" value="add" />
          <label for="paymentToken">Card token</label>
          <input
            type="text"
            id="paymentToken"
            name="paymentToken"
            required
            autocomplete="off"
            aria-invalid={p.tokenError ? "true" : undefined}
            aria-describedby={p.tokenError ? "token-error token-help" : "token-help"}
          />
          {p.tokenError ? (
            <p class="field-error" id="token-error" role="alert">
              {p.tokenError}
            </p>
          ) : null}
          <p class="muted" id="token-help">
            Test mode: enter tok_visa. The card is saved without a charge.
          </p>
          <button type="submit" id="add">
            Add card
          </button>
        </form>
      </section>
    </Shell>
  );
}

function NoPage(p: { nonce: string; expired: boolean }) {
  const title = p.expired ? "This link has expired" : "Link not found";
  return (
    <Shell css={CSS} nonce={p.nonce} title={title} brand={{ name: "", logoUrl: null, brandColor: null }}>
      <h1>{title}</h1>
      <p>{p.expired ? "For your security, links to manage payment details work for a limited time. Ask the merchant for a new link." : "This link is not valid. It may have been replaced by a newer one."}</p>
    </Shell>
  );
}

function TooMany(p: { nonce: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title="Too many attempts" brand={{ name: "", logoUrl: null, brandColor: null }}>
      <h1>Too many attempts</h1>
      <p>Please wait a few minutes and open your link again.</p>
    </Shell>
  );
}

function errorText(e: unknown): string {
  if (e instanceof DomainError) {
    if (e.code === "cannot_remove_default") return "This card pays for an active subscription: make another card the default before removing it.";
    if (e.code === "payment_failed") return `The card could not be saved: ${e.message.replace(/\.$/, "")}. Check it or use another card.`;
    if (e.code === "validation_error") return "That card token is not valid. Check it and try again.";
    return e.message;
  }
  return "Something went wrong; please try again.";
}

export function billingPages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 20 });

  /**
   * The page's session for this request (its limits spent once: per address, then per token), or null once the
   * too-many, expired or not-found page has been sent. A refusal is 429 with Retry-After like every other 429.
   */
  async function sessionOf(req: Request, res: Response): Promise<Ctx | null> {
    const ctx = makeCtx(deps, null, req.ip);
    let s: Awaited<ReturnType<typeof pageSession>>;
    try {
      s = await pageSession(ctx, String(req.params.token));
    } catch (e) {
      if (!(e instanceof DomainError && e.code === "rate_limited")) throw e;
      const nonce = await securePage(req, res);
      res.set(refusalHeaders(e));
      res.status(429).type("html").send(html(<TooMany nonce={nonce} />));
      return null;
    }
    if (typeof s === "string") {
      const nonce = await securePage(req, res);
      res.status(s === "expired" ? 410 : 404).type("html").send(html(<NoPage nonce={nonce} expired={s === "expired"} />));
      return null;
    }
    ctx.wallet = s;
    return ctx;
  }

  /** Renders the page for a resolved session with the given status and messages. */
  async function render(req: Request, res: Response, ctx: Ctx, status: number, extra: { error?: string | null; tokenError?: string | null; done?: string | null } = {}) {
    const nonce = await securePage(req, res);
    res.status(status).type("html").send(html(<BillingPage nonce={nonce} token={String(req.params.token)} v={await billingPageView(ctx)} {...extra} />));
  }

  r.get("/billing/:token", async (req, res) => {
    const ctx = await sessionOf(req, res);
    if (ctx) await render(req, res, ctx, 200, { done: DONE[String(req.query.done ?? "")] ?? null });
  });

  r.post("/billing/:token", form, async (req: Request, res: Response) => {
    const token = String(req.params.token);
    const ctx = await sessionOf(req, res);
    if (!ctx) return;
    const b = (req.body ?? {}) as Record<string, unknown>;
    const field = (k: string) => (typeof b[k] === "string" ? (b[k] as string).trim() : "");
    try {
      let done: string;
      if (b.action === "default") {
        await setMyDefault(ctx, field("cardId"), { isDefault: true });
        done = "default";
      } else if (b.action === "remove") {
        await removeMyCard(ctx, field("cardId"));
        done = "removed";
      } else if (b.action === "retry") {
        const r = await retryMySubscription(ctx, field("subscriptionId"));
        if (!r.charged) return render(req, res, ctx, 402, { error: "The payment did not go through. Add or choose another card and try again." });
        done = "retried";
      } else if (b.action === "add") {
        if (!field("paymentToken")) return render(req, res, ctx, 422, { tokenError: "Enter a card token." });
        await addCardFromPage(ctx, field("paymentToken"));
        done = "added";
      } else return render(req, res, ctx, 400, { error: "Unknown action." });
      res.redirect(303, `/billing/${token}?done=${done}`);
    } catch (e) {
      if (e instanceof DomainError && e.status < 500) {
        res.set(refusalHeaders(e));
        // a refused card is about the field the buyer typed it in
        return render(req, res, ctx, e.status, b.action === "add" ? { tokenError: errorText(e) } : { error: errorText(e) });
      }
      throw e;
    }
  });
  return r;
}
