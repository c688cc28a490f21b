// GraphQL types used by several domains: addresses, shipping choices, tax lines, totals, the page shape and the
// helper that turns a domain's list of values into a described enum.
import { builder, PageInfo } from "./builder";
import type { Address as AddressV } from "../shared/address";
import { cursorOf, type Page } from "../shared/pagination";

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

/**
 * The one page shape, fed by a service's { items, pagination }: the Relay connection (`edges { cursor node }`,
 * `pageInfo { hasNextPage endCursor }`) that Relay, urql and Apollo clients page through, plus `nodes` for callers
 * that want the items alone. Every item is keyed by (createdAt, id), so each edge has its own cursor.
 */
export function pageOf<T extends { createdAt: Date | string; id: string }>(name: string, node: any, what: string): ReturnType<typeof pageOfKeyed<T>>;
export function pageOf<T>(name: string, node: any, what: string, cursor: (item: T) => string): ReturnType<typeof pageOfKeyed<T>>;
export function pageOf<T>(name: string, node: any, what: string, cursor?: (item: T) => string) {
  return pageOfKeyed<T>(name, node, what, cursor ?? (cursorOf as unknown as (item: T) => string));
}

/** Cursors set by a resolver whose list does not page on (createdAt, id) (an offset-paged list): win over the type's. */
const edgeCursors = new WeakMap<object, string>();
export function withEdgeCursors<T extends object>(items: T[], cursorAt: (index: number) => string): T[] {
  items.forEach((item, i) => edgeCursors.set(item, cursorAt(i)));
  return items;
}

function pageOfKeyed<T>(name: string, node: any, what: string, typeCursor: (item: T) => string) {
  const cursor = (item: T) => edgeCursors.get(item as object) ?? typeCursor(item);
  const Edge = builder.objectRef<T>(`${name}Edge`).implement({
    description: `One of ${what} with the cursor that resumes the list after it`,
    fields: (t) => ({
      cursor: t.string({ description: "Pass as `after` to read on from this item", resolve: (i) => cursor(i) }),
      node: t.field({ type: node, description: `The item`, resolve: (i) => i as any }),
    }),
  });
  return builder.objectRef<Page<T>>(name).implement({
    description: `A page of ${what} (a Relay connection); pass pageInfo.endCursor back as \`after\` for the next one`,
    fields: (t) => ({
      edges: t.field({ type: [Edge], description: "The items with their cursors", resolve: (p) => p.items }),
      nodes: t.field({ type: [node], description: "The items alone", resolve: (p) => p.items as any }),
      pageInfo: t.field({
        type: PageInfo,
        resolve: (p) => ({
          ...p.pagination,
          startCursor: p.items.length ? cursor(p.items[0]) : null,
          endCursor: p.items.length ? cursor(p.items[p.items.length - 1]) : null,
        }),
      }),
    }),
  });
}

/** The page arguments of a list field: Relay's first/after, and the older limit/cursor (the REST query's names). */
export function pageArgs<I, S>(t: { arg: { int: (o: { description: string }) => I; string: (o: { description: string }) => S } }) {
  return {
    first: t.arg.int({ description: "How many items, 1 to 100 (default 20)" }),
    after: t.arg.string({ description: "An edge's cursor (pageInfo.endCursor): the items after it" }),
    limit: t.arg.int({ description: "The same as `first` (the REST query's name)" }),
    cursor: t.arg.string({ description: "The same as `after` (the REST query's name)" }),
  };
}

/** pageArgs as the services' list query takes them: { limit, cursor }, absent when not given. */
export function pageInput(a: { first?: number | null; after?: string | null; limit?: number | null; cursor?: string | null }) {
  const out: { limit?: number; cursor?: string } = {};
  const limit = a.first ?? a.limit;
  const cursor = a.after ?? a.cursor;
  if (limit !== null && limit !== undefined) out.limit = limit;
  if (cursor !== null && cursor !== undefined) out.cursor = cursor;
  return out;
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

export type TotalsV = { subtotal: number; discountTotal: number; shippingTotal: number; taxTotal: number; total: number };
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
