// GraphQL for carts: the same services and views as REST.
import { builder } from "../graphql/builder";
import { compact, withClears } from "../graphql/args";
import { AddressInput, AddressRef, addressArg, describedEnum } from "../graphql/shared-types";
import type { Address } from "../shared/address";
import { addLineItem, LINE_ITEM_TYPES, removeLineItem, updateLineItem } from "./cart-items.service";
import type { CART_STATUSES } from "./carts.machine";
import { cartView } from "./cart.view";
import { clearShipping, createCart, getCart, replaceTaxLines, type SelectedShipping, selectShipping, updateCart } from "./carts.service";
import type { TaxLine } from "../documents/tax-lines";

export const ShippingRateRef = builder.objectRef<SelectedShipping>("ShippingRate").implement({
  description: "A shipping method with its price, as offered by a calculation or selected on a cart",
  fields: (t) => ({
    methodId: t.exposeString("methodId", { description: "Your identifier of the method; send it back to select it" }),
    displayName: t.exposeString("displayName", { description: "What the buyer sees, e.g. Standard (3-5 days)" }),
    rateAmount: t.exposeInt("rateAmount", { description: "Price in minor units of currency (1999 = 19.99)" }),
    currency: t.string({ description: "ISO 4217 currency of rateAmount", resolve: (r) => r.currency }),
    carrier: t.string({ nullable: true, description: "Carrier name, e.g. UPS", resolve: (r) => r.carrier ?? null }),
    serviceCode: t.string({ nullable: true, description: "The carrier's service code", resolve: (r) => r.serviceCode ?? null }),
    estimatedDeliveryDays: t.int({ nullable: true, description: "Business days to delivery, when known", resolve: (r) => r.estimatedDeliveryDays ?? null }),
  }),
});

export const TaxLineRef = builder.objectRef<TaxLine>("TaxLine").implement({
  description: "A tax charged on the whole cart or order (in addition to each line's own taxAmount)",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Label shown to the buyer, e.g. VAT" }),
    amount: t.exposeInt("amount", { description: "Tax in minor units of the currency" }),
    rateBps: t.int({ nullable: true, description: "Rate in basis points (2000 = 20%), when it came from a rate", resolve: (l) => l.rateBps ?? null }),
    jurisdiction: t.string({ nullable: true, description: "Where the tax is owed, e.g. a country or state code", resolve: (l) => l.jurisdiction ?? null }),
  }),
});

type CartV = ReturnType<typeof cartView>;
type LineV = CartV["lineItems"][number];

const CartStatusEnum = describedEnum<(typeof CART_STATUSES)[number]>("CartStatus", "Where a cart is in its life", {
  open: "Taking changes",
  checkout: "A checkout session is being completed; changes wait",
  converted: "Became an order",
  abandoned: "Its checkout sessions expired unpaid; a new session reopens it",
});

export const LineItemTypeEnum = describedEnum<(typeof LINE_ITEM_TYPES)[number]>("LineItemType", "What a line sells", {
  product: "A physical or digital good (the default)",
  subscription: "A recurring plan",
  service: "Work or a service",
  ticket: "Admission to an event",
  donation: "A donation",
  custom: "Anything else, e.g. a one-off amount",
});

export const DiscountTypeEnum = describedEnum<"percent" | "fixed">("DiscountType", "How a promotion code's value applies", {
  percent: "value is a percentage in whole percent",
  fixed: "value is an amount in minor units",
});

type DiscountV = { code: string; type: "percent" | "fixed"; value: number; amount: number };
const AppliedDiscountRef = builder.objectRef<DiscountV>("AppliedDiscount").implement({
  description: "The promotion code applied to the cart, as it was when applied",
  fields: (t) => ({
    code: t.exposeString("code", { description: "The code the buyer entered" }),
    type: t.field({ type: DiscountTypeEnum, description: "Percent or fixed amount", resolve: (d) => d.type }),
    value: t.exposeInt("value", { description: "Percent (type percent) or minor units (type fixed)" }),
    amount: t.exposeInt("amount", { description: "What it takes off this cart, in minor units" }),
  }),
});

