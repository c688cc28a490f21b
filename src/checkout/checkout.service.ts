// Checkout sessions: creation from a cart or a quote, the buyer-facing reads and the merchant reads. Completion is in
// checkout-complete.service.ts, the order it places in order-placement.ts.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type Cart, type CheckoutSession, type Connector, Prisma } from "../generated/prisma/client";
import { expressionBuilder, sql } from "kysely";
import { insertSelect } from "../db/insert-select";
import type { DB } from "../db/sql";
import { type Outbox, outboxRows, outboxShape, outboxSlots, writingOutboxRows } from "../events/outbox";
import { runTemplate, slotsOf } from "../db/template";
import { CART_COLUMNS, cartLinesJson, loadCartWithConnectorKinds, shapeCartLines } from "../carts/carts.service";
import { cartView } from "../carts/cart.view";
import { announce, currentStateFirst, newEvent, outboxOf, principalEventTenant, tenantOf, whileCredentialLive } from "../events/events.service";
import { type Envelope, tenantTopic } from "../shared/hub";
import { filter, pipe } from "graphql-yoga";
import { applyCodeToCart, recordSessionDiscount } from "../discounts/discounts.service";
import { requireScope, requireTenant } from "../shared/guards";
import { addressSchema, metadataSchema } from "../shared/address";
import { type Ctx, reportLimit, withTx } from "../shared/context";
import { type Recurring, recurringInput } from "../subscriptions/subscriptions.service";
import { assertSumsFit } from "../shared/money";
import { DomainError, errors, parseInput } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { identifiesCustomer, resolveSessionCustomer } from "./session-customer";
import { METHODS } from "../payments/processor";

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

/** The tenant's active payment connections, oldest first (one statement: read on every session creation). */
async function activeConnectors(ctx: Ctx, t: { applicationId: string; environmentId: string }) {
  const rows = await ctx.sql
    .selectFrom("Connector")
    .select(Object.values(Prisma.ConnectorScalarFieldEnum) as (keyof DB["Connector"] & string)[])
    .where("applicationId", "=", t.applicationId)
    .where("environmentId", "=", t.environmentId)
    .where("status", "=", "active")
    .orderBy("createdAt")
    .orderBy("id")
    .execute();
  return rows as unknown as Connector[];
}

