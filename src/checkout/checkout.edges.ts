// The graph's checkout edges (issue 37): Cart.checkoutSessions, declared here (checkout is above carts). Nullable,
// with the scope merchant session reads take (checkout:write), batched per request: one statement per page of carts.
import { builder } from "../graphql/builder";
import { pagedLoad } from "../graphql/loaders";
import { pageArgs, pageInput, pageOf } from "../graphql/shared-types";
import { CartRef } from "../carts/carts.schema";
import { sessionView } from "./checkout.service";
import { SessionRef } from "./checkout.schema";
import { sessionPagesByCart } from "./session-pages.service";

type SessionV = ReturnType<typeof sessionView>;
export const CheckoutSessionPage = pageOf<SessionV>("CheckoutSessionPage", SessionRef, "checkout sessions");

builder.objectFields(CartRef, (t) => ({
  checkoutSessions: t.field({
    type: CheckoutSessionPage,
    nullable: true,
    description: "The cart's checkout sessions, newest first (needs checkout:write, the scope of session reads; without it this field alone errors)",
    authScopes: { scope: "checkout:write" },
    args: { ...pageArgs(t) },
    resolve: async (c, a, ctx) => {
      const page = await pagedLoad(ctx, "checkoutSessionsByCart", (ids, q) => sessionPagesByCart(ctx, ids, q), c.id, pageInput(a));
      return { items: page.items.map((s) => sessionView(s, ctx.deps.config.CHECKOUT_URL)), pagination: page.pagination };
    },
  }),
}));
