// The /api/v1 routers in mount order, and the list of routes they register: the OpenAPI document and the
// REST/GraphQL parity test both read this list, so a new route cannot be left out of either silently.
import express, { type RequestHandler, type Router } from "express";
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

export const API_PREFIX = "/api/v1";

export function apiRouters(): Router[] {
  return [platformRouter(), membersRouter(), eventsRouter(), webhooksRouter(), customersRouter(), cartsRouter(), discountsRouter(), shippingTaxRouter(), checkoutRouter(), orderReportsRouter(), fulfillmentsRouter(), ordersRouter(), orderOpsRouter(), paymentsRouter(), subscriptionsRouter(), processorProxyRouter(), quotesRouter(), mailRouter(), walletRouter(), importsRouter(), applicationScriptsRouter(), billingRouter(), partnersRouter(), extensionsRouter(), extensionSessionsRouter(), oauthRouter()];
}

export interface RouteInfo {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** Express form, relative to /api/v1: `/carts/:id` */
  path: string;
}

/** Every route the routers register, in registration order. */
export function restRoutes(routers: Router[] = apiRouters()): RouteInfo[] {
  const out: RouteInfo[] = [];
  for (const router of routers) {
    for (const layer of (router as any).stack as any[]) {
      if (!layer.route) continue;
      for (const m of Object.keys(layer.route.methods)) {
        if (m === "_all") continue;
        out.push({ method: m as RouteInfo["method"], path: String(layer.route.path) });
      }
    }
  }
  return out;
}

/**
 * The /api/v1 routers behind one dispatch on the path's first segment. Express walks a router's layers in order,
 * matching each route's pattern, and `api.use(router)` for every router would walk about 220 routes of 26 routers
 * before reaching a late one (complete's was the 57th), and Express yields with setImmediate after 100 layers in a
 * row: 10-50 µs of routing per request, against 2-10 µs here (bench/rest-routing.ts, bench/RESULTS.md ninth step).
 * Here each first segment (`carts`, `checkout-sessions`, ...) gets a router holding only the routers that have a
 * route starting with it, in mount order, so a request walks only those. A router whose route starts with a
 * parameter or a pattern, or that has router-level middleware, is in every group, at its place in the order; a
 * segment no route starts with gets only those. Express matches paths case-insensitively by default, so the lookup
 * lower-cases the segment. Which route answers a request is unchanged: the same routers, in the same relative order.
 */
export function firstSegmentDispatch(routers: Router[]): RequestHandler {
  const everywhere = new Set<Router>();
  const segmentsOf = new Map<Router, Set<string>>();
  for (const router of routers) {
    const segments = new Set<string>();
    for (const layer of (router as any).stack as any[]) {
      const path = layer.route ? layer.route.path : null;
      const first = typeof path === "string" ? path.split("/")[1] : null;
      if (first === null || first === undefined || first === "" || !/^[a-z0-9._-]+$/.test(first)) everywhere.add(router);
      else segments.add(first);
    }
    segmentsOf.set(router, segments);
  }
  const group = (rs: Router[]) => {
    const g = express.Router();
    for (const r of rs) g.use(r);
    return g;
  };
  const bySegment = new Map<string, Router>();
  for (const segment of new Set([...segmentsOf.values()].flatMap((s) => [...s]))) {
    bySegment.set(segment, group(routers.filter((r) => everywhere.has(r) || segmentsOf.get(r)!.has(segment))));
  }
  const rest = group(routers.filter((r) => everywhere.has(r)));
  return (req, res, next) => {
    // req.url is relative to the mount point (/api/v1) here; the segment ends at the next "/", "?" or "#"
    const url = req.url;
    let end = 1;
    while (end < url.length && url[end] !== "/" && url[end] !== "?" && url[end] !== "#") end++;
    const segment = url.slice(1, end).toLowerCase();
    (bySegment.get(segment) ?? rest)(req, res, next);
  };
}
