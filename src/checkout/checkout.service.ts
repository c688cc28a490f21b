// Checkout sessions: creation from a cart, the buyer-facing reads, and completion: single-flight across
// processes, one order per session whatever happens, payment on the test processor or Net-N terms.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { type Cart, type CheckoutSession, type Connector, type Payment, Prisma } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { addLineItem } from "../carts/cart-items.service";
import { cartLinesJson, cartView, createCart, loadCartWithConnectorKinds, shapeCartLines } from "../carts/carts.service";
import { findOrCreateCustomerByEmail } from "../customers/customers.service";
import { currentStateFirst, outboxIf, principalEventTenant, recordEvent, tenantOf, whileCredentialLive, withOutbox } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { filter, pipe } from "graphql-yoga";
import { applyChargeResult } from "../payments/payments.service";
import { convertQuoteForOrder } from "../quotes/quotes.service";
import { completeOrderCheckout } from "../orders/order-lifecycle.service";
import { deferOrderMoves, takeOrderMoves } from "../orders/order.machine";
import { processorFor } from "../payments/processor";
import { findProxyCharge, settleProxyCharge } from "../payments/processor-proxy.service";
import { applyCodeToCart, recordSessionDiscount, redeemCartDiscount } from "../discounts/discounts.service";
import { requireScope, requireTenant } from "../shared/guards";
import { type Address, addressSchema, canonicalAddress, metadataSchema } from "../shared/address";
import { type Ctx, reportLimit, withStatement, withTx } from "../shared/context";
import { createSubscriptionFromCheckout, type Recurring, recurringInput, recurringLine, trialApplies } from "../subscriptions/subscriptions.service";
import { assertSumsFit, positiveAmount } from "../shared/money";
import { DomainError, errors, parseInput } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { isUuid } from "../shared/ids";
import { identifiesCustomer, resolveSessionCustomer } from "./session-customer";

export const METHODS = ["card", "net30", "processor_proxy"] as const;
type Method = (typeof METHODS)[number];
/**
 * What a session offers when allowedMethods is not sent: processor_proxy is only offered when asked for, and net30
 * only to a session that names a customer (createCheckoutSession).
 */
const DEFAULT_METHODS: readonly Method[] = ["card", "net30"];
const CONNECTOR_KIND: Record<Method, "card" | "invoice_terms"> = { card: "card", net30: "invoice_terms", processor_proxy: "card" };
const DISPLAY: Record<Method, string> = { card: "Card", net30: "Net 30 invoice", processor_proxy: "Pay on the processor's page" };
/** A claim older than this belongs to a request that died; the next complete may take it over. */
export const STALE_CLAIM_MS = 60_000;

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

export const createSessionInput = z.strictObject({
  /** Optional: the credential pins one application; when sent it must be that one. */
  applicationId: z.uuid().optional(),
  cartId: z.uuid().optional(),
  externalCartId: z.string().min(1).max(200).optional(),
  returnUrl: httpUrl,
  cancelUrl: httpUrl,
  customerEmail: z.email().max(320).optional(),
  customer: z
    .strictObject({
      customerId: z.uuid().optional(),
      externalCustomerId: z.string().max(200).optional(),
      email: z.email().max(320).optional(),
      firstName: z.string().max(100).optional(),
      lastName: z.string().max(100).optional(),
      phone: z.string().max(40).optional(),
      shippingAddress: addressSchema.optional(),
      billingAddress: addressSchema.optional(),
      metadata: metadataSchema.optional(),
    })
    .optional(),
  allowedMethods: z.array(z.enum(METHODS)).min(1).max(3).optional(),
  paymentTerms: z.strictObject({ netN: z.number().int().min(0).max(365).nullable() }).optional(),
  recurring: z.unknown().optional(),
  collect: z.strictObject({ shippingAddress: z.boolean().optional(), billingAddress: z.boolean().optional() }).optional(),
  discountCode: z.string().min(1).max(100).optional(),
  metadata: metadataSchema.optional(),
}).refine((v) => Boolean(v.cartId) !== Boolean(v.externalCartId), { message: "exactly one of cartId or externalCartId is required", path: ["cartId"] });

export function sessionView(s: CheckoutSession, checkoutUrl: string) {
  return {
    id: s.id,
    status: s.status,
    cartId: s.cartId,
    hostedUrl: `${checkoutUrl}/checkout/${s.id}`,
    embedUrl: `${checkoutUrl}/checkout/${s.id}?embed=1`,
    allowedMethods: s.allowedMethods,
    collect: { shippingAddress: s.collectShipping, billingAddress: s.collectBilling },
    customerEmail: s.customerEmail,
    returnUrl: s.returnUrl,
    cancelUrl: s.cancelUrl,
    paymentTerms: { netN: s.netN },
    discountCode: s.discountCode,
    metadata: s.metadata,
    orderId: s.orderId,
    paymentId: s.paymentId,
    expiresAt: s.expiresAt.toISOString(),
    completedAt: s.completedAt?.toISOString() ?? null,
    createdAt: s.createdAt.toISOString(),
  };
}

/** The tenant's active payment connections, oldest first (one raw statement: read on every session creation). */
async function activeConnectors(ctx: Ctx, t: { applicationId: string; environmentId: string }) {
  return ctx.db.$queryRaw<Connector[]>`
    SELECT ${columns(Prisma.ConnectorScalarFieldEnum)} FROM "Connector"
    WHERE "applicationId" = ${t.applicationId}::uuid AND "environmentId" = ${t.environmentId}::uuid AND status = 'active'
    ORDER BY "createdAt", id`;
}

