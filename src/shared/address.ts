// Canonical addresses (commerce.md part 2): only these keys; unknown keys are rejected at write.
import { z } from "zod";
import { nestsDeeperThan } from "./json";

export const addressSchema = z.strictObject({
  addressLine1: z.string().trim().min(1).max(200),
  addressLine2: z.string().trim().max(200).nullish(),
  city: z.string().trim().min(1).max(100),
  stateProvince: z.string().trim().max(100).nullish(),
  postalCode: z.string().trim().max(20).nullish(),
  countryCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be an ISO 3166-1 alpha-2 code")
    .transform((c) => c.toUpperCase()),
});
export type Address = z.output<typeof addressSchema>;

/** An address as stored and served: all six keys, absent or empty optional ones as null. */
export function canonicalAddress(a: Address): Address;
export function canonicalAddress(a: Address | null | undefined): Address | null;
export function canonicalAddress(a: Address | null | undefined): Address | null {
  if (!a) return null;
  return {
    addressLine1: a.addressLine1,
    addressLine2: a.addressLine2 || null,
    city: a.city,
    stateProvince: a.stateProvince || null,
    postalCode: a.postalCode || null,
    countryCode: a.countryCode,
  };
}

/** Merchant JSON: at most 50 keys and 10 KB, returned unchanged. */
export const metadataSchema = z
  .record(z.string().min(1).max(40), z.unknown())
  .refine((m) => Object.keys(m).length <= 50, "at most 50 keys")
  .refine((m) => !nestsDeeperThan(m, 32) && Buffer.byteLength(JSON.stringify(m), "utf8") <= 10_240, "at most 10 KB and 32 levels of nesting");
