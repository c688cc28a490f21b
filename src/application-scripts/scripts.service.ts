// Application scripts (decisions.md part 10): scripts a merchant puts on the hosted checkout page. Each is stored as
// a content-addressed copy (its inline body, or the bytes fetched once from `src`), served from
// GET /storefront/script-assets/{id}/{sha256} and included with an `integrity` attribute, so the browser runs exactly
// the bytes that were saved. The kill switch of an application environment takes every script off the page at once.
import { z } from "zod";
import type { ApplicationScript } from "../generated/prisma/client";
import { requirePermission, requireScope, requireTenant } from "../shared/guards";
import type { Tenant } from "../shared/principal";
import type { Config } from "../config";
import { type Ctx, reportLimit, withTx } from "../shared/context";
import { sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { keyset, parsePage, toPage } from "../shared/pagination";
import { checkScriptUrl, fetchScript, MAX_SCRIPT_BYTES, tooLarge } from "./script-source";
import { isUuid } from "../shared/ids";

export const PLACEMENTS = ["checkout_head", "checkout_body"] as const;
export type Placement = (typeof PLACEMENTS)[number];
/** Scripts (not deleted) one application environment may hold. */
const MAX_SCRIPTS = 20;
/** The health read's window. */
const HEALTH_WINDOW_MS = 24 * 60 * 60 * 1000;

const name = z.string().trim().min(1).max(100);
const src = z.string().trim().min(1).max(2048);
const inline = z.string().min(1).max(MAX_SCRIPT_BYTES);
const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "must be the SHA-256 of the script's bytes as 64 hex characters")
  .transform((s) => s.toLowerCase());

const oneSource = (v: { src?: unknown; inline?: unknown; sha256?: unknown }, ctx: z.RefinementCtx, required: boolean) => {
  if (v.src !== undefined && v.inline !== undefined) ctx.addIssue({ code: "custom", path: ["inline"], message: "Give src or inline, not both" });
  else if (required && v.src === undefined && v.inline === undefined) ctx.addIssue({ code: "custom", path: ["src"], message: "Give src (an https URL) or inline (the script's text)" });
  if (!required && v.sha256 !== undefined && v.src === undefined && v.inline === undefined) {
    ctx.addIssue({ code: "custom", path: ["sha256"], message: "sha256 pins new content: send it with src or inline" });
  }
};

export const createScriptInput = z
  .strictObject({
    name,
    src: src.optional().meta({ description: "An https URL (http too outside production): fetched once now, and the copy is what the page loads" }),
    inline: inline.optional().meta({ description: "The script's text (at most 512 KiB as UTF-8)" }),
    placement: z.enum(PLACEMENTS).default("checkout_body"),
    enabled: z.boolean().default(true),
    sha256: sha256.optional().meta({ description: "Optional pin: the expected SHA-256 (hex) of the bytes; 422 script_integrity_mismatch when they differ" }),
  })
  .superRefine((v, ctx) => oneSource(v, ctx, true));

export const updateScriptInput = z
  .strictObject({
    name: name.optional(),
    src: src.optional().meta({ description: "A new URL, fetched again now (also to refresh the copy from the same URL); turns an inline script into a src one" }),
    inline: inline.optional().meta({ description: "New text; turns a src script into an inline one" }),
    placement: z.enum(PLACEMENTS).optional(),
    enabled: z.boolean().optional(),
    sha256: sha256.optional().meta({ description: "Optional pin for the new src or inline content" }),
  })
  .superRefine((v, ctx) => oneSource(v, ctx, false));

export const killSwitchInput = z.strictObject({
  enabled: z.boolean().meta({ description: "true takes every script off the checkout page; false puts the enabled ones back" }),
});

/** The `integrity` attribute value of hex SHA-256 bytes. */
export const integrityOf = (hex: string) => `sha256-${Buffer.from(hex, "hex").toString("base64")}`;
/** Where the checkout page loads a script version from (the buyer-facing origin). */
const assetUrl = (config: Config, id: string, hex: string) => `${config.CHECKOUT_URL}/api/v1/storefront/script-assets/${id}/${hex}`;

