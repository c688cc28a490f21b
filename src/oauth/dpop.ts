// DPoP at the resource (RFC 9449 section 7): an access token the authorization server bound to a key (its `cnf.jkt`,
// issued when the client sent a DPoP proof to the token endpoint) is accepted only as `Authorization: DPoP <token>`
// with a `DPoP` header holding a fresh proof for this request: a `dpop+jwt` JWS signed by that key (its public JWK
// in the header, one of DPOP_ALGS), whose `htm` is the request's method, `htu` its URL without query or fragment,
// `iat` within the last five minutes, `ath` the token's SHA-256, and whose `jti` was never seen before (kept in
// OAuthRecord, shared by every process, until the proof could no longer be accepted anyway). As a Bearer token it is
// refused; an unbound token is refused with the DPoP scheme. Every refusal is 401 unauthorized, so it counts against
// the address's failed-authentication limit like any bad credential.
import { calculateJwkThumbprint, EmbeddedJWK, errors as joseErrors, jwtVerify, type JWK, type JWTPayload } from "jose";
import type { Ctx } from "../shared/context";
import type { DpopRequest } from "../platform/auth.service";
import { sha256Hex } from "../shared/crypto";
import { errors } from "../shared/errors";
import { createHash } from "node:crypto";

/** The proof algorithms accepted here and advertised by the authorization server and both resources' metadata. */
export const DPOP_ALGS: ("ES256" | "Ed25519" | "EdDSA")[] = ["ES256", "Ed25519", "EdDSA"];
const MAX_AGE_S = 300;
const SKEW_S = 60;
const REPLAY_KIND = "DPoPProof";

export type { DpopRequest };

/** Whether an Authorization header uses the DPoP scheme (only then are the request's facts worth collecting). */
export const usesDpopScheme = (authorization: string | null | undefined) => typeof authorization === "string" && /^\s*DPoP\s/i.test(authorization);

/** origin + path, the form `htu` is compared in (RFC 9449 section 4.3: no query, no fragment). */
function normalize(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

/** The request facts for a proof check: `ownUrl` as the server received it, and BASE_URL's origin with its path. */
export function dpopRequest(config: { BASE_URL: string }, proof: string | null | undefined, method: string, ownUrl: string): DpopRequest {
  let path = "/";
  try {
    path = new URL(ownUrl).pathname;
  } catch {
    /* the base URL's form alone */
  }
  const urls = [normalize(ownUrl), normalize(`${config.BASE_URL.replace(/\/+$/, "")}${path}`)].filter((u): u is string => u !== null);
  return { proof, method: method.toUpperCase(), urls };
}

const invalid = (why: string) => errors.unauthorized(`Invalid DPoP proof: ${why}`);

/** Checks the request's proof for `accessToken`, bound to the key whose thumbprint is `jkt`; throws 401 otherwise. */
export async function verifyDpopProof(ctx: Ctx, request: DpopRequest, accessToken: string, jkt: string): Promise<void> {
  const proof = request.proof?.trim();
  if (!proof) throw invalid("send a DPoP header with a proof for this request (RFC 9449)");
  if (proof.length > 8192 || !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(proof)) throw invalid("the DPoP header must hold one compact JWS");
  let payload: JWTPayload;
  let jwk: JWK | undefined;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: "dpop+jwt",
      algorithms: DPOP_ALGS,
      maxTokenAge: MAX_AGE_S,
      clockTolerance: SKEW_S,
      requiredClaims: ["iat", "jti", "htm", "htu", "ath"],
    });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk;
  } catch (e) {
    throw invalid(e instanceof joseErrors.JOSEError ? e.message : "unreadable proof");
  }
  if (!jwk || (await calculateJwkThumbprint(jwk, "sha256")) !== jkt) throw invalid("signed with another key than the one this token is bound to");
  if (payload.htm !== request.method) throw invalid("htm is not this request's method");
  const htu = typeof payload.htu === "string" ? normalize(payload.htu) : null;
  if (!htu || !request.urls.includes(htu)) throw invalid("htu is not this request's URL");
  if (payload.ath !== createHash("sha256").update(accessToken).digest("base64url")) throw invalid("ath is not this access token's hash");
  if (typeof payload.jti !== "string" || payload.jti.length < 8 || payload.jti.length > 256) throw invalid("jti must be a unique string of 8 to 256 characters");
  // Single use, across processes: the first insert of (key, jti) wins; the row outlives the proof's acceptance window.
  const id = sha256Hex(`${jkt}:${payload.jti}`);
  const expiresAt = new Date(Date.now() + (MAX_AGE_S + 2 * SKEW_S) * 1000);
  const inserted = await ctx.sql
    .insertInto("OAuthRecord")
    .values({ kind: REPLAY_KIND, id, payload: "{}", expiresAt })
    .onConflict((oc) => oc.columns(["kind", "id"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows) === 0) throw invalid("this proof was already used (its jti was seen before)");
}