export async function createCheckoutSession(ctx: Ctx, body: unknown) {
  requireScope(ctx, "checkout:write");
  const input = parseInput(createSessionInput, body);
  const t = requireTenant(ctx);
  if (input.applicationId !== undefined && input.applicationId !== t.applicationId) throw errors.notFound("Application");
  // recurring: card only (the card is vaulted for renewals); an empty cart is allowed (completion synthesizes the line)
  const recurring = input.recurring === undefined ? null : parseRecurring(input.recurring, input.allowedMethods, input.paymentTerms?.netN);
  // Without a discount code or a customer object the only write is the session's statement (withStatement: no
  // transaction); applying a code writes the cart as well, and a customer object finds, creates or updates its
  // customer (checkout/session-customer.ts), so those take a transaction.
  const withCustomer = identifiesCustomer(input.customer, input.customerEmail);
  return (input.discountCode || withCustomer ? withTx : withStatement)(ctx, async (tx) => {
    let cartId = input.cartId;
    if (!cartId) {
      const found = await tx.db.cart.findFirst({ where: { applicationId: t.applicationId, environmentId: t.environmentId, externalCartId: input.externalCartId }, orderBy: { createdAt: "desc" } });
      if (!found) throw new DomainError("cart_not_found", "Cart not found");
      cartId = found.id;
    }
    const { connectorKinds, ...cart } = await loadCartWithConnectorKinds(tx, cartId);
    const customerId = withCustomer ? await resolveSessionCustomer(tx, principalEventTenant(tx), input.customer!, input.customerEmail) : null;
    if (cart.status === "converted" || cart.status === "checkout") {
      throw new DomainError("cart_not_editable", `A ${cart.status} cart cannot start a checkout`, { status: cart.status });
    }
    if (cart.lineItems.length === 0 && !recurring) throw errors.validation([{ path: ["cartId"], message: "The cart has no line items" }]);
    // discountCode: validated now and applied to the cart (422 discount_invalid); redeemed when the order is created.
    const discounted = input.discountCode ? await applyCodeToCart(tx, t, principalEventTenant(tx), cart, input.discountCode, "checkout_session") : cart;
    // Net-N is credit: by default only a session with a customer (its customer object, or the cart's) offers it; an
    // anonymous storefront session offers it only when its creator lists net30 in allowedMethods (issue 35).
    const known = Boolean(customerId ?? cart.customerId);
    const available = DEFAULT_METHODS.filter((m) => connectorKinds.includes(CONNECTOR_KIND[m]) && (m !== "net30" || known));
    const allowedMethods = recurring ? ["card"] : input.allowedMethods ? [...new Set(input.allowedMethods)] : available.length ? available : ["card"];
    // The event is recorded first, so that it rides in the session's statement (withOutbox).
    const sessionId = randomUUID();
    await recordEvent(tx, principalEventTenant(tx), "cart.checkout_started", { cartId: cart.id, checkoutSessionId: sessionId });
    const session = await insertSession(tx, t, {
      id: sessionId,
      cartId: cart.id,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      customerEmail: (input.customerEmail ?? input.customer?.email ?? cart.customerEmail)?.toLowerCase() ?? null,
      customerId: customerId ?? cart.customerId,
      customer: input.customer ?? null,
      allowedMethods,
      netN: input.paymentTerms?.netN ?? null,
      collectShipping: input.collect?.shippingAddress ?? true,
      collectBilling: input.collect?.billingAddress ?? false,
      metadata: input.metadata ?? {},
      recurring,
    });
    return input.discountCode ? recordSessionDiscount(tx, session, discounted) : session;
  });
}

export interface NewSession {
  /** default: a fresh one */
  id?: string;
  cartId: string;
  returnUrl: string;
  cancelUrl: string;
  customerEmail: string | null;
  customerId: string | null;
  customer: unknown;
  allowedMethods: string[];
  netN: number | null;
  collectShipping: boolean;
  collectBilling: boolean;
  metadata: unknown;
  /** a quote's checkout (quotes/quote-accept.service.ts): converts the quote with the order; deposit terms */
  quoteId?: string | null;
  depositAmount?: number | null;
  balanceNetN?: number | null;
  /** a recurring session's plan (subscriptions/subscriptions.service.ts recurringInput) */
  recurring?: Recurring | null;
}

/**
 * One statement: the cart reopens (if abandoned) and lives as long as the session, and the session is inserted, with
 * the events recorded so far in the transaction (withOutbox). Shared by POST /checkout-sessions and a quote's acceptance.
 */
export async function insertSession(tx: Ctx, t: { applicationId: string; environmentId: string }, n: NewSession): Promise<CheckoutSession> {
  const expiresAt = new Date(tx.clock.now().getTime() + tx.deps.config.CHECKOUT_SESSION_TTL_MS);
  const at = tx.clock.now();
  const json = (x: unknown) => (x === null || x === undefined ? null : JSON.stringify(x));
  const [session] = await tx.db.$queryRaw<CheckoutSession[]>(withOutbox(tx, Prisma.sql`
    WITH c AS (
      UPDATE "Cart" SET "expiresAt" = ${expiresAt}, status = CASE WHEN status = 'abandoned' THEN 'open' ELSE status END, "updatedAt" = ${at}
      WHERE id = ${n.cartId}::uuid RETURNING id
    )
    INSERT INTO "CheckoutSession" (id, "applicationId", "environmentId", "cartId", "returnUrl", "cancelUrl", "customerEmail", "customerId", customer,
      "allowedMethods", "netN", "collectShipping", "collectBilling", metadata, "expiresAt", "createdAt", "quoteId", "depositAmount", "balanceNetN", recurring)
    SELECT ${n.id ?? randomUUID()}::uuid, ${t.applicationId}::uuid, ${t.environmentId}::uuid, c.id, ${n.returnUrl}, ${n.cancelUrl},
      ${n.customerEmail}, ${n.customerId}::uuid, ${json(n.customer)}::jsonb, ${n.allowedMethods}::text[], ${n.netN}::int, ${n.collectShipping},
      ${n.collectBilling}, ${JSON.stringify(n.metadata ?? {})}::jsonb, ${expiresAt}, ${at}, ${n.quoteId ?? null}::uuid, ${n.depositAmount ?? null}::int, ${n.balanceNetN ?? null}::int, ${json(n.recurring)}::jsonb
    FROM c
    RETURNING ${columns(Prisma.CheckoutSessionScalarFieldEnum)}`));
  return session;
}

export async function findSession<I extends Prisma.CheckoutSessionInclude = Record<never, never>>(ctx: Ctx, id: string, include?: I) {
  const s = isUuid(id) ? await ctx.db.checkoutSession.findUnique({ where: { id }, include: include as I }) : null;
  if (!s) throw new DomainError("session_not_found", "Checkout session not found");
  return s as Prisma.CheckoutSessionGetPayload<{ include: I }>;
}

