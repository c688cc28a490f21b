import type { NextFunction, Request, Response } from "express";
import { authenticateRequest } from "../platform/auth.service";
import { gateExemptRoute } from "../platform/live-gate";
import { ESTIMATE_PATH, invalidQuoteToken } from "../shipping-tax/estimate.service";
import { DomainError, errors } from "../shared/errors";
import { isWalletPath, PM_TOKEN_HEADER, resolvePmToken } from "../wallet/pm-tokens.service";
import { type Deps, makeCtx, reportLimit } from "../shared/context";
import { acceptsClientCredentials } from "../extensions/client-routes";
import { dpopRequest, usesDpopScheme } from "../oauth/dpop";

/** Resolves the credential (if any) once per request, under the rate limits, and attaches the service context. */
export function authMiddleware(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const ctx = makeCtx(deps, null, req.ip);
    (req as any).ctx = ctx;
    res.locals.ctx = ctx; // send() reports ctx.rate in RateLimit-* headers
    // A wallet client token speaks for one customer on the wallet routes only, and is never combined with a key.
    const pmToken = req.get(PM_TOKEN_HEADER);
    if (pmToken !== undefined) {
      if (!isWalletPath(req.path)) throw errors.forbidden("X-Service-PM-Token is accepted only on /me/payment-methods and /me/subscriptions");
      ctx.wallet = await resolvePmToken(ctx, pmToken);
      return next();
    }
    const { principal, limit } = await authenticateRequest(
      ctx,
      {
        apiKey: req.get("x-api-key"),
        authorization: req.get("authorization"),
        applicationId: req.get("x-service-application-id"),
        environmentId: req.get("x-service-environment-id"),
        basicAllowed: acceptsClientCredentials(req.method, req.path),
        dpop: usesDpopScheme(req.get("authorization")) ? dpopRequest(deps.config, req.get("dpop"), req.method, `${req.protocol}://${req.get("host")}${req.originalUrl}`) : undefined,
      },
      { deferGate: gateExemptRoute(req.method, req.path) },
    ).catch((e: unknown) => {
      // The publishable-key estimate names its own 401: invalid_quote_token.
      if (req.path === ESTIMATE_PATH && e instanceof DomainError && e.status === 401) throw invalidQuoteToken();
      throw e;
    });
    ctx.principal = principal;
    reportLimit(ctx, limit);
    next();
  };
}
