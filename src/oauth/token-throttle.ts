// The token endpoint's throttle: bad authorization codes, bad refresh tokens and bad client credentials
// (invalid_grant, invalid_client) count against the caller's address (the same bucket as every failed
// authentication, RATE_LIMIT_AUTH_FAILURES_PER_IP) and against the client id they name
// (RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT). The failure that passes a limit is answered 429 instead, and from then on
// this process refuses the address or client before the request reaches the authorization server, until the
// window ends (the same contract as a guessed API key: rate-limit.ts blocked()). Every 429 carries Retry-After.
import { Readable } from "node:stream";
import type { Request, Response } from "express";
import type { KoaContextWithOIDC } from "oidc-provider";
import type { Deps } from "../shared/context";
import { DomainError, errors } from "../shared/errors";
import { refusalHeaders } from "../shared/rate-limit";

const FAILURES = new Set(["invalid_grant", "invalid_client"]);
const BODY_LIMIT = 56 * 1024; // the provider's own

/**
 * Reads the form to learn the client id, then hands the same bytes to the provider as an unread stream (it reads
 * the body itself; a body parsed upstream works too, but it warns about that on every process's first request).
 */
async function readForm(req: Request): Promise<URLSearchParams | null> {
  if (!req.is("application/x-www-form-urlencoded")) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) throw errors.payloadTooLarge(BODY_LIMIT);
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const replay = Readable.from([body]);
  Object.defineProperty(req, "readable", { value: true, configurable: true });
  (req as unknown as { iterator: Readable["iterator"] }).iterator = replay.iterator.bind(replay);
  return new URLSearchParams(body.toString("utf8"));
}

const isRateLimited = (e: unknown): e is DomainError => e instanceof DomainError && e.code === "rate_limited";
const body429 = (e: DomainError) => ({ error: "rate_limited", error_description: e.message });

/** The client id a token request names: the form's client_id, or the user part of Basic credentials. */
function clientIdOf(form: unknown, authorization: string | undefined): string | null {
  const fromForm = (form as { client_id?: unknown } | undefined)?.client_id;
  if (typeof fromForm === "string" && fromForm) return fromForm.slice(0, 200);
  const basic = /^Basic\s+([A-Za-z0-9+/=]{1,400})$/i.exec(authorization ?? "")?.[1];
  if (!basic) return null;
  const user = Buffer.from(basic, "base64").toString("utf8").split(":")[0];
  return user ? decodeURIComponent(user.replace(/\+/g, "%20")).slice(0, 200) : null;
}

/**
 * Express, before the provider: answers 429 (and returns true) when this address or client was refused in this
 * window.
 */
export async function refuseThrottledTokenRequest(deps: Deps, req: Request, res: Response): Promise<boolean> {
  try {
    deps.limits.blocked("authFailureIp", req.ip ?? ""); // before the body is even read
    const form = await readForm(req);
    const clientId = clientIdOf({ client_id: form?.get("client_id") ?? undefined }, req.get("authorization"));
    if (clientId) deps.limits.blocked("oauthClientFailures", clientId);
    return false;
  } catch (e) {
    if (!isRateLimited(e)) throw e;
    res.set({ ...refusalHeaders(e), "Cache-Control": "no-store" }).status(429).json(body429(e));
    return true;
  }
}

/** Koa, around the provider's routes: counts a failed token request; the one past a limit becomes a 429. */
export function countTokenFailures(deps: Deps) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    if (ctx.oidc?.route !== "token" || ctx.status < 400 || ctx.status >= 500) return;
    const error = (ctx.body as { error?: unknown } | undefined)?.error;
    if (typeof error !== "string" || !FAILURES.has(error)) return;
    const req = ctx.req as Request;
    const clientId = clientIdOf(ctx.oidc.body, req.headers.authorization) ?? ctx.oidc.client?.clientId ?? null;
    const spent = await Promise.allSettled([
      deps.limits.consume("authFailureIp", req.ip ?? ""),
      clientId ? deps.limits.consume("oauthClientFailures", clientId) : Promise.resolve(null),
    ]);
    for (const r of spent) if (r.status === "rejected" && !isRateLimited(r.reason)) throw r.reason;
    const refused = spent.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (!refused) return;
    ctx.remove("WWW-Authenticate");
    ctx.set(refusalHeaders(refused.reason));
    ctx.status = 429;
    ctx.body = body429(refused.reason);
  };
}