/**
 * The session with its cart and the cart's lines (oldest first), for completion: one raw statement, the shape of
 * Prisma's `include: { cart: { include: { lineItems } } }` (test/cart-read.e2e holds them equal). 404 session_not_found.
 */
export async function findSessionWithCart(ctx: Ctx, id: string): Promise<SessionWithCart> {
  return (await readSessionWithCart(ctx, id, undefined)).session;
}

/**
 * findSessionWithCart, with what completion's one-statement path needs to know in the same statement: the buyer's
 * email as completion derives it (the request's, else the session's, else the cart's, lower-cased), the buyer's
 * customer (the one the session names, else the one with that email), and whether the cart already has an order.
 */
export async function findSessionForCompletion(ctx: Ctx, id: string, requestEmail: string | null) {
  return readSessionWithCart(ctx, id, requestEmail) as Promise<{ session: SessionWithCart; buyer: { email: string | null; customerId: string | null }; cartOrdered: boolean }>;
}

async function readSessionWithCart(ctx: Ctx, id: string, requestEmail: string | null | undefined) {
  type Row = CheckoutSession & { cart: Cart & { lineItems: unknown[]; expiresAt: string | null; createdAt: string; updatedAt: string } } & {
    _buyerEmail?: string | null;
    _buyerId?: string | null;
    _cartOrdered?: boolean;
  };
  const completion = requestEmail !== undefined;
  const email = Prisma.sql`lower(COALESCE(${requestEmail ?? null}::text, s."customerEmail", (SELECT c."customerEmail" FROM "Cart" c WHERE c.id = s."cartId")))`;
  const [row] = isUuid(id)
    ? await ctx.db.$queryRaw<Row[]>`
        SELECT ${columns(Prisma.CheckoutSessionScalarFieldEnum, "s")},
          (SELECT json_build_object(${cartJsonFields}, 'lineItems', ${cartLinesJson(Prisma.sql`c.id`)}) FROM "Cart" c WHERE c.id = s."cartId") AS cart${
            completion
              ? Prisma.sql`, ${email} AS "_buyerEmail",
          (SELECT cu.id FROM "Customer" cu WHERE cu."applicationId" = s."applicationId" AND cu."environmentId" = s."environmentId"
            AND CASE WHEN s."customerId" IS NULL THEN cu.email = ${email} ELSE cu.id = s."customerId" END) AS "_buyerId",
          EXISTS (SELECT 1 FROM "Order" o WHERE o."cartId" = s."cartId") AS "_cartOrdered"`
              : Prisma.empty
          }
        FROM "CheckoutSession" s WHERE s.id = ${id}::uuid`
    : [];
  if (!row) throw new DomainError("session_not_found", "Checkout session not found");
  const { _buyerEmail, _buyerId, _cartOrdered, cart: c, ...session } = row;
  return {
    session: {
      ...session,
      cart: { ...c, expiresAt: c.expiresAt === null ? null : new Date(c.expiresAt), createdAt: new Date(c.createdAt), updatedAt: new Date(c.updatedAt), lineItems: shapeCartLines(c.lineItems) },
    } as SessionWithCart,
    buyer: { email: _buyerEmail ?? null, customerId: _buyerId ?? null },
    cartOrdered: _cartOrdered ?? false,
  };
}
/** 'id', c."id", 'applicationId', c."applicationId", ...: every Cart column, for json_build_object */
const cartJsonFields = Prisma.raw(Object.values(Prisma.CartScalarFieldEnum).map((f) => `'${f}', c."${f}"`).join(", "));

/**
 * The keyless checkout routes (hosted page, payment methods, embed token, complete) are limited per session and,
 * for callers without a key, per IP: the session id is a bearer handle that a buyer's browser holds.
 */
export async function limitBuyer(ctx: Ctx, sessionId: string) {
  const { limits } = ctx.deps;
  const states = await Promise.all([
    !ctx.principal && ctx.ip ? limits.consume("checkoutIp", ctx.ip) : null,
    isUuid(sessionId) ? limits.consume("checkoutSession", sessionId) : null,
  ]);
  for (const s of states) reportLimit(ctx, s);
}

/** GET /checkout-sessions/{id}/payment-methods (browser, no key). */
export async function sessionPaymentMethods(ctx: Ctx, id: string) {
  await limitBuyer(ctx, id);
  return paymentMethodsOf(ctx, await findSession(ctx, id));
}

async function paymentMethodsOf(ctx: Ctx, s: CheckoutSession) {
  const connectors = await activeConnectors(ctx, s);
  const methods = (s.allowedMethods as Method[]).flatMap((m) => {
    const c = connectors.find((x) => x.kind === CONNECTOR_KIND[m]);
    return c ? [{ method: m, displayName: DISPLAY[m], connectorId: c.id }] : [];
  });
  return {
    methods,
    ...(methods.length === 0 && connectors.length > 0
      ? { unavailableReason: { code: "no_allowed_method_connected", message: "None of this session's payment methods has an active connection" } }
      : {}),
  };
}

/** What the hosted page shows: the session, its cart snapshot and the payment methods on offer. */
export async function sessionForBuyer(ctx: Ctx, id: string, opts: { limit: boolean } = { limit: true }) {
  if (opts.limit) await limitBuyer(ctx, id);
  const s = await findSession(ctx, id);
  const cart = await ctx.db.cart.findUniqueOrThrow({ where: { id: s.cartId }, include: { lineItems: { orderBy: { createdAt: "asc" } } } });
  const app = await ctx.db.application.findUnique({ where: { id: s.applicationId }, select: { name: true, settings: true } });
  const allowedOrigins = ((app?.settings ?? {}) as { allowedOrigins?: unknown }).allowedOrigins;
  const { environmentKind } = await tenantOf(ctx, s);
  return {
    session: s,
    cart: cartView(cart as any),
    allowedOrigins,
    merchant: { name: app?.name ?? "" },
    sandbox: environmentKind !== "production",
    // processor_proxy is completed by the processor's own page (with its charge id), never from this form.
    methods: s.status === "open" ? (await paymentMethodsOf(ctx, s)).methods.filter((m) => m.method !== "processor_proxy") : [],
  };
}

