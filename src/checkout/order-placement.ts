// Order placement for a checkout completion: the claim-and-order statement, the one-statement path, the Net-N balance
// invoice and the session's finish.
import { randomUUID } from "node:crypto";
import { type CheckoutSession, type Payment, Prisma } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import { cartView } from "../carts/cart.view";
import { outboxIf, recordEvent, tenantOf, withOutbox } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { takeOrderMoves } from "../orders/order.machine";
import { type Address } from "../shared/address";
import { type Ctx, withStatement } from "../shared/context";
import { CONNECTOR_KIND, type Method, type SessionWithCart } from "./checkout.service";

/** A claim older than this belongs to a request that died; the next complete may take it over. */
export const STALE_CLAIM_MS = 60_000;

/**
 * Checkout's first transaction in one statement: claim the session (only if open and not claimed, or its claim is
 * stale), find the method's active connector and the buyer's customer (the session's, else by email), and insert the order with its lines, its first
 * history row and a pending payment. The order insert does nothing when the cart already has an order (unique
 * cartId): the caller then looks at that order. Nothing is written unless the claim and the connector are there.
 */
export async function claimAndPlaceOrder(
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
export class NotPlacedAtOnce extends Error {
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
export async function placeOrderAtOnce(ctx: Ctx, a: ClaimArgs & { customerId: string; eventMethod: string }) {
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
export async function issueBalanceInvoice(tx: Ctx, s: CheckoutSession, orderId: string, connector: { id: string; provider: string }) {
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
export async function finish(tx: Ctx, s: Pick<CheckoutSession, "id" | "cartId" | "applicationId" | "environmentId">, orderId: string, paymentId: string) {
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
