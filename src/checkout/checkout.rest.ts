import { ctxOf, ok } from "../rest/http";
import { completeCheckout } from "./checkout-complete.service";
import { createCheckoutSession, sessionPaymentMethods, sessionView } from "./checkout.service";
import { createEmbedSession, sessionEmbedToken } from "./checkout-embed.service";
import { apiRouter } from "../rest/api-router";

export function checkoutRouter() {
  const r = apiRouter();
  r.post("/checkout/sessions", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, sessionView(await createCheckoutSession(ctx, req.body), ctx.deps.config.CHECKOUT_URL), 201);
  });
  r.post("/checkout-sessions/embed-token", async (req, res) => ok(res, await createEmbedSession(ctxOf(req), req.body), 201));
  r.get("/checkout-sessions/:id/embed-token", async (req, res) => ok(res, await sessionEmbedToken(ctxOf(req), req.params.id)));
  // Browser-safe: the session id is the handle, no key.
  r.get("/checkout-sessions/:id/payment-methods", async (req, res) => ok(res, await sessionPaymentMethods(ctxOf(req), req.params.id)));
  r.post("/checkout-sessions/:id/complete", async (req, res) => ok(res, await completeCheckout(ctxOf(req), req.params.id, req.body)));
  return r;
}
