// What an extension does for itself: enumerate its installs (Basic client credentials), read an install's signing
// secret, mint a new installation API key (the old one grace-expires), rotate the signing secret (dual-signed window,
// extension.webhook_secret_rotated). Rule 5: an install of another extension, an unknown one and a non-active one
// are the same 404.
import { z } from "zod";
import type { Installation } from "../generated/prisma/client";
import { recordEvent } from "../events/events.service";
import { invalidatePrincipals } from "../shared/principal-cache";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { openSigningSecret, previousSecretOf, rotateSigningSecretOf } from "../webhooks/endpoints.service";
import { idLike } from "./extensions.common";
import { installTenant, mintInstallKey } from "./installations.service";
import { manifestOf } from "./manifest";

const MAX_GRACE = 604_800;
export const graceInput = z.strictObject({ graceSeconds: z.number().int().min(0).max(MAX_GRACE).default(86_400) });

/** Basic client credentials; any other valid credential (an API key, an installation's key, a dashboard session) is 403. */
function requireClient(ctx: Ctx) {
  if (ctx.extensionClient) return ctx.extensionClient;
  if (ctx.principal) throw errors.forbidden("Use the extension's client credentials (Authorization: Basic base64(clientId:clientSecret))");
  throw errors.unauthorized("Send the extension's client credentials: Authorization: Basic base64(clientId:clientSecret)");
}

/**
 * The install the caller speaks for: with client credentials, any active install of its extension; with an
 * installation API key, its own install. Anything else is 404 (rule 5).
 */
async function selfInstall(ctx: Ctx, id: string, allowInstallKey: boolean): Promise<Installation> {
  let where: { id: string; extensionId?: string } | null = null;
  if (ctx.extensionClient) where = { id, extensionId: ctx.extensionClient.extensionId };
  else if (allowInstallKey && ctx.principal?.apiKey?.installationId) {
    if (ctx.principal.apiKey.installationId !== id) throw errors.notFound("Installation");
    where = { id };
  } else if (ctx.principal) {
    throw errors.forbidden(allowInstallKey ? "Use the extension's client credentials or the installation's API key" : "Use the extension's client credentials (Authorization: Basic)");
  } else requireClient(ctx);
  const inst = idLike("inst", id) && where ? await ctx.db.installation.findFirst({ where }) : null;
  if (!inst || inst.status !== "active") throw errors.notFound("Installation");
  return inst;
}

export const myInstallationsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(300).optional(),
});

