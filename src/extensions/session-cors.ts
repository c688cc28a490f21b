// Cross-origin calls from an extension's iframe: the bridge in the iframe (another origin) calls {base_url}/api/v1
// with `Authorization: Bearer <extension session token>`. The token travels in a header, never in a cookie, so the
// browser cannot attach it by itself and no Allow-Credentials is ever sent.
//
// - A preflight asking for the Authorization header is answered for any origin: it reveals nothing and sends nothing.
// - A request carrying a token-shaped bearer gets Access-Control-Allow-Origin for its origin, so a 401 (an expired
//   token) is readable and the bridge can refresh; once the token is verified, the header stays only when the origin
//   is the installed version's iframe origin. Every other answer stays unreadable to other origins.
import type { NextFunction, Request, Response } from "express";
import { ctxOf } from "../rest/http";
import { looksLikeJwt } from "../platform/auth.service";

const ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key";
const EXPOSE_HEADERS = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, Idempotent-Replayed";

const bearerJwt = (req: Request) => {
  const m = /^Bearer\s+(\S+)$/i.exec(req.get("authorization")?.trim() ?? "");
  return Boolean(m && looksLikeJwt(m[1]));
};

/** Before authentication (after the wallet's own CORS, which answers its routes' preflights). */
export function extensionSessionCors(req: Request, res: Response, next: NextFunction) {
  const origin = req.get("origin");
  if (!origin) return next();
  if (req.method === "OPTIONS") {
    const asked = (req.get("access-control-request-headers") ?? "").toLowerCase().split(",").map((h) => h.trim());
    if (!asked.includes("authorization")) return next();
    res.set({
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Methods": "GET, POST, PATCH, PUT, DELETE",
      "Access-Control-Allow-Headers": ALLOW_HEADERS,
      "Access-Control-Max-Age": "600",
      Vary: "Origin",
    });
    return void res.status(204).end();
  }
  if (bearerJwt(req)) res.set({ "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSE_HEADERS, Vary: "Origin" });
  next();
}

/** After authentication: an answer is readable only by the iframe origin of the install the token belongs to. */
export function narrowExtensionSessionCors(req: Request, res: Response, next: NextFunction) {
  const origin = req.get("origin");
  const p = ctxOf(req).principal;
  if (origin && bearerJwt(req) && p?.extension?.iframeOrigin !== origin) {
    res.removeHeader("Access-Control-Allow-Origin");
    res.removeHeader("Access-Control-Expose-Headers");
  }
  next();
}
