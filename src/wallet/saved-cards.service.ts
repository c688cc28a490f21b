// Saved cards (cpm_…): the buyer's wallet behind a PM token (/me/payment-methods*, /me/subscriptions/{id}) and
// the merchant's view of a customer's saved methods. One default per customer, changed under a row lock on the
// customer so two concurrent "make default" calls cannot leave two defaults. Removal is a soft delete.
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { testVaultReference } from "../payments/processor";
import { retrySubscriptionCharge } from "../subscriptions/renewals.service";
import type { SavedCard, Subscription } from "../generated/prisma/client";
import { type EventTenant, principalEventTenant, recordEvent } from "../events/events.service";
import { customerUuid } from "../customers/customers.service";
import { requireScope, requireSecretOrDashboard, requireTenant } from "../shared/guards";
import { hasScope } from "../shared/scopes";
import { TEST_TOKENS } from "../payments/processor";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { requireWallet } from "./pm-tokens.service";
import { isUuid } from "../shared/ids";
import { revealOnce } from "../shared/secrets";

/** Subscription statuses during which the default card cannot be removed (renewals charge it). */
const LIVE_SUBSCRIPTION = ["active", "trialing", "past_due"];
/** A zero-amount vault session lives as long as a short client token. */
const VAULT_SESSION_TTL_MS = 30 * 60_000;

export function savedCardView(c: SavedCard) {
  return {
    id: c.id,
    methodType: c.methodType,
    cardBrand: c.cardBrand,
    cardLastFour: c.cardLastFour,
    cardExpMonth: c.cardExpMonth,
    cardExpYear: c.cardExpYear,
    isDefault: c.isDefault,
    isActive: c.isActive,
    chargeable: c.chargeable,
    source: c.source,
    createdAt: c.createdAt.toISOString(),
  };
}

function buyerSubscriptionView(s: Subscription, card: SavedCard | null) {
  return {
    id: s.id,
    status: s.status,
    planReference: s.planReference,
    planName: s.planName,
    amount: s.amount,
    quantity: s.quantity,
    currency: s.currency,
    interval: s.interval,
    currentPeriodEnd: s.currentPeriodEnd.toISOString(),
    failureCount: s.failureCount,
    cancelAtPeriodEnd: s.cancelAtPeriodEnd,
    paymentMethod: card
      ? { id: card.id, cardBrand: card.cardBrand, cardLastFour: card.cardLastFour, cardExpMonth: card.cardExpMonth, cardExpYear: card.cardExpYear }
      : null,
    pendingPlanReference: s.pendingPlanReference,
    pendingPlanName: s.pendingPlanName,
    pendingInterval: s.pendingInterval,
    pendingAmount: s.pendingAmount,
    pendingQuantity: s.pendingQuantity,
  };
}

const liveCards = (customerId: string) => ({ customerId, deletedAt: null });

