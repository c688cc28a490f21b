// API keys: minted by dashboard sessions, pinned to one application + environment, stored as a hash only.
import { z } from "zod";
import { invalidatePrincipals } from "../shared/principal-cache";
import type { ApiKey } from "../generated/prisma/client";
import { type Ctx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { keyset, type PageQuery, toPage } from "../shared/pagination";
import { validateKeyScopes } from "../shared/scopes";
import { memberCanUseEnvironment, memberHasPermission } from "../shared/permissions";
import { requireDashboard, requirePermission, requireScope, requireTenant } from "../shared/guards";
import { isUuid } from "../shared/ids";

export const createApiKeyInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.string().min(1).max(100)).min(1).max(100),
});

export function keySegment(env: { slug: string; kind: string }) {
  return env.kind === "production" ? "live" : env.slug;
}

/** Mints a raw key for an environment; the caller stores only keyHash. */
export function mintKey(type: "secret" | "publishable", env: { slug: string; kind: string }) {
  const secret = randomToken(32);
  const rawKey = `${type === "secret" ? "sk" : "pk"}_${keySegment(env)}_${secret}`;
  return { rawKey, keyHash: sha256Hex(rawKey), keyPrefix: rawKey.slice(0, rawKey.length - secret.length + 6) };
}

export function apiKeyView(k: ApiKey) {
  return { id: k.id, name: k.name, type: k.type, scopes: k.scopes, keyPrefix: k.keyPrefix, applicationId: k.applicationId, environmentId: k.environmentId, createdAt: k.createdAt.toISOString() };
}

export async function listApiKeys(ctx: Ctx, page: PageQuery) {
  requireScope(ctx, "api_keys:read");
  const t = requireTenant(ctx);
  const ks = keyset(page);
  const rows = await ctx.db.apiKey.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, revokedAt: null, ...ks.where },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  return toPage(rows, page);
}

export async function createApiKey(ctx: Ctx, body: unknown) {
  const p = requireDashboardForKeys(ctx);
  const input = parseInput(createApiKeyInput, body);
  if (!p.environmentExplicit) {
    throw errors.validation([{ path: ["headers", "x-service-environment-id"], message: "Required: name the environment the key is pinned to" }]);
  }
  const t = requireTenant(ctx);
  requirePermission(ctx, "application:api_keys:write");
  const { type, scopes } = validateKeyScopes(input.scopes);
  return withTx(ctx, async (tx) => {
    const env = await tx.db.environment.findFirst({ where: { id: t.environmentId, workspaceId: t.workspaceId, status: "active" } });
    if (!env) throw new DomainError("environment_not_found", "Environment not found");
    const minted = mintKey(type, env);
    const row = await tx.db.apiKey.create({
      data: { ...t, name: input.name, type, scopes, keyHash: minted.keyHash, keyPrefix: minted.keyPrefix, createdByMember: p.member.id },
    });
    return { ...apiKeyView(row), rawKey: revealOnce(minted.rawKey) };
  });
}

/** Revokes a key anywhere in the caller's workspace that the member's roles and grants reach. */
export async function revokeApiKey(ctx: Ctx, id: string) {
  const p = requireDashboardForKeys(ctx);
  if (!isUuid(id)) throw errors.notFound("API key");
  const key = await ctx.db.apiKey.findFirst({ where: { id, workspaceId: p.workspace.id, revokedAt: null }, include: { environment: true } });
  const env = key && { id: key.environment.id, slug: key.environment.slug, kind: key.environment.kind as "production" | "non_production", providerEnvironment: key.environment.providerEnvironment as "sandbox" };
  if (!key || !env || !memberCanUseEnvironment(p.member, env)) throw errors.notFound("API key");
  if (!memberHasPermission(p.member, "application:api_keys:write", key.applicationId)) {
    throw errors.permissionDenied("Your role does not allow application:api_keys:write");
  }
  await withTx(ctx, async (tx) => {
    const res = await tx.db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: tx.clock.now() } });
    if (res.count === 0) throw errors.notFound("API key");
    await invalidatePrincipals(tx, { keyId: id }); // every process drops the key when this commits
  });
}

function requireDashboardForKeys(ctx: Ctx) {
  const p = ctx.principal;
  if (p?.type === "api_key" || p?.type === "extension_session") throw errors.forbidden("API keys and extension sessions cannot create or revoke API keys; use a dashboard session");
  return requireDashboard(ctx);
}
