import type { NextFunction, Request, Response } from "express";
import { claimIdempotencyKey, completeIdempotencyKey, idempotencyOwner, requestHash } from "../shared/idempotency.service";
import { withoutSecrets } from "../shared/secrets";
import { ctxOf } from "./http";

/** Every POST accepts an optional Idempotency-Key: the first response is recorded and replayed. */
export async function idempotency(req: Request, res: Response, next: NextFunction) {
  const key = req.get("idempotency-key");
  if (req.method !== "POST" || key === undefined) return next();
  const ctx = ctxOf(req);
  const claim = await claimIdempotencyKey(ctx, idempotencyOwner(ctx), key, requestHash(req.method, req.baseUrl + req.path, req.body));
  if (claim.kind === "replay") {
    res.set("Idempotent-Replayed", "true");
    if (claim.status === 204 || claim.body === null) return void res.status(claim.status).end();
    return void res.status(claim.status).json(claim.body);
  }
  // A secret is shown once: the stored response keeps the resource and drops the secret (null on replay).
  res.locals.idempotencyPersist = (status: number, body: unknown) => completeIdempotencyKey(ctx, claim.id, status, withoutSecrets(body));
  // A response that never reaches send() (a crash mid-request) must not keep the key locked forever.
  res.on("close", () => {
    if (res.locals.idempotencyPersist) void completeIdempotencyKey(ctx, claim.id, 500, null).catch(() => {});
  });
  next();
}
