// Extension session tokens (the iframe bridge) on the shared RS256 keys of platform/signing-keys.ts, purpose
// "extensions" (the same keys and JWKS, /.well-known/extension-jwks.json, as install callback tokens). Three calls:
// sign, verify, JWKS.
//
// Every process keeps the public keys it read for a short while; a token signed with a kid it has not seen (a key
// another process just created or rotated in) makes it read them again before refusing the token.
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from "jose";
import type { PrismaClient } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { publicJwks, signJwt } from "../platform/signing-keys";

const SESSION_KEY_PURPOSE = "extensions";
/** the `iss` of every token this service signs */
const TOKEN_ISSUER = "service";
const ALG = "RS256";
/** how long a process trusts the keys it read before reading them again */
const RELOAD_MS = 60_000;
/** an unknown kid reads the keys again only when the keys held are older than this */
const RETRY_MS = 5_000;

interface Held {
  jwks: JSONWebKeySet;
  verifier: ReturnType<typeof createLocalJWKSet>;
  loadedAt: number;
}
const cache = new WeakMap<PrismaClient, Promise<Held>>();

async function held(ctx: Ctx, maxAgeMs = RELOAD_MS): Promise<Held> {
  const prisma = ctx.deps.prisma;
  const h = await cache.get(prisma)?.catch(() => null);
  if (h && Date.now() - h.loadedAt < maxAgeMs) return h;
  const next = publicJwks(ctx.deps, SESSION_KEY_PURPOSE).then((jwks) => ({ jwks, verifier: createLocalJWKSet(jwks), loadedAt: Date.now() }));
  cache.set(prisma, next);
  next.catch(() => cache.delete(prisma));
  return next;
}

/** Signs `claims` as an RS256 JWT: iss "service", the given aud and sub, iat now, exp after ttlSeconds, a fresh jti. */
export async function signSessionToken(ctx: Ctx, claims: Record<string, unknown>, opts: { audience: string; subject: string; ttlSeconds: number }) {
  const iat = Math.floor(ctx.clock.now().getTime() / 1000);
  const token = await signJwt(ctx.deps, SESSION_KEY_PURPOSE, claims, { issuer: TOKEN_ISSUER, subject: opts.subject, audience: opts.audience, ttlSeconds: opts.ttlSeconds });
  return { token, issuedAt: new Date(iat * 1000), expiresAt: new Date((iat + opts.ttlSeconds) * 1000) };
}

/**
 * Verifies signature, algorithm, issuer and expiry against the clock; returns the claims. Throws (any jose error)
 * when the token is not good: callers map that to 401.
 */
export async function verifySessionToken(ctx: Ctx, token: string): Promise<JWTPayload> {
  const opts = { issuer: TOKEN_ISSUER, algorithms: [ALG], currentDate: ctx.clock.now() };
  try {
    return (await jwtVerify(token, (await held(ctx)).verifier, opts)).payload;
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_JWKS_NO_MATCHING_KEY") throw e;
    return (await jwtVerify(token, (await held(ctx, RETRY_MS)).verifier, opts)).payload;
  }
}

/** The public keys (JWKS) that verify session tokens: the signing key and any retired one not yet expired. */
export async function sessionJwks(ctx: Ctx): Promise<JSONWebKeySet> {
  return (await held(ctx)).jwks;
}
