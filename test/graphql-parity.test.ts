// Every /api/v1 route has a GraphQL root field over the same service: this table says which, and the test fails
// when a route is added without one, when a named field is missing from the schema, or when a route is gone.
import type { GraphQLSchema } from "graphql";
import { GATE_EXEMPT, GATE_EXEMPT_FIELDS, gateExemptRoute } from "../src/billing/live-gate";
import { schema } from "../src/graphql/schema";
import { restRoutes, type RouteInfo } from "../src/rest/routes";

/** "METHOD /path" as restRoutes() lists it -> "Query.field" or "Mutation.field". */
const GRAPHQL_FOR: Record<string, string> = {
  // platform
  "GET /whoami": "Query.viewer",
  "GET /api-keys": "Query.apiKeys",
  "POST /api-keys": "Mutation.createApiKey",
  "DELETE /api-keys/:id": "Mutation.revokeApiKey",
  // OAuth: the member's authorized apps
  "GET /oauth/grants": "Query.authorizedApps",
  "DELETE /oauth/grants/:id": "Mutation.revokeAuthorizedApp",
  "GET /workspaces/:workspaceId/environments": "Query.environments",
  "POST /workspaces/:workspaceId/environments": "Mutation.createEnvironment",
  "DELETE /workspaces/:workspaceId/environments/:environmentId": "Mutation.archiveEnvironment",
  "GET /connectors": "Query.connectors",
  "GET /connectors/:id": "Query.connector",
  "POST /connectors": "Mutation.createConnector",
  "DELETE /connectors/:id": "Mutation.deactivateConnector",
  // invitations and members
  "POST /workspaces/:workspaceId/invites": "Mutation.createInvite",
  "GET /workspaces/:workspaceId/invites": "Query.invites",
  "POST /workspaces/:workspaceId/invites/:id/resend": "Mutation.resendInvite",
  "POST /workspaces/:workspaceId/invites/:id/revoke": "Mutation.revokeInvite",
  "POST /invites/accept": "Mutation.acceptInvite",
  "GET /workspaces/:workspaceId/members": "Query.members",
  "GET /workspaces/:workspaceId/members/me": "Query.myMembership",
  "PATCH /workspaces/:workspaceId/members/:memberId": "Mutation.updateMember",
  "DELETE /workspaces/:workspaceId/members/:memberId": "Mutation.removeMember",
  // events
  "GET /events": "Query.events",
  "GET /events/:id": "Query.event",
  "GET /event-types": "Query.eventTypes",
  // webhooks
  "POST /webhook-endpoints": "Mutation.createWebhookEndpoint",
  "GET /webhook-endpoints": "Query.webhookEndpoints",
  "GET /webhook-endpoints/:id": "Query.webhookEndpoint",
  "PATCH /webhook-endpoints/:id": "Mutation.updateWebhookEndpoint",
  "DELETE /webhook-endpoints/:id": "Mutation.deleteWebhookEndpoint",
  "POST /webhook-endpoints/:id/rotate-secret": "Mutation.rotateWebhookEndpointSecret",
  "GET /webhook-endpoints/:id/deliveries": "Query.webhookDeliveries",
  "GET /webhook-endpoints/:id/deliveries/:deliveryId": "Query.webhookDelivery",
  "POST /webhook-endpoints/:id/deliveries/:deliveryId/replay": "Mutation.replayWebhookDelivery",
  "POST /webhook-endpoints/:id/test": "Mutation.testWebhookEndpoint",
  // customers
  "GET /customers/by-external/:externalId": "Query.customerByExternalId",
  "POST /customers": "Mutation.createCustomer",
  "GET /customers/:id": "Query.customer",
  // carts
  "POST /carts": "Mutation.createCart",
  "GET /carts/:id": "Query.cart",
  "PATCH /carts/:id": "Mutation.updateCart",
  "POST /carts/:id/items": "Mutation.addCartItem",
  "PATCH /carts/:cartId/items/:id": "Mutation.updateCartItem",
  "DELETE /carts/:cartId/items/:id": "Mutation.removeCartItem",
  "POST /carts/:id/shipping": "Mutation.selectCartShipping",
  "DELETE /carts/:id/shipping": "Mutation.clearCartShipping",
  "PUT /carts/:id/tax-lines": "Mutation.replaceCartTaxLines",
  "POST /carts/:id/discount": "Mutation.applyCartDiscount",
  "DELETE /carts/:id/discount": "Mutation.removeCartDiscount",
  // discounts
  "POST /discounts": "Mutation.createDiscount",
  "GET /discounts": "Query.discounts",
  "GET /discounts/:id": "Query.discount",
  "PATCH /discounts/:id": "Mutation.updateDiscount",
  // shipping and tax
  "GET /shipping-tax/settings": "Query.shippingTaxSettings",
  "PUT /shipping-tax/settings": "Mutation.replaceShippingTaxSettings",
  "POST /shipping-tax/carts/:cartId/calculate": "Mutation.calculateCart",
  "POST /shipping-tax/estimate": "Mutation.estimate",
  // checkout
  "POST /checkout/sessions": "Mutation.createCheckoutSession",
  "POST /checkout-sessions/embed-token": "Mutation.createCheckoutEmbedToken",
  "GET /checkout-sessions/:id/embed-token": "Query.checkoutSessionEmbedToken",
  "GET /checkout-sessions/:id/payment-methods": "Query.checkoutSessionPaymentMethods",
  "POST /checkout-sessions/:id/complete": "Mutation.completeCheckoutSession",
  // subscriptions
  "GET /subscriptions": "Query.subscriptions",
  "GET /subscriptions/:id": "Query.subscription",
  "PATCH /subscriptions/:id": "Mutation.updateSubscription",
  "POST /subscriptions/:id/renew": "Mutation.renewSubscription",
  "POST /subscriptions/:id/change-plan": "Mutation.changeSubscriptionPlan",
  "POST /subscriptions/:id/change-quantity": "Mutation.changeSubscriptionQuantity",
  "DELETE /subscriptions/:id/pending-change": "Mutation.clearSubscriptionPendingChange",
  "POST /subscriptions/:id/resume": "Mutation.resumeSubscription",
  "GET /customers/:id/trial-eligibility": "Query.trialEligibility",
  // billing
  "GET /billing": "Query.billing",
  "POST /billing/subscribe": "Mutation.subscribeBilling",
  "POST /billing/cancel": "Mutation.cancelBilling",
  "POST /billing/resume": "Mutation.resumeBilling",
  "GET /billing/payment-methods": "Query.billingPaymentMethods",
  "POST /billing/payment-methods": "Mutation.addBillingPaymentMethod",
  "POST /billing/payment-methods/:id/default": "Mutation.setDefaultBillingPaymentMethod",
  "POST /billing/payment-methods/:id/backup": "Mutation.setBackupBillingPaymentMethod",
  "DELETE /billing/payment-methods/:id": "Mutation.removeBillingPaymentMethod",
  // partners
  "POST /partner/trials": "Mutation.createPartnerTrial",
  "GET /partner/me/referrals": "Query.partnerReferrals",
  "POST /partner/trials/:referralId/claim-billing": "Mutation.claimPartnerBilling",
  "POST /partner/trials/:referralId/revoke-handoff": "Mutation.revokePartnerHandoff",
  "POST /partner/handoffs/accept": "Mutation.acceptPartnerHandoff",
  // imports
  "POST /imports": "Mutation.createImport",
  "GET /imports/:id": "Query.import",
  "POST /imports/:id/inspect": "Mutation.inspectImport",
  "PATCH /imports/:id/mapping": "Mutation.saveImportMapping",
  "POST /imports/:id/validate": "Mutation.validateImport",
  "POST /imports/:id/commit": "Mutation.commitImport",
  "POST /imports/:id/undo": "Mutation.undoImport",
  "GET /imports/:id/errors": "Query.importErrors",
  // orders and payments
  "GET /orders": "Query.orders",
  "GET /orders/:id": "Query.order",
  "GET /orders/:id/payments": "Query.orderPayments",
  "GET /orders/:id/status-history": "Query.orderStatusHistory",
  "POST /orders/:id/capture": "Mutation.captureOrder",
  "POST /orders": "Mutation.createDraftOrder",
  "PATCH /orders/:id": "Mutation.updateOrder",
  "POST /orders/:id/checkout": "Mutation.checkoutOrder",
  "POST /orders/:id/authorize": "Mutation.authorizeOrder",
  "POST /orders/:id/close": "Mutation.closeOrder",
  "POST /orders/:id/status": "Mutation.setOrderStatus",
  "POST /orders/:id/cancel": "Mutation.cancelOrder",
  "POST /orders/:id/hold": "Mutation.holdOrder",
  "POST /orders/:id/hold/release": "Mutation.releaseOrderHold",
  "POST /orders/:id/comp": "Mutation.compOrder",
  "POST /orders/:id/comp/reverse": "Mutation.reverseOrderComp",
  "POST /orders/:id/payments/record": "Mutation.recordOrderPayment",
  "POST /orders/:id/refund": "Mutation.refundOrder",
  "PATCH /orders/:id/line-items": "Mutation.editOrderLineItems",
  "GET /orders/export.csv": "Query.ordersExport",
  "GET /orders/:id/timeline": "Query.orderTimeline",
  "POST /orders/:id/fulfillments": "Mutation.createFulfillment",
  "GET /orders/:id/fulfillments": "Query.orderFulfillments",
  "GET /fulfillments/:id": "Query.fulfillment",
  "PATCH /fulfillments/:id": "Mutation.updateFulfillment",
  "POST /fulfillments/:id/delivered": "Mutation.markFulfillmentDelivered",
  "POST /fulfillments/:id/cancel": "Mutation.cancelFulfillment",
  "POST /orders/:id/returns": "Mutation.createOrderReturn",
  "GET /orders/:id/returns": "Query.orderReturns",
  "GET /returns/:id": "Query.orderReturn",
  "POST /returns/:id/receive": "Mutation.receiveOrderReturn",
  "POST /returns/:id/cancel": "Mutation.cancelOrderReturn",
  "GET /payments": "Query.payments",
  "GET /payments/:id": "Query.payment",
  "GET /payments/:id/transactions": "Query.paymentTransactions",
  "POST /payments/:id/capture": "Mutation.capturePayment",
  "POST /payments/:id/refund": "Mutation.refundPayment",
  "POST /payments/:id/mark-failed": "Mutation.markPaymentFailed",
  "POST /test-processor/payments/:id/resolve": "Mutation.resolveTestPayment",
  "POST /test-processor/charges": "Mutation.createTestProcessorCharge",
  "GET /payments/:id/invoice-pdf": "Query.invoicePdfUrl",
  "POST /payments/:id/invoice/resend": "Mutation.resendInvoice",
  "GET /payments/:id/invoice/download": "Query.invoiceDownloadUrl",
  "POST /payments/:id/dispute": "Mutation.disputePayment",
  "POST /payments/:id/dispute/resolve": "Mutation.resolvePaymentDispute",
  "POST /test-processor/payments/:id/dispute": "Mutation.openTestDispute",
  // applications
  "GET /applications/:id": "Query.application",
  "PATCH /applications/:id": "Mutation.updateApplication",
  // quotes
  "POST /quotes": "Mutation.createQuote",
  "GET /quotes": "Query.quotes",
  "GET /quotes/:id": "Query.quote",
  "PATCH /quotes/:id": "Mutation.updateQuote",
  "POST /quotes/:id/issue": "Mutation.issueQuote",
  "POST /quotes/:id/revisions": "Mutation.createQuoteRevision",
  "PATCH /quotes/:id/revisions/:revisionId": "Mutation.updateQuoteRevision",
  "POST /quotes/:id/comments": "Mutation.addQuoteComment",
  "POST /quotes/:id/rotate-link": "Mutation.rotateQuoteLink",
  "POST /carts/:cartId/request-quote": "Mutation.requestQuoteFromCart",
  "POST /quote-request-forms": "Mutation.createQuoteRequestForm",
  "GET /quote-request-forms": "Query.quoteRequestForms",
  "POST /quote-request-forms/:id/rotate-token": "Mutation.rotateQuoteRequestFormToken",
  "POST /quote-requests": "Mutation.submitQuoteRequest",
  "POST /quotes/:id/accept": "Mutation.acceptQuote",
  "GET /quote-links/:token": "Query.quoteLink",
  "POST /quote-links/:token/view": "Mutation.viewQuoteLink",
  "POST /quote-links/:token/comments": "Mutation.addQuoteLinkComment",
  "POST /quote-links/:token/request-revision": "Mutation.requestQuoteLinkRevision",
  "POST /quote-links/:token/decline": "Mutation.declineQuoteLink",
  "POST /quote-links/:token/accept": "Mutation.acceptQuoteLink",
  "GET /quote-links/:token/pdf": "Query.quoteLinkPdfUrl",
  "GET /notifications": "Query.notifications",
  "POST /notifications/:id/read": "Mutation.markNotificationRead",
  "GET /emails": "Query.emails",
  "GET /email-templates": "Query.emailTemplates",
  "GET /email-templates/:name": "Query.emailTemplate",
  "PUT /email-templates/:name": "Mutation.updateEmailTemplate",
  "DELETE /email-templates/:name": "Mutation.resetEmailTemplate",
  "POST /email-templates/:name/preview": "Mutation.previewEmailTemplate",
  // wallet (merchant side)
  "POST /payment-methods/client-token": "Mutation.createPaymentMethodClientToken",
  "GET /customers/:id/payment-methods": "Query.customerPaymentMethods",
  "POST /customers/:id/payment-methods": "Mutation.attachCustomerPaymentMethod",
  "POST /customers/:customerId/payment-methods/:id/pause": "Mutation.pauseCustomerPaymentMethod",
  "POST /customers/:customerId/payment-methods/:id/resume": "Mutation.resumeCustomerPaymentMethod",
  // application scripts
  "POST /application-scripts": "Mutation.createApplicationScript",
  "GET /application-scripts": "Query.applicationScripts",
  "POST /application-scripts/kill-switch": "Mutation.setApplicationScriptKillSwitch",
  "GET /application-scripts/health": "Query.applicationScriptHealth",
  "GET /application-scripts/:id": "Query.applicationScript",
  "PATCH /application-scripts/:id": "Mutation.updateApplicationScript",
  "DELETE /application-scripts/:id": "Mutation.deleteApplicationScript",
  "GET /storefront/script-assets/:id/:sha256": "Query.applicationScriptAsset",
  "POST /checkout-sessions/:id/script-beacons": "Mutation.recordApplicationScriptBeacon",
  // extensions (publisher and merchant)
  "POST /extensions": "Mutation.createExtension",
  "GET /extensions": "Query.extensions",
  "POST /extensions/icon-upload": "Mutation.uploadExtensionIcon",
  "POST /extensions/screenshot-upload": "Mutation.uploadExtensionScreenshot",
  "GET /extensions/:id": "Query.extension",
  "PATCH /extensions/:id": "Mutation.updateExtension",
  "POST /extensions/:id/delist": "Mutation.delistExtension",
  "POST /extensions/:id/relist": "Mutation.relistExtension",
  "POST /extensions/:id/versions": "Mutation.createExtensionVersion",
  "GET /extensions/:id/versions": "Query.extensionVersions",
  "GET /extensions/:id/versions/:versionId": "Query.extensionVersion",
  "POST /extensions/:id/versions/:versionId/publish": "Mutation.publishExtensionVersion",
  "POST /extensions/:id/install": "Mutation.installExtension",
  "POST /extensions/:id/suspend": "Mutation.toggleExtensionSuspension",
  "POST /extensions/:id/client-credentials": "Mutation.createExtensionClientCredentials",
  "GET /extension-installations": "Query.extensionInstallations",
  "GET /installations/:id": "Query.extensionInstallation",
  "POST /installations/:id/uninstall": "Mutation.uninstallExtension",
  "GET /installations/:id/deliveries": "Query.extensionInstallationDeliveries",
  "POST /installations/:id/deliveries/:deliveryId/replay": "Mutation.replayInstallationDelivery",
  "POST /installations/:id/test": "Mutation.testInstallation",
  "GET /installations/:id/webhook-secret": "Query.installationWebhookSecret",
  "POST /installations/:id/rotate-webhook-secret": "Mutation.rotateInstallationWebhookSecret",
  // extension sessions (the iframe bridge)
  "POST /installations/:id/session": "Mutation.createExtensionSession",
};

