// After any payment change, inside the same transaction, the payment's order takes its roll-up: paymentStatus, the
// move to processing (and fulfilled when nothing ships), order.updated / order.fulfilled. That is orders' work
// (orders/orders.service.ts syncOrderAfterPayment): orders sits above payments, so it registers it here at start-up
// (src/hooks.ts) and payments names no order module.
import type { Actor } from "../shared/actor";
import type { Ctx } from "../shared/context";
import { hook } from "../shared/hook";
import type { OrderPaymentFacts } from "./payment-facts";

/**
 * What a caller asks of the roll-up besides the order: orders declares the fields (`declare module` in
 * orders/order.machine.ts), which payments passes through untouched.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by orders' declaration merging
export interface OrderSyncOptions {}

/** `facts`: the order as the statement that moved the payment read it (payment.machine.ts movePaymentReadingOrder). */
type OrderPaymentSync = (ctx: Ctx, orderId: string, actor: Actor, facts?: OrderPaymentFacts | null, opts?: OrderSyncOptions) => Promise<void>;

export const orderPaymentSync = hook<OrderPaymentSync>("order payment sync (payments/order-sync.ts)");

export const syncOrderAfterPayment: OrderPaymentSync = (...args) => orderPaymentSync.call(...args);