/** A session that is no longer open; a completed one names its order, so a retry after a lost response finds it. */
function notOpen(s: CheckoutSession) {
  return new DomainError("session_not_open", `This checkout session is ${s.status}`, {
    status: s.status,
    ...(s.status === "completed" && s.orderId ? { orderId: s.orderId, paymentId: s.paymentId } : {}),
  });
}

/**
 * The card-testing guard: a session or (keyless) address with too many declines gets 429 before any new
 * payment row, charge or event. Every decline spends a point of both buckets in the shared store; the refusal is
 * then remembered by the process (no store round trip on a completion's happy path). Another process learns of
 * it at its own next decline, so across P processes a bucket admits at most P - 1 declines beyond its limit.
 */
function checkDeclines(ctx: Ctx, sessionId: string) {
  const { limits } = ctx.deps;
  limits.blocked("declineSession", sessionId);
  if (!ctx.principal && ctx.ip) limits.blocked("declineIp", ctx.ip);
}

async function countDecline(ctx: Ctx, sessionId: string) {
  const { limits } = ctx.deps;
  await Promise.all([limits.spend("declineSession", sessionId), !ctx.principal && ctx.ip ? limits.spend("declineIp", ctx.ip) : null]);
}

const net30Acceptance = z.strictObject({
  termsHash: z.string().regex(/^[0-9a-f]{64}$/i, "must be the SHA-256 hex of the terms text (64 hex characters)"),
  acceptedAt: z.iso.datetime({ offset: true }),
  companyName: z.string().trim().min(1).max(200),
  billingEmail: z.email().max(320),
});

export const completeInput = z.strictObject({
  paymentMethod: z.string().min(1).max(40),
  email: z.email().max(320).optional(),
  shippingAddress: addressSchema.optional(),
  billingAddress: addressSchema.optional(),
  paymentToken: z.string().min(1).max(200).optional(),
  processorTransactionId: z.string().min(1).max(200).optional(),
  net30Acceptance: net30Acceptance.optional(),
});

/**
 * Whether completion needs a shipping address (and the hosted page shows the step). A quote's session carries its
 * resolved step (derived from the accepted lines, or the revision's collect override: quotes.md accept rule 8), so it
 * asks even when no line ships; a cart's session asks when collecting and a line ships.
 */
export function asksShippingAddress(s: Pick<CheckoutSession, "collectShipping" | "quoteId">, lines: { requiresShipping: boolean }[]): boolean {
  return s.collectShipping && (s.quoteId !== null || lines.some((l) => l.requiresShipping));
}

export function termsHash(text: string) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/**
 * POST /checkout-sessions/{id}/complete. The session row is claimed in the statement that creates the order (409
 * checkout_in_progress for a racing call, in any process); the order is created once per session and once per cart
 * (unique checkoutSessionId and cartId) and kept when a card is declined, so a retry pays the same order.
 * Statements on the card happy path (test/statement-budgets): the two buyer buckets, the session read, then
 * BEGIN / claim+order+lines+history+payment / events / COMMIT, the processor, and BEGIN / payment+ledger / order
 * read / order move+history / session+cart / events / COMMIT.
 */
