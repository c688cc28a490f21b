// Subscription.customer and Customer.subscriptions (issue 37), declared here because subscriptions sit above
// customers: batched for a page of parents, nullable with their target's read scope.
import { CustomerRef, customerEdge } from "../customers/customers.schema";
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import { subscriptionsOfCustomers } from "./subscription-edges.service";
import { SubscriptionRef } from "./subscriptions.schema";

builder.objectFields(SubscriptionRef, (t) => ({
  customer: t.field({
    type: CustomerRef,
    nullable: true,
    description: "The customer who pays (needs customers:read; without it this field alone errors)",
    authScopes: { scope: "customers:read" },
    resolve: (s, _a, ctx) => customerEdge(ctx, s.customerId),
  }),
}));

builder.objectFields(CustomerRef, (t) => ({
  subscriptions: t.field({
    type: [SubscriptionRef],
    nullable: true,
    description: "The customer's subscriptions, newest first (needs subscriptions:read)",
    authScopes: { scope: "subscriptions:read" },
    resolve: async (c, _a, ctx) => (await loader(ctx, "subscriptionsByCustomer", (ids: string[]) => subscriptionsOfCustomers(ctx, ids)).load(c.id)) ?? [],
  }),
}));