function scriptView(s: ApplicationScript, config: Config) {
  return {
    id: s.id,
    name: s.name,
    src: s.src,
    inline: s.inline,
    placement: s.placement as Placement,
    enabled: s.enabled,
    sha256: s.sha256,
    integrity: integrityOf(s.sha256),
    assetUrl: assetUrl(config, s.id, s.sha256),
    sizeBytes: s.sizeBytes,
    applicationId: s.applicationId,
    environmentId: s.environmentId,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}
export type ScriptView = ReturnType<typeof scriptView>;

/** The bytes of new content (inline text, or the URL fetched now), checked against an optional pin. */
async function contentOf(ctx: Ctx, input: { src?: string; inline?: string; sha256?: string }) {
  const kind = ctx.principal!.environment.kind;
  let body: Buffer;
  let url: string | null = null;
  if (input.inline !== undefined) {
    body = Buffer.from(input.inline, "utf8");
    if (body.length > MAX_SCRIPT_BYTES) throw tooLarge(body.length);
  } else {
    const u = await checkScriptUrl(input.src!, kind, ctx.deps.resolver);
    body = await fetchScript(u, kind, ctx.deps.resolver);
    url = input.src!;
  }
  if (body.length === 0) throw errors.validation([{ path: [input.inline !== undefined ? "inline" : "src"], message: "The script is empty" }]);
  const hex = sha256Hex(body);
  if (input.sha256 !== undefined && input.sha256 !== hex) {
    throw new DomainError("script_integrity_mismatch", `The script's SHA-256 is ${hex}, not the sha256 you sent`, { expected: input.sha256, actual: hex });
  }
  return { body, hex, src: url, inline: input.inline ?? null };
}

/** Serialises writes of one application environment's scripts (the count limit holds under concurrent creates). */
async function lockTenant(ctx: Ctx, t: Tenant) {
  await ctx.sql
    .insertInto("ApplicationScriptKillSwitch")
    .values({ applicationId: t.applicationId, environmentId: t.environmentId, enabled: false })
    .onConflict((oc) => oc.columns(["applicationId", "environmentId"]).doUpdateSet((eb) => ({ enabled: eb.ref("ApplicationScriptKillSwitch.enabled") })))
    .execute();
}

async function findScript(ctx: Ctx, t: Tenant, id: string) {
  const row = isUuid(id)
    ? await ctx.db.applicationScript.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null } })
    : null;
  if (!row) throw errors.notFound("Application script");
  return row;
}

function writer(ctx: Ctx) {
  requireScope(ctx, "application_scripts:write");
  const t = requireTenant(ctx);
  requirePermission(ctx, "application:scripts:write");
  return t;
}

export async function createScript(ctx: Ctx, body: unknown) {
  const t = writer(ctx);
  const input = parseInput(createScriptInput, body);
  const content = await contentOf(ctx, input);
  const row = await withTx(ctx, async (tx) => {
    await lockTenant(tx, t);
    const count = await tx.db.applicationScript.count({ where: { applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null } });
    if (count >= MAX_SCRIPTS) throw new DomainError("script_limit_reached", `An environment holds at most ${MAX_SCRIPTS} scripts: delete one first`, { limit: MAX_SCRIPTS });
    const created = await tx.db.applicationScript.create({
      data: {
        applicationId: t.applicationId,
        environmentId: t.environmentId,
        name: input.name,
        src: content.src,
        inline: content.inline,
        placement: input.placement,
        enabled: input.enabled,
        sha256: content.hex,
        sizeBytes: content.body.length,
        createdAt: ctx.clock.now(),
        updatedAt: ctx.clock.now(),
      },
    });
    await tx.db.applicationScriptAsset.create({ data: { scriptId: created.id, sha256: content.hex, body: new Uint8Array(content.body), createdAt: ctx.clock.now() } });
    return created;
  });
  return scriptView(row, ctx.deps.config);
}