async function listCards(ctx: Ctx, customerId: string) {
  return ctx.db.savedCard.findMany({ where: liveCards(customerId), orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
}

/** Serializes default changes, adds and removals for one customer (SELECT … FOR UPDATE). */
async function lockCustomer(tx: Ctx, customerId: string) {
  await tx.sql.selectFrom("Customer").select("id").where("id", "=", customerId).forUpdate().execute();
}

async function customerRef(ctx: Ctx, customerId: string) {
  const c = await ctx.db.customer.findUnique({ where: { id: customerId }, select: { id: true, email: true } });
  return c ? { id: c.id, email: c.email } : null;
}

async function cardOf(ctx: Ctx, customerId: string, id: string) {
  const card = /^cpm_[A-Za-z0-9]{1,64}$/.test(id) ? await ctx.db.savedCard.findFirst({ where: { id, ...liveCards(customerId) } }) : null;
  if (!card) throw errors.notFound("Payment method");
  return card;
}

/** Adds a card for the customer (under its lock); the first live card becomes the default. */
async function addCard(tx: Ctx, tenant: EventTenant, customerId: string, data: Omit<SavedCard, "id" | "applicationId" | "environmentId" | "customerId" | "methodType" | "isDefault" | "isActive" | "deletedAt" | "createdAt" | "updatedAt">) {
  await lockCustomer(tx, customerId);
  const hasDefault = await tx.db.savedCard.count({ where: { ...liveCards(customerId), isDefault: true } });
  const card = await tx.db.savedCard.create({
    data: { id: `cpm_${randomBytes(12).toString("hex")}`, applicationId: tenant.applicationId, environmentId: tenant.environmentId, customerId, isDefault: hasDefault === 0, ...data },
  });
  await recordEvent(tx, tenant, "customer.payment_method_added", { customerId, paymentMethod: savedCardView(card), customer: await customerRef(tx, customerId) });
  return card;
}

// ---- buyer (PM token) ---------------------------------------------------------------------------------------

/** GET /me/payment-methods */
export async function listMyCards(ctx: Ctx) {
  const w = requireWallet(ctx);
  return listCards(ctx, w.customerId);
}

export const setDefaultInput = z.strictObject({ isDefault: z.literal(true, "only true can be written: make another card the default instead") });

/** PATCH /me/payment-methods/{id} { isDefault: true }: the previous default is demoted in the same transaction. */
export async function setMyDefault(ctx: Ctx, id: string, body: unknown) {
  const w = requireWallet(ctx);
  parseInput(setDefaultInput, body);
  return withTx(ctx, async (tx) => {
    await lockCustomer(tx, w.customerId);
    const card = await cardOf(tx, w.customerId, id);
    if (card.isDefault) return card;
    await tx.db.savedCard.updateMany({ where: { ...liveCards(w.customerId), isDefault: true }, data: { isDefault: false } });
    return tx.db.savedCard.update({ where: { id: card.id }, data: { isDefault: true } });
  });
}

/** DELETE /me/payment-methods/{id}: soft delete; the default card stays while a live subscription charges it. */
export async function removeMyCard(ctx: Ctx, id: string) {
  const w = requireWallet(ctx);
  return withTx(ctx, async (tx) => {
    await lockCustomer(tx, w.customerId);
    const card = await cardOf(tx, w.customerId, id);
    if (card.isDefault) {
      const live = await tx.db.subscription.count({ where: { customerId: w.customerId, status: { in: LIVE_SUBSCRIPTION } } });
      if (live > 0) throw new DomainError("cannot_remove_default", "This card is the default for an active subscription: make another card the default first");
    }
    await tx.db.savedCard.update({ where: { id: card.id }, data: { deletedAt: tx.clock.now(), isDefault: false } });
    await recordEvent(tx, w.tenant, "customer.payment_method_removed", { customerId: w.customerId, paymentMethodId: card.id, customer: await customerRef(tx, w.customerId) });
    return { id: card.id };
  });
}

/**
 * POST /me/payment-methods/embed-token: an add-only, zero-amount vault session. It is a CheckoutSession row
 * (metadata.walletVault, the customer set) on a new empty cart, so the embedded card form has a session id to
 * post to; it never becomes an order: only POST /me/payment-methods/confirm completes it.
 */
export async function createVaultSession(ctx: Ctx) {
  const w = requireWallet(ctx);
  const t = w.tenant;
  return withTx(ctx, async (tx) => {
    // one after the other: a transaction's connection takes one statement at a time
    const app = await tx.db.application.findUniqueOrThrow({ where: { id: t.applicationId }, select: { currency: true } });
    const env = await tx.db.environment.findUniqueOrThrow({ where: { id: t.environmentId }, select: { providerEnvironment: true } });
    const connector = await tx.db.connector.findFirst({ where: { applicationId: t.applicationId, environmentId: t.environmentId, kind: "card", status: "active" }, select: { id: true } });
    const now = tx.clock.now();
    const expiresAt = new Date(now.getTime() + VAULT_SESSION_TTL_MS);
    const base = tx.deps.config.CHECKOUT_URL;
    const cart = await tx.db.cart.create({ data: { applicationId: t.applicationId, environmentId: t.environmentId, currency: app.currency, customerId: w.customerId, status: "checkout", expiresAt, metadata: { walletVault: true } } });
    const s = await tx.db.checkoutSession.create({
      data: {
        applicationId: t.applicationId,
        environmentId: t.environmentId,
        cartId: cart.id,
        customerId: w.customerId,
        returnUrl: `${base}/billing/complete`,
        cancelUrl: `${base}/billing/cancelled`,
        allowedMethods: ["card"],
        collectShipping: false,
        metadata: { walletVault: true },
        expiresAt,
      },
    });
    return {
      embedToken: revealOnce(`emb_${randomBytes(24).toString("base64url")}`), // shown once: null on a replay
      checkoutSessionId: s.id,
      amount: 0,
      currency: app.currency,
      processorInstanceId: connector?.id ?? null,
      merchantAccountId: t.applicationId,
      environment: env.providerEnvironment,
      hostedUrl: `${base}/checkout/${s.id}`,
      embedUrl: `${base}/checkout/${s.id}?embed=1`,
      expiresAt: expiresAt.toISOString(),
    };
  });
}

export const confirmInput = z.strictObject({ checkoutSessionId: z.string().min(1).max(100), paymentToken: z.string().min(1).max(200) });

/** The card a test-processor token stands for (the test processor vaults only tok_visa-like tokens). */
function testCard(token: string, now: Date) {
  const outcome = TEST_TOKENS[token];
  if (outcome === undefined) throw new DomainError("payment_failed", `Unknown test token "${token}"`, { reason: "invalid_payment_token" });
  if (outcome === "failed") throw new DomainError("payment_failed", "The card was declined", { reason: "card_declined" });
  if (outcome === "processing") throw new DomainError("payment_failed", "The card needs authentication, which the vault flow cannot complete", { reason: "authentication_required" });
  return { cardBrand: "visa", cardLastFour: "4242", cardExpMonth: 12, cardExpYear: now.getUTCFullYear() + 3 };
}

/** POST /me/payment-methods/confirm { checkoutSessionId, paymentToken }: vaults a chargeable card (source vault). */
export async function confirmVault(ctx: Ctx, body: unknown) {
  const w = requireWallet(ctx);
  const input = parseInput(confirmInput, body);
  return withTx(ctx, async (tx) => {
    const sid = isUuid(input.checkoutSessionId) ? input.checkoutSessionId : null;
    const s = sid
      ? await tx.db.checkoutSession.findFirst({ where: { id: sid, applicationId: w.tenant.applicationId, environmentId: w.tenant.environmentId, customerId: w.customerId } })
      : null;
    if (!s || (s.metadata as { walletVault?: unknown } | null)?.walletVault !== true) throw new DomainError("session_not_found", "Vault session not found");
    const now = tx.clock.now();
    if (s.status === "open" && s.expiresAt <= now) throw new DomainError("session_expired", "This vault session has expired: request a new embed token");
    const card = testCard(input.paymentToken, now);
    // Compare-and-set: one confirmation per session, even when two arrive together.
    const done = await tx.db.checkoutSession.updateMany({ where: { id: s.id, status: "open" }, data: { status: "completed", completedAt: now } });
    if (done.count === 0) throw new DomainError("session_not_open", `This vault session is ${s.status}`, { status: s.status });
    const saved = await addCard(tx, w.tenant, w.customerId, { ...card, chargeable: true, processorReference: testVaultReference(input.paymentToken), source: "vault" });
    await recordEvent(tx, w.tenant, "payment.vaulted", { customerId: w.customerId, paymentMethodId: saved.id, checkoutSessionId: s.id, customer: await customerRef(tx, w.customerId) });
    return saved;
  });
}

/** GET /me/subscriptions/{id}: the customer's subscription (only the named one for a subscription-bound token). */
export async function mySubscription(ctx: Ctx, id: string) {
  const w = requireWallet(ctx);
  const ok = isUuid(id) && (w.subscriptionId === null || w.subscriptionId === id);
  const sub = ok ? await ctx.db.subscription.findFirst({ where: { id, customerId: w.customerId, applicationId: w.tenant.applicationId, environmentId: w.tenant.environmentId } }) : null;
  if (!sub) throw errors.notFound("Subscription");
  const card = await ctx.db.savedCard.findFirst({ where: { ...liveCards(w.customerId), isDefault: true } });
  return buyerSubscriptionView(sub, card);
}

/**
 * POST /me/subscriptions/{id}/retry-charge: the buyer's subscription (404 otherwise) charged again now through the
 * renewal engine (422 invalid_state unless past due, 409 conflict while a renewal holds its lease); on success it is
 * active again and its period advanced.
 */
export async function retryMySubscription(ctx: Ctx, id: string) {
  await mySubscription(ctx, id);
  const { charged } = await retrySubscriptionCharge(ctx, id);
  return { ...(await mySubscription(ctx, id)), charged };
}

// ---- merchant ------------------------------------------------------------------------------------------------

/** Reads accept customer_payment_methods:read or :write, or customers:read: the list is part of the customer. */
export function requireCardRead(ctx: Ctx) {
  const p = requireSecretOrDashboard(ctx);
  const ok = ["customer_payment_methods:read", "customer_payment_methods:write", "customers:read"].some((s) => hasScope(p.scopes, s));
  if (!ok) throw errors.insufficientScopes(["customer_payment_methods:read"]);
}

async function merchantCustomer(ctx: Ctx, rawId: string) {
  const t = requireTenant(ctx);
  const id = customerUuid(rawId);
  const c = id ? await ctx.db.customer.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId }, select: { id: true } }) : null;
  if (!c) throw errors.notFound("Customer");
  return c.id;
}

