// /api/v1 quote routes, merchant side (quotes.md part 4, decisions.md part 3). Thin: parse, call, respond.
import { Router } from "express";
import { ctxOf, ok, okPage } from "../rest/http";
import { createRequestForm, listRequestForms, requestQuoteFromCart, rotateFormToken, submitQuoteRequest } from "./quote-requests.service";
import { addComment, createQuote, createRevision, getQuote, issueQuote, listQuotes, rotateLink, updateQuote, updateRevision } from "./quotes.service";

export function quotesRouter() {
  const r = Router();
  r.post("/quotes", async (req, res) => ok(res, await createQuote(ctxOf(req), req.body), 201));
  r.get("/quotes", async (req, res) => okPage(res, await listQuotes(ctxOf(req), req.query), (q) => q));
  r.get("/quotes/:id", async (req, res) => ok(res, await getQuote(ctxOf(req), req.params.id)));
  r.patch("/quotes/:id", async (req, res) => ok(res, await updateQuote(ctxOf(req), req.params.id, req.body)));
  r.post("/quotes/:id/issue", async (req, res) => ok(res, await issueQuote(ctxOf(req), req.params.id, req.body)));
  r.post("/quotes/:id/revisions", async (req, res) => ok(res, await createRevision(ctxOf(req), req.params.id, req.body), 201));
  r.patch("/quotes/:id/revisions/:revisionId", async (req, res) => ok(res, await updateRevision(ctxOf(req), req.params.id, req.params.revisionId, req.body)));
  r.post("/quotes/:id/comments", async (req, res) => ok(res, await addComment(ctxOf(req), req.params.id, req.body), 201));
  r.post("/quotes/:id/rotate-link", async (req, res) => ok(res, await rotateLink(ctxOf(req), req.params.id, req.body)));
  r.post("/carts/:cartId/request-quote", async (req, res) => ok(res, await requestQuoteFromCart(ctxOf(req), req.params.cartId, req.body), 201));

  r.post("/quote-request-forms", async (req, res) => ok(res, await createRequestForm(ctxOf(req), req.body), 201));
  r.get("/quote-request-forms", async (req, res) => okPage(res, await listRequestForms(ctxOf(req), req.query), (f) => f));
  r.post("/quote-request-forms/:id/rotate-token", async (req, res) => ok(res, await rotateFormToken(ctxOf(req), req.params.id, req.body)));
  // keyless: the qrf_ form token in the body is the authority
  r.post("/quote-requests", async (req, res) => ok(res, await submitQuoteRequest(ctxOf(req), req.body), 202));
  return r;
}