/** Routes that have no GraphQL counterpart on purpose, each with the reason. */
const PM_TOKEN_ONLY = "buyer wallet route: its credential, X-Service-PM-Token, is accepted on /me/* REST routes only and refused (403) on GraphQL";
const EXTENSION_CLIENT_ONLY = "Basic extension client credentials only: that credential reaches four REST routes and is refused (403) on GraphQL";
const NO_GRAPHQL: Record<string, string> = {
  "GET /extensions/me/installations": EXTENSION_CLIENT_ONLY,
  "POST /installations/:id/api-key": EXTENSION_CLIENT_ONLY,
  "GET /me/payment-methods": PM_TOKEN_ONLY,
  "POST /me/payment-methods/embed-token": PM_TOKEN_ONLY,
  "POST /me/payment-methods/confirm": PM_TOKEN_ONLY,
  "PATCH /me/payment-methods/:id": PM_TOKEN_ONLY,
  "DELETE /me/payment-methods/:id": PM_TOKEN_ONLY,
  "GET /me/subscriptions/:id": PM_TOKEN_ONLY,
  "POST /me/subscriptions/:id/retry-charge": PM_TOKEN_ONLY,
};

const routeKey = (r: RouteInfo) => `${r.method.toUpperCase()} ${r.path}`;

