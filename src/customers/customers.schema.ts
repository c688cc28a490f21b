// GraphQL for customers: create, read by id or by the merchant's external id. Same services and view as REST.
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { AddressInput, AddressRef, addressArg } from "../graphql/shared-types";
import { loader } from "../graphql/loaders";
import type { Ctx } from "../shared/context";
import { createCustomer, customersByIds, customerView, getCustomer, getCustomerByExternalId } from "./customers.service";

/** The edge to a customer from any parent holding its id (Quote.customer, Order.customer, ...): batched per request. */
export function customerEdge(ctx: Ctx, id: string | null | undefined) {
  return id ? loader(ctx, "customerById", (ids: string[]) => customersByIds(ctx, ids)).load(id) : null;
}

export const CustomerRef = builder.objectRef<ReturnType<typeof customerView>>("Customer").implement({
  description: "A buyer you know: linked to carts and orders, with their own payment terms",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Unique identifier (a UUID; inputs also take it with a `cus_` prefix)" }),
    externalId: t.exposeString("externalId", { nullable: true, description: "Your id for the customer, unique in the environment" }),
    email: t.exposeString("email", { nullable: true, description: "Email address" }),
    company: t.exposeString("company", { nullable: true, description: "Company name" }),
    name: t.exposeString("name", { nullable: true, description: "Full name" }),
    phone: t.exposeString("phone", { nullable: true, description: "Phone number" }),
    shippingAddress: t.field({ type: AddressRef, nullable: true, description: "Where the customer ships (set at creation or by a checkout session's customer object)", resolve: (c) => c.shippingAddress }),
    billingAddress: t.field({ type: AddressRef, nullable: true, description: "The customer's billing address (set at creation or by a checkout session's customer object)", resolve: (c) => c.billingAddress }),
    metadata: t.field({ type: "JSON", resolve: (c) => c.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

builder.queryFields((t) => ({
  customer: t.field({
    type: CustomerRef,
    description: "By id (`cus_` prefix optional)",
    authScopes: { scope: "customers:read" },
    args: { id: t.arg.id({ required: true, description: "The customer's id" }) },
    resolve: async (_r, a, ctx) => customerView(await getCustomer(ctx, String(a.id))),
  }),
  customerByExternalId: t.field({
    type: CustomerRef,
    description: "By your own id for the customer",
    authScopes: { scope: "customers:read" },
    args: { externalId: t.arg.string({ required: true, description: "Your id for the customer" }) },
    resolve: async (_r, a, ctx) => customerView(await getCustomerByExternalId(ctx, a.externalId)),
  }),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    type: CustomerRef,
    description: "Creates a customer (409 customer_already_exists when the email or externalId is taken)",
    authScopes: { scope: "customers:write" },
    args: {
      email: t.arg.string({ description: "Email address" }),
      externalId: t.arg.string({ description: "Your id for the customer, unique in the environment" }),
      company: t.arg.string({ description: "Company name" }),
      name: t.arg.string({ description: "Full name" }),
      phone: t.arg.string({ description: "Phone number" }),
      shippingAddress: t.arg({ type: AddressInput, description: "Where the customer ships" }),
      billingAddress: t.arg({ type: AddressInput, description: "The customer's billing address" }),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, a, ctx) =>
      customerView(await createCustomer(ctx, compact({ ...a, shippingAddress: addressArg(a.shippingAddress), billingAddress: addressArg(a.billingAddress) }))),
  }),
}));
