// Order.fulfillments and Order.returns (issue 37), declared here because fulfillments sit above orders: batched for
// a page of orders (one statement each), nullable with their own read scopes.
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import { OrderRef } from "../orders/orders.schema";
import { fulfillmentsOfOrders, returnsOfOrders } from "./fulfillment-edges.service";
import { FulfillmentRef, OrderReturnRef } from "./fulfillments.schema";
import { fulfillmentView } from "./fulfillments.service";
import { returnView } from "./returns.service";

builder.objectFields(OrderRef, (t) => ({
  fulfillments: t.field({
    type: [FulfillmentRef],
    nullable: true,
    description: "Its fulfillments, oldest first (needs fulfillments:read; without it this field alone errors)",
    authScopes: { scope: "fulfillments:read" },
    resolve: async (o, _a, ctx) => ((await loader(ctx, "fulfillmentsByOrder", (ids: string[]) => fulfillmentsOfOrders(ctx, ids)).load(o.id)) ?? []).map(fulfillmentView),
  }),
  returns: t.field({
    type: [OrderReturnRef],
    nullable: true,
    description: "Its returns, oldest first (needs order_returns:read; without it this field alone errors)",
    authScopes: { scope: "order_returns:read" },
    resolve: async (o, _a, ctx) => ((await loader(ctx, "returnsByOrder", (ids: string[]) => returnsOfOrders(ctx, ids)).load(o.id)) ?? []).map(returnView),
  }),
}));
