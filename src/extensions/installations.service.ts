// Installs of published extension versions, one per application environment: install and reinstall (same row, same
// managed endpoint and signing secret, installSequence + 1), the suspend toggle, uninstall, merchant reads, and the
// install's deliveries, replay and test ping through the workspace webhook machinery (src/webhooks).
import { z } from "zod";
import type { Installation, Prisma } from "../generated/prisma/client";
import { type EventTenant, recordEvent } from "../events/events.service";
import { mintKey } from "../platform/api-keys.service";
import { requireDashboard, requirePermission, requirePrincipal, requireScope, requireTenant } from "../shared/guards";
import { invalidatePrincipals } from "../shared/principal-cache";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { deliveriesOf, deliveriesQuery, newSealedSigningSecret, openSigningSecret, replayDeliveryOf, sendToEndpoint } from "../webhooks/endpoints.service";
import { checkWebhookUrl } from "../webhooks/url-policy";
import { idLike, installationView, newId, pageFrom, parseList } from "./extensions.common";
import { queueInstallCallback } from "./install-callback.service";
import { checkConfigValues, manifestOf } from "./manifest";

export const installInput = z.strictObject({
  // a malformed id is bad input (422 naming versionId); a well-formed unknown or foreign one is 404 like the rest
  versionId: z.string().regex(/^ver_[A-Za-z0-9]{1,64}$/, "must be a version id (ver_…)"),
  config: z.record(z.string(), z.unknown()).optional(),
});

/** The environment facts an installation view shows (slug, kind, provider routing). */
const ENV_FACTS = { id: true, slug: true, kind: true, providerEnvironment: true, workspaceId: true } as const;

async function envOf(ctx: Ctx, environmentId: string) {
  return ctx.db.environment.findUniqueOrThrow({ where: { id: environmentId }, select: ENV_FACTS });
}

/**
 * Installation views with their environment and version facts: two statements whatever the number of installs (a
 * page of them), one after the other, since ctx.db may be a transaction, whose one connection takes one statement
 * at a time.
 */
async function viewsOf(ctx: Ctx, items: Installation[]) {
  if (!items.length) return [];
  const envs = await ctx.db.environment.findMany({ where: { id: { in: [...new Set(items.map((i) => i.environmentId))] } }, select: ENV_FACTS });
  const versionIds = [...new Set(items.map((i) => i.versionId).filter((v): v is string => v !== null))];
  const versions = versionIds.length ? await ctx.db.extensionVersion.findMany({ where: { id: { in: versionIds } }, select: { id: true, version: true } }) : [];
  const envById = new Map(envs.map((e) => [e.id, e]));
  const versionById = new Map(versions.map((v) => [v.id, v]));
  return items.map((i) => {
    const env = envById.get(i.environmentId);
    if (!env) throw new Error(`installation ${i.id}: environment ${i.environmentId} not found`);
    return installationView(i, env, i.versionId ? (versionById.get(i.versionId) ?? null) : null);
  });
}

async function viewOf(ctx: Ctx, i: Installation) {
  return (await viewsOf(ctx, [i]))[0];
}

export function installTenant(i: Installation, env: { kind: string }): EventTenant {
  return { workspaceId: i.workspaceId, applicationId: i.applicationId, environmentId: i.environmentId, environmentKind: env.kind };
}

/** Revokes every live key of an install now, in every process (principal cache). */
async function revokeInstallKeys(tx: Ctx, installationId: string) {
  const keys = await tx.db.apiKey.findMany({ where: { installationId, revokedAt: null }, select: { id: true } });
  if (!keys.length) return;
  await tx.db.apiKey.updateMany({ where: { id: { in: keys.map((k) => k.id) } }, data: { revokedAt: tx.clock.now() } });
  for (const k of keys) await invalidatePrincipals(tx, { keyId: k.id });
}

/** A new installation API key: an ordinary secret key pinned to the install's tenant with the version's scopes. */
export async function mintInstallKey(tx: Ctx, i: Installation, scopes: string[], name: string, env: { slug: string; kind: string }) {
  const minted = mintKey("secret", env);
  const row = await tx.db.apiKey.create({
    data: {
      workspaceId: i.workspaceId,
      applicationId: i.applicationId,
      environmentId: i.environmentId,
      name: `Extension: ${name}`.slice(0, 100),
      type: "secret",
      scopes,
      keyHash: minted.keyHash,
      keyPrefix: minted.keyPrefix,
      installationId: i.id,
      createdAt: tx.clock.now(),
    },
  });
  await tx.db.installation.update({ where: { id: i.id }, data: { apiKeyId: row.id } });
  return { row, rawKey: minted.rawKey };
}

