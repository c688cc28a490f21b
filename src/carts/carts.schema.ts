// GraphQL for carts: the same services and views as REST.
import { builder } from "../graphql/builder";
import { calculateCart } from "../shipping-tax/shipping-tax.service";
import { addLineItem } from "./cart-items.service";
import { cartView, createCart, getCart, selectShipping } from "./carts.service";

type CartV = ReturnType<typeof cartView>;
type LineV = CartV["lineItems"][number];

const CartLineItem = builder.objectRef<LineV>("CartLineItem").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type"),
    name: t.exposeString("name"),
    referenceId: t.exposeString("referenceId", { nullable: true }),
    unitPrice: t.exposeInt("unitPrice"),
    quantity: t.exposeInt("quantity"),
    taxAmount: t.exposeInt("taxAmount"),
    discountAmount: t.exposeInt("discountAmount"),
    requiresShipping: t.exposeBoolean("requiresShipping"),
    imageUrl: t.exposeString("imageUrl", { nullable: true }),
    total: t.exposeInt("total"),
    metadata: t.field({ type: "JSON", resolve: (l) => l.metadata }),
  }),
});

export const CartRef = builder.objectRef<CartV>("Cart").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status"),
    currency: t.exposeString("currency"),
    customerId: t.exposeID("customerId", { nullable: true }),
    customerEmail: t.exposeString("customerEmail", { nullable: true }),
    lineItems: t.field({ type: [CartLineItem], resolve: (c) => c.lineItems }),
    subtotal: t.exposeInt("subtotal"),
    discountTotal: t.exposeInt("discountTotal"),
    shippingTotal: t.exposeInt("shippingTotal"),
    taxTotal: t.exposeInt("taxTotal"),
    total: t.exposeInt("total"),
    selectedShipping: t.field({ type: "JSON", nullable: true, resolve: (c) => c.selectedShipping }),
    taxLines: t.field({ type: "JSON", resolve: (c) => c.taxLines }),
    shippingAddress: t.field({ type: "JSON", nullable: true, resolve: (c) => c.shippingAddress }),
    billingAddress: t.field({ type: "JSON", nullable: true, resolve: (c) => c.billingAddress }),
    metadata: t.field({ type: "JSON", resolve: (c) => c.metadata }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

const LineItemInput = builder.inputType("CartLineItemInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    unitPrice: t.int({ required: true }),
    quantity: t.int(),
    type: t.string(),
    referenceId: t.string(),
    description: t.string(),
    imageUrl: t.string(),
    requiresShipping: t.boolean(),
    taxAmount: t.int(),
    discountAmount: t.int(),
    metadata: t.field({ type: "JSON" }),
  }),
});

const ShippingInput = builder.inputType("CartShippingInput", {
  fields: (t) => ({
    methodId: t.string({ required: true }),
    displayName: t.string({ required: true }),
    rateAmount: t.int({ required: true }),
    carrier: t.string(),
    serviceCode: t.string(),
    estimatedDeliveryDays: t.int(),
  }),
});

/** GraphQL gives absent optional args as null; the REST body would omit them. */
export function compact<T extends Record<string, unknown>>(o: T) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

builder.queryFields((t) => ({
  cart: t.field({ type: CartRef, authScopes: { scope: "carts:read" }, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => cartView(await getCart(ctx, String(a.id))) }),
}));

builder.mutationFields((t) => ({
  createCart: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { applicationId: t.arg.id({ required: true }), customerEmail: t.arg.string(), currency: t.arg.string(), metadata: t.arg({ type: "JSON" }) },
    resolve: async (_r, a, ctx) => cartView(await createCart(ctx, compact({ ...a, applicationId: String(a.applicationId) }))),
  }),
  addCartItem: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true }), item: t.arg({ type: LineItemInput, required: true }) },
    resolve: async (_r, a, ctx) => {
      await addLineItem(ctx, String(a.cartId), compact(a.item as Record<string, unknown>));
      return cartView(await getCart(ctx, String(a.cartId)));
    },
  }),
  selectCartShipping: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true }), shipping: t.arg({ type: ShippingInput, required: true }) },
    resolve: async (_r, a, ctx) => {
      await selectShipping(ctx, String(a.cartId), compact(a.shipping as Record<string, unknown>));
      return cartView(await getCart(ctx, String(a.cartId)));
    },
  }),
  calculateCart: t.field({
    type: "JSON",
    description: "POST /shipping-tax/carts/{cartId}/calculate",
    authScopes: { authenticated: true },
    args: { cartId: t.arg.id({ required: true }), selectedShippingMethodId: t.arg.string(), persist: t.arg.boolean(), shippingAddress: t.arg({ type: "JSON" }) },
    resolve: (_r, a, ctx) => calculateCart(ctx, String(a.cartId), compact({ selectedShippingMethodId: a.selectedShippingMethodId, persist: a.persist, shippingAddress: a.shippingAddress })),
  }),
}));
