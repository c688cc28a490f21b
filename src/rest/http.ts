// Shared REST plumbing: the request context, the one response writer, and the one error handler.
import type { NextFunction, Request, Response } from "express";
import { DomainError, errors } from "../shared/errors";
import { type Ctx, isInvalidTextInput } from "../shared/context";
import type { Page } from "../shared/pagination";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../shared/json";
import { limitHeaders, refusalHeaders } from "../shared/rate-limit";
import { randomToken } from "../shared/crypto";
import { redactSecrets } from "../shared/secrets";

export function ctxOf(req: Request): Ctx {
  const ctx = (req as any).ctx as Ctx | undefined;
  if (!ctx) throw new Error("request context missing: auth middleware not mounted");
  return ctx;
}

type Persist = (status: number, body: unknown) => Promise<void>;

/** Every REST response goes through here, so an Idempotency-Key can record it before it is sent. */
export async function send(res: Response, status: number, body?: unknown) {
  const limit = (res.locals.ctx as Ctx | undefined)?.rate?.state;
  if (limit && !res.headersSent) res.set(limitHeaders(limit));
  const persist = res.locals.idempotencyPersist as Persist | undefined;
  if (persist) {
    res.locals.idempotencyPersist = undefined;
    await persist(status, body ?? null);
  }
  if (status === 204 || body === undefined) res.status(status).end();
  else res.status(status).json(body);
}

export const ok = (res: Response, data: unknown, status = 200, meta?: Record<string, unknown>) =>
  send(res, status, meta ? { data, meta } : { data });

export const okPage = <T>(res: Response, page: Page<T>, view: (t: T) => unknown) =>
  send(res, 200, { data: page.items.map(view), meta: { pagination: page.pagination } });

export function errorBody(e: DomainError, requestId?: string) {
  return { error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}), ...(requestId ? { requestId } : {}) } };
}

/**
 * Request-Id on every response (REST, GraphQL, pages): the caller's own when it sends a sane one, else a fresh
 * `req_…`. Error bodies and server logs repeat it, so a support request can quote one string.
 */
export function requestId(req: Request, res: Response, next: NextFunction) {
  const given = req.get("request-id");
  const id = given && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : `req_${randomToken(24)}`;
  res.locals.requestId = id;
  res.set("Request-Id", id);
  next();
}

/** Maps body-parser failures, domain errors and anything unexpected (masked, logged) to the error body. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  const e = err as any;
  if (e?.type === "entity.too.large") return errors.payloadTooLarge(e.limit);
  if (e?.type === "entity.parse.failed") return errors.invalidJson();
  if (e?.type === "entity.verify.failed") return errors.invalidJson(String(e.message));
  if (e?.type === "encoding.unsupported" || e?.type === "charset.unsupported") {
    return new DomainError("unsupported_encoding", e.message);
  }
  if (e?.type === "request.aborted") return new DomainError("request_aborted", "Request aborted");
  // A path parameter that is not valid percent-encoded UTF-8 (an overlong NUL, a lone surrogate), or an id the
  // database cannot even compare (NUL, not a UUID): no resource has it, so it is an unknown id.
  if (e instanceof URIError || isInvalidTextInput(e)) return errors.notFound();
  if (typeof e?.status === "number" && e.status >= 400 && e.status < 500) {
    return new DomainError("bad_request", e.expose ? String(e.message) : "Malformed request");
  }
  return new DomainError("internal_error", "An unexpected error occurred");
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Rejects bodies that are not strict UTF-8 (or start with a BOM) instead of storing replacement characters. */
export function verifyUtf8(_req: unknown, _res: unknown, buf: Buffer) {
  if (buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
    throw new Error("Request body must be UTF-8 without a byte order mark");
  }
  try {
    strictUtf8.decode(buf);
  } catch {
    throw new Error("Request body is not valid UTF-8");
  }
}

/** After the JSON parser: a body nested deeper than MAX_JSON_DEPTH levels is 422 before any handler walks it. */
export function rejectDeepBodies(req: Request, _res: Response, next: NextFunction) {
  if (req.body !== undefined && nestsDeeperThan(req.body)) {
    return next(errors.validation([{ path: ["body"], message: `nests deeper than ${MAX_JSON_DEPTH} levels` }]));
  }
  next();
}

export function errorHandler(err: unknown, req: Request, res: Response, next: NextFunction) {
  if (res.headersSent) return next(err);
  const de = toDomainError(err);
  if (de.status >= 500 && !(err instanceof DomainError)) console.error(`[rest] ${res.locals.requestId ?? "-"} ${req.method} ${redactSecrets(req.originalUrl)}`, err);
  if (de.code === "rate_limited") {
    const ctx = res.locals.ctx as Ctx | undefined;
    if (ctx?.rate) ctx.rate.state = null; // the refused bucket speaks for this response, not an earlier one
    res.set(refusalHeaders(de));
  }
  void send(res, de.status, errorBody(de, res.locals.requestId)).catch(next);
}

export function notFoundHandler(req: Request, res: Response) {
  void send(res, 404, errorBody(new DomainError("not_found", `No route ${req.method} ${req.path}`), res.locals.requestId));
}

/** The RateLimit-* state a 429 reports (kept here for the callers that import it from the REST plumbing). */
export { refusedState } from "../shared/rate-limit";

/**
 * A body that is not JSON is 415 with the fix, not a confusing 422 about missing fields. `rawBodyPaths`: the routes
 * whose body is the file itself (the composition root passes extensions/client-routes.ts's upload routes).
 */
export const requireJsonBody = (rawBodyPaths: ReadonlySet<string>) => (req: Request, _res: Response, next: NextFunction) => {
  if (rawBodyPaths.has(req.path)) return next();
  const empty = req.get("content-length") === "0"; // a bodiless POST (fetch sends Content-Length: 0) has nothing to parse
  if ((req.method === "POST" || req.method === "PUT" || req.method === "PATCH") && !empty && req.is(["application/json", "application/*+json"]) === false) {
    const sent = req.get("content-type");
    return next(
      new DomainError("unsupported_media_type", `Send the body as JSON with Content-Type: application/json${sent ? ` (got ${sent.slice(0, 100)})` : " (no Content-Type was sent)"}`, {
        contentType: sent?.slice(0, 100) ?? null,
      }),
    );
  }
  next();
};
