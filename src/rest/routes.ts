// The /api/v1 routers in mount order, and the list of routes they register: the OpenAPI document and the
// REST/GraphQL parity test both read this list, so a new route cannot be left out of either silently.
import express, { type Router } from "express";
import { type RouteInfo, routeTable } from "./api-router";
import { cartsRouter } from "../carts/carts.rest";
import { checkoutRouter } from "../checkout/checkout.rest";
import { discountsRouter } from "../discounts/discounts.rest";
import { customersRouter } from "../customers/customers.rest";
import { eventsRouter } from "../events/events.rest";
import { mailRouter } from "../mail/mail.rest";
import { importsRouter } from "../imports/imports.rest";
import { fulfillmentsRouter } from "../fulfillments/fulfillments.rest";
import { orderReportsRouter } from "../orders/order-reports.rest";
import { ordersRouter } from "../orders/orders.rest";
import { orderOpsRouter } from "../orders/order-ops.rest";
import { paymentsRouter } from "../payments/payments.rest";
import { processorProxyRouter } from "../payments/processor-proxy.rest";
import { platformRouter } from "../platform/platform.rest";
import { membersRouter } from "../platform/members.rest";
import { quotesRouter } from "../quotes/quotes.rest";
import { shippingTaxRouter } from "../shipping-tax/shipping-tax.rest";
import { subscriptionsRouter } from "../subscriptions/subscriptions.rest";
import { webhooksRouter } from "../webhooks/webhooks.rest";
import { walletRouter } from "../wallet/wallet.rest";
import { applicationScriptsRouter } from "../application-scripts/scripts.rest";
import { billingRouter } from "../billing/billing.rest";
import { partnersRouter } from "../partners/partners.rest";
import { extensionsRouter } from "../extensions/extensions.rest";
import { extensionSessionsRouter } from "../extensions/sessions.rest";
import { oauthRouter } from "../oauth/oauth.rest";

export type { RouteInfo };
export const API_PREFIX = "/api/v1";

export function apiRouters(): Router[] {
  return [platformRouter(), membersRouter(), eventsRouter(), webhooksRouter(), customersRouter(), cartsRouter(), discountsRouter(), shippingTaxRouter(), checkoutRouter(), orderReportsRouter(), fulfillmentsRouter(), ordersRouter(), orderOpsRouter(), paymentsRouter(), subscriptionsRouter(), processorProxyRouter(), quotesRouter(), mailRouter(), walletRouter(), importsRouter(), applicationScriptsRouter(), billingRouter(), partnersRouter(), extensionsRouter(), extensionSessionsRouter(), oauthRouter()];
}

/** Every route the routers register, in registration order (from the tables apiRouter() keeps). */
export function restRoutes(routers: Router[] = apiRouters()): RouteInfo[] {
  return routers.flatMap((router) => routeTable(router).routes);
}

/**
 * Mounts the /api/v1 routers on `api` so that a request is matched only against the routers that have a route under
 * its first path segment: every route starts with a literal segment (`carts`, `checkout-sessions`, ...), and each
 * segment gets one route, `/{segment}` and everything under it, whose handler is a router holding the routers with a
 * route (or path-scoped middleware) under that segment, in mount order. Express then tests about 40 segment patterns
 * instead of about 220 routes before reaching a late router (bench/rest-routing.ts). A route handler, unlike `use`,
 * leaves `req.url` whole, so the routers keep their full paths. Which route answers a request is the same as with the
 * routers mounted one after another; a request under no segment falls through to what follows (the 404).
 */
export function mountApiRouters(api: Router, routers: Router[] = apiRouters()) {
  const segmentsOf = routers.map((router) => {
    const table = routeTable(router);
    if (table.middleware.includes(null)) throw new Error("an /api/v1 router's middleware needs a path (r.use(\"/me\", ...)): app.ts holds what every request passes");
    const segments = new Set([...table.routes.map((r) => r.path.split("/")[1]), ...(table.middleware as string[])]);
    for (const s of segments) if (!/^[a-z0-9._-]+$/.test(s)) throw new Error(`an /api/v1 route starts with "${s}": the first path segment must be literal`);
    return segments;
  });
  for (const segment of new Set(segmentsOf.flatMap((s) => [...s]))) {
    const group = express.Router();
    routers.forEach((router, i) => segmentsOf[i].has(segment) && group.use(router));
    api.all(`/${segment}{/*rest}`, group);
  }
}
