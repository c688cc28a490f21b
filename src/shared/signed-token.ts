// One form for the service's short-lived signed tokens (storage download URLs, invoice download links, and later
// import upload URLs): base64url(JSON claims + e: expiry in epoch seconds) + "." + base64url(HMAC-SHA256(secret,
// purpose + "." + payload)). The purpose is bound into the MAC, so a token minted for one use never passes for
// another; the MAC is compared in constant time; an altered, expired or over-long token reads as null (callers
// answer without saying which).
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Config } from "../config";
import { secretKey } from "./secrets";

function mac(config: Config, purpose: string, payload: string) {
  return createHmac("sha256", secretKey(config)).update(`${purpose}.${payload}`).digest("base64url");
}

/** A token carrying `claims` until `expiresAt`, valid only for `purpose` (e.g. "download.v1"). */
export function signToken(config: Config, purpose: string, claims: Record<string, unknown>, expiresAt: Date): string {
  const payload = Buffer.from(JSON.stringify({ ...claims, e: Math.floor(expiresAt.getTime() / 1000) })).toString("base64url");
  return `${payload}.${mac(config, purpose, payload)}`;
}

/** The claims of a token signed for `purpose`, or null when it is malformed, altered, expired or longer than maxLength. */
export function verifyToken(config: Config, purpose: string, token: string, now: Date, maxLength = 2000): Record<string, unknown> | null {
  if (token.length > maxLength) return null;
  const [payload, sig, extra] = token.split(".");
  if (!payload || !sig || extra !== undefined) return null;
  const want = Buffer.from(mac(config, purpose, payload));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as unknown;
    if (!claims || typeof claims !== "object" || Array.isArray(claims)) return null;
    const e = (claims as { e?: unknown }).e;
    if (typeof e !== "number" || e * 1000 <= now.getTime()) return null;
    return claims as Record<string, unknown>;
  } catch {
    return null;
  }
}
