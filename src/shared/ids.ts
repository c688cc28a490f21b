import { z } from "zod";

// Built once. The by-id lookups used to build `z.uuid()` on every call: 2-4 µs each warm (8 µs cold) against
// 0.2 µs for a check against this one, and an allocation per request.
const UUID = z.uuid();

/** Whether `value` is a UUID as zod's `z.uuid()` accepts it: a malformed id is a 404 before any query. */
export function isUuid(value: unknown): value is string {
  return UUID.safeParse(value).success;
}