/** Everything wrong with the table against the routes and the schema; empty when they agree. */
function parityProblems(routes: RouteInfo[], table: Record<string, string>, allowed: Record<string, string>, s: GraphQLSchema): string[] {
  const problems: string[] = [];
  const keys = routes.map(routeKey);
  const live = new Set(keys);
  for (const k of keys) {
    if (!(k in table) && !(k in allowed)) problems.push(`route without GraphQL: ${k}`);
  }
  for (const [k, field] of Object.entries(table)) {
    if (!live.has(k)) problems.push(`table names a route that does not exist: ${k}`);
    const [root, name] = field.split(".");
    const type = root === "Query" ? s.getQueryType() : root === "Mutation" ? s.getMutationType() : root === "Subscription" ? s.getSubscriptionType() : null;
    if (!type || !name || !(name in type.getFields())) problems.push(`field not in the schema: ${field} (for ${k})`);
  }
  for (const [k, why] of Object.entries(allowed)) {
    if (!live.has(k)) problems.push(`allow-list names a route that does not exist: ${k}`);
    if (k in table) problems.push(`route both mapped and allow-listed: ${k}`);
    if (!why.trim()) problems.push(`allow-list entry without a reason: ${k}`);
  }
  return problems;
}

const routes = restRoutes();

test("restRoutes() lists the routers' routes, each once", () => {
  expect(routes.length).toBeGreaterThanOrEqual(56);
  const keys = routes.map(routeKey);
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
});

