// Checkout completion: single-flight across processes, one order per session whatever happens, payment on the test
// processor, the processor's own page or Net-N terms.
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { type CheckoutSession, type Payment } from "../generated/prisma/client";
import { cartView } from "../carts/cart.view";
import { findOrCreateCustomerByEmail } from "../customers/customers.service";
import { type EventTenant, recordEvent, tenantOf } from "../events/events.service";
import { applyChargeResult } from "../payments/payments.service";
import { hook } from "../shared/hook";
import { completeOrderCheckout } from "../orders/order-checkout.service";
import type { OrderMove } from "../orders/order.machine";
import { METHODS, processorFor } from "../payments/processor";
import { findProxyCharge, settleProxyCharge } from "../payments/processor-proxy.service";
import { redeemCartDiscount } from "../discounts/discounts.service";
import { type Address, addressSchema, canonicalAddress } from "../shared/address";
import { type Ctx, withSqlTx, withTx } from "../shared/context";
import { createSubscriptionFromCheckout, recurringInput, recurringLine, trialApplies } from "../subscriptions/subscriptions.service";
import { DomainError, parseInput } from "../shared/errors";
import { CONNECTOR_KIND, type Method, type SessionWithCart, findSession, findSessionForCompletion, limitBuyer, notOpen } from "./checkout.service";
import { NotPlacedAtOnce, claimAndPlaceOrder, finish, issueBalanceInvoice, placeOrderAtOnce } from "./order-placement";

/**
 * A quote's checkout created its order: the quote is converted (quote.converted) in that transaction
 * (quotes/quotes.service.ts convertQuoteForOrder, registered at start-up by src/hooks.ts).
 */
export const quoteOrdered = hook<(tx: Ctx, tenant: EventTenant, quoteId: string, orderId: string) => Promise<void>>("quote-ordered handler (checkout/checkout-complete.service.ts)");

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
        if (s0.quoteId) await quoteOrdered.call(tx, tenant, s0.quoteId, orderId);
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
    });
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
      // A plain capture (no deposit invoice, no subscription) sends only Kysely's statements: Kysely's transaction,
      // and the order's moves its capture decides are written by the statement that completes the session (finish).
      const plain = s0.depositAmount === null && !recurring;
      settled = await (plain ? withSqlTx : withTx)(ctx, async (tx) => {
        const orderMoves: OrderMove[] = [];
        const p = await applyChargeResult(tx, payment, result, undefined, plain ? { orderMoves } : {});
        if (p.status !== "failed" && s0.depositAmount !== null) await issueBalanceInvoice(tx, s0, orderId, balanceConnector!);
        if (p.status !== "failed") await finish(tx, s0, orderId, p.id, orderMoves);
        if (p.status !== "failed" && recurring) {
          subscriptionId = (await createSubscriptionFromCheckout(tx, { session: s0, orderId, customerId: customerId!, email, currency: cart.currency, paymentToken: input.paymentToken!, trial: recurring.trial })).id;
        }
        if (p.status === "failed") await tx.sql.updateTable("CheckoutSession").set({ completionStartedAt: null }).where("id", "=", s0.id).execute();
        return p;
      });
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
