import type { NextFunction, Request, Response } from "express";
import { authenticate } from "../platform/auth.service";
import { type Deps, makeCtx } from "../shared/context";

/** Resolves the credential (if any) once per request and attaches the service context. */
export function authMiddleware(deps: Deps) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const base = makeCtx(deps);
    const principal = await authenticate(base, {
      apiKey: req.get("x-api-key"),
      authorization: req.get("authorization"),
      applicationId: req.get("x-service-application-id"),
      environmentId: req.get("x-service-environment-id"),
    });
    (req as any).ctx = { ...base, principal };
    next();
  };
}