test("every REST route has a GraphQL field, every named field exists, every named route exists", () => {
  expect(parityProblems(routes, GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual([]);
});

test("the live gate exempts a route exactly when it exempts the route's GraphQL field, and names each pair as this table does", () => {
  const disagree = Object.entries(GRAPHQL_FOR)
    .filter(([k, field]) => {
      const [method, path] = k.split(" ");
      return gateExemptRoute(method, path) !== GATE_EXEMPT_FIELDS.has(field.split(".")[1]);
    })
    .map(([k, field]) => `${k} / ${field}`);
  expect(disagree).toEqual([]);
  const misnamed = Object.entries(GATE_EXEMPT).filter(([k, field]) => GRAPHQL_FOR[k]?.split(".")[1] !== field);
  expect(misnamed).toEqual([]);
});

describe("each check can fail", () => {
  // Only the problems a doctored input adds, so a broken table fails the test above and not these as well.
  const baseline = parityProblems(routes, GRAPHQL_FOR, NO_GRAPHQL, schema);
  const problems = (...args: Parameters<typeof parityProblems>) => parityProblems(...args).filter((p) => !baseline.includes(p));
  const without = (k: string) => Object.fromEntries(Object.entries(GRAPHQL_FOR).filter(([key]) => key !== k));

  test("a new route missing from the table", () => {
    const extra: RouteInfo = { method: "post", path: "/carts/:id/merge" };
    expect(problems([...routes, extra], GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual(["route without GraphQL: POST /carts/:id/merge"]);
    expect(problems(routes, without("PATCH /carts/:id"), NO_GRAPHQL, schema)).toEqual(["route without GraphQL: PATCH /carts/:id"]);
  });

  test("a mapped field the schema does not have", () => {
    const table = { ...GRAPHQL_FOR, "PATCH /carts/:id": "Mutation.noSuchField", "GET /carts/:id": "Nope.cart" };
    expect(problems(routes, table, NO_GRAPHQL, schema)).toEqual([
      "field not in the schema: Nope.cart (for GET /carts/:id)",
      "field not in the schema: Mutation.noSuchField (for PATCH /carts/:id)",
    ]);
    // a Query field named as a Mutation is not the same field
    expect(problems(routes, { ...GRAPHQL_FOR, "GET /carts/:id": "Mutation.cart" }, NO_GRAPHQL, schema)).toEqual([
      "field not in the schema: Mutation.cart (for GET /carts/:id)",
    ]);
  });

  test("a table or allow-list entry for a route that is gone", () => {
    const gone = routes.filter((r) => routeKey(r) !== "GET /event-types");
    expect(problems(gone, GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual(["table names a route that does not exist: GET /event-types"]);
    expect(problems(routes, GRAPHQL_FOR, { ...NO_GRAPHQL, "GET /gone": "was browser-only" }, schema)).toEqual(["allow-list names a route that does not exist: GET /gone"]);
  });

  test("an allow-listed route needs a reason, and is not also mapped", () => {
    expect(problems(routes, without("GET /whoami"), { ...NO_GRAPHQL, "GET /whoami": " " }, schema)).toEqual(["allow-list entry without a reason: GET /whoami"]);
    expect(problems(routes, GRAPHQL_FOR, { ...NO_GRAPHQL, "GET /whoami": "because" }, schema)).toEqual(["route both mapped and allow-listed: GET /whoami"]);
  });
});