/** GET /customers/{id}/payment-methods */
export async function listCustomerCards(ctx: Ctx, customerId: string) {
  requireCardRead(ctx);
  return listCards(ctx, await merchantCustomer(ctx, customerId));
}

export const attachCardInput = z.strictObject({
  cardBrand: z.string().trim().min(1).max(40),
  cardLastFour: z.string().regex(/^\d{4}$/, "must be four digits"),
  cardExpMonth: z.number().int().min(1).max(12),
  cardExpYear: z.number().int().min(2000).max(2200),
});

/** POST /customers/{id}/payment-methods: a record-keeping card (chargeable false, source merchant). */
export async function attachCustomerCard(ctx: Ctx, customerId: string, body: unknown) {
  requireScope(ctx, "customer_payment_methods:write");
  const input = parseInput(attachCardInput, body);
  const id = await merchantCustomer(ctx, customerId);
  return withTx(ctx, (tx) => addCard(tx, principalEventTenant(tx), id, { ...input, chargeable: false, processorReference: null, source: "merchant" }));
}

/** POST /customers/{customerId}/payment-methods/{id}/pause and /resume: paused cards list but renewals skip them. */
export async function setCustomerCardActive(ctx: Ctx, customerId: string, id: string, isActive: boolean) {
  requireScope(ctx, "customer_payment_methods:write");
  const cid = await merchantCustomer(ctx, customerId);
  const card = await cardOf(ctx, cid, id);
  if (card.isActive === isActive) return card;
  return ctx.db.savedCard.update({ where: { id: card.id }, data: { isActive } });
}

