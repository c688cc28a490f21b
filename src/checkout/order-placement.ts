// Order placement for a checkout completion: the claim-and-order statement, the one-statement path, the Net-N balance
// invoice and the session's finish.
import { randomUUID } from "node:crypto";
import { type SqlBool, sql } from "kysely";
import type { CheckoutSession, Payment } from "../generated/prisma/client";
import { insertSelect } from "../db/insert-select";
import { outboxRows, outboxShape, outboxSlots, writingOutboxRows } from "../events/outbox";
import { runTemplate, slotsOf } from "../db/template";
import { PAYMENT_COLUMNS } from "../payments/payment.machine";
import { cartView } from "../carts/cart.view";
import { announce, type NewEvent, newEvent, outboxOf, recordEvent, tenantOf } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { assertMoved, type OrderMove, orderMoveRows, orderMoveSlots, orderMovesShape, writingOrderMoveRows } from "../orders/order.machine";
import { insertFirstHistoryRow, insertOrderLines, insertOrderRows } from "../orders/order-row";
import { type Address } from "../shared/address";
import type { Ctx } from "../shared/context";
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
     * the connection is there and the cart has no order; `events` are written by the statement, only with the payment.
     */
    atOnce?: { orderId: string; paymentId: string; customerId: string; events: NewEvent[] };
  },
) {
  const { session: s, cart, method } = a;
  const v = cartView(cart as any);
  const at = tx.clock.now();
  const orderId = a.atOnce?.orderId ?? randomUUID();
  const paymentId = a.atOnce?.paymentId ?? randomUUID();
  const net = method === "net30";
  // the one-statement path writes its events in this statement, only with the payment
  const outbox = a.atOnce ? outboxOf(tx, a.atOnce.events) : null;
  const values = {
    sessionId: s.id,
    applicationId: s.applicationId,
    environmentId: s.environmentId,
    customerId: s.customerId ?? null,
    depositAmount: s.depositAmount ?? null,
    netN: s.netN ?? null,
    kind: CONNECTOR_KIND[method],
    email: a.email,
    now: a.now,
    staleBefore: new Date(a.now.getTime() - STALE_CLAIM_MS),
    atOnceCustomerId: a.atOnce?.customerId ?? null,
    cartId: cart.id,
    at,
    order: {
      id: orderId, applicationId: s.applicationId, environmentId: s.environmentId, checkoutSessionId: s.id, cartId: cart.id, email: a.email, status: "pending",
      currency: cart.currency, subtotal: v.subtotal, discountTotal: v.discountTotal, shippingTotal: v.shippingTotal, taxTotal: v.taxTotal, total: v.total,
      shippingAddress: a.shippingAddress, billingAddress: a.billingAddress, selectedShipping: cart.selectedShipping ?? null, metadata: s.metadata ?? {}, createdAt: at, updatedAt: at,
    },
    lines: cart.lineItems.map((l, i) => ({
      type: l.type, referenceId: l.referenceId, name: l.name, description: l.description, unitPrice: l.unitPrice, quantity: l.quantity, taxAmount: l.taxAmount,
      discountAmount: l.discountAmount, requiresShipping: l.requiresShipping, imageUrl: l.imageUrl, metadata: l.metadata ?? {}, position: i,
    })),
    payment: { id: paymentId, applicationId: s.applicationId, environmentId: s.environmentId, checkoutSessionId: s.id, method, createdAt: at, updatedAt: at },
    ox: outboxRows(outbox),
  };
  const key = `checkout.place.${s.customerId ? "id" : "email"}.${a.atOnce ? "once" : "tx"}.${net ? "net" : "card"}.${values.lines.length}.${outboxShape(values.ox)}`;
  const { rows } = await runTemplate(tx.sql, key, values, (p, shape) => {
    const ref = sql.ref;
    const custNetTerms = sql<number | null>`(SELECT ${ref("cust.netTermsDays")} FROM ${sql.table("cust")})`;
    const placing = tx.sql
      .with("conn", (db) =>
        db
          .selectFrom("Connector")
          .select(["id", "provider"])
          .where("applicationId", "=", p.applicationId)
          .where("environmentId", "=", p.environmentId)
          .where("kind", "=", p.kind)
          .where("status", "=", "active")
          .orderBy("createdAt")
          .limit(1),
      )
      .with("cust", (db) =>
        db
          .selectFrom("Customer")
          .select(["id", "netTermsDays"])
          .where("applicationId", "=", p.applicationId)
          .where("environmentId", "=", p.environmentId)
          .where((eb) => (shape.customerId ? eb("id", "=", p.customerId!) : eb("email", "=", p.email))),
      )
      .with("claim", (db) =>
        db
          .updateTable("CheckoutSession")
          .set({ completionStartedAt: p.now })
          .where("id", "=", p.sessionId)
          .where("status", "=", "open")
          .where((eb) => eb.or([eb("completionStartedAt", "is", null), eb("completionStartedAt", "<", p.staleBefore)]))
          .$if(Boolean(shape.atOnceCustomerId), (q) =>
            q.where((eb) =>
              eb.and([
                eb.exists(eb.selectFrom("cust").select("cust.id").where("cust.id", "=", p.atOnceCustomerId!)),
                eb.exists(eb.selectFrom("conn").select("conn.id")),
                eb.not(eb.exists(eb.selectFrom("Order").select("Order.id").where("Order.cartId", "=", p.cartId))),
              ]),
            ),
          )
          .returning("id"),
      )
      .with("o", (db) =>
        insertOrderRows(db, {
          data: slotsOf(shape.order, "order"),
          set: { customerId: sql`(SELECT ${ref("cust.id")} FROM ${sql.table("cust")})` },
          from: ["claim", "conn"],
        })
          .onConflict((oc) => oc.doNothing())
          .returning(["id", "total", "compAmount", "currency"]),
      )
      .with("l", (db) => insertOrderLines(db, shape.lines.map((l, i) => slotsOf(l, `lines.${i}`))).returning("id"))
      .with("h", (db) => insertFirstHistoryRow(db, p.at).returning("id"))
      .with("p", (db) =>
        insertSelect(db, "Payment", {
          data: slotsOf(shape.payment, "payment"),
          set: {
            orderId: ref("o.id"),
            amount: sql`COALESCE(${p.depositAmount}::int, ${ref("o.total")} - ${ref("o.compAmount")})`,
            currency: ref("o.currency"),
            processor: ref("conn.provider"),
            connectorId: ref("conn.id"),
            netN: net ? sql`COALESCE(${p.netN}::int, ${custNetTerms}, 30)` : sql`NULL::int`,
            netNSource: net
              ? sql`CASE WHEN ${p.netN}::int IS NOT NULL THEN 'cart_override' WHEN ${custNetTerms} IS NOT NULL THEN 'customer' ELSE 'default' END`
              : sql`NULL::text`,
          },
          from: ["o", "conn"],
        }).returning(PAYMENT_COLUMNS),
      );
    return writingOutboxRows(placing, outboxSlots(shape.ox, "ox"), sql<SqlBool>`EXISTS (SELECT 1 FROM ${sql.table("p")})`)
      .selectFrom(sql`(SELECT 1)`.as("one"))
      .leftJoin("p", (j) => j.onTrue())
      .select(PAYMENT_COLUMNS.map((c) => `p.${c}` as const))
      .select((eb) => [
        eb.exists(eb.selectFrom("claim").select("claim.id")).as("_claimed"),
        eb.selectFrom("conn").select("conn.id").as("_connectorId"),
        eb.selectFrom("conn").select("conn.provider").as("_provider"),
        eb.selectFrom("cust").select("cust.id").as("_customerId"),
        eb.selectFrom("cust").select("cust.netTermsDays").as("_netTermsDays"),
        eb.selectFrom("o").select("o.id").as("_orderId"),
      ]);
  });
  const row = rows[0];
  const { _claimed, _connectorId, _provider, _customerId, _netTermsDays, _orderId, ...payment } = row;
  return {
    claimed: Boolean(_claimed),
    connector: _connectorId ? { id: _connectorId, provider: _provider! } : null,
    customer: _customerId ? { id: _customerId, netTermsDays: _netTermsDays ?? null } : null,
    orderId: _orderId ?? null,
    total: v.total,
    payment: _orderId ? (payment as unknown as Payment) : null,
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
 * Completion's first transaction as one statement, without BEGIN and COMMIT, for the common case known from the
 * session read: a returning buyer (their customer exists), a cart with no order, no quote, promotion code, deposit or
 * plan. order.created and payment.pending are written by that statement, only with the payment, and announced once
 * it has run. If the statement finds the case otherwise (another request claimed the session, the connection or
 * customer changed, another session ordered the cart), it writes nothing but perhaps the claim, and throws
 * NotPlacedAtOnce: the caller releases a claim and runs the transaction, which decides as before.
 */
export async function placeOrderAtOnce(ctx: Ctx, a: ClaimArgs & { customerId: string; eventMethod: string }) {
  const tenant = await tenantOf(ctx, a.session);
  const orderId = randomUUID();
  const paymentId = randomUUID();
  const total = cartView(a.cart as any).total;
  const events = [
    newEvent(ctx, tenant, "order.created", { orderId, checkoutSessionId: a.session.id, cartId: a.cart.id, total, currency: a.cart.currency, customerId: a.customerId }),
    newEvent(ctx, tenant, "payment.pending", { paymentId, orderId, amount: total, currency: a.cart.currency, method: a.eventMethod }),
  ];
  const placed = await claimAndPlaceOrder(ctx, { ...a, atOnce: { orderId, paymentId, customerId: a.customerId, events } });
  if (!placed.orderId || !placed.payment || !placed.connector) throw new NotPlacedAtOnce(placed.claimed);
  announce(ctx, events);
  return { orderId: placed.orderId, payment: placed.payment, connector: placed.connector, customerId: a.customerId };
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
 * The session completes and its cart converts in one statement, which also writes the transaction's outbox (its
 * events, cart.converted among them, and the payment's receipt: the payment and order rows it reads were written by
 * earlier statements) and `orderMoves`, the order's moves its capture decided (syncOrderAfterPayment's orderMoves).
 */
export async function finish(tx: Ctx, s: Pick<CheckoutSession, "id" | "cartId" | "applicationId" | "environmentId">, orderId: string, paymentId: string, orderMoves: readonly OrderMove[] = []) {
  await recordEvent(tx, await tenantOf(tx, s), "cart.converted", { cartId: s.cartId, orderId, checkoutSessionId: s.id });
  const values = { sessionId: s.id, orderId, paymentId, now: tx.clock.now(), ox: outboxRows(outboxOf(tx)), moves: orderMoveRows(orderMoves) };
  const key = `checkout.finish.${outboxShape(values.ox)}.${orderMovesShape(values.moves)}`;
  const { rows: done } = await runTemplate(tx.sql, key, values, (p, shape) => {
    const { qc, moved } = writingOrderMoveRows(writingOutboxRows(tx.sql, outboxSlots(shape.ox, "ox")), orderMoveSlots(shape.moves, "moves"));
    return qc
      .with("s", (db) =>
        db
          .updateTable("CheckoutSession")
          .set({ status: "completed", completedAt: p.now, orderId: p.orderId, paymentId: p.paymentId, completionStartedAt: null })
          .where("id", "=", p.sessionId)
          .returning(["id", "cartId"]),
      )
      .with("c", (db) =>
        db
          .updateTable("Cart")
          .set({ status: "converted", updatedAt: p.now })
          .where("id", "=", (eb) => eb.selectFrom("s").select("s.cartId"))
          .returning("id"),
      )
      .selectFrom(["s", "c"])
      .select(["s.id", moved.as("_orderMoved")]);
  });
  if (done.length !== 1) throw new Error(`checkout session ${s.id} or its cart vanished while completing`);
  assertMoved(done[0]._orderMoved);
}
