// The seller's legal details (application settings `seller`): what a buyer sees as "from" on the quote page, the
// quote PDF and the invoice PDF, plus the default terms and notes a revision carries when the rep wrote none. One
// shape, declared here; REST, GraphQL and OpenAPI derive from it, and a revision freezes it at issue (parties.ts).
import { z } from "zod";
import { addressSchema, canonicalAddress, type Address } from "../shared/address";
import { emailSchema } from "../shared/email";

const text = (max: number) => z.string().trim().min(1).max(max);

/** PATCH /applications/{id} `seller`: every field optional; null removes one; the whole object null removes all. */
export const sellerInput = z.strictObject({
  legalName: text(200).nullable().optional(),
  address: addressSchema.nullable().optional(),
  taxId: text(60).nullable().optional(),
  email: emailSchema.nullable().optional(),
  phone: text(40).nullable().optional(),
  paymentInstructions: text(2000).nullable().optional(),
  terms: text(5000).nullable().optional(),
  notes: text(5000).nullable().optional(),
});
type SellerInput = z.output<typeof sellerInput>;

const SELLER_FIELDS = ["legalName", "address", "taxId", "email", "phone", "paymentInstructions", "terms", "notes"] as const;

export interface SellerProfile {
  legalName: string | null;
  address: Address | null;
  taxId: string | null;
  email: string | null;
  phone: string | null;
  paymentInstructions: string | null;
  terms: string | null;
  notes: string | null;
}

/** The stored `settings.seller` as served: every key present, absent ones null. */
export function sellerOf(stored: unknown): SellerProfile {
  const s = (stored && typeof stored === "object" ? stored : {}) as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === "string" ? (s[k] as string) : null);
  return {
    legalName: str("legalName"),
    address: canonicalAddress((s.address as Address | null | undefined) ?? null),
    taxId: str("taxId"),
    email: str("email"),
    phone: str("phone"),
    paymentInstructions: str("paymentInstructions"),
    terms: str("terms"),
    notes: str("notes"),
  };
}

/** A PATCH's `seller` as SQL merges it: keys to set (addresses canonical) and keys to remove. */
export function sellerPatch(patch: SellerInput): { set: Record<string, unknown>; removed: string[] } {
  const set: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const k of SELLER_FIELDS) {
    const v = patch[k];
    if (v === undefined) continue;
    if (v === null) removed.push(k);
    else set[k] = k === "address" ? canonicalAddress(v as Address) : v;
  }
  return { set, removed };
}
