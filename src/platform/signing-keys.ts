// RS256 signing keys, one signing key per purpose ("extensions": install callback tokens and extension session
// tokens; "oauth": access tokens). A key is generated on first use, its private half stored sealed with SECRET_KEY
// (shared/secrets.ts, bound to the purpose), and rotated by `npm run keys:rotate`: the new key signs from then on,
// the old one stays in the purpose's JWKS until its tokens can no longer be valid (expiresAt), then drops out.
import { randomUUID } from "node:crypto";
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, type JWK, type JWTPayload, SignJWT } from "jose";
import type { Prisma } from "../generated/prisma/client";
import type { Deps } from "../shared/context";
import { openSecret, sealSecret } from "../shared/secrets";

type SigningPurpose = "extensions" | "oauth" | (string & {});

/** How long a retired key stays in the JWKS by default: longer than any token it signed lives. */
const DEFAULT_RETIRED_KEY_TTL_SECONDS = 24 * 3600;

interface CurrentKey {
  kid: string;
  alg: "RS256";
  privateKey: CryptoKey;
}

const sealPurpose = (purpose: string) => `signing-key:${purpose}`;

/** Every kid starts with its purpose: a verifier can tell which keys (and which token kind) a JWT belongs to. */
export const SIGNING_KID_PREFIX = { oauth: "oauth-", extensions: "extensions-" } as const;
// Imported private keys per kid: importing PKCS#8 costs a millisecond or two, signing happens per request.
const imported = new Map<string, Promise<CryptoKey>>();

async function createKey(deps: Deps, purpose: SigningPurpose) {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const kid = `${purpose}-${randomUUID()}`;
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const pem = await exportPKCS8(privateKey);
  return deps.prisma.signingKey.create({
    data: { kid, purpose, alg: "RS256", publicJwk: publicJwk as Prisma.InputJsonValue, privateSealed: sealSecret(deps.config, sealPurpose(purpose), pem), createdAt: deps.clock.now() },
  });
}

async function activeRow(deps: Deps, purpose: SigningPurpose) {
  return deps.prisma.signingKey.findFirst({ where: { purpose, retiredAt: null }, orderBy: [{ createdAt: "desc" }, { kid: "desc" }] });
}

/**
 * The key that signs now, created on first use. Two processes starting at once may each create one: both are
 * then published, and the newest signs (no token is ever signed by a key missing from the JWKS).
 */
export async function currentSigningKey(deps: Deps, purpose: SigningPurpose): Promise<CurrentKey> {
  const row = (await activeRow(deps, purpose)) ?? (await createKey(deps, purpose));
  let key = imported.get(row.kid);
  if (!key) {
    key = importPKCS8(openSecret(deps.config, sealPurpose(purpose), row.privateSealed), "RS256");
    imported.set(row.kid, key);
    key.catch(() => imported.delete(row.kid));
  }
  return { kid: row.kid, alg: "RS256", privateKey: await key };
}

/** The purpose's public keys: the signing key and retired ones whose tokens may still be valid. */
export async function publicJwks(deps: Deps, purpose: SigningPurpose): Promise<{ keys: JWK[] }> {
  const now = deps.clock.now();
  let rows = await deps.prisma.signingKey.findMany({
    where: { purpose, OR: [{ retiredAt: null }, { expiresAt: null }, { expiresAt: { gt: now } }] },
    orderBy: [{ createdAt: "desc" }, { kid: "desc" }],
  });
  if (!rows.some((r) => r.retiredAt === null)) {
    await currentSigningKey(deps, purpose);
    rows = await deps.prisma.signingKey.findMany({ where: { purpose, OR: [{ retiredAt: null }, { expiresAt: { gt: now } }] }, orderBy: [{ createdAt: "desc" }, { kid: "desc" }] });
  }
  return { keys: rows.map((r) => r.publicJwk as JWK) };
}

/**
 * A new signing key; the previous ones are retired and stay in the JWKS for `retiredTtlSeconds` (default a day:
 * longer than any token they signed). Returns the new kid and the retired ones.
 */
export async function rotateSigningKey(deps: Deps, purpose: SigningPurpose, opts: { retiredTtlSeconds?: number } = {}) {
  const now = deps.clock.now();
  const ttl = opts.retiredTtlSeconds ?? DEFAULT_RETIRED_KEY_TTL_SECONDS;
  const old = await deps.prisma.signingKey.findMany({ where: { purpose, retiredAt: null }, select: { kid: true } });
  const created = await createKey(deps, purpose);
  await deps.prisma.signingKey.updateMany({
    where: { purpose, kid: { in: old.map((o) => o.kid) } },
    data: { retiredAt: now, expiresAt: new Date(now.getTime() + ttl * 1000) },
  });
  return { kid: created.kid, retired: old.map((o) => o.kid) };
}

/** Signs a JWT with the purpose's current key (RS256, `kid` in the header). */
export async function signJwt(deps: Deps, purpose: SigningPurpose, claims: JWTPayload, opts: { issuer: string; subject: string; audience: string; ttlSeconds: number }) {
  const key = await currentSigningKey(deps, purpose);
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT" })
    .setIssuer(opts.issuer)
    .setSubject(opts.subject)
    .setAudience(opts.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + opts.ttlSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}
