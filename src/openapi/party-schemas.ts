// Response shapes of the seller and buyer blocks a quote revision freezes at issue (see ./schemas.ts).
import { z } from "zod";
import { Address, orNull } from "./common-schemas";

export const QuoteParties = z
  .object({
    seller: z
      .object({
        name: z.string().meta({ description: "The legal name when set, else the application's name" }),
        legalName: z.string().nullable(),
        address: orNull(Address),
        taxId: z.string().nullable(),
        email: z.string().nullable(),
        phone: z.string().nullable(),
        paymentInstructions: z.string().nullable(),
      })
      .strict()
      .meta({ id: "QuoteSeller", description: "Who sells, as it was when the revision was issued" }),
    buyer: z
      .object({
        company: z.string().nullable(),
        name: z.string().nullable(),
        email: z.string().nullable(),
        reference: z.string().nullable().meta({ description: "The buyer's PO / reference" }),
        billingAddress: orNull(Address),
        shippingAddress: orNull(Address),
      })
      .strict()
      .meta({ id: "QuoteBuyer", description: "Who buys, as it was when the revision was issued" }),
  })
  .strict()
  .meta({ id: "QuoteParties", description: "The seller and buyer blocks, frozen at issue" });
