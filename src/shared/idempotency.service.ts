// Idempotency-Key records (decisions.md part 1): per credential, 24 hours, claimed with a unique insert so
// concurrent requests with one key across processes produce one execution.
import { z } from "zod";
import type { Ctx } from "./context";
import { isUniqueViolation } from "./context";
import { sha256Hex } from "./crypto";
import { DomainError, errors } from "./errors";
import { stableStringify } from "./json";

const TTL_MS = 24 * 3600_000;
/** An in-progress claim older than this is taken to belong to a crashed request and may be taken over. */
const STALE_MS = 60_000;

const idempotencyKeyHeader = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces");

type Claim =
  | { kind: "claimed"; id: string }
  | { kind: "replay"; status: number; body: unknown };

/**
 * Whose records a key belongs to: the authenticated credential, else the signed-in user's session, the wallet client
 * token or the extension client (each its own credential: two of them behind one address never share a replay),
 * else, for keyless routes, the address.
 */
export function idempotencyOwner(ctx: Ctx): string {
  if (ctx.principal) return ctx.principal.credentialId;
  if (ctx.sessionUser) return `session:${ctx.sessionUser.sessionId}`;
  if (ctx.wallet) return `pm_token:${ctx.wallet.tokenId}`;
  if (ctx.extensionClient) return `extc:${ctx.extensionClient.clientId}`;
  return `public:${ctx.ip ?? "unknown"}`;
}

export function requestHash(method: string, path: string, body: unknown) {
  return sha256Hex(`${method} ${path}\n${stableStringify(body ?? null)}`);
}

export async function claimIdempotencyKey(ctx: Ctx, credentialId: string, rawKey: string, hash: string): Promise<Claim> {
  const parsed = idempotencyKeyHeader.safeParse(rawKey);
  if (!parsed.success) throw errors.validation([{ path: ["headers", "idempotency-key"], message: `Idempotency-Key must be 1 to 255 ${parsed.error.issues[0].message.includes("ASCII") ? "printable ASCII characters" : "characters"}` }]);
  const key = parsed.data;
  const now = ctx.clock.now();
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const row = await ctx.db.idempotencyKey.create({
        data: { credentialId, key, requestHash: hash, expiresAt: new Date(now.getTime() + TTL_MS) },
      });
      return { kind: "claimed", id: row.id };
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
    const existing = await ctx.db.idempotencyKey.findUnique({ where: { credentialId_key: { credentialId, key } } });
    if (!existing) continue; // deleted between our insert and read: claim again
    if (existing.expiresAt <= now) {
      await ctx.db.idempotencyKey.deleteMany({ where: { id: existing.id, expiresAt: { lte: now } } });
      continue;
    }
    if (existing.requestHash !== hash) {
      throw new DomainError("idempotency_key_reused", "This Idempotency-Key was already used with a different request body", { key });
    }
    if (existing.state === "completed") {
      return { kind: "replay", status: existing.responseStatus ?? 200, body: existing.responseBody };
    }
    if (now.getTime() - existing.createdAt.getTime() > STALE_MS) {
      const taken = await ctx.db.idempotencyKey.updateMany({
        where: { id: existing.id, state: "in_progress", createdAt: existing.createdAt },
        data: { createdAt: now },
      });
      if (taken.count === 1) return { kind: "claimed", id: existing.id };
    }
    throw new DomainError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry later", { key });
  }
  throw new DomainError("idempotency_in_progress", "A request with this Idempotency-Key is still being processed; retry later", { key });
}

/**
 * Records the outcome. Server errors, malformed requests and auth failures release the key (a retry runs
 * again, as Stripe does for requests that never started executing); everything else is replayed.
 */
export async function completeIdempotencyKey(ctx: Ctx, id: string, status: number, body: unknown) {
  // REST error bodies carry error.code; GraphQL results carry errors[0].extensions.code.
  const code = ((body as any)?.error?.code ?? (body as any)?.errors?.[0]?.extensions?.code) as string | undefined;
  const release = status >= 500 || status === 401 || status === 429 || code === "validation_error" || code === "invalid_json" || code === "internal_error" || code === "unauthorized" || code === "rate_limited";
  if (release) {
    await ctx.db.idempotencyKey.deleteMany({ where: { id } });
    return;
  }
  await ctx.db.idempotencyKey.update({
    where: { id },
    data: { state: "completed", responseStatus: status, responseBody: (body ?? null) as any },
  });
}
