/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The routes of the buyer's quote page, {checkout_url}/q/{shareToken}, and the hosted request form,
// {checkout_url}/q/request/{formToken}: thin callers of the quote services that render pages/quote/*. Every action is
// a plain form POST (then 303 back, or to the checkout); a refused one renders the page again with the error
// announced and the buyer's entries kept.
import express, { Router, type Request, type Response } from "express";
import { acceptFromPage, addBuyerComment, buyerDecline, openQuotePage, requestRevision } from "../src/quotes/quote-links.service";
import { requestFormForBuyer, type BuyerForm, submitQuoteRequestWithNumber } from "../src/quotes/quote-requests.service";
import { refusedState } from "../src/rest/http";
import { type Deps, makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { limitHeaders } from "../src/shared/rate-limit";
import { html } from "./components/shell";
import { securePage } from "./security";
import { day } from "./quote/format";
import { requestBodyFromForm, selectionsFromForm, str, withoutRow } from "./quote/form-bodies";
import { checkoutPath, QuotePage } from "./quote/quote-page";
import { MAX_ROWS, NotFound, RequestFormPage, RequestSent, rowCount } from "./quote/request-form";

export { requestBodyFromForm, selectionsFromForm };

const FIELD_NAMES: Record<string, string> = { email: "Email", name: "Name", phone: "Phone", companyName: "Company", message: "Message", items: "Items", acceptedByName: "Your name", acceptedByEmail: "Your email" };

/** A refusal in words: the service's message, or each invalid field by its label. */
function errorText(e: unknown): string {
  if (e instanceof DomainError) {
    const issues = (e.details as { issues?: { path: (string | number)[]; message: string }[] } | undefined)?.issues;
    if (issues?.length) {
      return issues
        .map((i) => {
          const [head, n, field] = i.path;
          const where = head === "items" && typeof n === "number" ? `Item ${n + 1}${field ? ` ${String(field)}` : ""}` : (FIELD_NAMES[String(head)] ?? (String(head || "") || "Form"));
          return `${where}: ${i.message}`;
        })
        .join("; ");
    }
    return e.message;
  }
  return "Something went wrong; please try again.";
}

type Extra = { error?: string | null; done?: string | null; sent?: boolean; values?: Record<string, unknown> };

export function quotePages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "64kb", parameterLimit: 500 });

  async function page(req: Request, res: Response, status: number, extra: Extra = {}) {
    const token = String(req.params.token);
    const ctx = makeCtx(deps, null, req.ip);
    const nonce = await securePage(req, res);
    try {
      const { view } = await openQuotePage(ctx, token, { record: req.method === "GET" });
      res.status(status).type("html").send(html(<QuotePage nonce={nonce} token={token} v={view} {...extra} />));
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

  r.get("/q/:token", (req, res) => page(req, res, 200, { sent: req.query.sent === "comment" }));

  /** A POST: run the action; a path answers 303 (PRG), page extras render the page; a refusal renders it with the error. */
  const action = (run: (ctx: ReturnType<typeof makeCtx>, token: string, body: Record<string, unknown>) => Promise<string | Extra>) =>
    [
      form,
      async (req: Request, res: Response) => {
        const ctx = makeCtx(deps, null, req.ip);
        const body = (req.body ?? {}) as Record<string, unknown>;
        try {
          const to = await run(ctx, String(req.params.token), body);
          if (typeof to === "string") return res.redirect(303, to);
          return page(req, res, 200, to);
        } catch (e) {
          if (e instanceof DomainError && e.status !== 404 && e.code !== "rate_limited") return page(req, res, e.status, { error: errorText(e), values: body });
          const nonce = await securePage(req, res);
          sendError(res, nonce, e, "Quote");
        }
      },
    ] as const;

  r.post(
    "/q/:token/accept",
    ...action(async (ctx, token, b) => {
      const a = await acceptFromPage(ctx, token, { revisionId: str(b.revisionId) ?? "", acceptedByName: str(b.acceptedByName) ?? "", ...(str(b.acceptedByEmail) ? { acceptedByEmail: str(b.acceptedByEmail) } : {}), itemSelections: selectionsFromForm(b) });
      if (a.selectionsIgnored) {
        const { view } = await openQuotePage(ctx, token, { record: false });
        return { done: `This quote was already accepted on ${day(view.quote.acceptedAt)} with other choices. Those stand: the changes you just made were not applied. Write to ${view.merchant.name} below to change the order.` };
      }
      // relative: the checkout page is this app, on whatever host the buyer reached it (a proxy, a custom domain);
      // an absolute CHECKOUT_URL on another host would be refused by the page's own CSP form-action 'self'
      return a.status === "converted" ? `/q/${token}` : checkoutPath(a.checkoutUrl);
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
      return `/q/${token}`;
    }),
  );
  r.post(
    "/q/:token/decline",
    ...action(async (ctx, token, b) => {
      await buyerDecline(ctx, token, str(b.reason) ? { reason: str(b.reason) } : {});
      return `/q/${token}`;
    }),
  );

  // The bot-challenge widget (Turnstile-compatible) when a site key is configured; its script and frame are the
  // only third-party origin a page may load, and only forms that require the challenge load it.
  const challenge = deps.config.BOT_CHALLENGE_SITE_KEY ? { siteKey: deps.config.BOT_CHALLENGE_SITE_KEY, scriptUrl: deps.config.BOT_CHALLENGE_SCRIPT_URL } : null;
  async function requestPage(req: Request, res: Response, status: number, extra: { error?: string | null; values?: Record<string, unknown>; rows?: number } = {}) {
    const ctx = makeCtx(deps, null, req.ip);
    let f: BuyerForm;
    try {
      f = await requestFormForBuyer(ctx, String(req.params.formToken));
    } catch (e) {
      return sendError(res, await securePage(req, res), e, "Request form");
    }
    const widget = f.fields.requireBotChallenge ? challenge : null;
    const nonce = await securePage(req, res, { thirdParty: widget ? [new URL(widget.scriptUrl).origin] : [] });
    const rows = extra.rows ?? rowCount(extra.values);
    res.status(status).type("html").send(html(<RequestFormPage nonce={nonce} formToken={String(req.params.formToken)} f={f} loadedAt={ctx.clock.now().getTime()} challenge={widget} {...extra} rows={rows} />));
  }

  r.get("/q/request/:formToken", (req, res) => requestPage(req, res, 200));
  r.post("/q/request/:formToken", form, async (req: Request, res: Response) => {
    const ctx = makeCtx(deps, null, req.ip);
    const token = String(req.params.formToken);
    const b = (req.body ?? {}) as Record<string, unknown>;
    // without JavaScript, "Add another item" and "Remove" post the form: the same form again, one row more or less
    if (b.addRow !== undefined) return requestPage(req, res, 200, { values: b, rows: Math.min(MAX_ROWS, rowCount(b) + 1) });
    if (typeof b.removeRow === "string" && /^\d{1,3}$/.test(b.removeRow)) {
      const kept = withoutRow(b, Number(b.removeRow));
      return requestPage(req, res, 200, { values: kept, rows: Math.max(1, rowCount(b) - 1) });
    }
    try {
      const f = await requestFormForBuyer(ctx, token);
      const body = requestBodyFromForm(token, b, f.currencyDigits);
      const { number } = await submitQuoteRequestWithNumber(ctx, body);
      const nonce = await securePage(req, res);
      res.status(200).type("html").send(html(<RequestSent nonce={nonce} f={f} number={number} sent={body} />));
    } catch (e) {
      if (e instanceof DomainError && e.status !== 404 && e.code !== "rate_limited") return requestPage(req, res, e.status, { error: errorText(e), values: b });
      const nonce = await securePage(req, res);
      sendError(res, nonce, e, "Request form");
    }
  });
  return r;
}