const CartLineItem = builder.objectRef<LineV>("CartLineItem").implement({
  description: "One line of a cart",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.field({ type: LineItemTypeEnum, description: "What the line sells", resolve: (l) => l.type as (typeof LINE_ITEM_TYPES)[number] }),
    name: t.exposeString("name", { description: "What the buyer sees" }),
    description: t.exposeString("description", { nullable: true, description: "Longer text under the name" }),
    referenceId: t.exposeString("referenceId", { nullable: true, description: "Your product or SKU id" }),
    unitPrice: t.exposeInt("unitPrice", { description: "Price of one unit in minor units (1999 = 19.99)" }),
    quantity: t.exposeInt("quantity", { description: "Units, at least 1" }),
    taxAmount: t.exposeInt("taxAmount", { description: "Tax on this line in minor units" }),
    discountAmount: t.exposeInt("discountAmount", { description: "Discount on this line in minor units" }),
    requiresShipping: t.exposeBoolean("requiresShipping", { description: "Whether the line needs a shipping address and rate" }),
    imageUrl: t.exposeString("imageUrl", { nullable: true, description: "Absolute image URL (relative ones are resolved against the storefront URL)" }),
    total: t.exposeInt("total", { description: "unitPrice × quantity, in minor units" }),
    metadata: t.field({ type: "JSON", resolve: (l) => l.metadata }),
  }),
});

export const CartRef = builder.objectRef<CartV>("Cart").implement({
  description: "A buyer's cart: lines, shipping, tax and derived totals (never stored, so they cannot drift)",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: CartStatusEnum, description: "Only open carts take changes", resolve: (c) => c.status as (typeof CART_STATUSES)[number] }),
    currency: t.exposeString("currency"),
    applicationId: t.exposeID("applicationId"),
    customerId: t.exposeID("customerId", { nullable: true, description: "The linked customer, if any" }),
    customerEmail: t.exposeString("customerEmail", { nullable: true, description: "The buyer's email; the linked customer's email wins when it has one" }),
    externalCartId: t.exposeString("externalCartId", { nullable: true, description: "Your own cart id, for carts created by an embed session" }),
    lineItems: t.field({ type: [CartLineItem], description: "Lines, oldest first", resolve: (c) => c.lineItems }),
    subtotal: t.exposeInt("subtotal", { description: "Sum of unitPrice × quantity, minor units" }),
    discountTotal: t.exposeInt("discountTotal", { description: "The lines' discounts plus the applied promotion code's amount, minor units" }),
    shippingTotal: t.exposeInt("shippingTotal", { description: "The selected shipping rate, 0 when none" }),
    taxTotal: t.exposeInt("taxTotal", { description: "The lines' own tax plus the cart's tax lines" }),
    total: t.exposeInt("total", { description: "subtotal - discountTotal + shippingTotal + taxTotal" }),
    appliedDiscount: t.field({ type: AppliedDiscountRef, nullable: true, description: "The promotion code applied, if any", resolve: (c) => c.appliedDiscount as DiscountV | null }),
    selectedShipping: t.field({ type: ShippingRateRef, nullable: true, description: "The chosen shipping rate, null until one is selected", resolve: (c) => c.selectedShipping }),
    taxLines: t.field({ type: [TaxLineRef], description: "Cart-level taxes (replaceCartTaxLines or a persisted calculation)", resolve: (c) => c.taxLines }),
    shippingAddress: t.field({ type: AddressRef, nullable: true, description: "Where to ship", resolve: (c) => c.shippingAddress as Address | null }),
    billingAddress: t.field({ type: AddressRef, nullable: true, description: "Who pays, for invoices and tax", resolve: (c) => c.billingAddress as Address | null }),
    notes: t.exposeString("notes", { nullable: true, description: "Free text from the buyer or you" }),
    metadata: t.field({ type: "JSON", resolve: (c) => c.metadata }),
    expiresAt: t.field({ type: "DateTime", nullable: true, description: "When an unconverted cart stops being kept, if it expires", resolve: (c) => c.expiresAt }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (c) => c.updatedAt }),
  }),
});

