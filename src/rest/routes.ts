// The /api/v1 routers in mount order, and the list of routes they register: the OpenAPI document and the
// REST/GraphQL parity test both read this list, so a new route cannot be left out of either silently.
import type { Router } from "express";
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