export async function completeCheckout(ctx: Ctx, id: string, body: unknown) {
  await limitBuyer(ctx, id);
  const input = parseInput(completeInput, body);
  // The session with its cart and lines, and the buyer's customer: one statement.
  const read = await findSessionForCompletion(ctx, id, input.email ?? null);
  const { cart: cart0, ...s0 } = read.session;
  let cart = cart0;
  const now = ctx.clock.now();
  if (s0.status === "expired" || (s0.status === "open" && s0.expiresAt <= now)) throw new DomainError("session_expired", "This checkout session has expired");
  if (s0.status !== "open") throw notOpen(s0);
  // A wallet's zero-amount vault session (wallet/saved-cards.service.ts) saves a card; it never becomes an order.
  if ((s0.metadata as { walletVault?: unknown } | null)?.walletVault === true) {
    throw new DomainError("session_not_open", "This session saves a card: confirm it with POST /me/payment-methods/confirm", { status: s0.status });
  }
  if (!(METHODS as readonly string[]).includes(input.paymentMethod) || !s0.allowedMethods.includes(input.paymentMethod)) {
    throw new DomainError("payment_method_not_allowed", `Payment method "${input.paymentMethod}" is not accepted here`, { allowedMethods: s0.allowedMethods });
  }
  const method = input.paymentMethod as Method;
  // A session opened by POST /orders/{id}/checkout pays that existing order (orders/order-lifecycle.service.ts).
  if (s0.payOrderId) {
    // The order exists already; a processor-proxy charge is matched to a new order's total, so it is not offered here.
    if (method === "processor_proxy") throw new DomainError("payment_method_not_allowed", 'Payment method "processor_proxy" is not accepted for an existing order', { allowedMethods: s0.allowedMethods.filter((m) => m !== "processor_proxy") });
    return completeOrderCheckout(ctx, s0, { paymentMethod: method, paymentToken: input.paymentToken, net30Acceptance: input.net30Acceptance });
  }

  const email = (input.email ?? s0.customerEmail ?? cart.customerEmail)?.toLowerCase() ?? null;
  const shippingAddress = canonicalAddress(input.shippingAddress ?? (cart.shippingAddress as Address | null) ?? (s0.customer as any)?.shippingAddress ?? null);
  const billingAddress = canonicalAddress(input.billingAddress ?? (cart.billingAddress as Address | null) ?? (s0.customer as any)?.billingAddress ?? null);
  const missing: string[] = [];
  if (!email) missing.push("email");
  if (asksShippingAddress(s0, cart.lineItems) && !shippingAddress) missing.push("shippingAddress");
  if (s0.collectBilling && !billingAddress) missing.push("billingAddress");
  if (method === "card" && !input.paymentToken) missing.push("paymentToken");
  if (method === "net30" && !input.net30Acceptance) missing.push("net30Acceptance");
  if (method === "processor_proxy" && !input.processorTransactionId) missing.push("processorTransactionId");
  if (missing.length) throw new DomainError("missing_required_field", `Required to complete this checkout: ${missing.join(", ")}`, { fields: missing });
  if (method === "card") checkDeclines(ctx, s0.id);
  // A recurring session: trial eligibility (one trial per customer per plan) and, for an empty cart, the plan's line.
  const recurring = s0.recurring ? await recurringCheckout(ctx, s0, cart, email) : null;
  if (recurring) cart = recurring.cart;
  // Deposit terms: the balance becomes a Net-N invoice, so the invoice connection must be there before any charge.
  const balanceConnector = s0.depositAmount !== null ? await ctx.db.connector.findFirst({ where: { applicationId: s0.applicationId, environmentId: s0.environmentId, kind: "invoice_terms", status: "active" }, orderBy: { createdAt: "asc" } }) : null;
  if (s0.depositAmount !== null && !balanceConnector) throw new DomainError("no_payment_connection", "No active invoice_terms connection for this quote's balance invoice");

  // Processor proxy: the buyer's charge is checked before anything is written (402 payment_failed with details.reason);
  // the payment row is a card payment recording it.
  const proxyCharge = method === "processor_proxy"
    ? await findProxyCharge(ctx, s0, input.processorTransactionId!, { amount: s0.depositAmount ?? cartView(cart as any).total, currency: cart.currency })
    : null;
  const rowMethod = method === "processor_proxy" ? "card" : method;

  // The claim (single-flight: 409 checkout_in_progress for a racing call, in any process) commits with the order
  // and its pending payment, so a failure before that commit leaves nothing claimed.
  let claimed = false;
  let subscriptionId: string | null = null;
  const release = () => ctx.db.checkoutSession.updateMany({ where: { id: s0.id, completionStartedAt: now }, data: { completionStartedAt: null } });

  try {
    // 1. The claim, the order (once per session, once per cart) and a pending payment: for a returning buyer's plain
    // cart in one statement; otherwise, or if that statement finds otherwise, in a transaction.
    const atOnce =
      !s0.quoteId && !cart.appliedDiscount && !recurring && s0.depositAmount === null && !read.cartOrdered && email !== null && read.buyer.email === email && read.buyer.customerId
        ? await placeOrderAtOnce(ctx, { session: s0, cart, method: rowMethod, email, shippingAddress, billingAddress, now, customerId: read.buyer.customerId, eventMethod: rowMethod }).catch(async (e) => {
            if (!(e instanceof NotPlacedAtOnce)) throw e;
            if (e.claimed) await release();
            return null;
          })
        : null;
    const { orderId, payment, connector, customerId } = atOnce ?? await withTx(ctx, async (tx) => {
      const tenant = await tenantOf(tx, s0);
      const placed = await claimAndPlaceOrder(tx, { session: s0, cart, method: rowMethod, email, shippingAddress, billingAddress, now });
      if (!placed.claimed) {
        const s = await findSession(tx, id);
        if (s.status !== "open") throw notOpen(s);
        throw new DomainError("checkout_in_progress", "This checkout is already being completed");
      }
      const connector = placed.connector;
      if (!connector) throw new DomainError("no_payment_connection", `No active ${CONNECTOR_KIND[method]} connection for this application and environment`);
      let customer = placed.customer;
      let payment = placed.payment;
      let orderId = placed.orderId;
      if (email && !customer) {
        // A first order from this address: the customer is created (customer.created) and linked.
        customer = await findOrCreateCustomerByEmail(tx, { email }, tenant);
        if (orderId) await tx.db.order.update({ where: { id: orderId }, data: { customerId: customer.id } });
      }
      if (orderId) {
        await recordEvent(tx, tenant, "order.created", { orderId, checkoutSessionId: s0.id, cartId: cart.id, total: placed.total, currency: cart.currency, customerId: customer?.id ?? null });
        // A quote's checkout: the quote is converted in the transaction that creates its order.
        if (s0.quoteId) await convertQuoteForOrder(tx, tenant, s0.quoteId, orderId);
        // The cart's promotion code is counted with the order (422 discount_invalid when it ran out meanwhile).
        if (cart.appliedDiscount) await redeemCartDiscount(tx, { orderId, cart });
      } else {
        // The cart already has an order: this session's, when an earlier attempt was declined (the retry pays the
        // same order), or another session's, which ends this one.
        const order = await tx.db.order.findUnique({ where: { cartId: cart.id } });
        if (!order || order.checkoutSessionId !== s0.id) {
          throw new DomainError("session_not_open", "This session's cart was already ordered through another checkout session", {
            status: s0.status,
            reason: "cart_already_ordered",
            orderId: order?.id,
          });
        }
        orderId = order.id;
        const netN = method === "net30" ? (s0.netN ?? customer?.netTermsDays ?? 30) : null;
        payment = await tx.db.payment.create({
          data: {
            applicationId: s0.applicationId,
            environmentId: s0.environmentId,
            orderId: order.id,
            checkoutSessionId: s0.id,
            amount: s0.depositAmount ?? order.total - order.compAmount,
            currency: order.currency,
            method: rowMethod,
            processor: connector.provider,
            connectorId: connector.id,
            netN,
            netNSource: netN === null ? null : s0.netN !== null ? "cart_override" : customer?.netTermsDays != null ? "customer" : "default",
            createdAt: tx.clock.now(),
          },
        });
      }
      await recordEvent(tx, tenant, "payment.pending", { paymentId: payment!.id, orderId, amount: payment!.amount, currency: payment!.currency, method: rowMethod });
      return { orderId, payment: payment!, connector, customerId: customer?.id ?? null };
      // Raw statements only on the common path (claim, order, events). A quote or a promotion code needs model
      // queries, known now: Prisma's transaction at once. A first customer or a retried session is known only after
      // the claim: those run again in Prisma's.
    }, { sqlOnly: !s0.quoteId && !cart.appliedDiscount });
    claimed = true;

    // 2. Money: the processor for cards (outside any transaction); the invoice for Net-N.
    let settled: Payment;
    if (proxyCharge) {
      settled = await settleProxyCharge(ctx, {
        sessionId: s0.id,
        orderId,
        payment,
        charge: proxyCharge,
        then: async (tx, p) => {
          if (s0.depositAmount !== null) await issueBalanceInvoice(tx, s0, orderId, balanceConnector!);
          await finish(tx, s0, orderId, p.id);
        },
      });
    } else if (method === "card") {
      const result = await processorFor(connector.provider).charge({ amount: payment.amount, currency: payment.currency, paymentToken: input.paymentToken!, reference: payment.id });
      const plain = s0.depositAmount === null && !recurring && result.outcome !== "failed";
      settled = await withTx(ctx, async (tx) => {
        // a plain capture: the order's move rides in the statement that completes the session (finish)
        if (plain) deferOrderMoves(tx);
        const p = await applyChargeResult(tx, payment, result);
        if (p.status !== "failed" && s0.depositAmount !== null) await issueBalanceInvoice(tx, s0, orderId, balanceConnector!);
        if (p.status !== "failed") await finish(tx, s0, orderId, p.id);
        if (p.status !== "failed" && recurring) {
          subscriptionId = (await createSubscriptionFromCheckout(tx, { session: s0, orderId, customerId: customerId!, email, currency: cart.currency, paymentToken: input.paymentToken!, trial: recurring.trial })).id;
        }
        if (p.status === "failed") await tx.db.checkoutSession.update({ where: { id: s0.id }, data: { completionStartedAt: null } });
        return p;
        // raw statements only for a card charged without a deposit or a subscription (a decline writes through Prisma)
      }, { sqlOnly: plain });
      if (settled.status === "failed") {
        await countDecline(ctx, s0.id);
        throw new DomainError("payment_failed", settled.errorMessage ?? "The payment was declined", { reason: settled.errorCode, orderId, paymentId: settled.id });
      }
    } else {
      settled = await withTx(ctx, async (tx) => {
        const issued = tx.clock.now();
        const due = new Date(Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth(), issued.getUTCDate() + (payment.netN ?? 30)));
        const dueDate = due.toISOString().slice(0, 10);
        await tx.db.payment.update({
          where: { id: payment.id },
          data: { dueDate: due, metadata: { dueDate, invoiceIssuedAt: issued.toISOString(), net30Acceptance: input.net30Acceptance } as any },
        });
        const p = await applyChargeResult(tx, { ...payment, metadata: {} } as Payment, { outcome: "authorized", processorPaymentId: `invoice_${payment.id}` });
        await finish(tx, s0, orderId, p.id);
        return p;
      });
    }
    return { orderId, paymentId: settled.id, paymentStatus: settled.status, ...(subscriptionId ? { subscriptionId } : {}) };
  } catch (e) {
    if (claimed) await release().catch(() => {});
    throw e;
  }
}

