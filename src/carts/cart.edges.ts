// The graph's cart edges (issue 37): Customer.carts (declared here, carts being above customers) and Cart.customer.
// Each is nullable with the target's read scope, so a key without it loses that field alone; each resolver asks a
// per-request loader, so a page of parents costs one statement per edge.
import { builder } from "../graphql/builder";
import { pagedLoad } from "../graphql/loaders";
import { pageArgs, pageInput, pageOf } from "../graphql/shared-types";
import { CustomerRef, customerEdge } from "../customers/customers.schema";
import type { Page } from "../shared/pagination";
import { cartView } from "./cart.view";
import { CartRef } from "./carts.schema";
import { cartPagesByCustomer } from "./cart-pages.service";

type CartV = ReturnType<typeof cartView>;
export const CartPage = pageOf<CartV>("CartPage", CartRef, "carts");

builder.objectFields(CustomerRef, (t) => ({
  carts: t.field({
    type: CartPage,
    nullable: true,
    description: "The customer's carts, newest first (needs carts:read; without it this field alone errors)",
    authScopes: { scope: "carts:read" },
    args: { ...pageArgs(t) },
    resolve: async (c, a, ctx): Promise<Page<CartV> | null> => {
      const page = await pagedLoad(ctx, "cartsByCustomer", (ids, q) => cartPagesByCustomer(ctx, ids, q), c.id, pageInput(a));
      return { items: page.items.map(cartView), pagination: page.pagination };
    },
  }),
}));

builder.objectFields(CartRef, (t) => ({
  customer: t.field({
    type: CustomerRef,
    nullable: true,
    description: "The linked customer (needs customers:read; without it this field alone errors)",
    authScopes: { scope: "customers:read" },
    resolve: (c, _a, ctx) => customerEdge(ctx, c.customerId),
  }),
}));
