// GraphQL for customers: create, read by id or by the merchant's external id. Same services and view as REST.
import { compact } from "../carts/carts.schema";
import { builder } from "../graphql/builder";
import { createCustomer, customerView, getCustomer, getCustomerByExternalId } from "./customers.service";

export const CustomerRef = builder.objectRef<ReturnType<typeof customerView>>("Customer").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    externalId: t.exposeString("externalId", { nullable: true }),
    email: t.exposeString("email", { nullable: true }),
    company: t.exposeString("company", { nullable: true }),
    name: t.exposeString("name", { nullable: true }),
    phone: t.exposeString("phone", { nullable: true }),
    metadata: t.field({ type: "JSON", resolve: (c) => c.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

builder.queryFields((t) => ({
  customer: t.field({
    type: CustomerRef,
    description: "By id (`cus_` prefix optional)",
    authScopes: { scope: "customers:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => customerView(await getCustomer(ctx, String(a.id))),
  }),
  customerByExternalId: t.field({
    type: CustomerRef,
    authScopes: { scope: "customers:read" },
    args: { externalId: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => customerView(await getCustomerByExternalId(ctx, a.externalId)),
  }),
}));

builder.mutationFields((t) => ({
  createCustomer: t.field({
    type: CustomerRef,
    authScopes: { scope: "customers:write" },
    args: {
      email: t.arg.string(),
      externalId: t.arg.string(),
      company: t.arg.string(),
      name: t.arg.string(),
      phone: t.arg.string(),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, a, ctx) => customerView(await createCustomer(ctx, compact(a))),
  }),
}));