/** A recurring session at completion: whether a trial applies, and the cart with the plan's line when it is empty. */
async function recurringCheckout(ctx: Ctx, s: Omit<SessionWithCart, "cart">, cart: SessionWithCart["cart"], email: string | null) {
  const r = recurringInput.parse(s.recurring);
  const customerId = s.customerId ?? (email ? (await ctx.db.customer.findFirst({ where: { applicationId: s.applicationId, environmentId: s.environmentId, email }, select: { id: true } }))?.id ?? null : null);
  const trial = await trialApplies(ctx, s, customerId, r);
  if (cart.lineItems.length > 0) return { trial, cart };
  const line = recurringLine(r);
  // during a trial nothing is charged now: the line reads the plan at zero (the card is verified for a zero amount)
  const synthesized = { ...line, id: randomUUID(), cartId: cart.id, unitPrice: trial ? 0 : line.unitPrice, name: trial ? `${line.name} (trial)` : line.name, createdAt: s.createdAt, updatedAt: s.createdAt };
  return { trial, cart: { ...cart, lineItems: [synthesized] } as unknown as SessionWithCart["cart"] };
}

/** `recurring` at session creation: the plan (422 naming its field) on a card-only session (Net-N refused). */
function parseRecurring(raw: unknown, allowedMethods: readonly string[] | undefined, netN: number | null | undefined): Recurring {
  const r = parseInput(recurringInput, raw, ["recurring"]);
  // an empty cart's order is the plan's line: amount x quantity within the money bound
  assertSumsFit([{ path: ["recurring", "quantity"], value: r.amount * (r.quantity ?? 1), what: "The plan's amount x quantity" }]);
  if (allowedMethods && allowedMethods.some((m) => m !== "card")) {
    throw errors.validation([{ path: ["allowedMethods"], message: "A recurring checkout is paid by card only (the card is kept for renewals)" }]);
  }
  if (netN !== undefined && netN !== null) throw errors.validation([{ path: ["paymentTerms", "netN"], message: "A recurring checkout cannot use Net-N terms" }]);
  return r;
}

type SessionWithCart = Prisma.CheckoutSessionGetPayload<{ include: { cart: { include: { lineItems: true } } } }>;

/**
 * Checkout's first transaction in one statement: claim the session (only if open and not claimed, or its claim is
 * stale), find the method's active connector and the buyer's customer (the session's, else by email), and insert the order with its lines, its first
 * history row and a pending payment. The order insert does nothing when the cart already has an order (unique
 * cartId): the caller then looks at that order. Nothing is written unless the claim and the connector are there.
 */
