// The OpenAPI 3.1 document of /api/v1, generated (zod-to-openapi) from the zod schemas the routes validate with
// and the response schemas of ./schemas.ts. Paths are relative to the server URL /api/v1, so each key matches a
// route of restRoutes() (src/server/rest-routes.ts) with `:id` written `{id}`; test/openapi.test.ts holds them equal.
import { OpenApiGeneratorV31, OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { addItemInput, updateItemInput } from "../carts/cart-items.service";
import { createCartInput, replaceTaxLinesInput, selectShippingInput, updateCartInput } from "../carts/carts.service";
import { completeInput } from "../checkout/checkout-complete.service";
import { createSessionInput } from "../checkout/checkout.service";
import { embedTokenInput } from "../checkout/checkout-embed.service";
import { createCustomerInput } from "../customers/customers.service";
import { applyDiscountInput, createDiscountInput, discountListQuery, updateDiscountInput } from "../discounts/discounts.service";
import { eventFilters } from "../events/events.service";
import { orderFilters } from "../orders/orders.service";
import { exportFilters } from "../orders/export.service";
import { timelineQuery } from "../orders/timeline.service";
import { createFulfillmentInput, updateFulfillmentInput } from "../fulfillments/fulfillments.service";
import { createReturnInput } from "../fulfillments/returns.service";
import { captureInput, markFailedInput, paymentFilters, refundInput, resolveInput } from "../payments/payments.service";
import { createChargeInput } from "../payments/processor-proxy.service";
import { disputeInput, resolveDisputeInput, testDisputeInput } from "../payments/disputes.service";
import { createApiKeyInput } from "../platform/api-keys.service";
import { updateApplicationInput } from "../platform/applications.service";
import { createConnectorInput } from "../platform/connectors.service";
import { emailFilters, previewInput, templateOverrideInput } from "../mail/mail.service";
import { notificationFilters } from "../notifications/notifications.service";
import { acceptInput, repAcceptInput } from "../quotes/quote-accept.service";
import { buyerCommentInput, buyerDeclineInput, requestRevisionInput } from "../quotes/quote-links.service";
import { cartRequestInput, createFormInput, quoteRequestInput } from "../quotes/quote-requests.service";
import { commentInput, createQuoteInput, issueQuoteInput, quoteListFilters, updateQuoteInput, updateRevisionInput } from "../quotes/quotes.inputs";
import { createEnvironmentInput, listEnvironmentsQuery } from "../platform/environments.service";
import { pageQuery } from "../shared/pagination";
import { recurringInput } from "../subscriptions/subscriptions.service";
import { calculateInput, settingsInput } from "../shipping-tax/shipping-tax.service";
import { estimateInput } from "../shipping-tax/estimate.service";
import { createEndpointInput, deliveriesQuery, rotateInput, updateEndpointInput } from "../webhooks/endpoints.service";
import * as S from "./schemas";
import { registerOrderOps } from "./order-ops.paths";
import { registerWallet } from "./wallet.paths";
import { registerSubscriptions } from "./subscriptions.paths";
import { registerImports } from "./imports.paths";
import { registerMembers } from "./members.paths";
import { registerApplicationScripts } from "./application-scripts.paths";
import { registerBilling } from "./billing.paths";
import { registerExtensions } from "./extensions.paths";
import { registerExtensionSessions } from "./extension-sessions.paths";
import { registerOAuth } from "./oauth.paths";
import { register, type Register } from "./operation";
import { finishDocument, registerComponents, standaloneSchemas } from "./components";

function registerAll(reg: OpenAPIRegistry) {
  const r: Register = (method, path, op) => register(reg, method, path, op);
  const id = { id: "The resource's" };
  // platform
  r("get", "/whoami", { tag: "platform", summary: "The calling credential", ok: [200, S.Whoami] });
  r("get", "/applications/{id}", { tag: "platform", summary: "An application and its settings (key: applications:read, its own only)", params: id, ok: [200, S.Application] });
  r("patch", "/applications/{id}", { tag: "platform", summary: "Change name and settings; null removes a setting (key: applications:write)", params: id, body: updateApplicationInput, ok: [200, S.Application] });
  r("get", "/api-keys", { tag: "platform", summary: "Active API keys of the environment (never the raw key)", query: pageQuery, ok: [200, S.ApiKey, "page"] });
  r("post", "/api-keys", { errors: ["invalid_scope", "forbidden"], tag: "platform", summary: "Mint a key (dashboard session; X-Service-Environment-Id names the environment)", body: createApiKeyInput, ok: [201, S.CreatedApiKey] });
  r("delete", "/api-keys/{id}", { tag: "platform", summary: "Revoke a key", params: id, ok: [204, null] });
  r("get", "/workspaces/{workspaceId}/environments", { errors: ["application_key_workspace_route"], tag: "platform", summary: "The workspace's environments", params: { workspaceId: "Workspace" }, query: listEnvironmentsQuery, ok: [200, z.array(S.Environment)] });
  r("post", "/workspaces/{workspaceId}/environments", { errors: ["reserved_environment_slug", "environment_slug_taken", "application_key_workspace_route", "permission_denied"], tag: "platform", summary: "Create a custom environment", params: { workspaceId: "Workspace" }, body: createEnvironmentInput, ok: [201, S.Environment] });
  r("delete", "/workspaces/{workspaceId}/environments/{environmentId}", { errors: ["system_environment_locked", "environment_not_found", "application_key_workspace_route", "permission_denied"], tag: "platform", summary: "Archive a custom environment", params: { workspaceId: "Workspace", environmentId: "Environment" }, ok: [200, S.Environment] });
  r("get", "/connectors", { tag: "platform", summary: "Payment connectors", query: pageQuery, ok: [200, S.Connector, "page"] });
  r("get", "/connectors/{id}", { tag: "platform", summary: "A connector", params: id, ok: [200, S.Connector] });
  r("post", "/connectors", { tag: "platform", summary: "Connect a payment method", body: createConnectorInput, ok: [201, S.Connector] });
  r("delete", "/connectors/{id}", { tag: "platform", summary: "Deactivate a connector", params: id, ok: [200, S.Connector] });
  // events and webhooks
  r("get", "/events", { tag: "events", summary: "The event log, newest first", query: pageQuery.extend(eventFilters), ok: [200, S.Event, "page"] });
  r("get", "/events/{id}", { tag: "events", summary: "An event", params: id, ok: [200, S.Event] });
  r("get", "/event-types", { tag: "events", summary: "Event types with trigger, data keys and an example", ok: [200, z.array(S.EventType)], meta: z.object({ conventions: z.record(z.string(), z.unknown()) }) });
  r("post", "/webhook-endpoints", { errors: ["invalid_webhook_url", "insufficient_scopes"], tag: "webhooks", summary: "Create an endpoint; its signing secret is shown once", body: createEndpointInput, ok: [201, S.WebhookEndpointWithSecret] });
  r("get", "/webhook-endpoints", { tag: "webhooks", summary: "Endpoints (never the secret)", ok: [200, z.array(S.WebhookEndpoint)] });
  r("get", "/webhook-endpoints/{id}", { tag: "webhooks", summary: "An endpoint", params: id, ok: [200, S.WebhookEndpoint] });
  r("patch", "/webhook-endpoints/{id}", { errors: ["invalid_webhook_url", "insufficient_scopes"], tag: "webhooks", summary: "Change url, events, isActive or description", params: id, body: updateEndpointInput, ok: [200, S.WebhookEndpoint] });
  r("delete", "/webhook-endpoints/{id}", { tag: "webhooks", summary: "Delete an endpoint (pending deliveries are dead-lettered)", params: id, ok: [204, null] });
  r("post", "/webhook-endpoints/{id}/rotate-secret", { tag: "webhooks", summary: "New signing secret (shown once); the old one signs during graceSeconds", params: id, body: rotateInput.partial(), ok: [200, S.WebhookEndpointWithSecret] });
  r("get", "/webhook-endpoints/{id}/deliveries", { tag: "webhooks", summary: "Deliveries, newest first (offset paging)", params: id, query: deliveriesQuery, ok: [200, z.array(S.WebhookDelivery)], meta: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }) });
  r("get", "/webhook-endpoints/{id}/deliveries/{deliveryId}", { tag: "webhooks", summary: "A delivery with its attempts", params: { id: "Endpoint", deliveryId: "Delivery" }, ok: [200, S.WebhookDeliveryWithAttempts] });
  r("post", "/webhook-endpoints/{id}/deliveries/{deliveryId}/replay", { errors: ["delivery_not_replayable"], tag: "webhooks", summary: "Send a dead letter again (same event id and payload)", params: { id: "Endpoint", deliveryId: "Delivery" }, ok: [202, S.WebhookDelivery] });
  r("post", "/webhook-endpoints/{id}/test", { tag: "webhooks", summary: "Send a signed webhook.ping", params: id, ok: [202, S.WebhookDelivery] });
  // customers
  r("get", "/customers/by-external/{externalId}", { tag: "customers", summary: "A customer by your id", params: { externalId: "Your" }, ok: [200, S.Customer] });
  r("post", "/customers", { errors: ["customer_already_exists"], tag: "customers", summary: "Create a customer", body: createCustomerInput, ok: [201, S.Customer] });
  r("get", "/customers/{id}", { tag: "customers", summary: "A customer", params: id, ok: [200, S.Customer] });
  // carts
  r("post", "/carts", { errors: ["currency_mismatch", "image_url_unresolvable"], tag: "carts", summary: "Create a cart", body: createCartInput, ok: [201, S.Cart] });
  r("get", "/carts/{id}", { tag: "carts", summary: "A cart with lines and totals", params: id, ok: [200, S.Cart] });
  r("patch", "/carts/{id}", { errors: ["cart_not_editable"], tag: "carts", summary: "Change customer, addresses, notes, metadata (null clears)", params: id, body: updateCartInput, ok: [200, S.Cart] });
  r("post", "/carts/{id}/items", { errors: ["cart_not_editable", "image_url_unresolvable"], tag: "carts", summary: "Add a line", params: id, body: addItemInput, ok: [201, S.CartLineItem] });
  r("patch", "/carts/{cartId}/items/{id}", { errors: ["cart_not_editable"], tag: "carts", summary: "Change a line", params: { cartId: "Cart", id: "Line item" }, body: updateItemInput, ok: [200, S.CartLineItem] });
  r("delete", "/carts/{cartId}/items/{id}", { errors: ["cart_not_editable"], tag: "carts", summary: "Remove a line", params: { cartId: "Cart", id: "Line item" }, ok: [204, null] });
  r("post", "/carts/{id}/shipping", { errors: ["cart_not_editable"], tag: "carts", summary: "Select a shipping rate", params: id, body: selectShippingInput, ok: [200, S.Cart] });
  r("delete", "/carts/{id}/shipping", { tag: "carts", summary: "Clear the shipping selection", params: id, ok: [200, S.Cart] });
  r("put", "/carts/{id}/tax-lines", { tag: "carts", summary: "Replace the cart-level tax lines", params: id, body: replaceTaxLinesInput, ok: [200, S.Cart] });
  // shipping and tax
  // discounts
  r("post", "/discounts", { tag: "discounts", summary: "Create a promotion code (409 discount_code_taken: codes are unique case-insensitively)", body: createDiscountInput, ok: [201, S.Discount] });
  r("get", "/discounts", { tag: "discounts", summary: "Discounts, newest first", query: discountListQuery, ok: [200, S.Discount, "page"] });
  r("get", "/discounts/{id}", { tag: "discounts", summary: "A discount", params: id, ok: [200, S.Discount] });
  r("patch", "/discounts/{id}", { tag: "discounts", summary: "Change a discount (null clears currency, dates, maxRedemptions, minSubtotal)", params: id, body: updateDiscountInput, ok: [200, S.Discount] });
  r("post", "/carts/{id}/discount", { errors: ["cart_not_editable"], tag: "carts", summary: "Apply a promotion code (422 discount_invalid with details.reason)", params: id, body: applyDiscountInput, ok: [200, S.Cart] });
  r("delete", "/carts/{id}/discount", { tag: "carts", summary: "Remove the promotion code", params: id, ok: [200, S.Cart] });
  r("get", "/shipping-tax/settings", { tag: "shipping-tax", summary: "Flat rates and the tax table", ok: [200, S.ShippingTaxSettings] });
  r("put", "/shipping-tax/settings", { tag: "shipping-tax", summary: "Replace flat rates and the tax table", body: settingsInput, ok: [200, S.ShippingTaxSettings] });
  r("post", "/shipping-tax/estimate", { tag: "shipping-tax", summary: "Price a storefront basket from a browser: publishable key (pk_…) as quoteToken and/or X-API-Key; secret keys 403; 401 invalid_quote_token; 404 store_not_found", body: estimateInput, ok: [200, S.ShippingTaxEstimate] });
  r("post", "/shipping-tax/carts/{cartId}/calculate", { tag: "shipping-tax", summary: "Shipping methods, tax lines and totals for a cart (body errors are 400)", params: { cartId: "Cart" }, body: calculateInput, ok: [200, S.Calculation] });
  // checkout
  r("post", "/checkout/sessions", { errors: ["cart_not_found", "cart_not_editable", "no_payment_connection", "discount_invalid", "currency_mismatch", "net_terms_not_configured"], tag: "checkout", summary: "Open a checkout session for a cart", body: createSessionInput.safeExtend({ recurring: recurringInput.optional() }), ok: [201, S.CheckoutSession] });
  r("post", "/checkout-sessions/embed-token", { errors: ["allowed_methods_unsupported", "image_url_unresolvable", "no_payment_connection", "currency_mismatch"], tag: "checkout", summary: "A one-line cart, its session and an embed token (shown once)", body: embedTokenInput, ok: [201, S.EmbedSession] });
  r("get", "/checkout-sessions/{id}/embed-token", { errors: ["session_not_found", "session_expired", "session_not_open"], tag: "checkout", keyless: true, summary: "A fresh embed token for the embedded page (browser, no key)", params: id, ok: [200, S.SessionEmbedToken] });
  r("get", "/checkout-sessions/{id}/payment-methods", { errors: ["session_not_found", "session_expired"], tag: "checkout", keyless: true, summary: "The session's payment methods (browser, no key)", params: id, ok: [200, S.SessionPaymentMethods] });
  r("post", "/checkout-sessions/{id}/complete", { errors: ["session_not_found", "session_expired", "session_not_open", "missing_required_field", "payment_method_not_allowed", "no_payment_connection", "payment_failed", "checkout_in_progress"], tag: "checkout", keyless: true, summary: "Complete the session: one order, one payment (browser, no key; rate limited per IP and session, declines capped)", params: id, body: completeInput, ok: [200, S.Completion] });
  // orders
  r("get", "/orders", { tag: "orders", summary: "Orders, newest first", query: orderFilters, ok: [200, S.Order, "page"] });
  r("get", "/orders/{id}", { tag: "orders", summary: "An order with captured and refunded amounts", params: id, ok: [200, S.Order] });
  r("get", "/orders/{id}/payments", { tag: "orders", summary: "The order's payments", params: id, ok: [200, z.array(S.Payment)] });
  r("get", "/orders/{id}/status-history", { tag: "orders", summary: "Status changes, oldest first", params: id, ok: [200, z.array(S.StatusChange)] });
  r("get", "/orders/export.csv", { tag: "orders", summary: "The orders GET /orders would list (same filters), as streamed RFC 4180 CSV, newest first, at most 100,000 rows", query: exportFilters, ok: [200, null], csv: "CSV, header row first: id, createdAt, status, paymentStatus, displayStatus, customerEmail, currency, subtotal, total, compAmount, capturedAmount, refundedAmount, delivery_state" });
  r("get", "/orders/{id}/timeline", { tag: "orders", summary: "Status changes, payment transactions, fulfillments, shipments, returns, holds and comps, newest first (orders:read)", params: id, query: timelineQuery, ok: [200, S.TimelineRow, "page"] });
  r("post", "/orders/{id}/fulfillments", { tag: "fulfillments", summary: "Hand over units (completed), or ship them (pending until a tracking number); 422 invalid_order_state; 409 order_on_hold; 422 more than remains", params: id, body: createFulfillmentInput, ok: [201, S.Fulfillment] });
  r("get", "/orders/{id}/fulfillments", { tag: "fulfillments", summary: "The order's fulfillments, oldest first", params: id, ok: [200, z.array(S.Fulfillment)] });
  r("get", "/fulfillments/{id}", { tag: "fulfillments", summary: "A fulfillment", params: id, ok: [200, S.Fulfillment] });
  r("patch", "/fulfillments/{id}", { errors: ["invalid_fulfillment_state", "order_on_hold"], tag: "fulfillments", summary: "Change the shipment; the first tracking number completes it (shipped)", params: id, body: updateFulfillmentInput, ok: [200, S.Fulfillment] });
  r("post", "/fulfillments/{id}/delivered", { tag: "fulfillments", summary: "Record arrival (completes a pending shipment first); allowed on a held order", params: id, ok: [200, S.Fulfillment] });
  r("post", "/fulfillments/{id}/cancel", { errors: ["invalid_fulfillment_state", "order_on_hold"], tag: "fulfillments", summary: "Cancel: its units are free to fulfil again and the order's status follows", params: id, ok: [200, S.Fulfillment] });
  r("post", "/orders/{id}/returns", { errors: ["invalid_order_state"], tag: "returns", summary: "Request a return of fulfilled units (422 more than fulfilled and not returned)", params: id, body: createReturnInput, ok: [201, S.OrderReturn] });
  r("get", "/orders/{id}/returns", { tag: "returns", summary: "The order's returns, oldest first", params: id, ok: [200, z.array(S.OrderReturn)] });
  r("get", "/returns/{id}", { tag: "returns", summary: "A return", params: id, ok: [200, S.OrderReturn] });
  r("post", "/returns/{id}/receive", { errors: ["invalid_return_state"], tag: "returns", summary: "The units came back (requested -> received)", params: id, ok: [200, S.OrderReturn] });
  r("post", "/returns/{id}/cancel", { errors: ["invalid_return_state"], tag: "returns", summary: "Cancel a requested return", params: id, ok: [200, S.OrderReturn] });
  r("post", "/orders/{id}/capture", { errors: ["payment_failed"], tag: "orders", summary: "Capture every authorized payment in full", params: id, ok: [200, S.Order] });
  registerOrderOps(r);
  registerWallet(r);
  registerSubscriptions(r);
  registerImports(r);
  registerMembers(r);
  registerApplicationScripts(r);
  registerBilling(r);
  registerExtensions(r);
  registerExtensionSessions(r);
  registerOAuth(r);
  // payments
  r("get", "/payments", { tag: "payments", summary: "Payments, newest first", query: paymentFilters, ok: [200, S.Payment, "page"] });
  r("get", "/payments/{id}", { tag: "payments", summary: "A payment", params: id, ok: [200, S.Payment] });
  r("get", "/payments/{id}/transactions", { tag: "payments", summary: "The payment's transactions, oldest first", params: id, ok: [200, z.array(S.Transaction)] });
  r("post", "/payments/{id}/capture", { errors: ["payment_not_capturable", "payment_failed", "payment_state_changed"], tag: "payments", summary: "Capture (Net-N: mark paid)", params: id, body: captureInput, ok: [200, S.Payment] });
  r("post", "/payments/{id}/refund", { errors: ["refund_not_allowed", "refund_already_in_progress", "refund_failed"], tag: "payments", summary: "Refund all or part of what was captured", params: id, body: refundInput, ok: [200, S.Payment] });
  r("post", "/payments/{id}/mark-failed", { errors: ["payment_not_failable"], tag: "payments", summary: "Mark a pending or processing payment failed", params: id, body: markFailedInput, ok: [200, S.Payment] });
  // quotes, merchant side
  r("post", "/quotes", { tag: "quotes", summary: "A draft quote with its working revision", body: createQuoteInput, ok: [201, S.Quote] });
  r("get", "/quotes", { tag: "quotes", summary: "Quotes, newest first", query: pageQuery.extend(quoteListFilters), ok: [200, S.Quote, "page"] });
  r("get", "/quotes/{id}", { tag: "quotes", summary: "A quote: revisions, items, comments (internal too), the buyer link", params: id, ok: [200, S.Quote] });
  r("patch", "/quotes/{id}", { errors: ["invalid_quote_transition", "quote_not_editable"], tag: "quotes", summary: "Decline, review or archive; reference, expiry, internal note (null clears)", params: id, body: updateQuoteInput, ok: [200, S.Quote] });
  r("post", "/quotes/{id}/issue", { tag: "quotes", summary: "Issue the working revision (409 empty_revision, unpriced_items, net_terms_not_configured)", params: id, body: issueQuoteInput, ok: [200, S.QuoteIssue] });
  r("post", "/quotes/{id}/revisions", { errors: ["invalid_quote_transition"], tag: "quotes", summary: "A working revision cloned from the issued one (409 working_revision_exists)", params: id, ok: [201, S.QuoteRevision] });
  r("patch", "/quotes/{id}/revisions/{revisionId}", { tag: "quotes", summary: "Edit the working revision (409 revision_not_editable)", params: { id: "Quote", revisionId: "Revision" }, body: updateRevisionInput, ok: [200, S.QuoteRevision] });
  r("post", "/quotes/{id}/comments", { tag: "quotes", summary: "A shared or internal comment", params: id, body: commentInput, ok: [201, S.QuoteComment] });
  r("post", "/quotes/{id}/rotate-link", { tag: "quotes", summary: "A new share token; the old link answers 404 at once", params: id, ok: [200, S.Quote] });
  r("post", "/quotes/{id}/accept", { errors: ["invalid_quote_transition"], tag: "quotes", summary: "A rep records the buyer's acceptance: the revision becomes a cart and a checkout session (409 revision_superseded, accept_in_progress; 410 quote_expired; 400 invalid_item_selection)", params: id, body: repAcceptInput, ok: [200, S.QuoteAcceptance] });
  r("post", "/carts/{cartId}/request-quote", { tag: "quotes", summary: "A quote request from the cart's lines (the cart is unchanged)", params: { cartId: "Cart" }, body: cartRequestInput, ok: [201, S.Quote] });
  r("post", "/quote-request-forms", { tag: "quotes", summary: "A hosted request form; its qrf_ token is shown once", body: createFormInput, ok: [201, S.QuoteRequestForm] });
  r("get", "/quote-request-forms", { tag: "quotes", summary: "Request forms (never their tokens)", query: pageQuery, ok: [200, S.QuoteRequestForm, "page"] });
  r("post", "/quote-request-forms/{id}/rotate-token", { tag: "quotes", summary: "A new qrf_ token (shown once); the old one stops working", params: id, ok: [200, S.QuoteRequestForm] });
  const token = { token: "token" };
  r("get", "/quote-links/{token}", { tag: "quote links", keyless: true, summary: "Keyless, the token is the authority: the buyer's read (current issued revision, history, shared comments, branding, PDF link); 404 for draft, archived and rotated-out links", params: token, ok: [200, S.BuyerQuote] });
  r("post", "/quote-links/{token}/view", { tag: "quote links", keyless: true, summary: "Records a view (quote.viewed at most once per revision per 6 hours; an expired link notifies the rep)", params: token, body: z.object({}).strict(), ok: [204, null] });
  r("post", "/quote-links/{token}/comments", { tag: "quote links", keyless: true, summary: "A shared comment from the buyer", params: token, body: buyerCommentInput, ok: [201, S.BuyerQuoteComment] });
  r("post", "/quote-links/{token}/request-revision", { errors: ["invalid_quote_transition"], tag: "quote links", keyless: true, summary: "The buyer asks for changes (proposed -> revision_requested)", params: token, body: requestRevisionInput, ok: [200, S.BuyerQuote] });
  r("post", "/quote-links/{token}/decline", { errors: ["invalid_quote_transition"], tag: "quote links", keyless: true, summary: "The buyer declines the offer", params: token, body: buyerDeclineInput, ok: [200, S.BuyerQuote] });
  r("get", "/quote-links/{token}/pdf", { tag: "quote links", keyless: true, summary: "302 to a short-lived signed URL of the current offer's PDF (Q-{seq}-rev{n}.pdf, stamped once accepted); 404 before the first issue", params: token, ok: [302, null] });
  r("post", "/quote-links/{token}/accept", { errors: ["revision_superseded", "quote_expired", "invalid_item_selection", "accept_in_progress", "invalid_quote_transition"], tag: "quote links", keyless: true, summary: "The buyer accepts the current revision with item selections -> the checkout URL (re-accepting returns the same session)", params: token, body: acceptInput, ok: [200, S.BuyerQuoteAcceptance] });
  r("get", "/notifications", { tag: "quotes", summary: "In-app notifications for the merchant team, newest first (quotes:read)", query: pageQuery.extend(notificationFilters), ok: [200, S.Notification, "page"] });
  r("post", "/notifications/{id}/read", { tag: "quotes", summary: "Mark a notification read (idempotent; quotes:write)", params: id, ok: [200, S.Notification] });
  const name = { name: "name" };
  r("get", "/emails", { tag: "mail", summary: "The mail outbox, newest first: queued, sent, kept (no SMTP_URL) and failed emails (applications:read)", query: pageQuery.extend(emailFilters), ok: [200, S.Email, "page"] });
  r("get", "/email-templates", { tag: "mail", summary: "Every lifecycle email template with this application's edits (applications:read)", ok: [200, z.array(S.EmailTemplate)] });
  r("get", "/email-templates/{name}", { tag: "mail", summary: "A lifecycle email template", params: name, ok: [200, S.EmailTemplate] });
  r("put", "/email-templates/{name}", { tag: "mail", summary: "Edit a template's text fields (subject, heading, body, ctaLabel; null returns a field to the default; applications:write)", params: name, body: templateOverrideInput, ok: [200, S.EmailTemplate] });
  r("delete", "/email-templates/{name}", { tag: "mail", summary: "Back to the default template (idempotent)", params: name, ok: [200, S.EmailTemplate] });
  r("post", "/email-templates/{name}/preview", { tag: "mail", summary: "The template rendered with sample values (or those sent), as subject, HTML and text", params: name, body: previewInput, ok: [200, S.RenderedEmail] });
  r("post", "/quote-requests", { errors: ["bot_challenge_not_configured", "bot_challenge_failed", "form_submitted_too_fast"], tag: "quotes", summary: "Keyless: a buyer's request through a form token (202 alike for every accepted submission)", keyless: true, body: quoteRequestInput, ok: [202, S.QuoteRequestReceipt] });
  r("post", "/test-processor/charges", { tag: "payments", summary: "Mint a charge as if a buyer paid on the test processor's page, for a processor_proxy checkout (non-production)", body: createChargeInput, ok: [201, S.TestProcessorCharge] });
  r("post", "/test-processor/payments/{id}/resolve", { errors: ["payment_not_processing"], tag: "payments", summary: "Resolve a test-processor payment awaiting 3-D Secure (non-production)", params: id, body: resolveInput, ok: [200, S.Payment] });
  r("get", "/payments/{id}/invoice-pdf", { tag: "payments", summary: "A Net-N invoice's PDF: a URL signed for 15 minutes (payments:read or invoices:read); 409 not_invoice, pdf_not_ready; 503 storage_unavailable", params: id, ok: [200, S.InvoicePdfUrl] });
  r("post", "/payments/{id}/invoice/resend", { tag: "payments", summary: "Queue customer.net30_invoice_issued again with a fresh download link (payments:write or invoices:write); 409 not_invoice, pdf_not_ready, no_recipient, email_not_configured", params: id, ok: [200, S.InvoiceResend] });
  r("get", "/payments/{id}/invoice/download", { errors: ["missing_token", "invalid_token", "storage_unavailable"], tag: "payments", keyless: true, summary: "The buyer's link: 302 to a short-lived signed URL of the invoice PDF; 400 missing_token, 401 invalid_token", params: id, query: z.object({ token: z.string().optional().meta({ description: "The signed download token of the invoice email" }) }), ok: [302, null] });
  r("post", "/payments/{id}/dispute", { tag: "payments", summary: "Open a dispute on captured money (payment_disputes:write); 422 payment_not_disputable, 409 dispute_already_open", params: id, body: disputeInput, ok: [200, S.Payment] });
  r("post", "/payments/{id}/dispute/resolve", { errors: ["dispute_resolution_in_progress"], tag: "payments", summary: "Resolve the open dispute: merchant_won clears it, buyer_won refunds what is captured and clears it (payment_disputes:write); 409 payment_not_disputed", params: id, body: resolveDisputeInput, ok: [200, S.Payment] });
  r("post", "/test-processor/payments/{id}/dispute", { tag: "payments", summary: "Test processor, non-production: a chargeback arrives on a card payment, as a card network would send it", params: id, body: testDisputeInput, ok: [200, S.Payment] });
}

let cached: ReturnType<OpenApiGeneratorV31["generateDocument"]> | null = null;

/** The document, built once per process. */
export function openApiDocument() {
  if (cached) return cached;
  const reg = new OpenAPIRegistry();
  registerComponents(reg);
  registerAll(reg);
  cached = finishDocument(new OpenApiGeneratorV31([...reg.definitions, ...standaloneSchemas()]));
  return cached;
}
