// GraphQL for application settings: the same service as GET/PATCH /applications/{id}.
import { withClears } from "../graphql/args";
import { builder } from "../graphql/builder";
import { AddressInput, AddressRef, addressArg } from "../graphql/shared-types";
import type { SellerProfile } from "../documents/seller";
import { applicationView, getApplication, updateApplication } from "./applications.service";

type AppV = ReturnType<typeof applicationView>;

const SellerRef = builder.objectRef<SellerProfile>("Seller").implement({
  description: "The seller's legal details, shown as the seller block on quotes and invoices (an issued revision freezes them)",
  fields: (t) => ({
    legalName: t.exposeString("legalName", { nullable: true, description: "Registered name (the application's name when null)" }),
    address: t.field({ type: AddressRef, nullable: true, description: "Registered address", resolve: (s) => s.address }),
    taxId: t.exposeString("taxId", { nullable: true, description: "VAT, GST or EIN number" }),
    email: t.exposeString("email", { nullable: true, description: "Contact address; buyer emails reply to it" }),
    phone: t.exposeString("phone", { nullable: true, description: "Contact phone" }),
    paymentInstructions: t.exposeString("paymentInstructions", { nullable: true, description: "Remit-to / bank details printed on invoices" }),
    terms: t.exposeString("terms", { nullable: true, description: "Default terms a revision carries when the rep wrote none" }),
    notes: t.exposeString("notes", { nullable: true, description: "Default notes a revision carries when the rep wrote none" }),
  }),
});

const SellerInputRef = builder.inputType("SellerInput", {
  description: "The seller's legal details; each field sent is set, null removes it, fields not sent are kept",
  fields: (t) => ({
    legalName: t.string({ description: "Registered name" }),
    address: t.field({ type: AddressInput, description: "Registered address" }),
    taxId: t.string({ description: "VAT, GST or EIN number" }),
    email: t.string({ description: "Contact address; buyer emails reply to it" }),
    phone: t.string({ description: "Contact phone" }),
    paymentInstructions: t.string({ description: "Remit-to / bank details printed on invoices" }),
    terms: t.string({ description: "Default terms" }),
    notes: t.string({ description: "Default notes" }),
  }),
});

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
    seller: t.field({ type: SellerRef, description: "The seller's legal details (quote page, quote and invoice PDFs)", resolve: (a) => a.seller }),
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
      seller: t.arg({ type: SellerInputRef, description: "The seller's legal details; null removes them all" }),
    },
    resolve: (_r, { id, seller, ...a }, ctx) =>
      updateApplication(ctx, String(id), {
        ...withClears(a, ["storefrontBaseUrl", "allowedOrigins", "cartRecoveryUrlTemplate", "checkoutLinkBaseUrl", "logoUrl", "brandColor", "supportEmail"]),
        ...(seller === undefined ? {} : { seller: seller === null ? null : { ...seller, ...(seller.address ? { address: addressArg(seller.address) } : {}) } }),
      }),
  }),
}));
