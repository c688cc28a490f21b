// GraphQL for the order operations, over the same services as src/orders/order-ops.rest.ts: every mutation returns
// the re-read order (with paymentActions, refunds or the adjustment where REST returns them); scopes and error codes
// are the services' own.
import { compact } from "../carts/carts.schema";
import { builder } from "../graphql/builder";
import { AddressInput, addressArg, describedEnum } from "../graphql/shared-types";
import { PaymentRef } from "../payments/payments.schema";
import { paymentView } from "../payments/payments.service";
import { compOrder, reverseComp } from "./comps.service";
import { placeHold, releaseHold } from "./holds.service";
import { type Adjustment, editLineItems } from "./line-edits.service";
import { recordManualPayment } from "./manual-payments.service";
import type { OrderStatus } from "./order.machine";
import { authorizeOrder, checkoutOrder } from "./order-checkout.service";
import { cancelOrder, closeOrder, createDraftOrder, setOrderStatus, updateOrder } from "./order-lifecycle.service";
import type { PaymentAction } from "./order-ops.common";
import { orderOut } from "./order-ops.rest";
import { type RefundOutcome, refundOrder } from "./order-refunds.service";
import { OrderRef, OrderStatusEnum } from "./orders.schema";
import { orderView } from "./orders.service";

type OrderV = ReturnType<typeof orderView>;
const orderId = "The order's id";

const PaymentActionRef = builder.objectRef<PaymentAction>("OrderPaymentAction").implement({
  description: "What a cancel or comp did to one payment",
  fields: (t) => ({
    paymentId: t.exposeString("paymentId", { description: "The payment" }),
    action: t.field({ type: ActionEnum, description: "void or refund", resolve: (a) => a.action }),
    status: t.field({ type: OutcomeEnum, description: "succeeded or failed", resolve: (a) => a.status }),
    amount: t.int({ nullable: true, description: "Refunded amount (refund actions)", resolve: (a) => a.amount ?? null }),
    errorCode: t.string({ nullable: true, description: "Why it failed", resolve: (a) => a.error?.code ?? null }),
    errorMessage: t.string({ nullable: true, description: "Why it failed, for people", resolve: (a) => a.error?.message ?? null }),
  }),
});

const OrderActionsRef = builder.objectRef<{ order: OrderV; paymentActions: PaymentAction[] }>("OrderWithPaymentActions").implement({
  description: "The order after a cancel or comp, and what happened to its payments",
  fields: (t) => ({
    order: t.field({ type: OrderRef, description: "The order, re-read after the operation", resolve: (r) => r.order }),
    paymentActions: t.field({ type: [PaymentActionRef], description: "What happened to each payment", resolve: (r) => r.paymentActions }),
  }),
});

const RefundRef = builder.objectRef<RefundOutcome>("OrderRefundLine").implement({
  description: "The part of an order refund taken from one payment",
  fields: (t) => ({
    paymentId: t.exposeString("paymentId", { description: "The payment refunded" }),
    amount: t.exposeInt("amount", { description: "Minor units" }),
    status: t.field({ type: OutcomeEnum, description: "succeeded or failed", resolve: (r) => r.status }),
  }),
});

const OrderRefundRef = builder.objectRef<{ order: OrderV; refunds: RefundOutcome[] }>("OrderRefund").implement({
  description: "The order after a refund, and the refund per payment (newest capture first)",
  fields: (t) => ({
    order: t.field({ type: OrderRef, description: "The order, re-read after the operation", resolve: (r) => r.order }),
    refunds: t.field({ type: [RefundRef], description: "The refund per payment, newest capture first", resolve: (r) => r.refunds }),
  }),
});

const AdjustmentRef = builder.objectRef<Adjustment>("OrderAdjustment").implement({
  description: "How a line edit changed the total, and the money it moved",
  fields: (t) => ({
    delta: t.exposeInt("delta", { description: "newTotal - previousTotal" }),
    previousTotal: t.exposeInt("previousTotal", { description: "The total before the edit" }),
    newTotal: t.exposeInt("newTotal", { description: "The total after the edit" }),
    chargedPaymentId: t.string({ nullable: true, description: "The payment that charged an increase", resolve: (a) => a.chargedPaymentId ?? null }),
    refundedPaymentId: t.string({ nullable: true, description: "The payment refunded for a decrease", resolve: (a) => a.refundedPaymentId ?? null }),
  }),
});

