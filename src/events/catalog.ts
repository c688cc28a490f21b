// The event catalog (platform.md part 6) keyed by the read scope needed to read or subscribe.
// Triggers and required data keys come from the three specifications; shapes not shown there are "object".

const BY_SCOPE: Record<string, string[]> = {
  "application_scripts:read": ["script.blocked", "script.error", "script.loaded"],
  "billing:read": [
    "workspace.payment_method.added",
    "workspace.payment_method.backup_set",
    "workspace.payment_method.backup_used",
    "workspace.payment_method.default_changed",
    "workspace.payment_method.removed",
    "workspace.platform_charge.failed",
    "workspace.platform_charge.succeeded",
    "workspace.trial_expired",
  ],
  "carts:read": [
    "cart.abandoned", "cart.checkout_started", "cart.converted", "cart.created", "cart.discount_applied", "cart.discount_removed",
    "cart.item_added", "cart.item_removed", "cart.item_updated", "cart.merged", "cart.shipping_cleared", "cart.shipping_selected",
    "cart.tax_recomputed", "cart.updated",
  ],
  "customers:read": [
    "customer.created", "customer.deleted", "customer.email_verified", "customer.password_changed", "customer.payment_method_added",
    "customer.payment_method_removed", "customer.registered", "customer.sessions_revoked", "customer.updated",
  ],
  "discounts:read": ["discount.applied", "discount.removed"],
  "extensions:read": ["extension.uninstalled", "extension.webhook_secret_rotated"],
  "fulfillment_digital:read": ["fulfillment.digital.delivered"],
  "fulfillments:read": ["fulfillment.cancelled", "fulfillment.completed", "fulfillment.created", "fulfillment.shipment.delivered", "fulfillment.shipment.shipped"],
  "imports:read": ["import.completed"],
  "invoices:read": ["invoice.past_due", "invoice.overdue"],
  "order_returns:read": ["return.created", "return.updated"],
  "orders:read": [
    "order.cancelled", "order.closed", "order.comp_reversed", "order.comped", "order.created", "order.fulfilled", "order.held",
    "order.hold_released", "order.sync_conflict", "order.sync_failed", "order.updated",
  ],
  "payment_disputes:read": ["payment.dispute_cleared", "payment.disputed"],
  "payment_refunds:read": ["payment.partially_refunded", "payment.refund_failed", "payment.refunded", "subscription.invoice_refunded"],
  "payments:read": [
    "payment.authorized", "payment.captured", "payment.expired", "payment.failed", "payment.pending", "payment.processing",
    "payment.recorded", "payment.vaulted", "payment.voided",
  ],
  "quotes:read": [
    "quote.accepted", "quote.comment_added", "quote.converted", "quote.declined", "quote.expired", "quote.proposed", "quote.requested",
    "quote.revision_requested", "quote.viewed",
  ],
  "shipping_tax:read": ["shipping_tax.provider_connection.unhealthy"],
  "subscriptions:read": [
    "subscription.activated", "subscription.backup_pm_used", "subscription.cancelled", "subscription.create_failed", "subscription.created",
    "subscription.past_due", "subscription.paused", "subscription.payment_failed", "subscription.plan_change_scheduled",
    "subscription.plan_changed", "subscription.renewed", "subscription.resumed", "subscription.trial_blocked", "subscription.updated",
  ],
  // Not subscribable: the signed test ping an endpoint owner asks for.
  "webhooks:read": ["webhook.ping", "extension.ping"],
};

/** Types delivered without a subscription and never listable in enabledEvents. */
export const UNSUBSCRIBABLE = new Set(["webhook.ping", "extension.uninstalled", "extension.webhook_secret_rotated", "extension.ping"]);
/**
 * The types some code path records today (test/events-emitted.test.ts compares this with the recordEvent calls in
 * src/ both ways). The rest of the catalog is reserved for capabilities still being built: endpoints may subscribe
 * to them now and will receive them once they ship.
 */
