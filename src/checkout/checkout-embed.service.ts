// Embedded checkout: a one-line cart and its session for an amount, and the short-lived token the embedded page uses.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { addLineItem } from "../carts/cart-items.service";
import { cartView } from "../carts/cart.view";
import { createCart } from "../carts/carts.service";
import { requireScope, requireTenant } from "../platform/auth.service";
import { type Ctx, withTx } from "../shared/context";
import { positiveAmount } from "../shared/money";
import { DomainError, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { createCheckoutSession, findSession, limitBuyer, notOpen, sessionView } from "./checkout.service";

const EMBED_TOKEN_TTL_MS = 15 * 60_000;

export const embedTokenInput = z.strictObject({
  amount: positiveAmount,
  currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code like USD"),
  country: z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 code").default("US"),
  externalCartId: z.string().min(1).max(200).optional(),
});

/** A short-lived opaque token for the embedded page; minted on each call, so the page can re-mint it. */
function mintEmbedToken(now: Date) {
  return { embedToken: revealOnce(`emb_${randomBytes(24).toString("base64url")}`), expiresAt: new Date(now.getTime() + EMBED_TOKEN_TTL_MS).toISOString() };
}

/**
 * POST /checkout-sessions/embed-token: a one-line cart for `amount` and its session, in one transaction.
 * Methods follow the connected processors; `allowedMethods` is refused (400 allowed_methods_unsupported).
 */
export async function createEmbedSession(ctx: Ctx, body: unknown) {
  requireScope(ctx, "checkout:write");
  if (body && typeof body === "object" && "allowedMethods" in body) {
    throw new DomainError("allowed_methods_unsupported", 400, "allowedMethods cannot be set on an embedded checkout");
  }
  const input = parseInput(embedTokenInput, body);
  const t = requireTenant(ctx);
  return withTx(ctx, async (tx) => {
    const cart = await createCart(tx, { applicationId: t.applicationId, currency: input.currency, metadata: { country: input.country } });
    if (input.externalCartId) await tx.db.cart.update({ where: { id: cart.id }, data: { externalCartId: input.externalCartId } });
    await addLineItem(tx, cart.id, { name: "Payment", type: "custom", unitPrice: input.amount, quantity: 1, requiresShipping: false });
    const s = await createCheckoutSession(tx, { applicationId: t.applicationId, cartId: cart.id, returnUrl: `${tx.deps.config.CHECKOUT_URL}/checkout/complete`, cancelUrl: `${tx.deps.config.CHECKOUT_URL}/checkout/cancelled`, collect: { shippingAddress: false } });
    const v = sessionView(s, tx.deps.config.CHECKOUT_URL);
    return { checkoutSessionId: s.id, ...mintEmbedToken(tx.clock.now()), hostedUrl: v.hostedUrl, embedUrl: v.embedUrl };
  });
}

/** GET /checkout-sessions/{id}/embed-token (browser): a fresh token and what the embedded page shows. */
export async function sessionEmbedToken(ctx: Ctx, id: string) {
  await limitBuyer(ctx, id);
  const s = await findSession(ctx, id);
  if (s.status === "expired" || (s.status === "open" && s.expiresAt <= ctx.clock.now())) throw new DomainError("session_expired", 410, "This checkout session has expired");
  if (s.status !== "open") throw notOpen(s);
  const cart = await ctx.db.cart.findUniqueOrThrow({ where: { id: s.cartId }, include: { lineItems: true } });
  const env = await ctx.db.environment.findUniqueOrThrow({ where: { id: s.environmentId } });
  return { ...mintEmbedToken(ctx.clock.now()), amount: cartView(cart as any).total, currency: cart.currency, environment: env.providerEnvironment };
}