/**
 * POST /extensions/{id}/install: a dashboard session names the application and environment (headers). Only a
 * published version installs. A first install creates the row, its key and (with a webhookUrl) a managed endpoint;
 * installing again reuses the row and endpoint, keeps the signing secret and bumps installSequence.
 */
export async function installExtension(ctx: Ctx, extensionId: string, body: unknown) {
  const p = requirePrincipal(ctx);
  if (p.type !== "clerk_jwt") throw errors.forbidden("Installing an extension needs a dashboard session");
  const d = requireDashboard(ctx);
  const input = parseInput(installInput, body ?? {});
  if (!d.environmentExplicit) throw errors.validation([{ path: ["headers", "x-service-environment-id"], message: "Required: the environment to install into" }]);
  const t = requireTenant(ctx);
  requirePermission(ctx, "application:extensions:write");
  const ext = idLike("ext", extensionId) ? await ctx.db.extension.findUnique({ where: { id: extensionId } }) : null;
  if (!ext || ext.lifecycle === "draft") throw errors.notFound("Extension");
  if (ext.lifecycle === "delisted") throw new DomainError("extension_delisted", "This extension is delisted: it takes no new installs");
  const version = idLike("ver", input.versionId) ? await ctx.db.extensionVersion.findFirst({ where: { id: input.versionId, extensionId: ext.id } }) : null;
  if (!version) throw errors.notFound("Version");
  if (version.status !== "published") throw new DomainError("version_not_published", "Only a published version can be installed", { status: version.status });
  const manifest = manifestOf(version.manifest);
  const config = input.config ?? {};
  checkConfigValues(manifest.configSchema, config);
  const env = await envOf(ctx, t.environmentId);
  const webhookUrl = manifest.webhookUrl ? await checkWebhookUrl(manifest.webhookUrl, env.kind, ctx.deps.resolver) : null;

  return withTx(ctx, async (tx) => {
    const now = tx.clock.now();
    // Serialises two installs of the same extension into the same environment (the unique key holds either way).
    const lockKey = `install:${ext.id}:${t.applicationId}:${t.environmentId}`;
    // read back as text: Prisma's raw path (this runs in its transaction) cannot decode a `void` column
    await tx.sql.selectNoFrom((eb) => eb.cast<string>(eb.fn("pg_advisory_xact_lock", [eb.fn("hashtext", [eb.val(lockKey)])]), "text").as("locked")).execute();
    const existing = await tx.db.installation.findUnique({ where: { extensionId_applicationId_environmentId: { extensionId: ext.id, applicationId: t.applicationId, environmentId: t.environmentId } } });
    const common = { versionId: version.id, status: "active", config: config as Prisma.InputJsonValue, installedBy: d.member.id, installedAt: now, suspendedAt: null, suspendedReason: null, uninstalledAt: null, uninstallReason: null };
    let inst = existing
      ? await tx.db.installation.update({ where: { id: existing.id }, data: { ...common, installSequence: { increment: 1 } } })
      : await tx.db.installation.create({ data: { id: newId("inst"), extensionId: ext.id, workspaceId: t.workspaceId, applicationId: t.applicationId, environmentId: t.environmentId, ...common, createdAt: now } });

    let signingSecret: string | null = null;
    const endpoint = inst.webhookEndpointId ? await tx.db.webhookEndpoint.findUnique({ where: { id: inst.webhookEndpointId } }) : null;
    if (webhookUrl) {
      if (endpoint) {
        const ep = await tx.db.webhookEndpoint.update({
          where: { id: endpoint.id },
          data: { url: webhookUrl, enabledEvents: manifest.eventSubscriptions, isActive: true, deletedAt: null, authFailureStreak: 0, alertRaisedForStreak: false },
        });
        signingSecret = openSigningSecret(tx, ep);
      } else {
        const s = newSealedSigningSecret(tx);
        const ep = await tx.db.webhookEndpoint.create({
          data: { workspaceId: t.workspaceId, applicationId: t.applicationId, environmentId: t.environmentId, url: webhookUrl, enabledEvents: manifest.eventSubscriptions, secret: s.sealed, installationId: inst.id, description: `Extension ${ext.name}` },
        });
        inst = await tx.db.installation.update({ where: { id: inst.id }, data: { webhookEndpointId: ep.id } });
        signingSecret = s.secret;
      }
    } else if (endpoint) {
      // this version declares no webhook: the endpoint stays (a later version may bring it back) but hears nothing
      await tx.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { isActive: false, enabledEvents: [] } });
    }

    await revokeInstallKeys(tx, inst.id);
    const key = await mintInstallKey(tx, inst, manifest.scopes, ext.name, env);
    inst = await tx.db.installation.findUniqueOrThrow({ where: { id: inst.id } });
    if (ext.clientId && ext.clientSecretHash && ext.installCallbackUrl) await queueInstallCallback(tx, inst);
    // Delivery rule 6's install-time ping: the extension learns its endpoint works (its first answer may be a 401,
    // before it has fetched the signing secret; the retry then verifies).
    if (webhookUrl && inst.webhookEndpointId) {
      await sendToEndpoint(tx, installTenant(inst, env), inst.webhookEndpointId, "extension.ping", { installationId: inst.id, extensionId: ext.id, endpointId: inst.webhookEndpointId, reason: "install" });
    }
    return {
      ...installationView(inst, env, version),
      apiKey: revealOnce(key.rawKey),
      keyPrefix: key.row.keyPrefix,
      webhookSigningSecret: signingSecret === null ? null : revealOnce(signingSecret),
    };
  });
}

