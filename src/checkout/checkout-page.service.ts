// What the hosted checkout page shows (pages/checkout/*): the open session as a form the buyer can complete (the
// merchant's brand, the quote it comes from, what is prefilled, the methods on offer and the terms they carry), and a
// completed session as a receipt (what was bought, paid, owed and when). Reads only; completion is completeCheckout.
import type { Address } from "../shared/address";
import { canonicalAddress } from "../shared/address";
import type { Ctx } from "../shared/context";
import { buyerBlock } from "../documents/parties";
import { sessionForBuyer } from "./checkout.service";
import { orderDisplayNumber } from "../documents/order-number";

/** Net-N terms as the buyer reads them; termsHash at completion is the SHA-256 of exactly this text. */
export function netTermsText(netN: number): string {
  return `Net ${netN}: the full invoice amount is due within ${netN} days of the invoice date. Late payments may be charged interest.`;
}

/** The order's number as a buyer reads it (src/documents/order-number.ts: one definition for every buyer surface). */
const orderNumber = orderDisplayNumber;

const brandOf = (name: string, settings: unknown) => {
  const s = (settings ?? {}) as { logoUrl?: unknown; brandColor?: unknown };
  return { name, logoUrl: typeof s.logoUrl === "string" ? s.logoUrl : null, brandColor: typeof s.brandColor === "string" ? s.brandColor : null };
};

/**
 * The hosted page's view of a session. `limit`: spend the buyer's rate-limit points (a page load); an error re-render
 * after POST /checkout/{id} has spent them in completion already.
 */
export async function checkoutPageView(ctx: Ctx, id: string, opts: { limit: boolean } = { limit: true }) {
  const base = await sessionForBuyer(ctx, id, opts);
  const s = base.session;
  const [app, quote, customer] = await Promise.all([
    ctx.db.application.findUnique({ where: { id: s.applicationId }, select: { name: true, settings: true } }),
    s.quoteId ? ctx.db.quote.findUnique({ where: { id: s.quoteId }, select: { number: true, buyerReference: true, companyName: true, customerEmail: true, customerId: true } }) : null,
    s.customerId ? ctx.db.customer.findUnique({ where: { id: s.customerId }, select: { company: true, name: true, email: true, netTermsDays: true, shippingAddress: true, billingAddress: true } }) : null,
  ]);
  const sessionCustomer = (s.customer ?? null) as { email?: string; shippingAddress?: Address; billingAddress?: Address } | null;
  const buyer = quote ? buyerBlock(quote, customer) : null;
  const cart = base.cart as { shippingAddress: Address | null; billingAddress: Address | null; customerEmail: string | null };
  const shipping = canonicalAddress(cart.shippingAddress ?? sessionCustomer?.shippingAddress ?? buyer?.shippingAddress ?? (customer?.shippingAddress as Address | null) ?? null);
  const billing = canonicalAddress(cart.billingAddress ?? sessionCustomer?.billingAddress ?? buyer?.billingAddress ?? (customer?.billingAddress as Address | null) ?? null);
  const email = s.customerEmail ?? cart.customerEmail ?? sessionCustomer?.email ?? customer?.email ?? quote?.customerEmail ?? null;
  return {
    ...base,
    merchant: brandOf(app?.name ?? base.merchant.name, app?.settings),
    quote: quote ? { number: quote.number, buyerReference: quote.buyerReference } : null,
    prefill: {
      email,
      companyName: buyer?.company ?? customer?.company ?? null,
      billingEmail: buyer?.email ?? customer?.email ?? email,
      shippingAddress: shipping,
      billingAddress: billing,
    },
    // what completion will use (checkout.service.ts claimAndPlaceOrder): the session's Net-N, the customer's, else 30
    netN: s.netN ?? customer?.netTermsDays ?? 30,
    deposit: s.depositAmount === null ? null : { amount: s.depositAmount, balanceNetN: s.balanceNetN ?? 30 },
    receipt: s.status === "completed" && s.orderId ? await receiptOf(ctx, s.orderId) : null,
  };
}

export type CheckoutPageView = Awaited<ReturnType<typeof checkoutPageView>>;
export type Receipt = NonNullable<CheckoutPageView["receipt"]>;

/** A completed session's order as a receipt: its lines and totals, and each payment as paid, authorized or owed. */
async function receiptOf(ctx: Ctx, orderId: string) {
  const [order, payments] = await Promise.all([
    ctx.db.order.findUniqueOrThrow({ where: { id: orderId }, include: { lineItems: { orderBy: { position: "asc" } } } }),
    ctx.db.payment.findMany({ where: { orderId }, orderBy: { createdAt: "asc" } }),
  ]);
  const live = payments.filter((p) => p.status !== "failed" && p.status !== "voided" && p.status !== "expired");
  const paid = live.reduce((a, p) => a + p.capturedAmount, 0);
  return {
    order: {
      id: order.id,
      number: orderNumber(order),
      placedAt: order.createdAt.toISOString(),
      email: order.email,
      currency: order.currency,
      subtotal: order.subtotal,
      discountTotal: order.discountTotal,
      shippingTotal: order.shippingTotal,
      taxTotal: order.taxTotal,
      total: order.total,
      shippingAddress: order.shippingAddress as Address | null,
      lines: order.lineItems.map((l) => ({ name: l.name, quantity: l.quantity, unitPrice: l.unitPrice, total: l.unitPrice * l.quantity - l.discountAmount + l.taxAmount })),
    },
    payments: live.map((p) => ({
      method: p.method,
      status: p.status,
      amount: p.amount,
      captured: p.capturedAmount,
      dueDate: p.dueDate ? p.dueDate.toISOString().slice(0, 10) : null,
      invoiceNumber: p.invoiceNumber,
      netN: p.netN,
    })),
    paid,
    owed: Math.max(0, order.total - order.compAmount - paid),
  };
}