// ---- the hosted update-card page ---------------------------------------------------------------------------

/** What {checkout_url}/billing/{token} shows: the merchant's brand, the subscription the token names, the cards. */
export async function billingPageView(ctx: Ctx) {
  const w = requireWallet(ctx);
  const [app, cards, sub] = await Promise.all([
    ctx.db.application.findUniqueOrThrow({ where: { id: w.tenant.applicationId }, select: { name: true, settings: true } }),
    listCards(ctx, w.customerId),
    w.subscriptionId ? ctx.db.subscription.findFirst({ where: { id: w.subscriptionId, customerId: w.customerId } }) : Promise.resolve(null),
  ]);
  const settings = (app.settings ?? {}) as { logoUrl?: unknown; brandColor?: unknown };
  const def = cards.find((c) => c.isDefault) ?? null;
  return {
    merchant: { name: app.name, logoUrl: typeof settings.logoUrl === "string" ? settings.logoUrl : null, brandColor: typeof settings.brandColor === "string" ? settings.brandColor : null },
    cards: cards.map(savedCardView),
    subscription: sub ? buyerSubscriptionView(sub, def) : null,
  };
}

/** The page's add-card action: a zero-amount vault session confirmed with the buyer's card token at once. */
export async function addCardFromPage(ctx: Ctx, paymentToken: string) {
  const s = await createVaultSession(ctx);
  return confirmVault(ctx, { checkoutSessionId: s.checkoutSessionId, paymentToken });
}