export const EMITTED_TODAY: ReadonlySet<string> = new Set([
  "workspace.payment_method.added", "workspace.payment_method.default_changed", "workspace.payment_method.removed",
  "workspace.payment_method.backup_set", "workspace.payment_method.backup_used",
  "workspace.platform_charge.succeeded", "workspace.platform_charge.failed", "workspace.trial_expired",
  "cart.created", "cart.updated", "cart.item_added", "cart.item_updated", "cart.item_removed", "cart.shipping_selected",
  "cart.shipping_cleared", "cart.tax_recomputed", "cart.checkout_started", "cart.converted", "cart.abandoned",
  "cart.discount_applied", "cart.discount_removed", "discount.applied", "discount.removed", "import.completed",
  "customer.created", "customer.payment_method_added", "customer.payment_method_removed", "payment.vaulted",
  "order.created", "order.updated", "order.cancelled", "order.closed", "order.fulfilled", "order.held", "order.hold_released", "order.comped", "order.comp_reversed",
  "payment.voided", "payment.recorded",
  "payment.pending", "payment.processing", "payment.authorized", "payment.captured", "payment.failed", "payment.expired",
  "payment.refunded", "payment.partially_refunded", "payment.refund_failed",
  "payment.disputed", "payment.dispute_cleared",
  "invoice.overdue",
  "subscription.created", "subscription.activated", "subscription.renewed", "subscription.cancelled", "subscription.past_due", "subscription.payment_failed",
  "subscription.backup_pm_used", "subscription.plan_changed", "subscription.plan_change_scheduled", "subscription.updated", "subscription.resumed",
  "quote.requested", "quote.proposed", "quote.declined", "quote.comment_added", "quote.viewed", "quote.revision_requested", "quote.accepted", "quote.converted", "quote.expired",
  "webhook.ping",
  // extension installs (src/extensions): delivered to the install's managed endpoint only
  "extension.uninstalled", "extension.webhook_secret_rotated", "extension.ping",
  // fulfillments and returns (src/fulfillments), order.fulfilled (status recompute, or payment landing on an order with nothing to deliver)
  "order.fulfilled", "fulfillment.created", "fulfillment.completed", "fulfillment.cancelled", "fulfillment.shipment.shipped", "fulfillment.shipment.delivered",
  "return.created", "return.updated",
  // application scripts: beacons from the hosted checkout page (src/application-scripts/beacons.service.ts)
  "script.loaded", "script.error", "script.blocked",
]);

/** Retired names accepted on write and rewritten (platform.md part 9 rule 3). */
export const RETIRED: Record<string, string> = { "order.completed": "order.fulfilled" };

export const READ_SCOPE: ReadonlyMap<string, string> = new Map(Object.entries(BY_SCOPE).flatMap(([scope, types]) => types.map((t) => [t, scope] as const)));
export const EVENT_TYPES = [...READ_SCOPE.keys()].sort();