async function claimAndPlaceOrder(
  tx: Ctx,
  a: ClaimArgs & {
    /**
     * The one-statement path (placeOrderAtOnce): these ids, and nothing is claimed unless the buyer is this customer,
     * the connection is there and the cart has no order; the events recorded so far ride in the statement, written
     * only with the payment.
     */
    atOnce?: { orderId: string; paymentId: string; customerId: string };
  },
) {
  const { session: s, cart, method } = a;
  const v = cartView(cart as any);
  const at = tx.clock.now();
  const orderId = a.atOnce?.orderId ?? randomUUID();
  const paymentId = a.atOnce?.paymentId ?? randomUUID();
  const strict = a.atOnce
    ? Prisma.sql`
        AND EXISTS (SELECT 1 FROM cust WHERE id = ${a.atOnce.customerId}::uuid) AND EXISTS (SELECT 1 FROM conn)
        AND NOT EXISTS (SELECT 1 FROM "Order" WHERE "cartId" = ${cart.id}::uuid)`
    : Prisma.empty;
  const lines = cart.lineItems.map((l, i) => ({
    type: l.type, referenceId: l.referenceId, name: l.name, description: l.description, unitPrice: l.unitPrice, quantity: l.quantity,
    taxAmount: l.taxAmount, discountAmount: l.discountAmount, requiresShipping: l.requiresShipping, imageUrl: l.imageUrl, metadata: l.metadata ?? {}, position: i,
  }));
  const json = (x: unknown) => (x === null || x === undefined ? null : JSON.stringify(x));
  const net = method === "net30";
  const rows = await tx.db.$queryRaw<(Payment & { _claimed: boolean; _connectorId: string | null; _provider: string | null; _customerId: string | null; _netTermsDays: number | null; _orderId: string | null })[]>`
    WITH conn AS (
      SELECT id, provider FROM "Connector"
      WHERE "applicationId" = ${s.applicationId}::uuid AND "environmentId" = ${s.environmentId}::uuid AND kind = ${CONNECTOR_KIND[method]} AND status = 'active'
      ORDER BY "createdAt" LIMIT 1
    ), cust AS (
      SELECT id, "netTermsDays" FROM "Customer"
      WHERE "applicationId" = ${s.applicationId}::uuid AND "environmentId" = ${s.environmentId}::uuid AND ${s.customerId ? Prisma.sql`id = ${s.customerId}::uuid` : Prisma.sql`email = ${a.email}`}
    ), claim AS (
      UPDATE "CheckoutSession" SET "completionStartedAt" = ${a.now}
      WHERE id = ${s.id}::uuid AND status = 'open'
        AND ("completionStartedAt" IS NULL OR "completionStartedAt" < ${new Date(a.now.getTime() - STALE_CLAIM_MS)})${strict}
      RETURNING id
    ), o AS (
      INSERT INTO "Order" (id, "applicationId", "environmentId", "checkoutSessionId", "cartId", "customerId", email, status, currency,
        subtotal, "discountTotal", "shippingTotal", "taxTotal", total, "shippingAddress", "billingAddress", "selectedShipping", metadata, "createdAt", "updatedAt")
      SELECT ${orderId}::uuid, ${s.applicationId}::uuid, ${s.environmentId}::uuid, ${s.id}::uuid, ${cart.id}::uuid, (SELECT id FROM cust), ${a.email}, 'pending', ${cart.currency},
        ${v.subtotal}::int, ${v.discountTotal}::int, ${v.shippingTotal}::int, ${v.taxTotal}::int, ${v.total}::int,
        ${json(a.shippingAddress)}::jsonb, ${json(a.billingAddress)}::jsonb, ${json(cart.selectedShipping)}::jsonb, ${json(s.metadata ?? {})}::jsonb, ${at}, ${at}
      FROM claim, conn
      ON CONFLICT DO NOTHING
      RETURNING id, total, "compAmount", currency
    ), l AS (
      INSERT INTO "OrderLineItem" (id, "orderId", type, "referenceId", name, description, "unitPrice", quantity, "taxAmount", "discountAmount", "requiresShipping", "imageUrl", metadata, position)
      SELECT gen_random_uuid(), o.id, l.type, l."referenceId", l.name, l.description, l."unitPrice", l.quantity, l."taxAmount", l."discountAmount", l."requiresShipping", l."imageUrl", l.metadata, l.position
      FROM o, jsonb_to_recordset(${JSON.stringify(lines)}::jsonb) AS l(type text, "referenceId" text, name text, description text, "unitPrice" int, quantity int,
        "taxAmount" int, "discountAmount" int, "requiresShipping" boolean, "imageUrl" text, metadata jsonb, position int)
    ), h AS (
      INSERT INTO "OrderStatusHistory" (id, "orderId", "fromStatus", "toStatus", "actorType", source, "createdAt")
      SELECT gen_random_uuid(), o.id, NULL, 'pending', 'system', 'state_machine', ${at} FROM o
    ), p AS (
      INSERT INTO "Payment" (id, "applicationId", "environmentId", "orderId", "checkoutSessionId", amount, currency, method, processor, "connectorId", "netN", "netNSource", "createdAt", "updatedAt")
      SELECT ${paymentId}::uuid, ${s.applicationId}::uuid, ${s.environmentId}::uuid, o.id, ${s.id}::uuid, COALESCE(${s.depositAmount}::int, o.total - o."compAmount"), o.currency, ${method}, conn.provider, conn.id,
        CASE WHEN ${net} THEN COALESCE(${s.netN}::int, (SELECT "netTermsDays" FROM cust), 30) END,
        CASE WHEN ${net} THEN CASE WHEN ${s.netN}::int IS NOT NULL THEN 'cart_override' WHEN (SELECT "netTermsDays" FROM cust) IS NOT NULL THEN 'customer' ELSE 'default' END END,
        ${at}, ${at}
      FROM o, conn
      RETURNING ${columns(Prisma.PaymentScalarFieldEnum)}
    )${a.atOnce ? outboxIf(tx, Prisma.sql`EXISTS (SELECT 1 FROM p)`) : Prisma.empty}
    SELECT ${columns(Prisma.PaymentScalarFieldEnum, "p")}, EXISTS (SELECT 1 FROM claim) AS "_claimed", (SELECT id FROM conn) AS "_connectorId", (SELECT provider FROM conn) AS "_provider",
      (SELECT id FROM cust) AS "_customerId", (SELECT "netTermsDays" FROM cust) AS "_netTermsDays", (SELECT id FROM o) AS "_orderId"
    FROM (SELECT 1) AS one LEFT JOIN p ON true`;
  const { _claimed, _connectorId, _provider, _customerId, _netTermsDays, _orderId, ...payment } = rows[0];
  return {
    claimed: _claimed,
    connector: _connectorId ? { id: _connectorId, provider: _provider! } : null,
    customer: _customerId ? { id: _customerId, netTermsDays: _netTermsDays } : null,
    orderId: _orderId,
    total: v.total,
    payment: _orderId ? (payment as Payment) : null,
  };
}

interface ClaimArgs {
  session: Omit<SessionWithCart, "cart">;
  cart: SessionWithCart["cart"];
  method: Method;
  email: string | null;
  shippingAddress: Address | null;
  billingAddress: Address | null;
  now: Date;
}

/** placeOrderAtOnce's statement wrote nothing, or (claimed) only the claim: completion takes its transaction. */
class NotPlacedAtOnce extends Error {
  constructor(readonly claimed: boolean) {
    super("the order was not placed in one statement");
  }
}

