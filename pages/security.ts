// Security headers for every server-rendered buyer page, through helmet: a nonce-based CSP (no inline script or
// style runs without this response's nonce), frame-ancestors limited to the origins a page may be embedded in
// ('none' unless the application lists allowedOrigins), no referrer (buyer URLs carry bearer ids), nosniff, and
// no caching of pages that show buyer data.
import { randomBytes } from "node:crypto";
import type { Request, Response } from "express";
import helmet from "helmet";

const policy = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: [
        (_req, res) =>
          [`'nonce-${(res as Response).locals.cspNonce}'`, ...(((res as Response).locals.thirdParty as string[] | undefined) ?? []), ...(((res as Response).locals.scriptSources as string[] | undefined) ?? [])].join(" "),
      ],
      // a bot-challenge widget runs in the provider's frame, an extension in its own origin; nothing else may be framed
      frameSrc: [
        (_req, res) => [...(((res as Response).locals.thirdParty as string[] | undefined) ?? []), ...(((res as Response).locals.frameSources as string[] | undefined) ?? [])].join(" ") || "'none'",
      ],
      styleSrc: [(_req, res) => `'nonce-${(res as Response).locals.cspNonce}'`],
      imgSrc: ["'self'", "data:", "https:"],
      connectSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: [(_req, res) => ((res as Response).locals.frameAncestors as string[] | undefined)?.join(" ") || "'none'"],
    },
  },
  // frame-ancestors decides framing; X-Frame-Options cannot list several origins, so it is not sent.
  frameguard: false,
  referrerPolicy: { policy: "no-referrer" },
  crossOriginEmbedderPolicy: false,
  strictTransportSecurity: false, // the operator's TLS terminator decides HSTS
});

/** Origins that may be accepted in frame-ancestors: exact http(s) origins only (nothing that could inject a directive). */
export function frameableOrigins(origins: unknown): string[] {
  if (!Array.isArray(origins)) return [];
  return origins.filter((o): o is string => {
    if (typeof o !== "string") return false;
    try {
      const u = new URL(o);
      return (u.protocol === "https:" || u.protocol === "http:") && u.origin === o;
    } catch {
      return false;
    }
  });
}

/** A script-src source a page may add for one exact script: its SHA-256 hash, or its exact http(s) URL (no wildcard). */
const SCRIPT_SOURCE = /^(?:'sha256-[A-Za-z0-9+/]{43}='|https?:\/\/[A-Za-z0-9.-]+(?::\d+)?\/[A-Za-z0-9._~/-]+)$/;

/**
 * Applies the page headers and returns the nonce the page's own <script> and <style> must carry.
 * `frameAncestors`: origins allowed to embed this page (none by default).
 * `scriptSources`: exact script URLs and hashes the page may also run (checkout's application scripts), script-src only.
 * `frameSources`: exact origins the page may frame (the demo dashboard's extension iframe), frame-src only.
 */
export async function securePage(
  req: Request,
  res: Response,
  opts: { frameAncestors?: string[]; thirdParty?: string[]; scriptSources?: string[]; frameSources?: string[] } = {},
): Promise<string> {
  const nonce = randomBytes(16).toString("base64");
  res.locals.cspNonce = nonce;
  res.locals.frameAncestors = opts.frameAncestors ?? [];
  // origins of a third-party widget this page loads (script and frame), exact https origins only
  res.locals.thirdParty = (opts.thirdParty ?? []).filter((o) => /^https:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(o));
  res.locals.scriptSources = (opts.scriptSources ?? []).filter((s) => SCRIPT_SOURCE.test(s));
  // origins the page may frame (an installed extension's iframe): exact http(s) origins only
  res.locals.frameSources = frameableOrigins(opts.frameSources ?? []);
  await new Promise<void>((resolve, reject) => policy(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  res.set("Cache-Control", "no-store");
  return nonce;
}
