import { createHmac } from "node:crypto";
import { randomToken } from "../shared/crypto";

export function newSigningSecret() {
  return `whsec_${randomToken(32)}`;
}

/**
 * `t=<unix>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 over `${t}.${rawBody}` keyed with the whole secret string
 * (whsec_ prefix included), exactly as Stripe signs, so receivers can verify with stripe.webhooks.constructEvent.
 * During a rotation window the outgoing secret's digest comes first, then the new one.
 */
export function signatureHeader(rawBody: string, secrets: string[], unixSeconds: number) {
  const digests = secrets.map((s) => `v1=${createHmac("sha256", s).update(`${unixSeconds}.${rawBody}`).digest("hex")}`);
  return [`t=${unixSeconds}`, ...digests].join(",");
}