export async function createCheckoutSession(ctx: Ctx, body: unknown) {
  requireScope(ctx, "checkout:write");
  const input = parseInput(createSessionInput, body);
  const t = requireTenant(ctx);
  if (input.applicationId !== undefined && input.applicationId !== t.applicationId) throw errors.notFound("Application");
  // recurring: card only (the card is vaulted for renewals); an empty cart is allowed (completion synthesizes the line)
  const recurring = input.recurring === undefined ? null : parseRecurring(input.recurring, input.allowedMethods, input.paymentTerms?.netN);
  // Without a discount code or a customer object the only write is the session's statement, which writes its event
  // too: no transaction. Applying a code writes the cart as well, and a customer object finds, creates or updates its
  // customer (checkout/session-customer.ts), so those take a transaction.
  const withCustomer = identifiesCustomer(input.customer, input.customerEmail);
  const create = async (tx: Ctx) => {
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
    // The session's statement writes its event, with the transaction's others when there is one.
    const sessionId = randomUUID();
    const started = newEvent(tx, principalEventTenant(tx), "cart.checkout_started", { cartId: cart.id, checkoutSessionId: sessionId });
    const session = await insertSession(tx, t, outboxOf(tx, [started]), {
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
    announce(tx, [started]);
    return input.discountCode ? recordSessionDiscount(tx, session, discounted) : session;
  };
  return input.discountCode || withCustomer ? withTx(ctx, create) : create(ctx);
}

interface NewSession {
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
 * One statement: the cart reopens (if abandoned) and lives as long as the session, the session is inserted, and
 * `outbox` is written with them. Shared by POST /checkout-sessions and a quote's acceptance.
 */
export async function insertSession(tx: Ctx, t: { applicationId: string; environmentId: string }, outbox: Outbox, n: NewSession): Promise<CheckoutSession> {
  const expiresAt = new Date(tx.clock.now().getTime() + tx.deps.config.CHECKOUT_SESSION_TTL_MS);
  const at = tx.clock.now();
  const values = {
    cartId: n.cartId,
    expiresAt,
    at,
    session: {
      id: n.id ?? randomUUID(),
      applicationId: t.applicationId,
      environmentId: t.environmentId,
      returnUrl: n.returnUrl,
      cancelUrl: n.cancelUrl,
      customerEmail: n.customerEmail,
      customerId: n.customerId,
      customer: n.customer ?? null,
      allowedMethods: n.allowedMethods,
      netN: n.netN,
      collectShipping: n.collectShipping,
      collectBilling: n.collectBilling,
      metadata: n.metadata ?? {},
      expiresAt,
      createdAt: at,
      quoteId: n.quoteId ?? null,
      depositAmount: n.depositAmount ?? null,
      balanceNetN: n.balanceNetN ?? null,
      recurring: n.recurring ?? null,
    },
    ox: outboxRows(outbox),
  };
  // one statement, compiled once (src/db/template.ts): the cart's expiry, the session, the outbox
  const { rows } = await runTemplate(tx.sql, `checkout.session.${outboxShape(values.ox)}`, values, (p, shape) => {
    const q = writingOutboxRows(tx.sql, outboxSlots(shape.ox, "ox")).with("c", (db) =>
      db
        .updateTable("Cart")
        .set((eb) => ({ expiresAt: p.expiresAt, status: eb.case().when("status", "=", "abandoned").then("open").else(eb.ref("status")).end(), updatedAt: p.at }))
        .where("id", "=", p.cartId)
        .returning("id"),
    );
    return insertSelect(q, "CheckoutSession", { data: slotsOf(shape.session, "session"), set: { cartId: sql.ref("c.id") }, from: ["c"] }).returning(SESSION_COLUMNS);
  });
  const session = rows[0];
  if (!session) throw new Error(`checkout session for cart ${n.cartId}: the cart vanished`);
  return session as unknown as CheckoutSession;
}

/** Every column of a session row, named (no `*`: src/db/prepared.ts). */
const SESSION_COLUMNS = Object.values(Prisma.CheckoutSessionScalarFieldEnum) as (keyof DB["CheckoutSession"] & string)[];

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
  const completion = requestEmail !== undefined;
  if (!isUuid(id)) throw new DomainError("session_not_found", "Checkout session not found");
  // compiled once per shape (src/db/template.ts): the completion's read adds the buyer's email, customer and order
  const { rows } = await runTemplate(ctx.sql, `checkout.readSession.${completion ? "completion" : "plain"}`, { id, requestEmail: requestEmail ?? null }, (p) => {
    const eb = expressionBuilder<{ s: DB["CheckoutSession"]; c: DB["Cart"]; cu: DB["Customer"]; o: DB["Order"] }, "s" | "c" | "cu" | "o">();
    const cartOf = sql`(SELECT ${eb.ref("c.customerEmail")} FROM ${sql.table("Cart")} c WHERE ${eb.ref("c.id")} = ${eb.ref("s.cartId")})`;
    const email = sql<string | null>`lower(COALESCE(${p.requestEmail}::text, ${eb.ref("s.customerEmail")}, ${cartOf}))`;
    const cartJson = sql.join(CART_COLUMNS.map((f) => sql`${sql.lit(f)}, ${eb.ref(`c.${f}`)}`));
    return ctx.sql
      .selectFrom("CheckoutSession as s")
      .select(SESSION_COLUMNS.map((c) => `s.${c}` as const))
      .select(
        sql<Cart & { lineItems: unknown[]; expiresAt: string | null; createdAt: string; updatedAt: string }>`(SELECT json_build_object(${cartJson}, 'lineItems', ${cartLinesJson(eb.ref("c.id"))})
          FROM ${sql.table("Cart")} c WHERE ${eb.ref("c.id")} = ${eb.ref("s.cartId")})`.as("cart"),
      )
      .$if(completion, (q) =>
        q.select([
          email.as("_buyerEmail"),
          sql<string | null>`(SELECT ${eb.ref("cu.id")} FROM ${sql.table("Customer")} cu WHERE ${eb.ref("cu.applicationId")} = ${eb.ref("s.applicationId")} AND ${eb.ref("cu.environmentId")} = ${eb.ref("s.environmentId")}
            AND CASE WHEN ${eb.ref("s.customerId")} IS NULL THEN ${eb.ref("cu.email")} = ${email} ELSE ${eb.ref("cu.id")} = ${eb.ref("s.customerId")} END)`.as("_buyerId"),
          sql<boolean>`EXISTS (SELECT 1 FROM ${sql.table("Order")} o WHERE ${eb.ref("o.cartId")} = ${eb.ref("s.cartId")})`.as("_cartOrdered"),
        ]),
      )
      .where("s.id", "=", p.id);
  });
  const row = rows[0];
  if (!row) throw new DomainError("session_not_found", "Checkout session not found");
  const { _buyerEmail, _buyerId, _cartOrdered, cart: c, ...session } = row as typeof row & { _buyerEmail?: string | null; _buyerId?: string | null; _cartOrdered?: boolean };
  return {
    session: {
      ...session,
      cart: { ...c, expiresAt: c.expiresAt === null ? null : new Date(c.expiresAt), createdAt: new Date(c.createdAt), updatedAt: new Date(c.updatedAt), lineItems: shapeCartLines(c.lineItems) },
    } as unknown as SessionWithCart,
    buyer: { email: _buyerEmail ?? null, customerId: _buyerId ?? null },
    cartOrdered: _cartOrdered ?? false,
  };
}

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
  return new DomainError("session_not_open", `This checkout session is ${s.status}`, {
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
