// The OAuth signing key in the forms the authorization server and the API need, on top of the shared key store
// (platform/signing-keys.ts, purpose "oauth"): the private JWK for oidc-provider's keystore, and the public JWKS for
// verifying access tokens, kept in memory for a minute (re-read at once when a token names an unknown kid).
import { createPrivateKey } from "node:crypto";
import type { JWK } from "jose";
import type { Deps } from "../shared/context";
import { openSecret } from "../shared/secrets";
import { currentSigningKey, publicJwks } from "../platform/signing-keys";

const PURPOSE = "oauth";
const JWKS_CACHE_MS = 60_000;

/** The current signing key as a private JWK (kid, alg RS256, use sig), created on first use. */
export async function oauthSigningJwk(deps: Deps): Promise<{ kid: string; jwk: JWK }> {
  const { kid } = await currentSigningKey(deps, PURPOSE);
  const row = await deps.prisma.signingKey.findUniqueOrThrow({ where: { kid } });
  const jwk = createPrivateKey(openSecret(deps.config, `signing-key:${PURPOSE}`, row.privateSealed)).export({ format: "jwk" }) as JWK;
  return { kid, jwk: { ...jwk, kid, alg: "RS256", use: "sig" } };
}

const jwksCache = new WeakMap<Deps, { at: number; jwks: Promise<{ keys: JWK[] }> }>();

/** The public JWKS of the OAuth keys, from memory when read less than a minute ago (or re-read when `fresh`). */
export function oauthJwks(deps: Deps, fresh = false): Promise<{ keys: JWK[] }> {
  const hit = jwksCache.get(deps);
  if (hit && !fresh && Date.now() - hit.at < JWKS_CACHE_MS) return hit.jwks;
  const jwks = publicJwks(deps, PURPOSE);
  jwksCache.set(deps, { at: Date.now(), jwks });
  jwks.catch(() => jwksCache.delete(deps));
  return jwks;
}

/** The kid new OAuth tokens are signed with (the provider is rebuilt when it changes). */
export async function currentOAuthKid(deps: Deps) {
  return (await currentSigningKey(deps, PURPOSE)).kid;
}