/** A dashboard session allowed to manage the application's extensions, or a key holding `scope`. */
function requireMerchant(ctx: Ctx, scope: "extensions:read" | "extensions:install") {
  const p = requireScope(ctx, scope);
  const t = requireTenant(ctx);
  if (p.member && scope === "extensions:install") requirePermission(ctx, "application:extensions:write");
  return { p, t };
}

/** An install of the caller's tenant (any status); another tenant's id is 404 like an unknown one. */
async function tenantInstall(ctx: Ctx, t: { applicationId: string; environmentId: string }, id: string) {
  const row = idLike("inst", id) ? await ctx.db.installation.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!row) throw errors.notFound("Installation");
  return row;
}

/**
 * The install a credential acts for: an installation API key's, or an extension session's (the same extension
 * speaking through its iframe, so held to the same install). null for merchant keys, tokens and dashboard sessions.
 */
function actingInstall(ctx: Ctx): string | null {
  return ctx.principal?.apiKey?.installationId ?? ctx.principal?.extension?.installationId ?? null;
}

/** An install's own credentials act for that install only. */
function ownInstallOnly(ctx: Ctx, id: string) {
  const own = actingInstall(ctx);
  if (own && own !== id) throw errors.notFound("Installation");
}

export async function getInstallation(ctx: Ctx, id: string) {
  const { t } = requireMerchant(ctx, "extensions:read");
  ownInstallOnly(ctx, id);
  return viewOf(ctx, await tenantInstall(ctx, t, id));
}

export const installationFilters = { status: z.enum(["active", "suspended", "uninstalled"]).optional(), extensionId: z.string().max(100).optional() };

/** GET /extension-installations: the tenant's installs, newest first. */
export async function listInstallations(ctx: Ctx, query: unknown) {
  const { t } = requireMerchant(ctx, "extensions:read");
  const raw = (query ?? {}) as Record<string, unknown>;
  const { status, extensionId, ...rest } = raw;
  const f = parseInput(z.strictObject(installationFilters), { status, extensionId }, ["query"]);
  const q = parseList(rest);
  const own = actingInstall(ctx);
  const rows = await ctx.db.installation.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, ...(own ? { id: own } : {}), ...(f.status ? { status: f.status } : {}), ...(f.extensionId ? { extensionId: f.extensionId } : {}), ...q.where },
    orderBy: q.orderBy,
    take: q.take,
  });
  const page = pageFrom(rows, q.limit);
  return { items: await viewsOf(ctx, page.items), pagination: page.pagination };
}

/**
 * POST /extensions/{id}/suspend: the tenant's install of that extension flips active <-> suspended. A suspended
 * install's endpoint receives nothing (its pending deliveries dead-letter) and its key keeps working.
 */
export async function toggleSuspend(ctx: Ctx, extensionId: string) {
  const { t } = requireMerchant(ctx, "extensions:install");
  if (actingInstall(ctx)) throw errors.forbidden("An installation's API key or extension session cannot suspend installs");
  return withTx(ctx, async (tx) => {
    const inst = idLike("ext", extensionId)
      ? await tx.db.installation.findUnique({ where: { extensionId_applicationId_environmentId: { extensionId, applicationId: t.applicationId, environmentId: t.environmentId } } })
      : null;
    if (!inst || inst.status === "uninstalled") throw errors.notFound("Installation");
    const to = inst.status === "active" ? "suspended" : "active";
    // endpoint row first, as the delivery worker locks it before the install (install-health.service.ts): one order, no deadlock
    if (inst.webhookEndpointId) await tx.sql.selectFrom("WebhookEndpoint").select("id").where("id", "=", inst.webhookEndpointId).forUpdate().execute();
    const res = await tx.db.installation.updateMany({
      where: { id: inst.id, status: inst.status },
      data: to === "suspended" ? { status: to, suspendedAt: tx.clock.now(), suspendedReason: "merchant" } : { status: to, suspendedAt: null, suspendedReason: null },
    });
    if (res.count === 0) throw new DomainError("installation_changed", "The installation changed meanwhile: read it and try again");
    if (inst.webhookEndpointId) await setEndpointActive(tx, inst, to === "active");
    return viewOf(tx, await tx.db.installation.findUniqueOrThrow({ where: { id: inst.id } }));
  });
}

