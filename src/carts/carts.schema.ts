// GraphQL for carts: the same services and views as REST.
import { builder } from "../graphql/builder";
import { calculateCart } from "../shipping-tax/shipping-tax.service";
import { addLineItem, removeLineItem, updateLineItem } from "./cart-items.service";
import { cartView, clearShipping, createCart, getCart, replaceTaxLines, selectShipping, updateCart } from "./carts.service";

type CartV = ReturnType<typeof cartView>;
type LineV = CartV["lineItems"][number];

const CartLineItem = builder.objectRef<LineV>("CartLineItem").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
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
    applicationId: t.exposeID("applicationId"),
    customerId: t.exposeID("customerId", { nullable: true }),
    customerEmail: t.exposeString("customerEmail", { nullable: true }),
    externalCartId: t.exposeString("externalCartId", { nullable: true }),
    lineItems: t.field({ type: [CartLineItem], resolve: (c) => c.lineItems }),
    subtotal: t.exposeInt("subtotal"),
    discountTotal: t.exposeInt("discountTotal"),
    shippingTotal: t.exposeInt("shippingTotal"),
    taxTotal: t.exposeInt("taxTotal"),
    total: t.exposeInt("total"),
    appliedDiscount: t.field({ type: "JSON", nullable: true, resolve: (c) => c.appliedDiscount }),
    selectedShipping: t.field({ type: "JSON", nullable: true, resolve: (c) => c.selectedShipping }),
    taxLines: t.field({ type: "JSON", resolve: (c) => c.taxLines }),
    shippingAddress: t.field({ type: "JSON", nullable: true, resolve: (c) => c.shippingAddress }),
    billingAddress: t.field({ type: "JSON", nullable: true, resolve: (c) => c.billingAddress }),
    notes: t.exposeString("notes", { nullable: true }),
    metadata: t.field({ type: "JSON", resolve: (c) => c.metadata }),
    expiresAt: t.field({ type: "DateTime", nullable: true, resolve: (c) => c.expiresAt }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (c) => c.updatedAt }),
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

const TaxLineInput = builder.inputType("CartTaxLineInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    amount: t.int({ required: true }),
    rateBps: t.int(),
    jurisdiction: t.string(),
  }),
});

/** GraphQL gives absent optional args as null; the REST body would omit them. */
export function compact<T extends Record<string, unknown>>(o: T) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

/**
 * compact() for update mutations, except that an explicit null on a `clearable` field is kept: it clears the
 * field, as `null` does in the REST PATCH body. graphql-js leaves an argument the caller did not send out of
 * the args object (undefined), so only a null the caller wrote reaches the service.
 */
export function withClears<T extends Record<string, unknown>>(o: T, clearable: readonly (keyof T & string)[]) {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => v !== undefined && (v !== null || clearable.includes(k))));
}

const idOrNull = (v: string | number | null | undefined) => (v === null || v === undefined ? v : String(v));

builder.queryFields((t) => ({
  cart: t.field({ type: CartRef, authScopes: { scope: "carts:read" }, args: { id: t.arg.id({ required: true }) }, resolve: async (_r, a, ctx) => cartView(await getCart(ctx, String(a.id))) }),
}));

builder.mutationFields((t) => ({
  createCart: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { applicationId: t.arg.id({ required: true }), customerId: t.arg.id(), customerEmail: t.arg.string(), currency: t.arg.string(), metadata: t.arg({ type: "JSON" }) },
    resolve: async (_r, a, ctx) => cartView(await createCart(ctx, compact({ ...a, applicationId: String(a.applicationId), customerId: idOrNull(a.customerId) }))),
  }),
  updateCart: t.field({
    type: CartRef,
    description: "Absent arguments are unchanged; null clears customerId, customerEmail, the addresses or notes",
    authScopes: { scope: "carts:write" },
    args: {
      id: t.arg.id({ required: true }),
      customerId: t.arg.id(),
      customerEmail: t.arg.string(),
      shippingAddress: t.arg({ type: "JSON" }),
      billingAddress: t.arg({ type: "JSON" }),
      notes: t.arg.string(),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, { id, ...body }, ctx) =>
      cartView(await updateCart(ctx, String(id), withClears({ ...body, customerId: idOrNull(body.customerId) }, ["customerId", "customerEmail", "shippingAddress", "billingAddress", "notes"]))),
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
  updateCartItem: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: {
      cartId: t.arg.id({ required: true }),
      id: t.arg.id({ required: true }),
      quantity: t.arg.int(),
      unitPrice: t.arg.int(),
      taxAmount: t.arg.int(),
      discountAmount: t.arg.int(),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, { cartId, id, ...body }, ctx) => {
      await updateLineItem(ctx, String(cartId), String(id), compact(body));
      return cartView(await getCart(ctx, String(cartId)));
    },
  }),
  removeCartItem: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await removeLineItem(ctx, String(a.cartId), String(a.id));
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
  clearCartShipping: t.field({
    type: CartRef,
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => cartView(await clearShipping(ctx, String(a.cartId))),
  }),
  replaceCartTaxLines: t.field({
    type: CartRef,
    description: "PUT semantics: the cart's tax lines become exactly these ([] removes them all)",
    authScopes: { scope: "carts:write" },
    args: { cartId: t.arg.id({ required: true }), lines: t.arg({ type: [TaxLineInput], required: true }) },
    resolve: async (_r, a, ctx) => cartView(await replaceTaxLines(ctx, String(a.cartId), { lines: a.lines.map((l) => compact(l as Record<string, unknown>)) })),
  }),
  calculateCart: t.field({
    type: "JSON",
    description: "POST /shipping-tax/carts/{cartId}/calculate",
    authScopes: { authenticated: true },
    args: {
      cartId: t.arg.id({ required: true }),
      kind: t.arg.string(),
      selectedShippingMethodId: t.arg.string(),
      persist: t.arg.boolean(),
      shippingAddress: t.arg({ type: "JSON" }),
      billingAddress: t.arg({ type: "JSON" }),
      taxDate: t.arg.string({ description: "YYYY-MM-DD" }),
    },
    resolve: (_r, { cartId, ...body }, ctx) => calculateCart(ctx, String(cartId), compact(body)),
  }),
}));
