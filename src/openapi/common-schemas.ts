// Shapes shared by ./schemas.ts and ./order-schemas.ts (their own module, so neither imports the other).
import { z } from "zod";

const id = z.uuid();
const money = z.number().int();

/** `X | null` of a named schema: an anyOf with null (zod's .nullable() would make the named component itself nullable). */
export const orNull = <T extends z.ZodType>(s: T) => z.union([s, z.null()]);

/** Merchant JSON, returned as stored (at most 50 keys, 10 KB). */
export const metadata = z.record(z.string(), z.unknown()).meta({ description: "Your JSON object, returned unchanged (at most 50 keys, 10 KB)" });

export const lineFields = {
  id,
  type: z.string(),
  referenceId: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  unitPrice: money,
  quantity: z.number().int(),
  taxAmount: money,
  discountAmount: money,
  imageUrl: z.string().nullable(),
  requiresShipping: z.boolean(),
  metadata,
  total: money,
};
export const totals = { subtotal: money, discountTotal: money, shippingTotal: money, taxTotal: money, total: money };
export const Address = z
  .object({
    addressLine1: z.string(),
    addressLine2: z.string().nullable(),
    city: z.string(),
    stateProvince: z.string().nullable(),
    postalCode: z.string().nullable(),
    countryCode: z.string().meta({ description: "ISO 3166-1 alpha-2, upper case" }),
  })
  .strict()
  .meta({ id: "Address", description: "A postal address: all six keys, absent optional ones as null" });

export const ShippingRate = z
  .object({
    methodId: z.string(),
    displayName: z.string(),
    rateAmount: money,
    currency: z.string().optional().meta({ description: "The cart's currency: on a cart's or order's rates, not on the settings' flat rates" }),
    carrier: z.string().nullish(),
    serviceCode: z.string().nullish(),
    estimatedDeliveryDays: z.number().int().nullish(),
  })
  .meta({ id: "ShippingRate" });
