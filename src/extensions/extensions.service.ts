// Extensions and their versions, for publishers: create and update with manifest checks, immutable versions,
// publish, delist, reads; icon and screenshot uploads; client credentials (extc_…) with a shown-once secret.
import { z } from "zod";
import type { Prisma } from "../generated/prisma/client";
import { requirePrincipal } from "../shared/guards";
import { type Ctx, isUniqueViolation, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { hasScope } from "../shared/scopes";
import { storageFor } from "../shared/storage";
import {
  extensionView,
  idLike,
  newId,
  ownExtension,
  pageFrom,
  parseList,
  requireExtensionsWrite,
  requirePublisher,
  versionView,
} from "./extensions.common";
import { checkCallbackUrl, checkManifest, createExtensionInput, type Manifest, manifestOfRow, updateExtensionInput } from "./manifest";

const json = (v: unknown) => (v === null ? (null as unknown as Prisma.InputJsonValue) : (v as Prisma.InputJsonValue));

function manifestData(m: Manifest) {
  return { ...m, configSchema: m.configSchema === null ? undefined : json(m.configSchema) };
}

export async function createExtension(ctx: Ctx, body: unknown) {
  const p = requirePublisher(ctx);
  const input = parseInput(createExtensionInput, body);
  const m = checkManifest({
    name: input.name,
    description: input.description ?? null,
    iframeUrl: input.iframeUrl ?? null,
    webhookUrl: input.webhookUrl ?? null,
    eventSubscriptions: input.eventSubscriptions ?? [],
    scopes: input.scopes ?? [],
    installCallbackUrl: input.installCallbackUrl ?? null,
    configSchema: input.configSchema ?? null,
  });
  const row = await ctx.db.extension.create({
    data: { id: newId("ext"), workspaceId: p.workspace.id, ...manifestData(m), createdByMember: p.member.id, createdAt: ctx.clock.now() },
  });
  return extensionView(row);
}

/** Changes the working manifest (versions already made keep their snapshot); checked again as a whole. */
export async function updateExtension(ctx: Ctx, id: string, body: unknown) {
  const p = requirePublisher(ctx);
  const input = parseInput(updateExtensionInput, body ?? {});
  const row = await ownExtension(ctx, p.workspace.id, id);
  const cur = manifestOfRow(row);
  const m = checkManifest({
    name: input.name ?? cur.name,
    description: input.description !== undefined ? input.description : cur.description,
    iframeUrl: input.iframeUrl !== undefined ? input.iframeUrl : cur.iframeUrl,
    webhookUrl: input.webhookUrl !== undefined ? input.webhookUrl : cur.webhookUrl,
    eventSubscriptions: input.eventSubscriptions ?? cur.eventSubscriptions,
    scopes: input.scopes ?? cur.scopes,
    installCallbackUrl: input.installCallbackUrl !== undefined ? input.installCallbackUrl : cur.installCallbackUrl,
    configSchema: input.configSchema !== undefined ? input.configSchema : cur.configSchema,
  });
  const updated = await ctx.db.extension.update({
    where: { id: row.id },
    data: { ...m, configSchema: m.configSchema === null ? (null as any) : json(m.configSchema) },
  });
  return extensionView(updated);
}

/** The publisher's own extensions, newest first. */
export async function listExtensions(ctx: Ctx, query: unknown) {
  const p = requireReader(ctx);
  const q = parseList(query);
  const rows = await ctx.db.extension.findMany({ where: { workspaceId: p.workspace.id, ...q.where }, orderBy: q.orderBy, take: q.take });
  const page = pageFrom(rows, q.limit);
  return { items: page.items.map(extensionView), pagination: page.pagination };
}

/** extensions:read, for every credential (a dashboard session holds "*"); publishable keys never. */
export function requireReader(ctx: Ctx) {
  const p = requirePrincipal(ctx);
  if (p.apiKey?.type === "publishable" || !hasScope(p.scopes, "extensions:read")) throw errors.insufficientScopes(["extensions:read"]);
  return p;
}

/** Any workspace reads a published (or delisted) extension; drafts only its publisher. */
async function visibleExtension(ctx: Ctx, id: string) {
  const p = requireReader(ctx);
  const row = idLike("ext", id) ? await ctx.db.extension.findUnique({ where: { id } }) : null;
  if (!row || (row.workspaceId !== p.workspace.id && row.lifecycle === "draft")) throw errors.notFound("Extension");
  return { row, own: row.workspaceId === p.workspace.id };
}

export async function getExtension(ctx: Ctx, id: string) {
  return extensionView((await visibleExtension(ctx, id)).row);
}

// ---- versions ---------------------------------------------------------------------------------------------------

export const createVersionInput = z.strictObject({
  version: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .regex(/^[0-9A-Za-z][0-9A-Za-z.+-]*$/, "letters, digits, '.', '+' and '-' (e.g. 1.0.0)"),
  notes: z.string().trim().max(5000).nullable().optional(),
});

/** Snapshots the extension's current manifest as an immutable draft version. */
export async function createVersion(ctx: Ctx, id: string, body: unknown) {
  const p = requirePublisher(ctx);
  const input = parseInput(createVersionInput, body ?? {});
  const ext = await ownExtension(ctx, p.workspace.id, id);
  const manifest = checkManifest(manifestOfRow(ext)); // rules still hold for the snapshot (scopes may have been retired since)
  try {
    const row = await ctx.db.extensionVersion.create({
      data: { id: newId("ver"), extensionId: ext.id, version: input.version, notes: input.notes ?? null, manifest: manifest as unknown as Prisma.InputJsonValue, createdAt: ctx.clock.now() },
    });
    return versionView(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw new DomainError("version_exists", `Version ${input.version} already exists for this extension`, { version: input.version });
    throw e;
  }
}

export async function listVersions(ctx: Ctx, id: string, query: unknown) {
  const { row, own } = await visibleExtension(ctx, id);
  const q = parseList(query);
  const rows = await ctx.db.extensionVersion.findMany({
    where: { extensionId: row.id, ...(own ? {} : { status: "published" }), ...q.where },
    orderBy: q.orderBy,
    take: q.take,
  });
  const page = pageFrom(rows, q.limit);
  return { items: page.items.map(versionView), pagination: page.pagination };
}

export async function getVersion(ctx: Ctx, id: string, versionId: string) {
  const { row, own } = await visibleExtension(ctx, id);
  const v = idLike("ver", versionId) ? await ctx.db.extensionVersion.findFirst({ where: { id: versionId, extensionId: row.id } }) : null;
  if (!v || (!own && v.status !== "published")) throw errors.notFound("Version");
  return versionView(v);
}

/** draft -> published; the extension's lifecycle goes draft -> published with its first published version. */
export async function publishVersion(ctx: Ctx, id: string, versionId: string, body: unknown) {
  const p = requirePublisher(ctx);
  parseInput(z.strictObject({}), body ?? {});
  return withTx(ctx, async (tx) => {
    const ext = await ownExtension(tx, p.workspace.id, id);
    const v = idLike("ver", versionId) ? await tx.db.extensionVersion.findFirst({ where: { id: versionId, extensionId: ext.id } }) : null;
    if (!v) throw errors.notFound("Version");
    const now = tx.clock.now();
    const res = await tx.db.extensionVersion.updateMany({ where: { id: v.id, status: "draft" }, data: { status: "published", publishedAt: now } });
    if (res.count === 0) throw new DomainError("version_not_draft", `Only a draft version can be published; this one is ${v.status}`, { status: v.status });
    if (ext.lifecycle === "draft") await tx.db.extension.updateMany({ where: { id: ext.id, lifecycle: "draft" }, data: { lifecycle: "published" } });
    return versionView(await tx.db.extensionVersion.findUniqueOrThrow({ where: { id: v.id } }));
  });
}

/** published -> delisted (no new installs; existing ones keep working); delisted -> published lists it again. */
export async function setListed(ctx: Ctx, id: string, listed: boolean) {
  const p = requirePublisher(ctx);
  const ext = await ownExtension(ctx, p.workspace.id, id);
  const [from, to] = listed ? ["delisted", "published"] : ["published", "delisted"];
  const res = await ctx.db.extension.updateMany({ where: { id: ext.id, lifecycle: from }, data: { lifecycle: to } });
  if (res.count === 0 && ext.lifecycle !== to) {
    throw new DomainError("invalid_lifecycle", `The extension is ${ext.lifecycle}: only a ${from} extension can become ${to}`, { lifecycle: ext.lifecycle });
  }
  return extensionView(await ctx.db.extension.findUniqueOrThrow({ where: { id: ext.id } }));
}

// ---- icon and screenshot uploads --------------------------------------------------------------------------------

export const UPLOAD_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export const UPLOAD_LIMITS = { icon: 256 * 1024, screenshot: 1024 * 1024 } as const;
const MAX_SCREENSHOTS = 8;

/** The magic bytes of each accepted type: a declared type must match the bytes sent. */
function sniff(b: Buffer): (typeof UPLOAD_TYPES)[number] | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP") return "image/webp";
  return null;
}

export const uploadQuery = z.strictObject({ extensionId: z.string().min(1).max(100) });

/**
 * Stores an icon (replacing the previous one) or adds a screenshot, for any credential of the publishing workspace
 * holding extensions:write. 415 unsupported_media_type for other types or bytes that are not the declared image,
 * 413 payload_too_large past the limit (icon 256 KiB, screenshot 1 MiB).
 */
export async function uploadImage(ctx: Ctx, kind: "icon" | "screenshot", query: unknown, contentType: string | undefined, bytes: Buffer | undefined) {
  const p = requireExtensionsWrite(ctx);
  const { extensionId } = parseInput(uploadQuery, query ?? {}, ["query"]);
  const ext = await ownExtension(ctx, p.workspace.id, extensionId);
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (!(UPLOAD_TYPES as readonly string[]).includes(type)) {
    throw new DomainError("unsupported_media_type", `Send the image as the body with Content-Type ${UPLOAD_TYPES.join(", ")}`, { contentType: contentType?.slice(0, 100) ?? null });
  }
  if (!bytes || bytes.length === 0) throw errors.validation([{ path: ["body"], message: "The image is empty" }]);
  if (bytes.length > UPLOAD_LIMITS[kind]) throw errors.payloadTooLarge(UPLOAD_LIMITS[kind]);
  if (sniff(bytes) !== type) throw new DomainError("unsupported_media_type", `The bytes are not a ${type} image`, { contentType: type });
  if (kind === "screenshot" && ext.screenshotKeys.length >= MAX_SCREENSHOTS) {
    throw new DomainError("screenshot_limit_reached", `An extension has at most ${MAX_SCREENSHOTS} screenshots`);
  }
  const ext2 = type.split("/")[1] === "jpeg" ? "jpg" : type.split("/")[1];
  const key = `extensions/${ext.id}/${kind}-${sha256Hex(bytes).slice(0, 32)}.${ext2}`;
  await storageFor(ctx.deps.config).put(key, bytes, type);
  const updated =
    kind === "icon"
      ? await ctx.db.extension.update({ where: { id: ext.id }, data: { iconKey: key } })
      : await ctx.db.extension.update({ where: { id: ext.id }, data: { screenshotKeys: ext.screenshotKeys.includes(key) ? ext.screenshotKeys : [...ext.screenshotKeys, key] } });
  const url = await storageFor(ctx.deps.config).signedUrl(key, { filename: key.split("/").pop()!, contentType: type, ttlSeconds: 3600, now: ctx.clock.now() });
  return { extensionId: updated.id, kind, key, contentType: type, sizeBytes: bytes.length, url };
}

// ---- client credentials ------------------------------------------------------------------------------------------

export const clientCredentialsInput = z.strictObject({ installCallbackUrl: z.string().max(2048).nullable().optional() });

/**
 * Creates the extension's client credentials, or rotates them: a new secret (shown once) and the old one dead at
 * once. installCallbackUrl (https only: 422 invalid_callback_url) replaces the manifest's when given.
 */
export async function createClientCredentials(ctx: Ctx, id: string, body: unknown) {
  const p = requireExtensionsWrite(ctx);
  const input = parseInput(clientCredentialsInput, body ?? {});
  const ext = await ownExtension(ctx, p.workspace.id, id);
  const installCallbackUrl = input.installCallbackUrl === undefined ? ext.installCallbackUrl : input.installCallbackUrl === null ? null : checkCallbackUrl(input.installCallbackUrl);
  const clientId = ext.clientId ?? newId("extc");
  const clientSecret = `extcs_${randomToken(40)}`;
  const updated = await ctx.db.extension.update({
    where: { id: ext.id },
    data: { clientId, clientSecretHash: sha256Hex(clientSecret), clientSecretRotatedAt: ctx.clock.now(), installCallbackUrl },
  });
  return { extensionId: updated.id, clientId, clientSecret: revealOnce(clientSecret), installCallbackUrl: updated.installCallbackUrl, rotatedAt: updated.clientSecretRotatedAt!.toISOString() };
}
