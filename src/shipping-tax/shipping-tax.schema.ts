// GraphQL for the built-in shipping and tax provider: its settings and the cart calculation (calculateCart). Same
// services and views as REST. GraphQL cannot type a map, so the tax
// table (REST: { "US": { rateBps, name } }) is a list of { countryCode, rateBps, name } here.
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { errors } from "../shared/errors";
import { type CartCalculation, calculateCart, type FlatRate, getSettings, putSettings, settingsView, type TaxRate } from "./shipping-tax.service";
import { ShippingRateRef, TaxLineRef } from "../carts/carts.schema";
import { AddressInput, addressArg, describedEnum, TotalsRef } from "../graphql/shared-types";

const FlatRateRef = builder.objectRef<FlatRate>("ShippingFlatRate").implement({
  description: "A flat shipping rate offered to every cart that needs shipping",
  fields: (t) => ({
    methodId: t.exposeString("methodId", { description: "Your identifier of the method" }),
    displayName: t.exposeString("displayName", { description: "What the buyer sees" }),
    rateAmount: t.exposeInt("rateAmount", { description: "Price in minor units of the application's currency" }),
    carrier: t.exposeString("carrier", { nullable: true, description: "Carrier name" }),
    serviceCode: t.exposeString("serviceCode", { nullable: true, description: "The carrier's service code" }),
    estimatedDeliveryDays: t.exposeInt("estimatedDeliveryDays", { nullable: true, description: "Business days to delivery" }),
  }),
});

type TaxRateV = TaxRate & { countryCode: string };
const TaxRateRef = builder.objectRef<TaxRateV>("CountryTaxRate").implement({
  description: "The tax rate applied to carts shipped (or billed, without a shipping address) to one country",
  fields: (t) => ({
    countryCode: t.exposeString("countryCode", { description: "ISO 3166-1 alpha-2 code, upper case" }),
    rateBps: t.exposeInt("rateBps", { description: "Rate in basis points, 0 to 10000 (825 = 8.25%)" }),
    name: t.exposeString("name", { nullable: true, description: "Label of the tax line, e.g. Sales tax" }),
  }),
});

const SettingsRef = builder.objectRef<ReturnType<typeof settingsView>>("ShippingTaxSettings").implement({
  description: "The built-in provider's tables for the credential's application and environment",
  fields: (t) => ({
    flatRates: t.field({ type: [FlatRateRef], description: "Shipping rates on offer", resolve: (s) => s.flatRates }),
    taxRates: t.field({
      type: [TaxRateRef],
      description: "Tax rate per country, by country code (REST: an object keyed by country code)",
      resolve: (s) => Object.entries(s.taxRates).map(([countryCode, r]) => ({ countryCode, ...r })).sort((a, b) => a.countryCode.localeCompare(b.countryCode)),
    }),
    updatedAt: t.field({ type: "DateTime", nullable: true, description: "null until the settings are first saved", resolve: (s) => s.updatedAt }),
  }),
});

const FlatRateInput = builder.inputType("ShippingFlatRateInput", {
  description: "A flat shipping rate (methodId unique within the table)",
  fields: (t) => ({
    methodId: t.string({ required: true, description: "Your identifier of the method" }),
    displayName: t.string({ required: true, description: "What the buyer sees" }),
    rateAmount: t.int({ required: true, description: "Price in minor units" }),
    carrier: t.string({ description: "Carrier name" }),
    serviceCode: t.string({ description: "The carrier's service code" }),
    estimatedDeliveryDays: t.int({ description: "Business days to delivery, 0 to 365" }),
  }),
});

const TaxRateInput = builder.inputType("CountryTaxRateInput", {
  description: "The tax rate of one country",
  fields: (t) => ({
    countryCode: t.string({ required: true, description: "ISO 3166-1 alpha-2 code, upper case; once per table" }),
    rateBps: t.int({ required: true, description: "Rate in basis points, 0 to 10000" }),
    name: t.string({ description: "Label of the tax line" }),
  }),
});