export async function listScripts(ctx: Ctx, query: unknown) {
  requireScope(ctx, "application_scripts:read");
  const t = requireTenant(ctx);
  const page = parsePage(query);
  const ks = keyset(page);
  const rows = await ctx.db.applicationScript.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null, ...ks.where },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  const p = toPage(rows, page);
  return { ...p, items: p.items.map((s) => scriptView(s, ctx.deps.config)) };
}

export async function getScript(ctx: Ctx, id: string) {
  requireScope(ctx, "application_scripts:read");
  return scriptView(await findScript(ctx, requireTenant(ctx), id), ctx.deps.config);
}

export async function updateScript(ctx: Ctx, id: string, body: unknown) {
  const t = writer(ctx);
  const input = parseInput(updateScriptInput, body);
  await findScript(ctx, t, id); // a foreign or unknown id is 404 before any fetch
  const content = input.src !== undefined || input.inline !== undefined ? await contentOf(ctx, input) : null;
  const row = await withTx(ctx, async (tx) => {
    const current = await findScript(tx, t, id);
    if (content) {
      // Earlier versions stay servable at their own URL: a URL always answers the same bytes.
      await tx.db.applicationScriptAsset.createMany({ data: [{ scriptId: id, sha256: content.hex, body: new Uint8Array(content.body), createdAt: ctx.clock.now() }], skipDuplicates: true });
    }
    return tx.db.applicationScript.update({
      where: { id: current.id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.placement !== undefined ? { placement: input.placement } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(content ? { src: content.src, inline: content.inline, sha256: content.hex, sizeBytes: content.body.length } : {}),
        updatedAt: ctx.clock.now(),
      },
    });
  });
  return scriptView(row, ctx.deps.config);
}

/** Soft delete: off the page at once, its assets answer 404; beacons already recorded stay in the health read. */
export async function deleteScript(ctx: Ctx, id: string) {
  const t = writer(ctx);
  if (!isUuid(id)) throw errors.notFound("Application script");
  const res = await ctx.db.applicationScript.updateMany({
    where: { id, applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null },
    data: { deletedAt: ctx.clock.now(), enabled: false, updatedAt: ctx.clock.now() },
  });
  if (res.count === 0) throw errors.notFound("Application script");
}

export interface KillSwitchView {
  enabled: boolean;
  changedAt: string | null;
}

async function readKillSwitch(ctx: Ctx, t: Pick<Tenant, "applicationId" | "environmentId">): Promise<KillSwitchView> {
  const row = await ctx.db.applicationScriptKillSwitch.findUnique({ where: { applicationId_environmentId: { applicationId: t.applicationId, environmentId: t.environmentId } } });
  return { enabled: row?.enabled ?? false, changedAt: row?.changedAt?.toISOString() ?? null };
}

/** POST /application-scripts/kill-switch: `enabled: true` stops every script of the environment; false resumes. */
export async function setKillSwitch(ctx: Ctx, body: unknown): Promise<KillSwitchView> {
  const t = writer(ctx);
  const input = parseInput(killSwitchInput, body);
  const now = ctx.clock.now();
  return withTx(ctx, async (tx) => {
    await lockTenant(tx, t);
    const key = { applicationId_environmentId: { applicationId: t.applicationId, environmentId: t.environmentId } };
    const row = await tx.db.applicationScriptKillSwitch.findUniqueOrThrow({ where: key });
    const saved = row.enabled === input.enabled ? row : await tx.db.applicationScriptKillSwitch.update({ where: key, data: { enabled: input.enabled, changedAt: now } });
    return { enabled: saved.enabled, changedAt: saved.changedAt?.toISOString() ?? null };
  });
}

type Counts = { loaded: number; error: number; blocked: number };
const zero = (): Counts => ({ loaded: 0, error: 0, blocked: 0 });

