// GraphQL for application settings: the same service as GET/PATCH /applications/{id}.
import { withClears } from "../carts/carts.schema";
import { builder } from "../graphql/builder";
import { applicationView, getApplication, updateApplication } from "./applications.service";

type AppV = ReturnType<typeof applicationView>;

const ApplicationRef = builder.objectRef<AppV>("Application").implement({
  description: "An application and the settings carts, checkout and quotes read",
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspaceId"),
    name: t.exposeString("name", { description: "Display name (buyer pages and emails)" }),
    slug: t.exposeString("slug", { description: "Stable identifier within the workspace" }),
    currency: t.exposeString("currency"),
    storefrontBaseUrl: t.exposeString("storefrontBaseUrl", { nullable: true, description: "Your storefront; relative image URLs resolve against it" }),
    allowedOrigins: t.exposeStringList("allowedOrigins", { description: "Origins allowed to embed checkout" }),
    cartRecoveryUrlTemplate: t.exposeString("cartRecoveryUrlTemplate", { nullable: true, description: "Where an abandoned cart's buyer goes back to; contains {cartId}" }),
    checkoutLinkBaseUrl: t.exposeString("checkoutLinkBaseUrl", { nullable: true, description: "Host of buyer links (quotes, request forms) instead of the service's own" }),
    logoUrl: t.exposeString("logoUrl", { nullable: true, description: "Logo on buyer pages and emails" }),
    brandColor: t.exposeString("brandColor", { nullable: true, description: "Brand colour, #rrggbb" }),
    supportEmail: t.exposeString("supportEmail", { nullable: true, description: "Where buyers write for help" }),
    createdAt: t.field({ type: "DateTime", resolve: (a) => a.createdAt }),
  }),
});

const appId = "The application's id";

builder.queryFields((t) => ({
  application: t.field({
    type: ApplicationRef,
    description: "An application you can reach (a key: its own, with applications:read; a member: one their roles cover)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: appId }) },
    resolve: (_r, a, ctx) => getApplication(ctx, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  updateApplication: t.field({
    type: ApplicationRef,
    description: "Sets the given settings; null removes one (key: applications:write; member: application:settings:write)",
    authScopes: { authenticated: true },
    args: {
      id: t.arg.id({ required: true, description: appId }),
      name: t.arg.string({ description: "Display name" }),
      storefrontBaseUrl: t.arg.string({ description: "Absolute http(s) URL; null removes it" }),
      allowedOrigins: t.arg.stringList({ description: "Origins like https://shop.example.com; null or [] removes them" }),
      cartRecoveryUrlTemplate: t.arg.string({ description: "Absolute URL containing {cartId}; null removes it" }),
      checkoutLinkBaseUrl: t.arg.string({ description: "Absolute URL of the buyer-link host; null removes it" }),
      logoUrl: t.arg.string({ description: "Absolute URL; null removes it" }),
      brandColor: t.arg.string({ description: "#rrggbb; null removes it" }),
      supportEmail: t.arg.string({ description: "An email address; null removes it" }),
    },
    resolve: (_r, { id, ...a }, ctx) =>
      updateApplication(ctx, String(id), withClears(a, ["storefrontBaseUrl", "allowedOrigins", "cartRecoveryUrlTemplate", "checkoutLinkBaseUrl", "logoUrl", "brandColor", "supportEmail"])),
  }),
}));
