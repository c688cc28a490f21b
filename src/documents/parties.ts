// Who sells and who buys, as a quote shows them: the seller block (the application's name and legal details) and
// the buyer block (company, contact, PO / buyer reference, addresses). Issuing freezes both with the revision, so the
// page and the PDF of revision n show the seller as it was when n was issued, never today's name.
import type { Prisma } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { type Address, canonicalAddress } from "../shared/address";
import { sellerOf } from "./seller";
import type { SellerParty } from "../shared/pdf";

/** The seller party the PDFs draw (`name`: the legal name when set, else the application's name), plus remit-to. */
export interface SellerBlock extends SellerParty {
  paymentInstructions: string | null;
}

export interface BuyerBlock {
  company: string | null;
  name: string | null;
  email: string | null;
  /** the buyer's PO / reference */
  reference: string | null;
  billingAddress: Address | null;
  shippingAddress: Address | null;
}

export interface QuoteParties {
  seller: SellerBlock;
  buyer: BuyerBlock;
}

/** The seller block from an application's name and settings (live). */
export function sellerBlock(app: { name: string; settings: unknown }): SellerBlock {
  const s = sellerOf((app.settings as Record<string, unknown> | null)?.seller);
  return {
    name: s.legalName ?? app.name,
    legalName: s.legalName,
    address: s.address,
    taxId: s.taxId,
    email: s.email ?? ((app.settings as Record<string, unknown> | null)?.supportEmail as string | undefined) ?? null,
    phone: s.phone,
    paymentInstructions: s.paymentInstructions,
  };
}

type QuoteBuyerFields = { companyName: string | null; customerEmail: string; buyerReference: string | null };
type CustomerFields = { company: string | null; name: string | null; email: string | null; billingAddress: unknown; shippingAddress: unknown } | null;

/** The buyer block from the quote and its customer (live). */
export function buyerBlock(q: QuoteBuyerFields, c: CustomerFields): BuyerBlock {
  return {
    company: q.companyName ?? c?.company ?? null,
    name: c?.name ?? null,
    email: c?.email ?? q.customerEmail,
    reference: q.buyerReference,
    billingAddress: canonicalAddress((c?.billingAddress as Address | null) ?? null),
    shippingAddress: canonicalAddress((c?.shippingAddress as Address | null) ?? null),
  };
}

/** The revision's frozen parties, read back (null before issue or for revisions issued before parties existed). */
export function frozenParties(stored: unknown): QuoteParties | null {
  const p = stored as QuoteParties | null | undefined;
  return p && typeof p === "object" && p.seller && p.buyer ? p : null;
}

/** Reads both blocks as they are now, for issuing (one statement: quote, application and customer joined). */
export async function currentParties(tx: Ctx, quoteId: string): Promise<QuoteParties & { defaults: { terms: string | null; notes: string | null } }> {
  const q = await tx.db.quote.findUniqueOrThrow({
    where: { id: quoteId },
    select: {
      companyName: true,
      customerEmail: true,
      buyerReference: true,
      application: { select: { name: true, settings: true } },
      customer: { select: { company: true, name: true, email: true, billingAddress: true, shippingAddress: true } },
    },
  });
  const s = sellerOf((q.application.settings as Record<string, unknown> | null)?.seller);
  return { seller: sellerBlock(q.application), buyer: buyerBlock(q, q.customer), defaults: { terms: s.terms, notes: s.notes } };
}

export const partiesJson = (p: QuoteParties) => p as unknown as Prisma.InputJsonValue;
