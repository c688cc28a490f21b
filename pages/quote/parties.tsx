/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// Who sells and who buys, as the revision froze them at issue (revision.parties), and the offer's notes and terms.
import type { Address } from "../../src/shared/address";
import type { BuyerQuoteView } from "../../src/quotes/quote-links.service";

const COUNTRY = new Intl.DisplayNames(["en"], { type: "region" });

type Parties = NonNullable<NonNullable<BuyerQuoteView["revision"]>["parties"]>;

function AddressLines(p: { a: Address | null }) {
  const a = p.a;
  if (!a) return null;
  // "Dayton, OH 45402" where the post writes it so (North America, Australia), else "75008 Paris" and the region
  const northern = ["US", "CA", "AU"].includes(a.countryCode);
  const cityLine = northern ? `${a.city}${a.stateProvince ? `, ${a.stateProvince}` : ""}${a.postalCode ? ` ${a.postalCode}` : ""}` : [a.postalCode, a.city].filter(Boolean).join(" ");
  const region = northern ? null : a.stateProvince;
  return (
    <address>
      {[a.addressLine1, a.addressLine2, cityLine, region, COUNTRY.of(a.countryCode) ?? a.countryCode].filter(Boolean).map((l) => (
        <div>{l}</div>
      ))}
    </address>
  );
}

export function PartiesBlock(p: { parties: Parties; reference: string | null }) {
  const { seller, buyer } = p.parties;
  const sameAddress = JSON.stringify(buyer.billingAddress) === JSON.stringify(buyer.shippingAddress);
  return (
    <div class="grid" id="parties">
      <section class="card" aria-labelledby="seller-h">
        <h2 id="seller-h">From</h2>
        <p class="flush">
          <strong>{seller.legalName ?? seller.name}</strong>
        </p>
        <AddressLines a={seller.address} />
        {seller.taxId ? <div class="muted">Tax ID {seller.taxId}</div> : null}
        {seller.email ? <div>{seller.email}</div> : null}
        {seller.phone ? <div>{seller.phone}</div> : null}
      </section>
      <section class="card" aria-labelledby="buyer-h">
        <h2 id="buyer-h">For</h2>
        {buyer.company ? (
          <p class="flush">
            <strong>{buyer.company}</strong>
          </p>
        ) : null}
        {buyer.name ? <div>{buyer.name}</div> : null}
        {buyer.email ? <div>{buyer.email}</div> : null}
        {p.reference ?? buyer.reference ? <div id="po">PO / your reference: {p.reference ?? buyer.reference}</div> : null}
        {buyer.billingAddress ? (
          <div class="gap">
            <h3>{sameAddress ? "Billing and shipping address" : "Billing address"}</h3>
            <AddressLines a={buyer.billingAddress} />
          </div>
        ) : null}
        {buyer.shippingAddress && !sameAddress ? (
          <div class="gap">
            <h3>Shipping address</h3>
            <AddressLines a={buyer.shippingAddress} />
          </div>
        ) : null}
      </section>
    </div>
  );
}

export function NotesAndTerms(p: { notes: string | null; terms: string | null; paymentInstructions: string | null }) {
  if (!p.notes && !p.terms && !p.paymentInstructions) return null;
  return (
    <section class="card" aria-labelledby="notes-h" id="notes">
      <h2 id="notes-h">Notes and terms</h2>
      {p.notes ? (
        <div>
          <h3>Notes</h3>
          <p class="prewrap" id="notes-text">
            {p.notes}
          </p>
        </div>
      ) : null}
      {p.terms ? (
        <div class="gap">
          <h3>Terms</h3>
          <p class="prewrap" id="terms-text">
            {p.terms}
          </p>
        </div>
      ) : null}
      {p.paymentInstructions ? (
        <div class="gap">
          <h3>How to pay</h3>
          <p class="prewrap">{p.paymentInstructions}</p>
        </div>
      ) : null}
    </section>
  );
}
