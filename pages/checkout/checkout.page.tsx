/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The hosted checkout, {checkout_url}/checkout/{sessionId}: server-rendered with preact (every value escaped by
// construction), branded with the application's logo and colour, a thin caller of the checkout services. GET shows the
// open session's form (order summary beside it from 900 px, above it on a phone), a completed session's receipt, or
// why the checkout is closed. The form is a plain POST back to the same address (no JavaScript needed): completion
// runs (completeCheckout, as POST /api/v1/checkout-sessions/{id}/complete), then 303 to the receipt; a refusal
// re-renders the form with what the buyer typed and the error in words under its field.
import express, { Router, type Request, type Response } from "express";
import { type PageScript, scriptsForCheckout } from "../../src/application-scripts/scripts.service";
import { checkoutPageView, type CheckoutPageView } from "../../src/checkout/checkout-page.service";
import { asksShippingAddress, completeCheckout } from "../../src/checkout/checkout-complete.service";
import { type Ctx, type Deps, makeCtx } from "../../src/shared/context";
import { DomainError } from "../../src/shared/errors";
import { formatMoney } from "../../src/shared/money";
import { refusalHeaders } from "../../src/shared/rate-limit";
import { html, Shell, type Brand } from "../components/shell";
import { frameableOrigins, securePage } from "../security";
import { CheckoutForm, initialValues } from "./form";
import { completionBody, type FieldErrors, type Fields, readForm, refusalOf } from "./form-input";
import { ReceiptPage } from "./receipt";
import { applicationScripts, CLIENT_SCRIPT } from "./scripts";
import { CHECKOUT_CSS } from "./styles";
import { chargesOf, OrderSummary } from "./summary";

const NO_BRAND: Brand = { name: "", logoUrl: null, brandColor: null };

function Notice(p: { nonce: string; title: string; text: string; brand?: Brand; id?: string }) {
  return (
    <Shell css={CHECKOUT_CSS} nonce={p.nonce} title={p.title} brand={p.brand ?? NO_BRAND}>
      <h1>{p.title}</h1>
      <p id={p.id}>{p.text}</p>
    </Shell>
  );
}

function Heading(p: { v: CheckoutPageView; title: string }) {
  const { v } = p;
  return (
    <>
      <h1>{p.title}</h1>
      {v.sandbox ? (
        <p class="badge" id="sandbox" role="note">
          Sandbox: a test checkout. No real payment is taken.
        </p>
      ) : null}
      {v.quote ? (
        <ul class="refs" aria-label="References">
          <li>
            Quote <strong id="quote-number">{v.quote.number}</strong>
          </li>
          {v.quote.buyerReference ? (
            <li>
              PO <strong id="po">{v.quote.buyerReference}</strong>
            </li>
          ) : null}
          {v.prefill.companyName ? (
            <li>
              For <strong id="company">{v.prefill.companyName}</strong>
            </li>
          ) : null}
        </ul>
      ) : null}
    </>
  );
}

function FormPage(p: { v: CheckoutPageView; values: Fields; errors: FieldErrors; formError: string | null }) {
  const { v } = p;
  const cart = v.cart;
  const money = (n: number) => formatMoney(n, cart.currency);
  const lineTax = cart.lineItems.reduce((a: number, l: { taxAmount: number }) => a + l.taxAmount, 0);
  const count = Object.keys(p.errors).length;
  return (
    <>
      <Heading v={v} title={v.quote ? `Complete your order` : "Checkout"} />
      <div id="messages" role="alert">
        {p.formError ? <p class="alert">{p.formError}</p> : null}
        {count ? (
          <div class="alert" id="error-summary">
            {count === 1 ? "One thing to fix before we can place your order:" : `${count} things to fix before we can place your order:`}
            <ul>
              {Object.entries(p.errors).map(([name, msg]) => (
                <li>
                  <a href={`#${name.replace(/\./g, "-")}`}>{msg}</a>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div class="layout">
        <OrderSummary
          currency={cart.currency}
          lines={cart.lineItems}
          charges={chargesOf({ ...cart, lineTax })}
          total={cart.total}
          after={
            v.deposit
              ? [
                  { label: "Deposit due today", amount: v.deposit.amount, id: "deposit", strong: true },
                  { label: `Balance, invoiced on Net ${v.deposit.balanceNetN} terms`, amount: cart.total - v.deposit.amount, id: "balance" },
                ]
              : []
          }
        >
          {v.methods.length === 1 && v.methods[0].method === "net30" ? <p class="muted">Nothing is charged now: you receive an invoice for {money(cart.total)}, due {v.netN} days after it is issued.</p> : null}
        </OrderSummary>
        <div>
          <CheckoutForm v={v} values={p.values} errors={p.errors} askShipping={asksShippingAddress(v.session, cart.lineItems)} />
          <p>
            <a id="cancel" class="cancel" href={v.session.cancelUrl}>
              {v.quote ? `Cancel and return to quote ${v.quote.number}` : `Cancel and return to ${v.merchant.name || "the store"}`}
            </a>
          </p>
        </div>
      </div>
    </>
  );
}

function CheckoutPage(p: { nonce: string; v: CheckoutPageView; scripts: PageScript[]; values?: Fields; errors?: FieldErrors; formError?: string | null; now: Date }) {
  const { v } = p;
  const s = v.session;
  const extra = applicationScripts(p.nonce, s.id, p.scripts);
  const expired = s.status === "expired" || (s.status === "open" && s.expiresAt <= p.now);
  const open = s.status === "open" && !expired;
  const title = v.receipt ? "Receipt" : "Checkout";
  return (
    <Shell css={CHECKOUT_CSS} nonce={p.nonce} title={`${title} · ${v.merchant.name}`} brand={v.merchant} script={open ? CLIENT_SCRIPT : undefined} head={extra.head} end={extra.end}>
      {v.receipt ? (
        <ReceiptPage v={v} receipt={v.receipt} />
      ) : open ? (
        <FormPage v={v} values={p.values ?? initialValues(v)} errors={p.errors ?? {}} formError={p.formError ?? null} />
      ) : (
        <>
          <Heading v={v} title="Checkout" />
          <p id="closed" class="alert">
            {expired ? "This checkout has expired. Return to the store to start again." : `This checkout is ${s.status}.`}
          </p>
        </>
      )}
    </Shell>
  );
}

export function checkoutPages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 60 });

  /** The page's view, or null once the not-found or too-many page has been sent. */
  async function viewOf(req: Request, res: Response, ctx: Ctx): Promise<CheckoutPageView | null> {
    try {
      return await checkoutPageView(ctx, String(req.params.sessionId));
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      const nonce = await securePage(req, res);
      if (e.status === 404) return void res.status(404).type("html").send(html(<Notice nonce={nonce} title="Checkout not found" text="This checkout link is not valid." />)), null;
      if (e.code === "rate_limited") {
        res.set(refusalHeaders(e));
        return void res.status(429).type("html").send(html(<Notice nonce={nonce} title="Too many requests" text={e.message} />)), null;
      }
      throw e;
    }
  }

  async function render(req: Request, res: Response, ctx: Ctx, v: CheckoutPageView, status: number, extra: { values?: Fields; errors?: FieldErrors; formError?: string | null } = {}) {
    // The merchant's application scripts (none while the kill switch is on): the CSP allows exactly these, by URL and hash.
    const scripts = await scriptsForCheckout(ctx, v.session);
    // Only the application's allowedOrigins may frame the page (embedded checkout); nobody else can.
    const nonce = await securePage(req, res, { frameAncestors: frameableOrigins(v.allowedOrigins), scriptSources: scripts.flatMap((x) => [x.url, `'${x.integrity}'`]) });
    res.status(status).type("html").send(html(<CheckoutPage nonce={nonce} v={v} scripts={scripts} now={ctx.clock.now()} {...extra} />));
  }

  r.get("/checkout/:sessionId", async (req, res) => {
    const ctx = makeCtx(deps, null, req.ip);
    const v = await viewOf(req, res, ctx);
    if (v) await render(req, res, ctx, v, 200);
  });

  r.post("/checkout/:sessionId", form, async (req, res) => {
    const ctx = makeCtx(deps, null, req.ip);
    const id = String(req.params.sessionId);
    const v = await viewOf(req, res, ctx);
    if (!v) return;
    const again = () => res.redirect(303, `/checkout/${encodeURIComponent(id)}`);
    if (v.session.status !== "open") return again();
    const values = readForm(req.body);
    const { body, errors } = completionBody(values, v.netN, ctx.clock.now());
    if (Object.keys(errors).length) return render(req, res, ctx, v, 422, { values, errors });
    try {
      await completeCheckout(ctx, id, body);
      return again();
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      // completed meanwhile (a second tab, a retried post) or expired: GET shows the receipt or why it is closed
      const otherOrder = (e.details as { reason?: string } | undefined)?.reason === "cart_already_ordered";
      if ((e.code === "session_not_open" && !otherOrder) || e.code === "session_expired") return again();
      res.set(refusalHeaders(e));
      const refusal = refusalOf(e, values);
      return render(req, res, ctx, v, e.status, { values, errors: refusal.fields, formError: refusal.form });
    }
  });
  return r;
}
