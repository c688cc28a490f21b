// GraphQL types used by several domains: addresses, shipping choices, tax lines, totals, the page shape and the
// helper that turns a domain's list of values into a described enum.
import { builder, PageInfo } from "./builder";
import type { Address as AddressV } from "../shared/address";
import type { SelectedShipping, TaxLine } from "../carts/carts.service";

/**
 * A GraphQL enum whose values are exactly a domain constant's, each described. Keying the descriptions by the
 * constant's values makes TypeScript reject a value added to the domain without its description.
 */
export function describedEnum<const V extends string>(name: string, description: string, values: Record<V, string>) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(Object.entries(values).map(([v, d]) => [v, { value: v, description: d as string }])) as Record<V, { value: V; description: string }>,
  });
}

/** The one page shape: { nodes, pageInfo { cursor hasMore } }, fed by a service's { items, pagination }. */
export function pageOf<T>(name: string, node: any, what: string) {
  return builder.objectRef<{ items: T[]; pagination: { cursor: string | null; hasMore: boolean } }>(name).implement({
    description: `A page of ${what}; pass pageInfo.cursor back as \`cursor\` for the next one`,
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.items as any }),
      pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pagination }),
    }),
  });
}

const addressFields = {
  addressLine1: "Street and number",
  addressLine2: "Apartment, suite, unit (optional)",
  city: "City or town",
  stateProvince: "State, province or region (optional)",
  postalCode: "Postal or ZIP code (optional)",
  countryCode: "ISO 3166-1 alpha-2 country code, e.g. US (upper-cased on write)",
} as const;

export const AddressRef = builder.objectRef<AddressV>("Address").implement({
  description: "A postal address (shipping or billing)",
  fields: (t) => ({
    addressLine1: t.exposeString("addressLine1", { description: addressFields.addressLine1 }),
    addressLine2: t.string({ nullable: true, description: addressFields.addressLine2, resolve: (a) => a.addressLine2 ?? null }),
    city: t.exposeString("city", { description: addressFields.city }),
    stateProvince: t.string({ nullable: true, description: addressFields.stateProvince, resolve: (a) => a.stateProvince ?? null }),
    postalCode: t.string({ nullable: true, description: addressFields.postalCode, resolve: (a) => a.postalCode ?? null }),
    countryCode: t.exposeString("countryCode", { description: addressFields.countryCode }),
  }),
});

export const AddressInput = builder.inputType("AddressInput", {
  description: "A postal address; the same fields as the REST body, unknown fields are refused",
  fields: (t) => ({
    addressLine1: t.string({ required: true, description: addressFields.addressLine1 }),
    addressLine2: t.string({ description: addressFields.addressLine2 }),
    city: t.string({ required: true, description: addressFields.city }),
    stateProvince: t.string({ description: addressFields.stateProvince }),
    postalCode: t.string({ description: addressFields.postalCode }),
    countryCode: t.string({ required: true, description: addressFields.countryCode }),
  }),
});

/** An AddressInput as the services take it: GraphQL's nulls for absent optional fields dropped. */
export function addressArg(a: Record<string, unknown> | null | undefined) {
  if (a === null || a === undefined) return a;
  return Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null && v !== undefined));
}

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

type TotalsV = { subtotal: number; discountTotal: number; shippingTotal: number; taxTotal: number; total: number };
export const TotalsRef = builder.objectRef<TotalsV>("Totals").implement({
  description: "Amounts in minor units: total = subtotal - discountTotal + shippingTotal + taxTotal",
  fields: (t) => ({
    subtotal: t.exposeInt("subtotal", { description: "Sum of unitPrice × quantity over the lines" }),
    discountTotal: t.exposeInt("discountTotal", { description: "The lines' discounts plus any promotion code's amount" }),
    shippingTotal: t.exposeInt("shippingTotal", { description: "The selected shipping rate, 0 when none" }),
    taxTotal: t.exposeInt("taxTotal", { description: "The lines' own tax plus the cart's tax lines" }),
    total: t.exposeInt("total", { description: "What the buyer pays" }),
  }),
});
