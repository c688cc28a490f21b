// /api/v1 wallet routes: the merchant mints client tokens and manages a customer's saved methods; the buyer's
// browser, holding a PM token (X-Service-PM-Token), manages its own cards under /me/*. Thin: parse, call, respond.
import { type NextFunction, type Request, type Response } from "express";
import { ctxOf, ok } from "../rest/http";
import type { Deps } from "../shared/context";
import { makeCtx } from "../shared/context";
import { mintClientToken, walletOriginAllowed } from "./pm-tokens.service";
import {
  attachCustomerCard,
  confirmVault,
  createVaultSession,
  listCustomerCards,
  listMyCards,
  mySubscription,
  removeMyCard,
  retryMySubscription,
  savedCardView,
  setCustomerCardActive,
  setMyDefault,
} from "./saved-cards.service";
import { apiRouter } from "../rest/api-router";

const ME = /^\/me\/(payment-methods|subscriptions)(\/|$)/;

/**
 * CORS for /me/* (mounted before authentication, so a preflight without a token is answered): an origin that an
 * application lists in allowedOrigins is allowed; the routes below drop the header again when the token's own
 * application does not list it.
 */
export function walletCors(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get("origin");
    if (!ME.test(req.path) || !origin) return next();
    const allowed = await walletOriginAllowed(makeCtx(deps, null, req.ip), origin);
    if (allowed) {
      res.set({ "Access-Control-Allow-Origin": origin, Vary: "Origin" });
    } else res.set("Vary", "Origin");
    if (req.method !== "OPTIONS") return next();
    if (!allowed) return void res.status(403).json({ error: { code: "forbidden", message: "This origin is not in the application's allowedOrigins", status: 403 } });
    res.set({
      "Access-Control-Allow-Methods": "GET, POST, PATCH, DELETE, OPTIONS",
      "Access-Control-Allow-Headers": "Content-Type, X-Service-PM-Token, Idempotency-Key",
      "Access-Control-Max-Age": "600",
    });
    res.status(204).end();
  };
}

/** After authentication: keep the allowed origin only when the token's application lists it. */
async function narrowCors(req: Request, res: Response, next: NextFunction) {
  const origin = req.get("origin");
  const ctx = ctxOf(req);
  if (origin && ctx.wallet && res.get("Access-Control-Allow-Origin") && !(await walletOriginAllowed(ctx, origin, ctx.wallet.tenant.applicationId))) {
    res.removeHeader("Access-Control-Allow-Origin");
  }
  next();
}

export function walletRouter() {
  const r = apiRouter();
  r.use("/me", narrowCors);
  // merchant
  r.post("/payment-methods/client-token", async (req, res) => ok(res, await mintClientToken(ctxOf(req), req.body), 201));
  r.get("/customers/:id/payment-methods", async (req, res) => ok(res, (await listCustomerCards(ctxOf(req), req.params.id)).map(savedCardView)));
  r.post("/customers/:id/payment-methods", async (req, res) => ok(res, savedCardView(await attachCustomerCard(ctxOf(req), req.params.id, req.body)), 201));
  r.post("/customers/:customerId/payment-methods/:id/pause", async (req, res) =>
    ok(res, savedCardView(await setCustomerCardActive(ctxOf(req), req.params.customerId, req.params.id, false))),
  );
  r.post("/customers/:customerId/payment-methods/:id/resume", async (req, res) =>
    ok(res, savedCardView(await setCustomerCardActive(ctxOf(req), req.params.customerId, req.params.id, true))),
  );
  // buyer (PM token)
  r.get("/me/payment-methods", async (req, res) => ok(res, (await listMyCards(ctxOf(req))).map(savedCardView)));
  r.post("/me/payment-methods/embed-token", async (req, res) => ok(res, await createVaultSession(ctxOf(req)), 201));
  r.post("/me/payment-methods/confirm", async (req, res) => ok(res, savedCardView(await confirmVault(ctxOf(req), req.body)), 201));
  r.patch("/me/payment-methods/:id", async (req, res) => ok(res, savedCardView(await setMyDefault(ctxOf(req), req.params.id, req.body))));
  r.delete("/me/payment-methods/:id", async (req, res) => ok(res, await removeMyCard(ctxOf(req), req.params.id)));
  r.get("/me/subscriptions/:id", async (req, res) => ok(res, await mySubscription(ctxOf(req), req.params.id)));
  r.post("/me/subscriptions/:id/retry-charge", async (req, res) => ok(res, await retryMySubscription(ctxOf(req), req.params.id)));
  return r;
}
