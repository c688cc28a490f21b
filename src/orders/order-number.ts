// The number a buyer reads for an order. Orders carry no sequence of their own: an imported order keeps the number it
// had in the system it came from (externalId); any other reads as the first eight characters of its id, upper case
// ("#3F2A9C1B"), short enough to quote on the phone and never the whole UUID.
export function orderNumber(o: { id: string; externalId?: string | null }): string {
  return o.externalId ?? `#${o.id.replace(/-/g, "").slice(0, 8).toUpperCase()}`;
}
