// Secrets the API shows once, and the two ways it keeps them.
//
// Showing: a service wraps a freshly minted secret in revealOnce(). It serialises to its value in the response
// that minted it (REST JSON and GraphQL alike), and withoutSecrets() swaps it for null in anything that is
// stored (the Idempotency-Key record), so a replay returns the resource without the secret. Every route that
// reveals a secret (API keys, webhook signing secrets, and later form tokens, client secrets, install keys) goes
// through this one type; nothing else is needed to keep it out of stored responses.
//
// Keeping: a secret the server only verifies is stored as a hash (sha256Hex in crypto.ts). A secret the server
// must use again (webhook signing secrets sign every delivery) is sealed: AES-256-GCM under SECRET_KEY, bound to
// its purpose, so a database dump alone does not yield it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Config } from "../config";

export class OneTimeSecret {
  constructor(readonly value: string) {}
  toJSON() {
    return this.value;
  }
  /** graphql-js serialises String fields through valueOf */
  valueOf() {
    return this.value;
  }
  toString() {
    return this.value;
  }
}

export const revealOnce = (value: string) => new OneTimeSecret(value);

/**
 * The value a response shows; plain strings pass through. With a holder (GraphQL's context), the secret is also
 * noted there, because a GraphQL result is plain strings by the time it is stored: withoutSecrets(value, noted)
 * then blanks those strings too.
 */
export function revealed(v: OneTimeSecret | string | null | undefined, holder?: { revealedSecrets?: Set<string> }): string | null {
  if (v == null) return null;
  if (v instanceof OneTimeSecret && holder) (holder.revealedSecrets ??= new Set()).add(v.value);
  return String(v);
}

/** A deep copy with every OneTimeSecret (and every string in `noted`) replaced by null: what may be stored or replayed. */
export function withoutSecrets(value: unknown, noted?: Set<string>): unknown {
  if (value instanceof OneTimeSecret) return null;
  if (typeof value === "string" && noted?.has(value)) return null;
  if (Array.isArray(value)) return value.map((v) => withoutSecrets(v, noted));
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const plain = typeof (value as { toJSON?: unknown }).toJSON === "function" ? (value as { toJSON(): unknown }).toJSON() : value;
    if (plain !== value) return withoutSecrets(plain, noted);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v, noted)]));
  }
  return value;
}

/**
 * Text for a log line with every bearer secret we mint replaced by its prefix: paths carry some of them (the
 * update-card page /billing/pmt_…, quote links /q/qt_…, invitation links), and a log must not keep them.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(pmt|emb|inv|qt|qrf|dst|hof|whsec|extcs)_[A-Za-z0-9_-]{8,}/g, "$1_[redacted]")
    .replace(/\b(sk|pk)_([a-z0-9-]+)_[A-Za-z0-9]{8,}/g, "$1_$2_[redacted]");
}

// ---- sealed storage ----------------------------------------------------------------------------------------

const SEALED = "sealed:v1:";
const keys = new WeakMap<Config, Buffer>();

/**
 * The 32-byte key behind sealed secrets: SECRET_KEY when set (required in production); otherwise a random key
 * kept in DATA_DIR/secret.key, created on first use, so the embedded default needs no setting.
 */
export function secretKey(config: Config): Buffer {
  let key = keys.get(config);
  if (key) return key;
  let material = config.SECRET_KEY;
  if (!material) {
    if (config.isProduction) throw new Error("SECRET_KEY is required in production (32 or more characters; it seals webhook signing secrets)");
    const file = path.resolve(config.DATA_DIR, "secret.key");
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      try {
        writeFileSync(file, randomBytes(32).toString("base64url") + "\n", { flag: "wx", mode: 0o600 });
      } catch (e: any) {
        if (e?.code !== "EEXIST") throw e; // another process wrote it first: use theirs
      }
      chmodSync(file, 0o600);
    }
    material = readFileSync(file, "utf8").trim();
  }
  key = createHash("sha256").update(`quote-to-cash sealed secrets\0${material}`).digest();
  keys.set(config, key);
  return key;
}

/** Encrypts `plain` for storage; `purpose` is authenticated, so a value sealed for one use opens for no other. */
export function sealSecret(config: Config, purpose: string, plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", secretKey(config), iv);
  c.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return `${SEALED}${iv.toString("base64url")}.${body.toString("base64url")}.${c.getAuthTag().toString("base64url")}`;
}

export const isSealed = (stored: string) => stored.startsWith(SEALED);

/** Opens a sealed value; a value stored before sealing existed (plaintext) is returned as it is. */
export function openSecret(config: Config, purpose: string, stored: string): string {
  if (!isSealed(stored)) return stored;
  const [iv, body, tag] = stored.slice(SEALED.length).split(".");
  const d = createDecipheriv("aes-256-gcm", secretKey(config), Buffer.from(iv, "base64url"));
  d.setAAD(Buffer.from(purpose));
  d.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([d.update(Buffer.from(body, "base64url")), d.final()]).toString("utf8");
}
