// OpenAPI paths of the order operations (src/orders/order-ops.rest.ts), registered by document.ts.
import { z } from "zod";
import { lineEditsInput } from "../orders/line-edits.service";
import { recordPaymentInput } from "../orders/manual-payments.service";
import { authorizeInput, orderCheckoutInput } from "../orders/order-checkout.service";
import { cancelInput, closeInput, createOrderInput, setStatusInput, updateOrderInput } from "../orders/order-lifecycle.service";
import { compInput } from "../orders/comps.service";
import { holdInput } from "../orders/holds.service";
import { orderRefundInput } from "../orders/order-refunds.service";
import * as S from "./schemas";
import type { Register } from "./operation";

const PaymentAction = z
  .object({
    paymentId: z.string(),
    action: z.enum(["void", "refund"]),
    status: z.enum(["succeeded", "failed"]),
    amount: z.number().int().optional(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ id: "OrderPaymentAction" });
const OrderWithActions = S.Order.extend({ paymentActions: z.array(PaymentAction) }).meta({ id: "OrderWithPaymentActions" });
const Adjustment = z
  .object({ delta: z.number().int(), previousTotal: z.number().int(), newTotal: z.number().int(), chargedPaymentId: z.string().optional(), refundedPaymentId: z.string().optional() })
  .meta({ id: "OrderAdjustment" });
const OrderWithAdjustment = S.Order.extend({ adjustment: Adjustment }).meta({ id: "OrderWithAdjustment" });
const OrderRefund = z
  .object({ order: S.Order, refunds: z.array(z.object({ paymentId: z.string(), amount: z.number().int(), status: z.enum(["succeeded", "failed"]) })) })
  .meta({ id: "OrderRefund" });
const OrderCheckout = z.object({ order: S.Order, checkoutSession: z.object({ id: z.string(), hostedUrl: z.string() }) }).meta({ id: "OrderCheckout" });

type Reg = Register;

export function registerOrderOps(r: Reg) {
  const id = { id: "The resource's" };
  const tag = "orders";
  r("post", "/orders", { tag, summary: "Create a draft order (orders:write)", body: createOrderInput, ok: [201, S.Order] });
  r("patch", "/orders/{id}", { tag, summary: "Change billingAddress, shippingAddress, notes or metadata (orders:write)", params: id, body: updateOrderInput, ok: [200, S.Order] });
  r("post", "/orders/{id}/checkout", { errors: ["invalid_order_transition", "no_payment_connection"], tag, summary: "Open a checkout session for what is owed; draft -> pending (orders:write)", params: id, body: orderCheckoutInput, ok: [200, OrderCheckout] });
  r("post", "/orders/{id}/authorize", { errors: ["payment_failed", "no_payment_connection", "invalid_order_state"], tag, summary: "Authorize a card payment for the balance on the test processor (payments:write)", params: id, body: authorizeInput, ok: [200, S.Order] });
  r("post", "/orders/{id}/close", { errors: ["invalid_order_transition"], tag, summary: "Close a fulfilled or cancelled order (orders:write)", params: id, body: closeInput, ok: [200, S.Order] });
  r("post", "/orders/{id}/status", { errors: ["invalid_order_transition"], tag, summary: "Set any status, any direction (orders:write; cancelled needs order_cancellations:write)", params: id, body: setStatusInput, ok: [200, S.Order] });
  r("post", "/orders/{id}/cancel", { errors: ["invalid_order_transition"], tag, summary: "Cancel: void authorizations, refund captured money only when asked (order_cancellations:write)", params: id, body: cancelInput, ok: [200, OrderWithActions] });
  r("post", "/orders/{id}/hold", { tag, summary: "Place a hold or change its reason (order_holds:write)", params: id, body: holdInput, ok: [200, S.Order] });
  r("post", "/orders/{id}/hold/release", { errors: ["order_not_on_hold"], tag, summary: "Release the hold (order_holds:write)", params: id, ok: [200, S.Order] });
  r("post", "/orders/{id}/comp", { tag, summary: "Waive the uncollected balance; voids open authorizations and unpaid invoices (order_comps:write)", params: id, body: compInput, ok: [200, OrderWithActions] });
  r("post", "/orders/{id}/comp/reverse", { tag, summary: "Reverse the comp (order_comps:write)", params: id, ok: [200, S.Order] });
  r("post", "/orders/{id}/payments/record", { errors: ["invalid_order_state", "order_on_hold"], tag, summary: "Record a payment received outside a processor (payment_records:write)", params: id, body: recordPaymentInput, ok: [201, S.Payment] });
  r("post", "/orders/{id}/refund", { errors: ["refund_amount_exceeds_balance", "refund_already_in_progress", "refund_failed"], tag, summary: "Refund across captured payments, newest capture first (payment_refunds:write)", params: id, body: orderRefundInput, ok: [200, OrderRefund] });
  r("patch", "/orders/{id}/line-items", { errors: ["order_not_editable", "order_on_hold", "payment_failed", "order_state_changed"], tag, summary: "Add, update and remove lines; captured orders settle the difference (orders:write)", params: id, body: lineEditsInput, ok: [200, OrderWithAdjustment] });
}
