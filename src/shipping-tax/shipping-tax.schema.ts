// GraphQL for the built-in shipping and tax provider's settings. Same services and view as REST; the cart
// calculation (calculateCart) is with the cart fields in carts.schema.ts.
import { compact } from "../carts/carts.schema";
import { builder } from "../graphql/builder";
import { type FlatRate, getSettings, putSettings, settingsView } from "./shipping-tax.service";

const FlatRateRef = builder.objectRef<FlatRate>("ShippingFlatRate").implement({
  fields: (t) => ({
    methodId: t.exposeString("methodId"),
    displayName: t.exposeString("displayName"),
    rateAmount: t.exposeInt("rateAmount"),
    carrier: t.exposeString("carrier", { nullable: true }),
    serviceCode: t.exposeString("serviceCode", { nullable: true }),
    estimatedDeliveryDays: t.exposeInt("estimatedDeliveryDays", { nullable: true }),
  }),
});

const SettingsRef = builder.objectRef<ReturnType<typeof settingsView>>("ShippingTaxSettings").implement({
  fields: (t) => ({
    flatRates: t.field({ type: [FlatRateRef], resolve: (s) => s.flatRates }),
    taxRates: t.field({ type: "JSON", description: "country code (ISO 3166-1 alpha-2) -> { rateBps, name }", resolve: (s) => s.taxRates }),
    updatedAt: t.field({ type: "DateTime", nullable: true, description: "null until the settings are first saved", resolve: (s) => s.updatedAt }),
  }),
});

const FlatRateInput = builder.inputType("ShippingFlatRateInput", {
  fields: (t) => ({
    methodId: t.string({ required: true }),
    displayName: t.string({ required: true }),
    rateAmount: t.int({ required: true }),
    carrier: t.string(),
    serviceCode: t.string(),
    estimatedDeliveryDays: t.int(),
  }),
});

builder.queryFields((t) => ({
  shippingTaxSettings: t.field({
    type: SettingsRef,
    authScopes: { scope: "shipping_tax:read" },
    resolve: async (_r, _a, ctx) => settingsView(await getSettings(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  replaceShippingTaxSettings: t.field({
    type: SettingsRef,
    description: "PUT semantics: both tables are replaced (send [] or {} to empty one)",
    authScopes: { scope: "shipping_tax:write" },
    args: {
      flatRates: t.arg({ type: [FlatRateInput], required: true }),
      taxRates: t.arg({ type: "JSON", required: true, description: "country code -> { rateBps, name }" }),
    },
    resolve: async (_r, a, ctx) =>
      settingsView(await putSettings(ctx, { flatRates: a.flatRates.map((r) => compact(r as Record<string, unknown>)), taxRates: a.taxRates })),
  }),
}));