const OrderLineEditRef = builder.objectRef<{ order: OrderV; adjustment: Adjustment }>("OrderLineEdit").implement({
  description: "The order after a line edit, and its adjustment",
  fields: (t) => ({
    order: t.field({ type: OrderRef, description: "The order, re-read after the operation", resolve: (r) => r.order }),
    adjustment: t.field({ type: AdjustmentRef, description: "How the total changed and the money moved", resolve: (r) => r.adjustment }),
  }),
});

const OrderCheckoutRef = builder.objectRef<{ order: OrderV; checkoutSession: { id: string; hostedUrl: string } }>("OrderCheckout").implement({
  description: "The order and the checkout session that collects what it owes",
  fields: (t) => ({
    order: t.field({ type: OrderRef, description: "The order, re-read after the operation", resolve: (r) => r.order }),
    checkoutSessionId: t.string({ description: "The session's id", resolve: (r) => r.checkoutSession.id }),
    hostedUrl: t.string({ description: "The hosted checkout page", resolve: (r) => r.checkoutSession.hostedUrl }),
  }),
});

const DraftLineInput = builder.inputType("DraftOrderLineInput", {
  description: "A line of a draft order or a line edit's addition",
  fields: (t) => ({
    name: t.string({ required: true, description: "What the buyer sees" }),
    unitPrice: t.int({ required: true, description: "Minor units" }),
    quantity: t.int({ required: true, description: "Units, at least 1" }),
    referenceId: t.string({ description: "Your product or SKU id" }),
    requiresShipping: t.boolean({ description: "Whether it ships (default true)" }),
  }),
});

const LineUpdateInput = builder.inputType("OrderLineUpdateInput", {
  description: "A change to one line",
  fields: (t) => ({ lineItemId: t.id({ required: true, description: "The line to change" }), quantity: t.int({ description: "New units (not below what is fulfilled)" }), unitPrice: t.int({ description: "New unit price, minor units" }) }),
});

const ManualMethodEnum = describedEnum<"cash" | "bank_transfer" | "cheque" | "external">("ManualPaymentMethod", "How money recorded by hand arrived", {
  cash: "Cash",
  bank_transfer: "A bank transfer",
  cheque: "A cheque",
  external: "Paid elsewhere",
});
const CheckoutMethodEnum = describedEnum<"card" | "net30">("OrderCheckoutMethod", "A method an order's checkout offers", { card: "Card", net30: "Net-N invoice" });
const OutcomeEnum = describedEnum<"succeeded" | "failed">("OrderPaymentOutcome", "Whether a payment action worked", { succeeded: "It worked", failed: "It failed; see the error" });
const ActionEnum = describedEnum<"void" | "refund">("OrderPaymentActionKind", "What was done to a payment", { void: "The authorization or invoice was voided", refund: "Captured money was refunded" });

const cleanLine = (l: Record<string, unknown>) => compact(l);