const TRIGGERS: Record<string, string> = {
  "workspace.payment_method.backup_set": "The owner marks a saved workspace card as the backup (POST /billing/payment-methods/{id}/backup).",
  "workspace.payment_method.backup_used": "A platform renewal on the default card declines and the platform-billing job charges the backup; data.charge says whether it succeeded.",
  "customer.payment_method_added": "A card is saved for the customer: the wallet's vault flow or a merchant attaching a record-keeping card.",
  "customer.payment_method_removed": "The buyer removes a saved card (soft delete).",
  "payment.vaulted": "The wallet's zero-amount vault flow saves a chargeable card.",
  "order.created": "Exactly once, by whichever path inserts the order.",
  "order.updated": "Any order status change without its own event, and every paymentStatus change.",
  "order.fulfilled": "The order enters fulfilled (replaces the retired order.completed).",
  "order.cancelled": "The order enters cancelled.",
  "order.closed": "The order enters closed.",
  "order.held": "A hold is placed; the reason is on the payload.",
  "order.hold_released": "A hold is lifted; data.previousHoldReason carries its reason.",
  "order.comped": "A comp is applied.",
  "order.comp_reversed": "A comp is reversed.",
  "payment.captured": "A payment is captured; carries capturedAmount and authorizedAmount.",
  "payment.processing": "The provider needs more time; always followed by a resolution event.",
  "payment.refunded": "Refunds reach the captured amount.",
  "payment.partially_refunded": "A partial refund succeeds.",
  "payment.refund_failed": "A refund fails.",
  "payment.disputed": "The dispute flag is set.",
  "payment.dispute_cleared": "The dispute flag is cleared.",
  "invoice.overdue": "An authorized Net-N payment passes its dueDate; its status stays authorized.",
  "cart.abandoned": "Checkout session expiry releases a cart; carries the recovery URL (null when unset).",
  "cart.discount_applied": "A promotion code is applied to a cart (POST /carts/{id}/discount or a checkout session's discountCode).",
  "cart.discount_removed": "A cart's promotion code is removed, or dropped because the subtotal fell below its minimum (reason below_minimum).",
  "discount.applied": "A discount's code is applied to a cart; carries discountId, code, cartId and amount.",
  "discount.removed": "A discount's code comes off a cart; reason removed or below_minimum.",
  "import.completed": "A successful import pass ends; data.mode is validate, commit or undo.",
  "quote.requested": "A quote request is submitted (form, cart, API, dashboard).",
  "quote.proposed": "A revision is issued.",
  "quote.accepted": "The buyer or a rep accepts the current revision.",
  "quote.converted": "The accepted quote's checkout completes; carries orderId.",
  "quote.declined": "The merchant or the buyer declines.",
  "quote.expired": "The hourly job expires a proposed quote past expiresAt.",
  "quote.revision_requested": "The buyer requests changes.",
  "quote.viewed": "The buyer opens the link.",
  "quote.comment_added": "A shared comment is added.",
  "subscription.plan_changed": "change-plan with effective now.",
  "subscription.plan_change_scheduled": "change-plan with effective period_end.",
  "subscription.updated": "change-quantity, or a pending change is cleared.",
  "extension.uninstalled": "An install is uninstalled (delivered after the state is set).",
  "extension.webhook_secret_rotated": "An install's signing secret is rotated (dual-signed).",
  "webhook.ping": "POST /webhook-endpoints/{id}/test.",
  "extension.ping": "A signed probe of an install's endpoint (data.reason): at each install and reinstall (install), 2 minutes after each deploy (deploy), every 6 hours (schedule), and POST /installations/{id}/test (test).",
  "fulfillment.created": "A fulfillment is created (handover, or shipment pending or shipped).",
  "fulfillment.completed": "A fulfillment is completed: at once without a shipment, else when its shipment gets a tracking number or is delivered.",
  "fulfillment.cancelled": "A fulfillment is cancelled; its units are free to fulfil again.",
  "fulfillment.shipment.shipped": "A shipment gets its first tracking number (at creation or by PATCH), or is delivered without one.",
  "fulfillment.shipment.delivered": "A shipment is marked delivered.",
  "return.created": "A return is requested.",
  "return.updated": "A return is received or cancelled; data.previousStatus is what it was.",
  "script.loaded": "The hosted checkout page reports that an application script loaded (once per checkout session and script).",
  "script.error": "The hosted checkout page reports that an application script failed to load or threw (reason load_failed or runtime_error).",
  "script.blocked": "The browser refused a script on the hosted checkout page: integrity_mismatch (its bytes changed) or csp_violation.",
};