async function setEndpointActive(tx: Ctx, inst: Installation, active: boolean) {
  if (!inst.webhookEndpointId) return;
  const version = inst.versionId ? await tx.db.extensionVersion.findUnique({ where: { id: inst.versionId } }) : null;
  const declares = Boolean(version && manifestOf(version.manifest).webhookUrl);
  await tx.db.webhookEndpoint.update({ where: { id: inst.webhookEndpointId }, data: { isActive: active && declares } });
}

export const uninstallInput = z.strictObject({});

/**
 * Uninstall (merchant): the state is set first, the keys die at once (every process), and extension.uninstalled
 * goes to the install's endpoint only. The endpoint stops hearing subscribed events but still receives the notice.
 */
export async function uninstall(ctx: Ctx, id: string, body: unknown) {
  const { t } = requireMerchant(ctx, "extensions:install");
  parseInput(uninstallInput, body ?? {});
  if (actingInstall(ctx)) throw errors.forbidden("An installation's API key or extension session cannot uninstall");
  const inst = await tenantInstall(ctx, t, id);
  return uninstallInstallation(ctx, inst, "merchant");
}

/** The one uninstall path (merchant now; staff takedowns call it with staff_takedown). */
async function uninstallInstallation(ctx: Ctx, inst: Installation, reason: "merchant" | "staff_takedown") {
  return withTx(ctx, async (tx) => {
    const now = tx.clock.now();
    const res = await tx.db.installation.updateMany({
      where: { id: inst.id, status: { in: ["active", "suspended"] } },
      data: { status: "uninstalled", uninstalledAt: now, uninstallReason: reason, suspendedAt: null, suspendedReason: null },
    });
    if (res.count === 0) throw errors.notFound("Installation");
    await revokeInstallKeys(tx, inst.id);
    const env = await envOf(tx, inst.environmentId);
    if (inst.webhookEndpointId) {
      await tx.db.webhookEndpoint.update({ where: { id: inst.webhookEndpointId }, data: { enabledEvents: [], isActive: true } });
      await recordEvent(tx, installTenant(inst, env), "extension.uninstalled",
        { installationId: inst.id, extensionId: inst.extensionId, applicationId: inst.applicationId, uninstalledAt: now.toISOString(), reason },
        { onlyEndpointId: inst.webhookEndpointId },
      );
    }
    return viewOf(tx, await tx.db.installation.findUniqueOrThrow({ where: { id: inst.id } }));
  });
}

// ---- the install's deliveries (merchant side) --------------------------------------------------------------------

/** Rule 5: another tenant's, unknown and non-active installs are one 404. */
async function activeTenantInstall(ctx: Ctx, t: { applicationId: string; environmentId: string }, id: string) {
  ownInstallOnly(ctx, id);
  const inst = await tenantInstall(ctx, t, id);
  if (inst.status !== "active") throw errors.notFound("Installation");
  return inst;
}

function endpointOf(inst: Installation) {
  if (!inst.webhookEndpointId) throw new DomainError("no_webhook_endpoint", "This installation's version declares no webhookUrl: it has no webhook endpoint");
  return inst.webhookEndpointId;
}

export async function listInstallDeliveries(ctx: Ctx, id: string, query: unknown) {
  const { t } = requireMerchant(ctx, "extensions:read");
  const q = parseInput(deliveriesQuery, query ?? {}, ["query"]);
  const inst = await activeTenantInstall(ctx, t, id);
  return deliveriesOf(ctx, endpointOf(inst), q);
}

export async function replayInstallDelivery(ctx: Ctx, id: string, deliveryId: string) {
  const { t } = requireMerchant(ctx, "extensions:install");
  const inst = await activeTenantInstall(ctx, t, id);
  return replayDeliveryOf(ctx, endpointOf(inst), deliveryId);
}

/** POST /installations/{id}/test: a signed extension.ping to the install's endpoint, through the normal delivery path. */
export async function testInstallation(ctx: Ctx, id: string) {
  const p = requirePrincipal(ctx);
  // the install's own key may ping its endpoint whatever its scopes; anyone else needs extensions:install
  const t = p.apiKey?.installationId === id && p.apiKey.type === "secret" ? requireTenant(ctx) : requireMerchant(ctx, "extensions:install").t;
  const inst = await activeTenantInstall(ctx, t, id);
  const endpointId = endpointOf(inst);
  const env = await envOf(ctx, inst.environmentId);
  return withTx(ctx, (tx) => sendToEndpoint(tx, installTenant(inst, env), endpointId, "extension.ping", { installationId: inst.id, extensionId: inst.extensionId, endpointId, reason: "test" }));
}