/**
 * Completion's first transaction as one statement, without BEGIN and COMMIT (withStatement), for the common case
 * known from the session read: a returning buyer (their customer exists), a cart with no order, no quote, promotion
 * code, deposit or plan. order.created and payment.pending are recorded first and ride in the statement, written
 * only with the payment. If the statement finds the case otherwise (another request claimed the session, the
 * connection or customer changed, another session ordered the cart), it writes nothing but perhaps the claim, and
 * throws NotPlacedAtOnce: the caller releases a claim and runs the transaction, which decides as before.
 */
async function placeOrderAtOnce(ctx: Ctx, a: ClaimArgs & { customerId: string; eventMethod: string }) {
  return withStatement(ctx, async (c) => {
    const tenant = await tenantOf(c, a.session);
    const orderId = randomUUID();
    const paymentId = randomUUID();
    const total = cartView(a.cart as any).total;
    await recordEvent(c, tenant, "order.created", { orderId, checkoutSessionId: a.session.id, cartId: a.cart.id, total, currency: a.cart.currency, customerId: a.customerId });
    await recordEvent(c, tenant, "payment.pending", { paymentId, orderId, amount: total, currency: a.cart.currency, method: a.eventMethod });
    const placed = await claimAndPlaceOrder(c, { ...a, atOnce: { orderId, paymentId, customerId: a.customerId } });
    if (!placed.orderId || !placed.payment || !placed.connector) throw new NotPlacedAtOnce(placed.claimed);
    return { orderId: placed.orderId, payment: placed.payment, connector: placed.connector, customerId: a.customerId };
  });
}

/**
 * Deposit terms, once the deposit is paid: the rest of the order becomes a Net-N invoice (the quote's balanceNetN,
 * source cart_override), an authorized payment due then, so the order reads partially_paid until it is captured.
 */
async function issueBalanceInvoice(tx: Ctx, s: CheckoutSession, orderId: string, connector: { id: string; provider: string }) {
  const order = await tx.db.order.findUniqueOrThrow({ where: { id: orderId }, select: { total: true, compAmount: true, currency: true } });
  const amount = order.total - order.compAmount - (s.depositAmount ?? 0);
  if (amount <= 0) return;
  const issued = tx.clock.now();
  const netN = s.balanceNetN ?? 30;
  const due = new Date(Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth(), issued.getUTCDate() + netN));
  const dueDate = due.toISOString().slice(0, 10);
  const payment = await tx.db.payment.create({
    data: {
      applicationId: s.applicationId,
      environmentId: s.environmentId,
      orderId,
      checkoutSessionId: s.id,
      amount,
      currency: order.currency,
      method: "net30",
      processor: connector.provider,
      connectorId: connector.id,
      netN,
      netNSource: "cart_override",
      dueDate: due,
      metadata: { dueDate, invoiceIssuedAt: issued.toISOString(), kind: "balance", quoteId: s.quoteId },
      createdAt: issued,
    },
  });
  await recordEvent(tx, await tenantOf(tx, s), "payment.pending", { paymentId: payment.id, orderId, amount, currency: payment.currency, method: "net30" });
  await applyChargeResult(tx, payment, { outcome: "authorized", processorPaymentId: `invoice_${payment.id}` });
}

/**
 * The session completes and its cart converts in one statement, which also carries the transaction's outbox (its
 * events, cart.converted among them, and the payment's receipt: the payment and order rows it reads were written by
 * earlier statements).
 */
async function finish(tx: Ctx, s: Pick<CheckoutSession, "id" | "cartId" | "applicationId" | "environmentId">, orderId: string, paymentId: string) {
  await recordEvent(tx, await tenantOf(tx, s), "cart.converted", { cartId: s.cartId, orderId, checkoutSessionId: s.id });
  // the order's deferred move (deferOrderMoves), if any, rides here too
  const moves = takeOrderMoves(tx);
  const done = await tx.db.$queryRaw<{ id: string; _orderMoved: boolean }[]>(withOutbox(tx, Prisma.sql`
    WITH ${moves ? Prisma.sql`${moves.ctes}, ` : Prisma.empty}s AS (
      UPDATE "CheckoutSession" SET status = 'completed', "completedAt" = ${tx.clock.now()}, "orderId" = ${orderId}::uuid,
        "paymentId" = ${paymentId}::uuid, "completionStartedAt" = NULL
      WHERE id = ${s.id}::uuid
      RETURNING id, "cartId"
    ), c AS (
      UPDATE "Cart" SET status = 'converted', "updatedAt" = ${tx.clock.now()} WHERE id = (SELECT "cartId" FROM s) RETURNING id
    )
    SELECT s.id, ${moves ? moves.moved : Prisma.sql`true`} AS "_orderMoved" FROM s, c`));
  if (done.length !== 1) throw new Error(`checkout session ${s.id} or its cart vanished while completing`);
  moves?.verify(done[0]._orderMoved);
}

// ---- embedded checkout ---------------------------------------------------------------------------------

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
    throw new DomainError("allowed_methods_unsupported", "allowedMethods cannot be set on an embedded checkout");
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
  if (s.status === "expired" || (s.status === "open" && s.expiresAt <= ctx.clock.now())) throw new DomainError("session_expired", "This checkout session has expired");
  if (s.status !== "open") throw notOpen(s);
  const cart = await ctx.db.cart.findUniqueOrThrow({ where: { id: s.cartId }, include: { lineItems: true } });
  const env = await ctx.db.environment.findUniqueOrThrow({ where: { id: s.environmentId } });
  return { ...mintEmbedToken(ctx.clock.now()), amount: cartView(cart as any).total, currency: cart.currency, environment: env.providerEnvironment };
}

// ---- merchant reads and the live session stream ---------------------------------------------------------------

/** A checkout session of the caller's tenant (merchant credential with checkout:write). */
export async function getCheckoutSession(ctx: Ctx, id: string) {
  requireScope(ctx, "checkout:write");
  const t = requireTenant(ctx);
  const s = isUuid(id) ? await ctx.db.checkoutSession.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!s) throw new DomainError("session_not_found", "Checkout session not found");
  return s;
}

/** checkoutSessionUpdated(id): the session's current state, then again after each event about it. */
export async function subscribeSessionUpdates(ctx: Ctx, id: string) {
  const s = await getCheckoutSession(ctx, id);
  const t = requireTenant(ctx);
  const mine = (e: Envelope) => (e.data as { checkoutSessionId?: string } | null)?.checkoutSessionId === s.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