builder.mutationFields((t) => ({
  createDraftOrder: t.field({
    type: OrderRef,
    description: "Creates a draft order",
    authScopes: { scope: "orders:write" },
    args: {
      customerId: t.arg.id({ description: "An existing customer (its email is used)" }),
      customerEmail: t.arg.string({ description: "The buyer's email, without a customer" }),
      currency: t.arg.string({ description: "Must be the application's currency" }),
      lineItems: t.arg({ type: [DraftLineInput], required: true, description: "1 to 100 lines" }),
      shippingAddress: t.arg({ type: AddressInput, description: "Where it ships (its country picks the tax rate)" }),
      billingAddress: t.arg({ type: AddressInput, description: "Billing address" }),
      metadata: t.arg({ type: "JSON", description: "Your JSON, at most 50 keys and 10 KB" }),
    },
    resolve: async (_r, a, ctx) => {
      const o = await createDraftOrder(ctx, compact({ ...a, customerId: a.customerId ? String(a.customerId) : null, lineItems: a.lineItems.map((l) => cleanLine(l)), shippingAddress: addressArg(a.shippingAddress), billingAddress: addressArg(a.billingAddress) }));
      return orderOut(ctx, o.id);
    },
  }),
  updateOrder: t.field({
    type: OrderRef,
    description: "Changes an order's billingAddress, shippingAddress, notes or metadata (null clears)",
    authScopes: { scope: "orders:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), billingAddress: t.arg({ type: AddressInput, description: "Billing address; null clears it" }), shippingAddress: t.arg({ type: AddressInput, description: "Shipping address; null clears it" }), notes: t.arg.string({ description: "Internal notes; null clears them" }), metadata: t.arg({ type: "JSON", description: "Your JSON (replaces)" }) },
    resolve: async (_r, a, ctx) => {
      const { id, ...rest } = a;
      const body = Object.fromEntries(Object.entries({ ...rest, billingAddress: addressArg(rest.billingAddress), shippingAddress: addressArg(rest.shippingAddress) }).filter(([, v]) => v !== undefined));
      return orderOut(ctx, await updateOrder(ctx, String(id), body));
    },
  }),
  checkoutOrder: t.field({
    type: OrderCheckoutRef,
    description: "Opens a checkout session for what the order owes; draft -> pending",
    authScopes: { scope: "orders:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), returnUrl: t.arg.string({ description: "Where the buyer goes after paying" }), cancelUrl: t.arg.string({ description: "Where the buyer goes on cancel" }), allowedMethods: t.arg({ type: [CheckoutMethodEnum], description: "Methods offered (default: every connected one)" }) },
    resolve: async (_r, a, ctx) => {
      const out = await checkoutOrder(ctx, String(a.id), compact({ returnUrl: a.returnUrl, cancelUrl: a.cancelUrl, allowedMethods: a.allowedMethods }));
      return { order: await orderOut(ctx, out.orderId), checkoutSession: out.checkoutSession };
    },
  }),
  authorizeOrder: t.field({
    type: OrderRef,
    description: "Authorizes a card payment for the balance (test processor tokens)",
    authScopes: { scope: "payments:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), paymentToken: t.arg.string({ required: true, description: "A test processor token: tok_visa, tok_visa_authorize, tok_card_declined" }) },
    resolve: async (_r, a, ctx) => orderOut(ctx, (await authorizeOrder(ctx, String(a.id), { paymentToken: a.paymentToken })).orderId),
  }),
  closeOrder: t.field({
    type: OrderRef,
    description: "Closes a fulfilled or cancelled order",
    authScopes: { scope: "orders:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), reason: t.arg.string({ description: "Why, up to 500 characters" }) },
    resolve: async (_r, a, ctx) => orderOut(ctx, await closeOrder(ctx, String(a.id), compact({ reason: a.reason }))),
  }),
  setOrderStatus: t.field({
    type: OrderRef,
    description: "Sets any status in any direction (cancelled needs order_cancellations:write, the others orders:write)",
    authScopes: { secret: true },
    args: { id: t.arg.id({ required: true, description: orderId }), status: t.arg({ type: OrderStatusEnum, required: true, description: "The status to set" }), reason: t.arg.string({ description: "Why, up to 500 characters" }) },
    resolve: async (_r, a, ctx) => orderOut(ctx, (await setOrderStatus(ctx, String(a.id), compact({ status: a.status as OrderStatus, reason: a.reason }))).orderId),
  }),
  cancelOrder: t.field({
    type: OrderActionsRef,
    description: "Cancels: voids authorizations; refunds captured money only with refundCapturedPayments",
    authScopes: { scope: "order_cancellations:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), refundCapturedPayments: t.arg.boolean({ description: "Also refund captured money (default false)" }), reason: t.arg.string({ description: "Why, up to 500 characters" }) },
    resolve: async (_r, a, ctx) => {
      const out = await cancelOrder(ctx, String(a.id), compact({ refundCapturedPayments: a.refundCapturedPayments, reason: a.reason }));
      return { order: await orderOut(ctx, out.orderId), paymentActions: out.paymentActions };
    },
  }),
  holdOrder: t.field({
    type: OrderRef,
    description: "Places a hold, or changes its reason",
    authScopes: { scope: "order_holds:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), reason: t.arg.string({ required: true, description: "Why, 1 to 500 characters" }) },
    resolve: async (_r, a, ctx) => orderView(await placeHold(ctx, String(a.id), { reason: a.reason }), { single: true }),
  }),
  releaseOrderHold: t.field({
    type: OrderRef,
    description: "Releases the hold (422 order_not_on_hold without one)",
    authScopes: { scope: "order_holds:write" },
    args: { id: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => orderView(await releaseHold(ctx, String(a.id)), { single: true }),
  }),
  compOrder: t.field({
    type: OrderActionsRef,
    description: "Waives the uncollected balance; voids open authorizations and unpaid invoices",
    authScopes: { scope: "order_comps:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), reason: t.arg.string({ required: true, description: "Why, 3 to 500 characters" }) },
    resolve: async (_r, a, ctx) => {
      const out = await compOrder(ctx, String(a.id), { reason: a.reason });
      return { order: await orderOut(ctx, out.orderId), paymentActions: out.paymentActions };
    },
  }),
  reverseOrderComp: t.field({
    type: OrderRef,
    description: "Reverses the comp: compAmount back to 0; nothing is un-voided",
    authScopes: { scope: "order_comps:write" },
    args: { id: t.arg.id({ required: true, description: orderId }) },
    resolve: async (_r, a, ctx) => orderOut(ctx, await reverseComp(ctx, String(a.id))),
  }),
  recordOrderPayment: t.field({
    type: PaymentRef,
    description: "Records money received outside a processor (captured, processor manual)",
    authScopes: { scope: "payment_records:write" },
    args: {
      id: t.arg.id({ required: true, description: orderId }),
      amount: t.arg.int({ required: true, description: "Minor units, at least 1" }),
      currency: t.arg.string({ description: "Must be the order's currency" }),
      method: t.arg({ type: ManualMethodEnum, required: true, description: "How the money came" }),
      receivedAt: t.arg.string({ description: "ISO 8601" }),
      reference: t.arg.string({ description: "Your reference, up to 120 characters" }),
      note: t.arg.string({ description: "A note, up to 500 characters" }),
    },
    resolve: async (_r, a, ctx) => {
      const { id, ...rest } = a;
      return paymentView(await recordManualPayment(ctx, String(id), compact(rest)));
    },
  }),
  refundOrder: t.field({
    type: OrderRefundRef,
    description: "Refunds across captured payments, newest capture first (omit amount for everything refundable)",
    authScopes: { scope: "payment_refunds:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), amount: t.arg.int({ description: "Minor units; omit for everything refundable" }), reason: t.arg.string({ description: "Why, up to 500 characters" }) },
    resolve: async (_r, a, ctx) => {
      const out = await refundOrder(ctx, String(a.id), compact({ amount: a.amount, reason: a.reason }));
      return { order: await orderOut(ctx, out.orderId), refunds: out.refunds };
    },
  }),
  editOrderLineItems: t.field({
    type: OrderLineEditRef,
    description: "Adds, updates and removes lines; a captured order settles the difference",
    authScopes: { scope: "orders:write" },
    args: { id: t.arg.id({ required: true, description: orderId }), add: t.arg({ type: [DraftLineInput], description: "Lines to add" }), update: t.arg({ type: [LineUpdateInput], description: "Lines to change" }), remove: t.arg.idList({ description: "Lines to remove" }) },
    resolve: async (_r, a, ctx) => {
      const out = await editLineItems(
        ctx,
        String(a.id),
        compact({ add: a.add?.map((l) => cleanLine(l)), update: a.update?.map((u) => compact({ ...u, lineItemId: String(u.lineItemId) })), remove: a.remove?.map(String) }),
      );
      return { order: await orderOut(ctx, out.orderId), adjustment: out.adjustment };
    },
  }),
}));
