// Checkout sessions: creation from a cart or a quote, the buyer-facing reads and the merchant reads. Completion is in
// checkout-complete.service.ts, the order it places in order-placement.ts.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Cart, type CheckoutSession, type Connector, Prisma } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { cartLinesJson, loadCartWithConnectorKinds, shapeCartLines } from "../carts/carts.service";
import { cartView } from "../carts/cart.view";
import { currentStateFirst, principalEventTenant, recordEvent, tenantOf, whileCredentialLive, withOutbox } from "../events/events.service";
import { type Envelope, tenantTopic } from "../events/hub";
import { filter, pipe } from "graphql-yoga";
import { applyCodeToCart, recordSessionDiscount } from "../discounts/discounts.service";
import { requireScope, requireTenant } from "../platform/auth.service";
import { addressSchema, metadataSchema } from "../shared/address";
import { type Ctx, reportLimit, withStatement, withTx } from "../shared/context";
import { type Recurring, recurringInput } from "../subscriptions/subscriptions.service";
import { assertSumsFit } from "../shared/money";
import { DomainError, errors, parseInput } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { identifiesCustomer, resolveSessionCustomer } from "./session-customer";

export const METHODS = ["card", "net30", "processor_proxy"] as const;
export type Method = (typeof METHODS)[number];
/**
 * What a session offers when allowedMethods is not sent: processor_proxy is only offered when asked for, and net30
 * only to a session that names a customer (createCheckoutSession).
 */
const DEFAULT_METHODS: readonly Method[] = ["card", "net30"];
export const CONNECTOR_KIND: Record<Method, "card" | "invoice_terms"> = { card: "card", net30: "invoice_terms", processor_proxy: "card" };
const DISPLAY: Record<Method, string> = { card: "Card", net30: "Net 30 invoice", processor_proxy: "Pay on the processor's page" };

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
      if (!found) throw new DomainError("cart_not_found", 404, "Cart not found");
      cartId = found.id;
    }
    const { connectorKinds, ...cart } = await loadCartWithConnectorKinds(tx, cartId);
    const customerId = withCustomer ? await resolveSessionCustomer(tx, principalEventTenant(tx), input.customer!, input.customerEmail) : null;
    if (cart.status === "converted" || cart.status === "checkout") {
      throw new DomainError("cart_not_editable", 409, `A ${cart.status} cart cannot start a checkout`, { status: cart.status });
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
  if (!s) throw new DomainError("session_not_found", 404, "Checkout session not found");
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
  if (!row) throw new DomainError("session_not_found", 404, "Checkout session not found");
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
export function notOpen(s: CheckoutSession) {
  return new DomainError("session_not_open", 422, `This checkout session is ${s.status}`, {
    status: s.status,
    ...(s.status === "completed" && s.orderId ? { orderId: s.orderId, paymentId: s.paymentId } : {}),
  });
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

export type SessionWithCart = Prisma.CheckoutSessionGetPayload<{ include: { cart: { include: { lineItems: true } } } }>;

// ---- merchant reads and the live session stream ---------------------------------------------------------------

/** A checkout session of the caller's tenant (merchant credential with checkout:write). */
export async function getCheckoutSession(ctx: Ctx, id: string) {
  requireScope(ctx, "checkout:write");
  const t = requireTenant(ctx);
  const s = isUuid(id) ? await ctx.db.checkoutSession.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!s) throw new DomainError("session_not_found", 404, "Checkout session not found");
  return s;
}

/** checkoutSessionUpdated(id): the session's current state, then again after each event about it. */
export async function subscribeSessionUpdates(ctx: Ctx, id: string) {
  const s = await getCheckoutSession(ctx, id);
  const t = requireTenant(ctx);
  const mine = (e: Envelope) => (e.data as { checkoutSessionId?: string } | null)?.checkoutSessionId === s.id;
  return whileCredentialLive(ctx, currentStateFirst(pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(mine))));
}
