// GraphQL for discounts and the cart's promotion code: the same services and views as REST.
import { builder } from "../graphql/builder";
import { pageOf, pageArgs } from "../graphql/shared-types";
import { CartRef, DiscountTypeEnum } from "../carts/carts.schema";
import { compact, withClears } from "../graphql/args";
import { cartView } from "../carts/cart.view";
import { applyCartDiscount, createDiscount, discountView, getDiscount, listDiscounts, removeCartDiscount, updateDiscount } from "./discounts.service";

type DiscountV = ReturnType<typeof discountView>;

const DiscountRef = builder.objectRef<DiscountV>("Discount").implement({
  description: "A promotion code of the application and environment (codes are unique case-insensitively)",
  fields: (t) => ({
    id: t.exposeID("id"),
    code: t.exposeString("code", { description: "The code as created; buyers may type it in any case" }),
    type: t.field({ type: DiscountTypeEnum, description: "Percent or fixed amount", resolve: (d) => d.type }),
    value: t.exposeInt("value", { description: "Whole percent 1..100 (percent) or minor units of currency (fixed)" }),
    currency: t.exposeString("currency", { nullable: true, description: "The application's currency; required for fixed discounts" }),
    startsAt: t.field({ type: "DateTime", nullable: true, description: "Not valid before", resolve: (d) => d.startsAt }),
    endsAt: t.field({ type: "DateTime", nullable: true, description: "Not valid from this instant on", resolve: (d) => d.endsAt }),
    maxRedemptions: t.exposeInt("maxRedemptions", { nullable: true, description: "Orders that may use it; null: unlimited" }),
    redemptionCount: t.exposeInt("redemptionCount", { description: "Orders that used it so far" }),
    minSubtotal: t.exposeInt("minSubtotal", { nullable: true, description: "Smallest cart subtotal it applies to, minor units" }),
    active: t.exposeBoolean("active", { description: "Inactive codes are refused (discount_invalid, reason inactive)" }),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (d) => d.updatedAt }),
  }),
});

const DiscountPage = pageOf<DiscountV>("DiscountPage", DiscountRef, "discounts");

const discountArgs = (t: any, create: boolean) => ({
  code: t.arg.string({ required: create, description: "Letters, digits, - and _ (1 to 64); unique case-insensitively (409 discount_code_taken)" }),
  type: t.arg({ type: DiscountTypeEnum, required: create, description: "percent or fixed" }),
  value: t.arg.int({ required: create, description: "Whole percent 1..100, or minor units for fixed" }),
  currency: t.arg.string({ description: "ISO 4217; the application's; required for fixed" }),
  startsAt: t.arg.string({ description: "ISO 8601 instant it starts" }),
  endsAt: t.arg.string({ description: "ISO 8601 instant it ends" }),
  maxRedemptions: t.arg.int({ description: "Orders that may use it" }),
  minSubtotal: t.arg.int({ description: "Smallest cart subtotal, minor units" }),
  active: t.arg.boolean({ description: create ? "Default true" : "Turn the code on or off" }),
});

builder.queryFields((t) => ({
  discounts: t.field({
    type: DiscountPage,
    description: "Discounts, newest first",
    authScopes: { scope: "discounts:read" },
    args: {
      ...pageArgs(t),
      active: t.arg.boolean({ description: "Only active (true) or inactive (false) ones" }),
      code: t.arg.string({ description: "The discount with this code (any case)" }),
    },
    resolve: async (_r, a, ctx) => {
      const page = await listDiscounts(ctx, compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor), code: a.code, active: a.active === null || a.active === undefined ? null : String(a.active) }));
      return { items: page.items.map(discountView), pagination: page.pagination };
    },
  }),
  discount: t.field({
    type: DiscountRef,
    description: "One discount (404 not_found for another application's)",
    authScopes: { scope: "discounts:read" },
    args: { id: t.arg.id({ required: true, description: "The discount's id" }) },
    resolve: async (_r, a, ctx) => discountView(await getDiscount(ctx, String(a.id))),
  }),
}));

builder.mutationFields((t) => ({
  createDiscount: t.field({
    type: DiscountRef,
    description: "Creates a promotion code",
    authScopes: { scope: "discounts:write" },
    args: discountArgs(t, true),
    resolve: async (_r, a, ctx) => discountView(await createDiscount(ctx, compact(a))),
  }),
  updateDiscount: t.field({
    type: DiscountRef,
    description: "Changes a discount; absent arguments are unchanged, null clears currency, dates, maxRedemptions or minSubtotal",
    authScopes: { scope: "discounts:write" },
    args: { id: t.arg.id({ required: true, description: "The discount's id" }), ...discountArgs(t, false) },
    resolve: async (_r, { id, ...a }, ctx) =>
      discountView(await updateDiscount(ctx, String(id), withClears(a as Record<string, unknown>, ["currency", "startsAt", "endsAt", "maxRedemptions", "minSubtotal"]))),
  }),
  applyCartDiscount: t.field({
    type: CartRef,
    description: "Applies a promotion code to an open cart (422 discount_invalid with details.reason)",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: "The cart's id" }), code: t.arg.string({ required: true, description: "The code, any case" }) },
    resolve: async (_r, a, ctx) => cartView(await applyCartDiscount(ctx, String(a.cartId), { code: a.code })),
  }),
  removeCartDiscount: t.field({
    type: CartRef,
    description: "Takes the promotion code off an open cart",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: "The cart's id" }) },
    resolve: async (_r, a, ctx) => cartView(await removeCartDiscount(ctx, String(a.cartId))),
  }),
}));
