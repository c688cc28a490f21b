// /api/v1 quote routes, merchant side (quotes.md part 4, decisions.md part 3). Thin: parse, call, respond.
import { listNotifications, markNotificationRead } from "../notifications/notifications.service";
import { ctxOf, ok, okPage } from "../rest/http";
import { acceptQuote } from "./quote-accept.service";
import { acceptQuoteLink, addBuyerComment, buyerDecline, getQuoteLink, quoteLinkPdfUrl, requestRevision, viewQuoteLink } from "./quote-links.service";
import { createRequestForm, listRequestForms, requestQuoteFromCart, rotateFormToken, submitQuoteRequest } from "./quote-requests.service";
import { addComment, createQuote, issueQuote, rotateLink, updateQuote } from "./quotes.service";
import { createRevision, updateRevision } from "./quote-revisions.service";
import { getQuote, listQuotes } from "./quote-read.service";
import { apiRouter } from "../rest/api-router";

export function quotesRouter() {
  const r = apiRouter();
  r.post("/quotes", async (req, res) => ok(res, await createQuote(ctxOf(req), req.body), 201));
  r.get("/quotes", async (req, res) => okPage(res, await listQuotes(ctxOf(req), req.query), (q) => q));
  r.get("/quotes/:id", async (req, res) => ok(res, await getQuote(ctxOf(req), req.params.id)));
  r.patch("/quotes/:id", async (req, res) => ok(res, await updateQuote(ctxOf(req), req.params.id, req.body)));
  r.post("/quotes/:id/issue", async (req, res) => ok(res, await issueQuote(ctxOf(req), req.params.id, req.body)));
  r.post("/quotes/:id/revisions", async (req, res) => ok(res, await createRevision(ctxOf(req), req.params.id, req.body), 201));
  r.patch("/quotes/:id/revisions/:revisionId", async (req, res) => ok(res, await updateRevision(ctxOf(req), req.params.id, req.params.revisionId, req.body)));
  r.post("/quotes/:id/comments", async (req, res) => ok(res, await addComment(ctxOf(req), req.params.id, req.body), 201));
  r.post("/quotes/:id/rotate-link", async (req, res) => ok(res, await rotateLink(ctxOf(req), req.params.id, req.body)));
  r.post("/quotes/:id/accept", async (req, res) => ok(res, await acceptQuote(ctxOf(req), req.params.id, req.body)));
  r.post("/carts/:cartId/request-quote", async (req, res) => ok(res, await requestQuoteFromCart(ctxOf(req), req.params.cartId, req.body), 201));

  r.post("/quote-request-forms", async (req, res) => ok(res, await createRequestForm(ctxOf(req), req.body), 201));
  r.get("/quote-request-forms", async (req, res) => okPage(res, await listRequestForms(ctxOf(req), req.query), (f) => f));
  r.post("/quote-request-forms/:id/rotate-token", async (req, res) => ok(res, await rotateFormToken(ctxOf(req), req.params.id, req.body)));
  // keyless: the qrf_ form token in the body is the authority
  r.post("/quote-requests", async (req, res) => ok(res, await submitQuoteRequest(ctxOf(req), req.body), 202));

  // keyless: the share token in the path is the authority (quote-links.service.ts)
  r.get("/quote-links/:token", async (req, res) => ok(res, await getQuoteLink(ctxOf(req), req.params.token)));
  r.post("/quote-links/:token/view", async (req, res) => {
    await viewQuoteLink(ctxOf(req), req.params.token, req.body);
    res.status(204).end();
  });
  r.post("/quote-links/:token/comments", async (req, res) => ok(res, await addBuyerComment(ctxOf(req), req.params.token, req.body), 201));
  r.post("/quote-links/:token/request-revision", async (req, res) => ok(res, await requestRevision(ctxOf(req), req.params.token, req.body)));
  r.post("/quote-links/:token/decline", async (req, res) => ok(res, await buyerDecline(ctxOf(req), req.params.token, req.body)));
  r.get("/quote-links/:token/pdf", async (req, res) => {
    res.set("cache-control", "private, no-store").redirect(302, await quoteLinkPdfUrl(ctxOf(req), req.params.token));
  });
  r.post("/quote-links/:token/accept", async (req, res) => ok(res, await acceptQuoteLink(ctxOf(req), req.params.token, req.body)));

  r.get("/notifications", async (req, res) => okPage(res, await listNotifications(ctxOf(req), req.query), (n) => n));
  r.post("/notifications/:id/read", async (req, res) => ok(res, await markNotificationRead(ctxOf(req), req.params.id)));
  return r;
}
