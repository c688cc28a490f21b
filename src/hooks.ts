// The calls that go up the layers (docs/architecture.md, "Layers"), registered at start-up: a lower layer declares
// a hook where the work happens and calls it there (same transaction, same place among its effects); this file, part
// of the composition root, hands each one the higher layer's function, so no folder imports one above it. buildApp
// (src/app.ts) and openRuntime (src/runtime.ts: the server, the CLIs and the job workers) run it; running it again
// registers the same functions.
import { cartLinesChanged } from "./carts/cart-items.service";
import { quoteOrdered } from "./checkout/checkout-complete.service";
import { dropDiscountBelowMinimum } from "./discounts/discounts.service";
import { eventRecorded } from "./events/events.service";
import { afterDeliveryOutcomes, notifyInstallAlert } from "./extensions/install-health.service";
import { authenticateExtensionSession, extensionSessionIsLive } from "./extensions/session-auth";
import { authenticateAccessToken } from "./oauth/access-tokens";
import { placeSubscriptionOrder } from "./orders/order-row";
import { syncOrderAfterPayment } from "./orders/orders.service";
import { orderPaymentSync } from "./payments/order-sync";
import { receiptOnCapture } from "./payments/receipts";
import { registerTokenCredentialKinds } from "./platform/auth.service";
import { convertQuoteForOrder } from "./quotes/quotes.service";
import { subscriptionOrderWriter } from "./subscriptions/charge";
import { deliveryOutcomesHook, endpointAlertHook } from "./webhooks/delivery.worker";

export function registerHooks() {
  // platform resolves OAuth access tokens and extension session tokens through the modules that hold their keys
  registerTokenCredentialKinds({ accessToken: authenticateAccessToken, extensionSession: authenticateExtensionSession, extensionSessionIsLive });
  // events: each recorded event, in its transaction; a capture queues the buyer's receipt
  eventRecorded.register(receiptOnCapture);
  // payments: after any payment change, its order's roll-up (paymentStatus, processing / fulfilled, order events)
  orderPaymentSync.register(syncOrderAfterPayment);
  // webhooks: extension installs' health after each delivery batch, and their alert emails
  deliveryOutcomesHook.register(afterDeliveryOutcomes);
  endpointAlertHook.register(notifyInstallAlert);
  // carts: a line changed or removed drops a promotion code whose minimum the cart no longer reaches
  cartLinesChanged.register(dropDiscountBelowMinimum);
  // checkout: the order a quote's checkout created converts the quote
  quoteOrdered.register(convertQuoteForOrder);
  // subscriptions: a charge's order row is written by orders (order-row.ts, the one writer of Order rows)
  subscriptionOrderWriter.register(placeSubscriptionOrder);
}
