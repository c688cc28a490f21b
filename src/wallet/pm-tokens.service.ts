// Wallet client tokens (pmt_…): minted by the merchant for one customer, sent by the buyer's browser as
// X-Service-PM-Token. Stored hashed; 30 minutes, or 14 days when minted for a subscription, which then restricts
// the token to that subscription. The credential is accepted on the wallet routes only (/me/payment-methods*,
// /me/subscriptions*) and the hosted update-card page; anywhere else it is 403 forbidden.
import { sql } from "kysely";
import { z } from "zod";
import { tenantOf, type EventTenant } from "../events/events.service";
import { requireScope, requireTenant } from "../shared/guards";
import { customerUuid } from "../customers/customers.service";
import { type Ctx, reportLimit } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { errors, parseInput } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { revealOnce } from "../shared/secrets";

export const PM_TOKEN_HEADER = "x-service-pm-token";
const TTL_MS = 30 * 60_000;
const SUBSCRIPTION_TTL_MS = 14 * 24 * 3_600_000;
const TOKEN_SHAPE = /^pmt_[A-Za-z0-9]{40}$/;

/** Who a valid PM token speaks for: one customer of one tenant, optionally one subscription. */
export interface WalletSession {
  tokenId: string;
  tenant: EventTenant;
  customerId: string;
  subscriptionId: string | null;
  expiresAt: Date;
}

declare module "../shared/context" {
  interface Ctx {
    /** set for a request carrying a valid X-Service-PM-Token: one customer's wallet */
    wallet?: WalletSession;
  }
}

/** The API paths (relative to /api/v1) a PM token may call. */
export function isWalletPath(path: string): boolean {
  return /^\/me\/(payment-methods|subscriptions)(\/|$)/.test(path);
}

export const clientTokenInput = z.strictObject({
  customerId: z.string().min(1).max(100),
  subscriptionId: z.string().min(1).max(100).optional(),
});

/** POST /payment-methods/client-token (secret key or dashboard, scope customer_payment_methods:write). */
export async function mintClientToken(ctx: Ctx, body: unknown) {
  requireScope(ctx, "customer_payment_methods:write");
  const t = requireTenant(ctx);
  const input = parseInput(clientTokenInput, body);
  const customerId = customerUuid(input.customerId);
  const customer = customerId ? await ctx.db.customer.findFirst({ where: { id: customerId, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true } }) : null;
  if (!customer) throw errors.notFound("Customer");
  let subscriptionId: string | null = null;
  if (input.subscriptionId !== undefined) {
    const sid = isUuid(input.subscriptionId) ? input.subscriptionId : null;
    const sub = sid ? await ctx.db.subscription.findFirst({ where: { id: sid, customerId: customer.id, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true } }) : null;
    if (!sub) throw errors.notFound("Subscription");
    subscriptionId = sub.id;
  }
  const token = `pmt_${randomToken(40)}`;
  const expiresAt = new Date(ctx.clock.now().getTime() + (subscriptionId ? SUBSCRIPTION_TTL_MS : TTL_MS));
  await ctx.db.pmToken.create({
    data: { tokenHash: sha256Hex(token), applicationId: t.applicationId, environmentId: t.environmentId, customerId: customer.id, subscriptionId, expiresAt },
  });
  // The token is a credential, and the update-card URL carries it: both are shown once (null on a replay).
  return {
    token: revealOnce(token),
    expiresAt: expiresAt.toISOString(),
    customerId: customer.id,
    subscriptionId,
    updateCardUrl: subscriptionId ? revealOnce(`${ctx.deps.config.CHECKOUT_URL}/billing/${token}`) : null,
  };
}

/**
 * The wallet's own limits (429 rate_limited with Retry-After), for /me/* and the update-card page alike: the
 * address is counted before its token is looked up, and a token's bucket (keyed by its row) once it is known, so
 * neither one buyer's link nor one address can hammer the wallet. Failed tokens count in authFailureIp besides.
 */
async function limitAddress(ctx: Ctx) {
  const { limits } = ctx.deps;
  if (!ctx.ip) return;
  limits.blocked("authFailureIp", ctx.ip);
  reportLimit(ctx, await limits.consume("walletIp", ctx.ip));
}
async function limitToken(ctx: Ctx, tokenId: string) {
  reportLimit(ctx, await ctx.deps.limits.consume("walletToken", tokenId));
}

/** A PM token to its session; 401 unauthorized when malformed, unknown or expired. */
export async function resolvePmToken(ctx: Ctx, raw: string | null | undefined): Promise<WalletSession> {
  // Failed attempts count against the caller's address like bad API keys do, so tokens cannot be guessed.
  const { limits } = ctx.deps;
  await limitAddress(ctx);
  const refuse = async (message: string) => {
    if (ctx.ip) await limits.consume("authFailureIp", ctx.ip);
    return errors.unauthorized(message);
  };
  const token = raw?.trim();
  if (!token) throw await refuse("Send the wallet client token in X-Service-PM-Token");
  if (!TOKEN_SHAPE.test(token)) throw await refuse("Malformed wallet client token");
  const row = await ctx.db.pmToken.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!row || row.expiresAt <= ctx.clock.now()) throw await refuse("The wallet client token is unknown or has expired");
  await limitToken(ctx, row.id);
  return { tokenId: row.id, tenant: await tenantOf(ctx, row), customerId: row.customerId, subscriptionId: row.subscriptionId, expiresAt: row.expiresAt };
}

/** The wallet session of this request, or 401 when the PM token was not sent. */
export function requireWallet(ctx: Ctx): WalletSession {
  if (!ctx.wallet) throw errors.unauthorized("Send the wallet client token in X-Service-PM-Token");
  return ctx.wallet;
}

/**
 * Cross-origin access for the wallet routes follows the application's allowedOrigins. A preflight carries no
 * token, so it is answered for an origin some application lists; the real request then keeps the
 * Access-Control-Allow-Origin header only when the token's own application lists the origin.
 */
export async function walletOriginAllowed(ctx: Ctx, origin: string, applicationId?: string): Promise<boolean> {
  if (origin.length > 300 || !/^https?:\/\/[^/\s]+$/.test(origin)) return false;
  let q = ctx.sql
    .selectFrom("Application")
    .select(sql<number>`1`.as("ok"))
    .where(sql<boolean>`${sql.ref("settings")}->'allowedOrigins' @> to_jsonb(${origin}::text)`)
    .limit(1);
  if (applicationId) q = q.where("id", "=", applicationId);
  const rows = await q.execute();
  return rows.length > 0;
}

/** The hosted update-card page's view of its path token: the session, or why there is none (expired reads apart). */
export async function pageSession(ctx: Ctx, raw: string): Promise<WalletSession | "expired" | "unknown"> {
  const { limits } = ctx.deps;
  await limitAddress(ctx);
  const row = TOKEN_SHAPE.test(raw) ? await ctx.db.pmToken.findUnique({ where: { tokenHash: sha256Hex(raw) } }) : null;
  if (!row || row.expiresAt <= ctx.clock.now()) {
    if (ctx.ip) await limits.consume("authFailureIp", ctx.ip);
    return row ? "expired" : "unknown";
  }
  await limitToken(ctx, row.id);
  return { tokenId: row.id, tenant: await tenantOf(ctx, row), customerId: row.customerId, subscriptionId: row.subscriptionId, expiresAt: row.expiresAt };
}
