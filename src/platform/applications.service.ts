// Application settings (the storefront and buyer-link URLs, allowed origins, branding, support address) that carts,
// checkout and quotes read: GET/PATCH /applications/{id} for a dashboard session or a key with applications:*.
// A key, OAuth token or extension session reaches only its own application; a member only applications their roles
// cover (an OAuth token: both). Others answer 404.
import { sql } from "kysely";
import { z } from "zod";
import { emailSchema } from "../shared/email";
import { type Application, Prisma } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { hasScope } from "../shared/scopes";
import { isPinned, requirePermission, requireSecretOrDashboard } from "../shared/guards";
import { memberHasPermission } from "../shared/permissions";
import { invalidatePrincipals } from "../shared/principal-cache";
import { isUuid } from "../shared/ids";
import { sellerInput, sellerOf, sellerPatch } from "../documents/seller";

const httpUrl = z
  .string()
  .trim()
  .max(2_000)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials");

/** An origin exactly: scheme, host and optional port, no path (`https://shop.example.com`). */
const origin = z
  .string()
  .trim()
  .max(300)
  .transform((s) => s.replace(/\/$/, ""))
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && u.origin === s;
    } catch {
      return false;
    }
  }, "must be an origin like https://shop.example.com (scheme and host, no path)");

const SETTING_KEYS = ["storefrontBaseUrl", "allowedOrigins", "cartRecoveryUrlTemplate", "checkoutLinkBaseUrl", "logoUrl", "brandColor", "supportEmail"] as const;
type SettingKey = (typeof SETTING_KEYS)[number];

export const updateApplicationInput = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  storefrontBaseUrl: httpUrl.nullable().optional(),
  allowedOrigins: z.array(origin).max(20).nullable().optional(),
  cartRecoveryUrlTemplate: httpUrl.refine((s) => s.includes("{cartId}"), "must contain {cartId}").nullable().optional(),
  checkoutLinkBaseUrl: httpUrl.transform((s) => s.replace(/\/+$/, "")).nullable().optional(),
  logoUrl: httpUrl.nullable().optional(),
  brandColor: z.string().trim().regex(/^#[0-9a-fA-F]{6}$/, "must be a colour like #1a2b3c").transform((s) => s.toLowerCase()).nullable().optional(),
  supportEmail: emailSchema.nullable().optional(),
  /** the seller's legal details; each key merges (null removes it), `seller: null` removes them all */
  seller: sellerInput.nullable().optional(),
});

export function applicationView(a: Application) {
  const s = (a.settings ?? {}) as Partial<Record<SettingKey | "seller", unknown>>;
  const str = (k: SettingKey) => (typeof s[k] === "string" ? (s[k] as string) : null);
  return {
    id: a.id,
    workspaceId: a.workspaceId,
    name: a.name,
    slug: a.slug,
    currency: a.currency,
    storefrontBaseUrl: str("storefrontBaseUrl"),
    allowedOrigins: Array.isArray(s.allowedOrigins) ? (s.allowedOrigins as string[]) : [],
    cartRecoveryUrlTemplate: str("cartRecoveryUrlTemplate"),
    checkoutLinkBaseUrl: str("checkoutLinkBaseUrl"),
    logoUrl: str("logoUrl"),
    brandColor: str("brandColor"),
    supportEmail: str("supportEmail"),
    seller: sellerOf(s.seller),
    createdAt: a.createdAt.toISOString(),
  };
}

/** The application `id` as the caller may see it, or 404; `write` checks the write scope or permission. */
async function reachable(ctx: Ctx, id: string, write: boolean): Promise<Application> {
  const p = requireSecretOrDashboard(ctx);
  // Scopes bound every credential (a dashboard session holds "*"); a key, an OAuth token or an extension session
  // reaches only the application it is pinned to, even when its member could see others.
  const scope = write ? "applications:write" : "applications:read";
  if (!hasScope(p.scopes, scope) && !(scope === "applications:read" && hasScope(p.scopes, "applications:write"))) throw errors.insufficientScopes([scope]);
  if (isPinned(p) && p.application?.id !== id) throw errors.notFound("Application");
  if (!isUuid(id)) throw errors.notFound("Application");
  const app = await ctx.db.application.findFirst({ where: { id, workspaceId: p.workspace.id } });
  if (!app) throw errors.notFound("Application");
  if (p.member) {
    if (!memberHasPermission(p.member, "application:read", app.id)) throw errors.notFound("Application");
    if (write) requirePermission({ ...ctx, principal: { ...p, application: { id: app.id, name: app.name, slug: app.slug, currency: app.currency } } }, "application:settings:write");
  }
  return app;
}

export async function getApplication(ctx: Ctx, id: string) {
  return applicationView(await reachable(ctx, id, false));
}

/**
 * Sets the sent fields; null removes a setting. The settings are merged in SQL (`settings || patch - removed`),
 * so two PATCHes of different settings never undo each other.
 */
export async function updateApplication(ctx: Ctx, id: string, body: unknown) {
  const input = parseInput(updateApplicationInput, body ?? {});
  const app = await reachable(ctx, id, true);
  const set: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const k of SETTING_KEYS) {
    const v = input[k];
    if (v === undefined) continue;
    if (v === null) removed.push(k);
    else set[k] = v;
  }
  // the seller's keys merge one level down, in the same statement, so two PATCHes of different seller fields keep both
  if (input.seller === null) removed.push("seller");
  const seller = input.seller ? sellerPatch(input.seller) : null;
  // jsonb's merge and key removal have no Kysely builder: written with `sql`, the column through sql.ref
  const settings = sql.ref("settings");
  const merged = sql`(${settings} || ${JSON.stringify(set)}::jsonb) - ${removed}::text[]`;
  const row = await ctx.sql
    .updateTable("Application")
    .set((eb) => ({
      name: input.name ?? eb.ref("name"),
      settings: seller
        ? sql`jsonb_set(${merged}, '{seller}', (COALESCE(${settings}->'seller', '{}'::jsonb) || ${JSON.stringify(seller.set)}::jsonb) - ${seller.removed}::text[])`
        : merged,
    }))
    .where("id", "=", app.id)
    .returning(Object.values(Prisma.ApplicationScalarFieldEnum))
    .executeTakeFirst();
  // The name rides on every cached principal (whoami shows it): every process drops them.
  if (input.name !== undefined && input.name !== app.name) await invalidatePrincipals(ctx, "all");
  // json columns come back parsed (db/sql-values.ts); Kysely types them unknown
  return applicationView(row ? { ...row, settings: row.settings as Prisma.JsonValue } : app);
}