const REQUIRED_KEYS: Record<string, string[]> = {
  "workspace.payment_method.backup_set": ["workspaceId", "paymentMethodId", "previousPaymentMethodId"],
  "workspace.payment_method.backup_used": ["workspaceId", "paymentMethodId", "failedPaymentMethodId", "failedChargeId", "charge"],
  "customer.payment_method_added": ["customerId", "paymentMethod", "customer"],
  "customer.payment_method_removed": ["customerId", "paymentMethodId", "customer"],
  "payment.vaulted": ["customerId", "paymentMethodId", "checkoutSessionId", "customer"],
  "extension.uninstalled": ["installationId", "extensionId", "applicationId", "uninstalledAt", "reason"],
  "extension.webhook_secret_rotated": ["installationId", "extensionId", "endpointId", "rotatedAt", "previousSecretExpiresAt"],
  "quote.converted": ["quoteId", "orderId"],
  "payment.captured": ["paymentId", "capturedAmount", "authorizedAmount"],
  "payment.disputed": ["paymentId", "orderId", "reason", "disputedAmount"],
  "payment.dispute_cleared": ["paymentId", "orderId", "outcome"],
  "invoice.overdue": ["paymentId", "orderId", "invoiceNumber", "dueDate"],
  "order.hold_released": ["orderId", "previousHoldReason"],
  "order.held": ["orderId", "reason", "previousHoldReason"],
  "order.comped": ["orderId", "compAmount", "reason"],
  "order.comp_reversed": ["orderId", "previousCompAmount"],
  "payment.recorded": ["paymentId", "orderId", "amount", "method"],
  "payment.voided": ["paymentId", "orderId"],
  "cart.abandoned": ["cartId", "recoveryUrl"],
  "cart.discount_applied": ["cartId", "discountId", "code", "amount"],
  "cart.discount_removed": ["cartId", "discountId", "code", "reason"],
  "discount.applied": ["discountId", "code", "cartId", "amount"],
  "discount.removed": ["discountId", "code", "cartId", "reason"],
  "import.completed": ["importId", "mode"],
  "webhook.ping": ["endpointId"],
  "extension.ping": ["installationId", "extensionId", "endpointId", "reason"],
  "fulfillment.created": ["fulfillmentId", "orderId", "customer", "fulfillment"],
  "fulfillment.completed": ["fulfillmentId", "orderId", "customer", "fulfillment"],
  "fulfillment.cancelled": ["fulfillmentId", "orderId", "customer", "fulfillment"],
  "fulfillment.shipment.shipped": ["fulfillmentId", "orderId", "customer", "fulfillment"],
  "fulfillment.shipment.delivered": ["fulfillmentId", "orderId", "customer", "fulfillment"],
  "return.created": ["returnId", "orderId", "status", "customer", "return"],
  "return.updated": ["returnId", "orderId", "status", "previousStatus", "customer", "return"],
  "script.loaded": ["checkoutSessionId", "scriptId", "reason"],
  "script.error": ["checkoutSessionId", "scriptId", "reason"],
  "script.blocked": ["checkoutSessionId", "scriptId", "reason", "blockedUri", "violatedDirective"],
};

export function eventTypeInfo(type: string) {
  const requiredDataKeys = REQUIRED_KEYS[type] ?? [];
  const example = {
    id: "3f1c2a9e-0b7d-4c61-9a0e-5d2b8f4e7a10",
    type,
    version: "1",
    workspaceId: "6857db9d-3858-4a87-9247-bae9607ce643",
    environmentId: "fddda9b1-4cf8-4c3f-853c-5a8e5ba48dbb",
    environmentKind: "non_production",
    createdAt: "2026-01-01T00:00:00.000Z",
    data: Object.fromEntries(requiredDataKeys.map((k) => [k, `<${k}>`])),
  };
  return {
    type,
    readScope: READ_SCOPE.get(type)!,
    subscribable: !UNSUBSCRIBABLE.has(type),
    emitted: EMITTED_TODAY.has(type),
    trigger: TRIGGERS[type] ?? `A ${type.split(".")[0]} ${type.split(".").slice(1).join(" ").replace(/_/g, " ")} change.`,
    dataShape: "object",
    requiredDataKeys,
    example,
  };
}

export const EVENT_CONVENTIONS = {
  envelope: ["id", "type", "version", "workspaceId", "environmentId", "environmentKind", "createdAt", "data"],
  version: "1; fields are added without a version change, so ignore unknown keys",
  amounts: "integer minor units",
  timestamps: "ISO 8601 UTC",
  ids: "opaque strings",
  delivery: "at least once: store each event id before side effects",
  signature: "X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of `${t}.${rawBody}`>; two v1 values during a rotation window",
  replay: "a replay keeps the original id, payload and createdAt",
  retired: RETIRED,
};