const LineItemInput = builder.inputType("CartLineItemInput", {
  description: "A line to add; amounts are integer minor units (1999 = 19.99)",
  fields: (t) => ({
    name: t.string({ required: true, description: "What the buyer sees" }),
    unitPrice: t.int({ required: true, description: "Price of one unit in minor units" }),
    quantity: t.int({ description: "Units, default 1" }),
    type: t.field({ type: LineItemTypeEnum, description: "Default product" }),
    referenceId: t.string({ description: "Your product or SKU id" }),
    description: t.string({ description: "Longer text under the name" }),
    imageUrl: t.string({ description: "Absolute URL or a path under the storefront URL" }),
    requiresShipping: t.boolean({ description: "Default true for products, false otherwise" }),
    taxAmount: t.int({ description: "Tax on this line in minor units, default 0" }),
    discountAmount: t.int({ description: "Discount on this line in minor units, default 0" }),
    metadata: t.field({ type: "JSON" }),
  }),
});

const ShippingInput = builder.inputType("CartShippingInput", {
  description: "The shipping rate to put on the cart, usually one of a calculation's methods",
  fields: (t) => ({
    methodId: t.string({ required: true, description: "Your identifier of the method" }),
    displayName: t.string({ required: true, description: "What the buyer sees" }),
    rateAmount: t.int({ required: true, description: "Price in minor units of the cart's currency" }),
    carrier: t.string({ description: "Carrier name" }),
    serviceCode: t.string({ description: "The carrier's service code" }),
    estimatedDeliveryDays: t.int({ description: "Business days to delivery" }),
    currency: t.string({ description: "Currency of rateAmount; must be the cart's (422 currency_mismatch otherwise)" }),
  }),
});

const TaxLineInput = builder.inputType("CartTaxLineInput", {
  description: "A cart-level tax line",
  fields: (t) => ({
    name: t.string({ required: true, description: "Label, e.g. VAT" }),
    amount: t.int({ required: true, description: "Tax in minor units" }),
    rateBps: t.int({ description: "Rate in basis points (2000 = 20%)" }),
    jurisdiction: t.string({ description: "Where the tax is owed" }),
  }),
});

const idOrNull = (v: string | number | null | undefined) => (v === null || v === undefined ? v : String(v));

const cartId = "The cart's id";

builder.queryFields((t) => ({
  cart: t.field({
    type: CartRef,
    description: "A cart of the credential's application and environment (404 cart_not_found otherwise)",
    authScopes: { scope: "carts:read" },
    args: { id: t.arg.id({ required: true, description: cartId }) },
    resolve: async (_r, a, ctx) => cartView(await getCart(ctx, String(a.id))),
  }),
}));

