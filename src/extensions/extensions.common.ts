// Shared by the extension services: ids, the publisher guard, cursor pages over prefixed ids, and the views.
import { z } from "zod";
import type { Extension, ExtensionVersion, Installation } from "../generated/prisma/client";
import { requireDashboard, requirePrincipal } from "../shared/guards";
import { memberHasPermission } from "../shared/permissions";
import type { MemberInfo, Principal } from "../shared/principal";
import type { Ctx } from "../shared/context";
import { randomToken } from "../shared/crypto";
import { errors, parseInput } from "../shared/errors";
import { hasScope } from "../shared/scopes";
import { manifestOf, manifestOfRow } from "./manifest";

export const newId = (prefix: "ext" | "ver" | "inst" | "extc") => `${prefix}_${randomToken(24)}`;
export const idLike = (prefix: string, id: string) => new RegExp(`^${prefix}_[A-Za-z0-9]{1,64}$`).test(id);

/** A member who may manage extensions: a workspace role, or admin/developer on some application. */
function canPublish(m: MemberInfo) {
  return m.workspaceRole !== null || m.applicationRoles.some((r) => memberHasPermission(m, "application:extensions:write", r.applicationId));
}

/** Publisher routes: a dashboard session of the publishing workspace whose roles allow managing extensions. */
export function requirePublisher(ctx: Ctx) {
  const p = ctx.principal;
  if (p?.type === "api_key") throw errors.forbidden("Publishing extensions needs a dashboard session");
  const d = requireDashboard(ctx);
  if (!canPublish(d.member)) throw errors.permissionDenied("Your role does not allow application:extensions:write");
  return d;
}

/**
 * Any credential of the publishing workspace with extensions:write: a secret key holding the scope, or a dashboard
 * session whose roles allow managing extensions. An OAuth access token needs both: the scope, and a member whose
 * roles allow it. An extension session never manages extensions.
 */
export function requireExtensionsWrite(ctx: Ctx): Principal {
  const p = requirePrincipal(ctx);
  if (p.apiKey?.type === "publishable") throw errors.forbidden("Publishable keys cannot manage extensions");
  if (!hasScope(p.scopes, "extensions:write")) throw errors.insufficientScopes(["extensions:write"]);
  if (p.apiKey) return p;
  if (!p.member || !canPublish(p.member)) throw errors.permissionDenied("Your role does not allow application:extensions:write");
  return p;
}

/** The publisher's own extension (any lifecycle); another workspace's id is 404 like an unknown one. */
export async function ownExtension(ctx: Ctx, workspaceId: string, id: string): Promise<Extension> {
  const row = idLike("ext", id) ? await ctx.db.extension.findFirst({ where: { id, workspaceId } }) : null;
  if (!row) throw errors.notFound("Extension");
  return row;
}

// ---- cursor pages over (createdAt, prefixed id) ------------------------------------------------------------------

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(300).optional(),
});

export function parseList(query: unknown) {
  const q = parseInput(listQuery, query ?? {}, ["query"]);
  let after: { createdAt: Date; id: string } | null = null;
  if (q.cursor) {
    try {
      const [c, i] = JSON.parse(Buffer.from(q.cursor, "base64url").toString("utf8"));
      const createdAt = new Date(c);
      if (typeof i !== "string" || !/^[a-z]+_[A-Za-z0-9]+$/.test(i) || Number.isNaN(createdAt.getTime())) throw new Error("bad");
      after = { createdAt, id: i };
    } catch {
      throw errors.validation([{ path: ["query", "cursor"], message: "Invalid cursor" }]);
    }
  }
  return {
    limit: q.limit,
    where: after ? { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] } : {},
    orderBy: [{ createdAt: "desc" as const }, { id: "desc" as const }],
    take: q.limit + 1,
  };
}

export function pageFrom<T extends { createdAt: Date; id: string }>(rows: T[], limit: number) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, pagination: { cursor: hasMore ? Buffer.from(JSON.stringify([last.createdAt.toISOString(), last.id])).toString("base64url") : null, hasMore } };
}

// ---- views -------------------------------------------------------------------------------------------------------

export function extensionView(e: Extension) {
  return {
    id: e.id,
    workspaceId: e.workspaceId,
    ...manifestOfRow(e),
    lifecycle: e.lifecycle as "draft" | "published" | "delisted",
    iconKey: e.iconKey,
    screenshotKeys: e.screenshotKeys,
    clientId: e.clientId,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}
export type ExtensionView = ReturnType<typeof extensionView>;

export function versionView(v: ExtensionVersion) {
  return {
    id: v.id,
    extensionId: v.extensionId,
    version: v.version,
    notes: v.notes,
    status: v.status as "draft" | "published",
    manifest: manifestOf(v.manifest),
    createdAt: v.createdAt.toISOString(),
    publishedAt: v.publishedAt?.toISOString() ?? null,
  };
}
export type VersionView = ReturnType<typeof versionView>;

interface EnvFacts {
  slug: string;
  kind: string;
  providerEnvironment: string;
}

export function installationView(i: Installation, env: EnvFacts, version: { version: string } | null) {
  return {
    id: i.id,
    extensionId: i.extensionId,
    versionId: i.versionId,
    version: version?.version ?? null,
    status: i.status as "active" | "suspended" | "uninstalled",
    workspaceId: i.workspaceId,
    applicationId: i.applicationId,
    environmentId: i.environmentId,
    environmentSlug: env.slug,
    environmentKind: env.kind as "production" | "non_production",
    providerEnvironment: env.providerEnvironment as "production" | "sandbox",
    installSequence: i.installSequence,
    webhookEndpointId: i.webhookEndpointId,
    config: (i.config ?? {}) as Record<string, unknown>,
    installedAt: i.installedAt.toISOString(),
    suspendedAt: i.suspendedAt?.toISOString() ?? null,
    suspendedReason: (i.suspendedReason as "merchant" | "delivery_failures" | null) ?? null,
    uninstalledAt: i.uninstalledAt?.toISOString() ?? null,
    uninstallReason: (i.uninstallReason as "merchant" | "staff_takedown" | null) ?? null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
export type InstallationView = ReturnType<typeof installationView>;