/** GET /extensions/me/installations: every install of the caller's extension, any status, newest first. */
export async function listMyInstallations(ctx: Ctx, query: unknown) {
  const client = requireClient(ctx);
  const q = parseInput(myInstallationsQuery, query ?? {}, ["query"]);
  let after: { createdAt: Date; id: string } | null = null;
  if (q.cursor) {
    try {
      const [c, i] = JSON.parse(Buffer.from(q.cursor, "base64url").toString("utf8"));
      if (typeof i !== "string" || !idLike("inst", i) || Number.isNaN(new Date(c).getTime())) throw new Error("bad");
      after = { createdAt: new Date(c), id: i };
    } catch {
      throw errors.validation([{ path: ["query", "cursor"], message: "Invalid cursor" }]);
    }
  }
  const rows = await ctx.db.installation.findMany({
    where: { extensionId: client.extensionId, ...(after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {}) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
  });
  const hasMore = rows.length > q.limit;
  const items = hasMore ? rows.slice(0, q.limit) : rows;
  const last = items[items.length - 1];
  return {
    items: items.map((i) => ({
      installationId: i.id,
      extensionId: i.extensionId,
      workspaceId: i.workspaceId,
      applicationId: i.applicationId,
      environmentId: i.environmentId,
      status: i.status as "active" | "suspended" | "uninstalled",
      installSequence: i.installSequence,
      versionId: i.versionId,
      installedAt: i.installedAt.toISOString(),
    })),
    pagination: { cursor: hasMore ? Buffer.from(JSON.stringify([last.createdAt.toISOString(), last.id])).toString("base64url") : null, hasMore },
  };
}

async function endpointOf(ctx: Ctx, inst: Installation) {
  const version = inst.versionId ? await ctx.db.extensionVersion.findUnique({ where: { id: inst.versionId } }) : null;
  const ep = inst.webhookEndpointId ? await ctx.db.webhookEndpoint.findUnique({ where: { id: inst.webhookEndpointId } }) : null;
  if (!ep || !version || !manifestOf(version.manifest).webhookUrl) {
    throw new DomainError("no_webhook_endpoint", "This installation's version declares no webhookUrl: there is no signing secret");
  }
  return ep;
}

/** GET /installations/{id}/webhook-secret: idempotent; the current secret and the end of a rotation window. */
export async function readWebhookSecret(ctx: Ctx, id: string) {
  const inst = await selfInstall(ctx, id, true);
  const ep = await endpointOf(ctx, inst);
  return {
    installationId: inst.id,
    installSequence: inst.installSequence,
    endpointId: ep.id,
    url: ep.url,
    enabledEvents: ep.enabledEvents,
    signingSecret: openSigningSecret(ctx, ep),
    previousSecretExpiresAt: previousSecretOf(ep, ctx.clock.now())?.expiresAt.toISOString() ?? null,
  };
}

/**
 * POST /installations/{id}/api-key (client credentials only): always a new key with the pinned version's scopes;
 * the previous one works for graceSeconds more (0: dead now). 409 version_not_found / 404 environment_not_found when
 * the install's pinned rows are gone.
 */
export async function mintInstallationApiKey(ctx: Ctx, id: string, body: unknown) {
  requireClient(ctx);
  const { graceSeconds } = parseInput(graceInput, body ?? {});
  const inst = await selfInstall(ctx, id, false);
  return withTx(ctx, async (tx) => {
    const version = inst.versionId ? await tx.db.extensionVersion.findUnique({ where: { id: inst.versionId } }) : null;
    if (!version) throw new DomainError("version_not_found", "The installation's pinned version no longer exists");
    const env = await tx.db.environment.findFirst({ where: { id: inst.environmentId, status: "active" } });
    if (!env) throw new DomainError("environment_not_found", "The installation's environment no longer exists or is archived");
    const ext = await tx.db.extension.findUniqueOrThrow({ where: { id: inst.extensionId }, select: { name: true } });
    const now = tx.clock.now();
    const previousKeyExpiresAt = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
    const live = await tx.db.apiKey.findMany({ where: { installationId: inst.id, revokedAt: null }, select: { id: true, expiresAt: true } });
    for (const k of live) {
      // a key already grace-expiring keeps the earlier end; the current one ends after the grace (or now)
      if (previousKeyExpiresAt === null) await tx.db.apiKey.update({ where: { id: k.id }, data: { revokedAt: now } });
      else if (!k.expiresAt || k.expiresAt > previousKeyExpiresAt) await tx.db.apiKey.update({ where: { id: k.id }, data: { expiresAt: previousKeyExpiresAt } });
      await invalidatePrincipals(tx, { keyId: k.id });
    }
    const key = await mintInstallKey(tx, inst, manifestOf(version.manifest).scopes, ext.name, env);
    return { installationId: inst.id, apiKey: revealOnce(key.rawKey), keyPrefix: key.row.keyPrefix, previousKeyExpiresAt: previousKeyExpiresAt?.toISOString() ?? null };
  });
}

/**
 * POST /installations/{id}/rotate-webhook-secret: a new secret (shown once); the old one keeps signing beside it
 * for graceSeconds (0: at once). extension.webhook_secret_rotated goes to the endpoint, signed with both.
 */
export async function rotateInstallationWebhookSecret(ctx: Ctx, id: string, body: unknown) {
  const { graceSeconds } = parseInput(graceInput, body ?? {});
  const inst = await selfInstall(ctx, id, true);
  const ep = await endpointOf(ctx, inst);
  return withTx(ctx, async (tx) => {
    const r = await rotateSigningSecretOf(tx, ep, graceSeconds);
    const env = await tx.db.environment.findUniqueOrThrow({ where: { id: inst.environmentId }, select: { kind: true } });
    const previousSecretExpiresAt = r.previousSecretExpiresAt?.toISOString() ?? null;
    await recordEvent(tx, installTenant(inst, env), "extension.webhook_secret_rotated",
      { installationId: inst.id, extensionId: inst.extensionId, endpointId: ep.id, rotatedAt: tx.clock.now().toISOString(), previousSecretExpiresAt },
      { onlyEndpointId: ep.id },
    );
    return { installationId: inst.id, endpointId: ep.id, signingSecret: revealOnce(r.secret), previousSecretExpiresAt };
  });
}
