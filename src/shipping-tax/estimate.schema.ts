// GraphQL for the publishable-key estimate: the same service as POST /shipping-tax/estimate.
import { builder } from "../graphql/builder";
import { describedEnum, TotalsRef } from "../graphql/shared-types";
import { ShippingRateRef, TaxLineRef } from "../carts/carts.schema";
import { compact } from "../graphql/args";
import { type EstimateNote, estimateQuote } from "./estimate.service";

type EstimateV = Awaited<ReturnType<typeof estimateQuote>>;

const EstimateStatusEnum = describedEnum<EstimateV["status"]>("EstimateStatus", "How far an estimate got", {
  estimated: "Priced with what is known; prompts say what would make it final",
  final: "Shipping chosen (when anything ships) and tax calculated for the address",
  failed: "Could not be priced; see errors",
});

const EstimateKindEnum = describedEnum<"quote">("EstimateKind", "What an estimate is", { quote: "A price for a basket, not stored" });

const NoteRef = builder.objectRef<EstimateNote>("EstimateNote").implement({
  description: "A prompt, warning or error of an estimate",
  fields: (t) => ({
    code: t.exposeString("code", { description: "Machine-readable, e.g. address_required, no_tax_rate, currency_mismatch" }),
    message: t.exposeString("message", { description: "For people" }),
    field: t.exposeString("field", { nullable: true, description: "The request field it is about" }),
  }),
});

const EstimateShippingRef = builder.objectRef<EstimateV["shipping"]>("EstimateShipping").implement({
  description: "Shipping methods on offer and the selected one",
  fields: (t) => ({
    methods: t.field({ type: [ShippingRateRef], description: "Rates on offer; empty when nothing ships", resolve: (s) => s.methods }),
    selectedMethod: t.field({ type: ShippingRateRef, nullable: true, description: "The requested method, null until one is chosen", resolve: (s) => s.selectedMethod }),
  }),
});

const EstimateTaxRef = builder.objectRef<EstimateV["tax"]>("EstimateTax").implement({
  description: "Tax of the estimate",
  fields: (t) => ({
    taxTotal: t.exposeInt("taxTotal", { description: "Minor units" }),
    lines: t.field({ type: [TaxLineRef], description: "Tax for the destination country (none when it has no rate)", resolve: (x) => x.lines }),
  }),
});

const EstimateRef = builder.objectRef<EstimateV>("ShippingTaxEstimate").implement({
  description: "A storefront basket priced with a publishable key (REST: POST /shipping-tax/estimate)",
  fields: (t) => ({
    kind: t.field({ type: EstimateKindEnum, description: "Always quote", resolve: (e) => e.kind }),
    status: t.field({ type: EstimateStatusEnum, description: "estimated, final or failed", resolve: (e) => e.status }),
    currency: t.exposeString("currency"),
    shipping: t.field({ type: EstimateShippingRef, description: "Methods on offer and the selected one", resolve: (e) => e.shipping }),
    tax: t.field({ type: EstimateTaxRef, description: "Tax total and lines", resolve: (e) => e.tax }),
    totals: t.field({ type: TotalsRef, description: "subtotal - discountTotal + shippingTotal + taxTotal", resolve: (e) => e.totals }),
    prompts: t.field({ type: [NoteRef], description: "What the buyer could add to make it final", resolve: (e) => e.prompts }),
    warnings: t.field({ type: [NoteRef], description: "Priced, but something is worth knowing (e.g. no_tax_rate)", resolve: (e) => e.warnings }),
    errors: t.field({ type: [NoteRef], description: "Why the estimate failed (status failed)", resolve: (e) => e.errors }),
  }),
});

const EstimateItemInput = builder.inputType("EstimateItemInput", {
  description: "One line of the storefront's basket",
  fields: (t) => ({
    id: t.string({ required: true, description: "Your line or product id" }),
    subtotalAmount: t.int({ required: true, description: "The line's amount (unit price x quantity, less its own discounts), minor units" }),
    quantity: t.int({ description: "Units, default 1 (informational: subtotalAmount is the line's amount)" }),
    requiresShipping: t.boolean({ description: "Default true" }),
    taxCategory: t.string({ description: "Your tax category (the built-in provider taxes every category alike)" }),
  }),
});

const EstimateAddressInput = builder.inputType("EstimateAddressInput", {
  description: "Where the basket goes; only countryCode is required for an estimate",
  fields: (t) => ({
    addressLine1: t.string({ description: "Street and number" }),
    addressLine2: t.string({ description: "Apartment, suite, unit" }),
    city: t.string({ description: "City or town" }),
    stateProvince: t.string({ description: "State, province or region" }),
    postalCode: t.string({ description: "Postal or ZIP code" }),
    countryCode: t.string({ required: true, description: "ISO 3166-1 alpha-2" }),
  }),
});

const EstimateAddressesInput = builder.inputType("EstimateAddressesInput", {
  description: "Shipping and billing addresses (tax follows shipping, else billing)",
  fields: (t) => ({
    shipping: t.field({ type: EstimateAddressInput, description: "Where it ships; its country prices tax" }),
    billing: t.field({ type: EstimateAddressInput, description: "Who pays; prices tax when there is no shipping address" }),
  }),
});

builder.mutationFields((t) => ({
  estimate: t.field({
    type: EstimateRef,
    description:
      "Prices a basket from a browser with a publishable key: quoteToken is the pk_ key (send it also as X-API-Key, or alone). Secret keys are refused (403 forbidden); 401 invalid_quote_token; 404 store_not_found",
    args: {
      applicationId: t.arg.id({ required: true, description: "The store (the key's application)" }),
      quoteToken: t.arg.string({ required: true, description: "The publishable key, pk_…" }),
      currency: t.arg.string({ required: true, description: "ISO 4217; the store's" }),
      items: t.arg({ type: [EstimateItemInput], required: true, description: "At least one" }),
      discountsTotal: t.arg.int({ description: "Discounts off the items, minor units" }),
      selectedShippingMethodId: t.arg.string({ description: "One of shipping.methods' methodId" }),
      addresses: t.arg({ type: EstimateAddressesInput, description: "Shipping and billing addresses" }),
    },
    resolve: (_r, a, ctx) =>
      estimateQuote(
        ctx,
        compact({
          ...a,
          applicationId: String(a.applicationId),
          items: a.items.map((i) => compact(i as Record<string, unknown>)),
          addresses: a.addresses
            ? compact({
                shipping: a.addresses.shipping ? compact(a.addresses.shipping as Record<string, unknown>) : null,
                billing: a.addresses.billing ? compact(a.addresses.billing as Record<string, unknown>) : null,
              })
            : null,
        }),
      ),
  }),
}));
