// GraphQL for the seller and buyer blocks a revision freezes at issue (documents/parties.ts).
import { builder } from "../graphql/builder";
import { AddressRef } from "../graphql/shared-types";
import type { BuyerBlock, QuoteParties, SellerBlock } from "../documents/parties";

const QuoteSellerRef = builder.objectRef<SellerBlock>("QuoteSeller").implement({
  description: "Who sells, as it was when the revision was issued",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The legal name when set, else the application's name" }),
    legalName: t.exposeString("legalName", { nullable: true, description: "Registered name" }),
    address: t.field({ type: AddressRef, nullable: true, description: "Registered address", resolve: (s) => s.address }),
    taxId: t.exposeString("taxId", { nullable: true, description: "VAT, GST or EIN number" }),
    email: t.exposeString("email", { nullable: true, description: "Contact address" }),
    phone: t.exposeString("phone", { nullable: true, description: "Contact phone" }),
    paymentInstructions: t.exposeString("paymentInstructions", { nullable: true, description: "Remit-to / bank details" }),
  }),
});

const QuoteBuyerRef = builder.objectRef<BuyerBlock>("QuoteBuyer").implement({
  description: "Who buys, as it was when the revision was issued",
  fields: (t) => ({
    company: t.exposeString("company", { nullable: true, description: "Company name" }),
    name: t.exposeString("name", { nullable: true, description: "Contact name" }),
    email: t.exposeString("email", { nullable: true, description: "Contact email" }),
    reference: t.exposeString("reference", { nullable: true, description: "The buyer's PO / reference" }),
    billingAddress: t.field({ type: AddressRef, nullable: true, description: "Billing address", resolve: (b) => b.billingAddress }),
    shippingAddress: t.field({ type: AddressRef, nullable: true, description: "Shipping address", resolve: (b) => b.shippingAddress }),
  }),
});

export const QuotePartiesRef = builder.objectRef<QuoteParties>("QuoteParties").implement({
  description: "The seller and buyer blocks, frozen when the revision was issued",
  fields: (t) => ({
    seller: t.field({ type: QuoteSellerRef, description: "Who sells", resolve: (p) => p.seller }),
    buyer: t.field({ type: QuoteBuyerRef, description: "Who buys", resolve: (p) => p.buyer }),
  }),
});