/** GET /application-scripts/health: beacons of the last 24 hours, per script and in total, and the kill switch. */
export async function scriptHealth(ctx: Ctx) {
  requireScope(ctx, "application_scripts:read");
  const t = requireTenant(ctx);
  const to = ctx.clock.now();
  const from = new Date(to.getTime() - HEALTH_WINDOW_MS);
  const [groups, scripts, killSwitch] = await Promise.all([
    ctx.db.applicationScriptBeacon.groupBy({
      by: ["scriptId", "type"],
      where: { applicationId: t.applicationId, environmentId: t.environmentId, createdAt: { gte: from, lte: to } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
    ctx.db.applicationScript.findMany({ where: { applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    readKillSwitch(ctx, t),
  ]);
  const totals = zero();
  const unattributed = zero();
  const per = new Map<string, Counts & { lastReportAt: Date | null }>();
  for (const g of groups) {
    const type = g.type as keyof Counts;
    if (!(type in totals)) continue;
    totals[type] += g._count._all;
    if (!g.scriptId) {
      unattributed[type] += g._count._all;
      continue;
    }
    const c = per.get(g.scriptId) ?? { ...zero(), lastReportAt: null };
    c[type] += g._count._all;
    const last = g._max.createdAt;
    if (last && (!c.lastReportAt || last > c.lastReportAt)) c.lastReportAt = last;
    per.set(g.scriptId, c);
  }
  // Deleted scripts that reported in the window are listed too, flagged, so counts add up to the totals.
  const missing = [...per.keys()].filter((id) => !scripts.some((s) => s.id === id));
  const deleted = missing.length ? await ctx.db.applicationScript.findMany({ where: { id: { in: missing }, applicationId: t.applicationId, environmentId: t.environmentId } }) : [];
  return {
    windowStart: from.toISOString(),
    windowEnd: to.toISOString(),
    killSwitch,
    totals,
    unattributed,
    scripts: [...scripts, ...deleted].map((s) => {
      const c = per.get(s.id);
      return {
        scriptId: s.id,
        name: s.name,
        enabled: s.enabled,
        deleted: s.deletedAt !== null,
        loaded: c?.loaded ?? 0,
        error: c?.error ?? 0,
        blocked: c?.blocked ?? 0,
        lastReportAt: c?.lastReportAt?.toISOString() ?? null,
      };
    }),
  };
}
export type ScriptHealth = Awaited<ReturnType<typeof scriptHealth>>;

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * GET /storefront/script-assets/{id}/{sha256} (public): the stored bytes of that version, as stored. A wrong or
 * unknown hash, an unknown id and a deleted script are all 404. The browser's integrity check is what refuses bytes
 * that no longer match.
 */
export async function scriptAsset(ctx: Ctx, id: string, hex: string) {
  if (!ctx.principal && ctx.ip) reportLimit(ctx, await ctx.deps.limits.consume("checkoutIp", ctx.ip));
  const found =
    isUuid(id) && HEX64.test(hex)
      ? await ctx.db.applicationScriptAsset.findFirst({ where: { scriptId: id, sha256: hex, script: { deletedAt: null } }, select: { body: true, sha256: true, scriptId: true } })
      : null;
  if (!found) throw errors.notFound("Script asset");
  return { scriptId: found.scriptId, sha256: found.sha256, body: Buffer.from(found.body) };
}

export interface PageScript {
  id: string;
  placement: Placement;
  url: string;
  integrity: string;
}

/** The scripts the checkout page of a session includes: enabled, not deleted, oldest first; none while killed. */
export async function scriptsForCheckout(ctx: Ctx, t: Pick<Tenant, "applicationId" | "environmentId">): Promise<PageScript[]> {
  const [killSwitch, rows] = await Promise.all([
    readKillSwitch(ctx, t),
    ctx.db.applicationScript.findMany({
      where: { applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null, enabled: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { id: true, placement: true, sha256: true },
    }),
  ]);
  if (killSwitch.enabled) return [];
  return rows.map((r) => ({ id: r.id, placement: r.placement as Placement, url: assetUrl(ctx.deps.config, r.id, r.sha256), integrity: integrityOf(r.sha256) }));
}
