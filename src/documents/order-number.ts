// The order's number as a buyer reads it (issue 35: never a UUID where a number exists). Orders carry no sequence
// number of their own yet: an imported order keeps the number it had in the system it came from (externalId), any
// other reads as the first eight characters of its id in capitals ("7D0F2C1E"), stable and short enough to quote; the
// hosted checkout's receipt (checkout-page.service.ts) and the invoice PDF both read it from here.
export function orderDisplayNumber(o: { id: string; externalId?: string | null }): string {
  return o.externalId ?? o.id.slice(0, 8).toUpperCase();
}