builder.queryFields((t) => ({
  shippingTaxSettings: t.field({
    type: SettingsRef,
    description: "The built-in shipping and tax provider's tables",
    authScopes: { scope: "shipping_tax:read" },
    resolve: async (_r, _a, ctx) => settingsView(await getSettings(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  replaceShippingTaxSettings: t.field({
    type: SettingsRef,
    description: "PUT semantics: both tables are replaced (send [] to empty one)",
    authScopes: { scope: "shipping_tax:write" },
    args: {
      flatRates: t.arg({ type: [FlatRateInput], required: true, description: "The new shipping rates (at most 50)" }),
      taxRates: t.arg({ type: [TaxRateInput], required: true, description: "The new tax table (at most 250 countries)" }),
    },
    resolve: async (_r, a, ctx) => {
      // A country twice is refused by name rather than silently keeping the last.
      const taxRates: Record<string, unknown> = {};
      for (const [i, r] of a.taxRates.entries()) {
        if (r.countryCode in taxRates) throw errors.validation([{ path: ["taxRates", i, "countryCode"], message: `Duplicate country code "${r.countryCode}"` }]);
        taxRates[r.countryCode] = compact({ rateBps: r.rateBps, name: r.name });
      }
      return settingsView(await putSettings(ctx, { flatRates: a.flatRates.map((r) => compact(r as Record<string, unknown>)), taxRates }));
    },
  }),
}));

const CalculationKindEnum = describedEnum<"cart_estimate" | "checkout_final">("CalculationKind", "What a calculation is for", {
  cart_estimate: "A preview; nothing is stored unless persist is true",
  checkout_final: "The price the buyer will pay; always persisted on the cart",
});

const CalculationShippingRef = builder.objectRef<CartCalculation["shipping"]>("CalculationShipping").implement({
  description: "The shipping part of a calculation",
  fields: (t) => ({
    methods: t.field({ type: [ShippingRateRef], description: "Rates on offer; empty when no line requires shipping", resolve: (c) => c.methods }),
    selectedMethod: t.field({ type: ShippingRateRef, nullable: true, description: "The requested or current method, refreshed to the configured rate", resolve: (c) => c.selectedMethod }),
  }),
});

const CalculationTaxRef = builder.objectRef<CartCalculation["tax"]>("CalculationTax").implement({
  description: "The tax part of a calculation",
  fields: (t) => ({ lines: t.field({ type: [TaxLineRef], description: "Tax for the destination country (none when it has no rate)", resolve: (c) => c.lines }) }),
});

const CalculationRef = builder.objectRef<CartCalculation>("CartCalculation").implement({
  description: "Shipping methods, tax and totals the built-in provider computes for a cart (the REST body's shape)",
  fields: (t) => ({
    snapshotId: t.exposeString("snapshotId", { description: "Identifies this result" }),
    shipping: t.field({ type: CalculationShippingRef, description: "Methods on offer and the selected one", resolve: (c) => c.shipping }),
    tax: t.field({ type: CalculationTaxRef, description: "Tax lines", resolve: (c) => c.tax }),
    totals: t.field({ type: TotalsRef, description: "The cart's totals with this result applied", resolve: (c) => c.totals }),
  }),
});

builder.mutationFields((t) => ({
  calculateCart: t.field({
    type: CalculationRef,
    description: "Shipping methods, tax and totals for the cart from the built-in provider (REST: POST /shipping-tax/carts/{cartId}/calculate). Needs shipping_tax:write or carts:write",
    authScopes: { authenticated: true },
    args: {
      cartId: t.arg.id({ required: true, description: "The cart's id" }),
      kind: t.arg({ type: CalculationKindEnum, description: "Default cart_estimate" }),
      selectedShippingMethodId: t.arg.string({ description: "Select this method (one of the flat rates' methodId)" }),
      persist: t.arg.boolean({ description: "Store the selection and tax lines on the cart (always for checkout_final)" }),
      shippingAddress: t.arg({ type: AddressInput, description: "Set the cart's shipping address first (its country picks the tax rate)" }),
      billingAddress: t.arg({ type: AddressInput, description: "Set the cart's billing address first (used for tax when there is no shipping address)" }),
      taxDate: t.arg.string({ description: "The date tax applies on, YYYY-MM-DD (default today)" }),
    },
    resolve: (_r, { cartId, ...body }, ctx) =>
      calculateCart(ctx, String(cartId), compact({ ...body, shippingAddress: addressArg(body.shippingAddress), billingAddress: addressArg(body.billingAddress) })),
  }),
}));