builder.mutationFields((t) => ({
  createCart: t.field({
    type: CartRef,
    description: "Opens a cart in the application's currency",
    authScopes: { scope: "carts:write" },
    args: {
      applicationId: t.arg.id({ description: "Optional: the credential's application; when sent it must be that one (404 otherwise)" }),
      customerId: t.arg.id({ description: "Link a customer (`cus_` prefix optional)" }),
      customerEmail: t.arg.string({ description: "The buyer's email" }),
      currency: t.arg.string({ description: "Must equal the application's currency when sent (422 currency_mismatch)" }),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, a, ctx) =>
      cartView(await createCart(ctx, compact({ ...a, applicationId: idOrNull(a.applicationId), customerId: idOrNull(a.customerId) }))),
  }),
  updateCart: t.field({
    type: CartRef,
    description: "Absent arguments are unchanged; null clears customerId, customerEmail, the addresses or notes",
    authScopes: { scope: "carts:write" },
    args: {
      id: t.arg.id({ required: true, description: cartId }),
      customerId: t.arg.id({ description: "Link a customer; null unlinks" }),
      customerEmail: t.arg.string({ description: "The buyer's email; null clears it" }),
      shippingAddress: t.arg({ type: AddressInput, description: "Where to ship; null clears it" }),
      billingAddress: t.arg({ type: AddressInput, description: "Billing address; null clears it" }),
      notes: t.arg.string({ description: "Free text; null clears it" }),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, { id, ...body }, ctx) =>
      cartView(
        await updateCart(
          ctx,
          String(id),
          withClears(
            { ...body, customerId: idOrNull(body.customerId), shippingAddress: addressArg(body.shippingAddress), billingAddress: addressArg(body.billingAddress) },
            ["customerId", "customerEmail", "shippingAddress", "billingAddress", "notes"],
          ),
        ),
      ),
  }),
  addCartItem: t.field({
    type: CartRef,
    description: "Adds a line (at most 250 per cart); answers the whole cart",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: cartId }), item: t.arg({ type: LineItemInput, required: true, description: "The line" }) },
    resolve: async (_r, a, ctx) => {
      await addLineItem(ctx, String(a.cartId), compact(a.item as Record<string, unknown>));
      return cartView(await getCart(ctx, String(a.cartId)));
    },
  }),
  updateCartItem: t.field({
    type: CartRef,
    description: "Changes a line's quantity or amounts; absent arguments are unchanged",
    authScopes: { scope: "carts:write" },
    args: {
      cartId: t.arg.id({ required: true, description: cartId }),
      id: t.arg.id({ required: true, description: "The line's id" }),
      quantity: t.arg.int({ description: "Units, at least 1" }),
      unitPrice: t.arg.int({ description: "Price of one unit in minor units" }),
      taxAmount: t.arg.int({ description: "Tax on the line in minor units" }),
      discountAmount: t.arg.int({ description: "Discount on the line in minor units" }),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, { cartId, id, ...body }, ctx) => {
      await updateLineItem(ctx, String(cartId), String(id), compact(body));
      return cartView(await getCart(ctx, String(cartId)));
    },
  }),
  removeCartItem: t.field({
    type: CartRef,
    description: "Removes a line; answers the whole cart",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: cartId }), id: t.arg.id({ required: true, description: "The line's id" }) },
    resolve: async (_r, a, ctx) => {
      await removeLineItem(ctx, String(a.cartId), String(a.id));
      return cartView(await getCart(ctx, String(a.cartId)));
    },
  }),
  selectCartShipping: t.field({
    type: CartRef,
    description: "Puts a shipping rate on the cart (replacing any other)",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: cartId }), shipping: t.arg({ type: ShippingInput, required: true, description: "The rate" }) },
    resolve: async (_r, a, ctx) => {
      await selectShipping(ctx, String(a.cartId), compact(a.shipping as Record<string, unknown>));
      return cartView(await getCart(ctx, String(a.cartId)));
    },
  }),
  clearCartShipping: t.field({
    type: CartRef,
    description: "Removes the selected shipping rate",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: cartId }) },
    resolve: async (_r, a, ctx) => cartView(await clearShipping(ctx, String(a.cartId))),
  }),
  replaceCartTaxLines: t.field({
    type: CartRef,
    description: "PUT semantics: the cart's tax lines become exactly these ([] removes them all)",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true, description: cartId }), lines: t.arg({ type: [TaxLineInput], required: true, description: "The new tax lines (at most 100)" }) },
    resolve: async (_r, a, ctx) => cartView(await replaceTaxLines(ctx, String(a.cartId), { lines: a.lines.map((l) => compact(l as Record<string, unknown>)) })),
  }),
}));
