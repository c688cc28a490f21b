// Issue 35 item 5: the seller's legal details are application settings (REST and GraphQL), and issuing a revision
// freezes the seller and buyer blocks with it, so revision n shows the seller as it was when n was issued. Notes and
// terms a rep left empty take the seller's defaults at issue.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { QuoteLinkPartiesDocument, QuoteRevisionPartiesDocument, UpdateApplicationSellerDocument } from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  api = client(t.url);
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const key = () => demo.apiKey;
const SELLER_ADDRESS = { addressLine1: "500 Market St", addressLine2: null, city: "San Francisco", stateProvince: "CA", postalCode: "94105", countryCode: "US" };
const BUYER_ADDRESS = { addressLine1: "1 Main St", addressLine2: null, city: "Springfield", stateProvince: null, postalCode: "12345", countryCode: "US" };

async function setSeller(body: Record<string, unknown>) {
  const r = await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body });
  expect(r.status).toBe(200);
  return r.body.data;
}

describe("seller settings", () => {
  test("REST: PATCH merges seller fields one by one, null removes one, seller: null removes all; bad input names the field", async () => {
    const a = await setSeller({ seller: { legalName: "Acme Industries LLC", address: { ...SELLER_ADDRESS, countryCode: "us" }, taxId: "EIN 12-3456789" } });
    expect(a.seller).toEqual({ legalName: "Acme Industries LLC", address: SELLER_ADDRESS, taxId: "EIN 12-3456789", email: null, phone: null, paymentInstructions: null, terms: null, notes: null });
    const b = await setSeller({ seller: { email: "billing@acme.example", taxId: null } });
    expect(b.seller).toMatchObject({ legalName: "Acme Industries LLC", email: "billing@acme.example", taxId: null, address: SELLER_ADDRESS });
    const bad = await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body: { seller: { email: "nope", colour: 1 } } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.error.details)).toMatch(/seller/);
    const cleared = await setSeller({ seller: null });
    expect(cleared.seller).toEqual({ legalName: null, address: null, taxId: null, email: null, phone: null, paymentInstructions: null, terms: null, notes: null });
  });

  test("GraphQL updateApplication(seller) equals the REST read", async () => {
    const r = await gql(UpdateApplicationSellerDocument, { id: demo.applicationId, seller: { legalName: "Acme GQL Ltd", phone: "+1 555 0100", paymentInstructions: "ACH 123 / routing 456" } }, { key: key() });
    expect(r.errors).toBeNull();
    const rest = await api("GET", `applications/${demo.applicationId}`, { key: key() });
    expect(r.data!.updateApplication.seller).toEqual(rest.body.data.seller);
    expect(rest.body.data.seller).toMatchObject({ legalName: "Acme GQL Ltd", phone: "+1 555 0100", paymentInstructions: "ACH 123 / routing 456" });
    await setSeller({ seller: null });
  });
});

describe("a revision freezes the parties at issue", () => {
  test("issue snapshots seller and buyer; a later rename shows on the next revision only; notes and terms default from the seller", async () => {
    await setSeller({ seller: { legalName: "Old Name Inc", address: SELLER_ADDRESS, taxId: "VAT GB123", email: "sales@old.example", terms: "Net 30. Prices in USD.", notes: "Thank you for your business." } });
    const cust = await api("POST", "customers", { key: key(), body: { email: "po-buyer@example.com", company: "Buyer Co", name: "Pat Buyer", billingAddress: BUYER_ADDRESS } });
    expect(cust.status).toBe(201);
    const c = await api("POST", "quotes", { key: key(), body: { customerEmail: "po-buyer@example.com", buyerReference: "PO-7781", items: [{ name: "Widget", unitPrice: 1500, quantity: 2 }], notes: "Delivery in two weeks." } });
    expect(c.status).toBe(201);
    expect(c.body.data.workingRevision).toMatchObject({ notes: "Delivery in two weeks.", terms: null, parties: null });
    const issued = await api("POST", `quotes/${c.body.data.id}/issue`, { key: key(), body: {} });
    expect(issued.status).toBe(200);
    const rev1 = issued.body.data.revision;
    expect(rev1).toMatchObject({ notes: "Delivery in two weeks.", terms: "Net 30. Prices in USD." });
    expect(rev1.parties).toEqual({
      seller: { name: "Old Name Inc", legalName: "Old Name Inc", address: SELLER_ADDRESS, taxId: "VAT GB123", email: "sales@old.example", phone: null, paymentInstructions: null },
      buyer: { company: "Buyer Co", name: "Pat Buyer", email: "po-buyer@example.com", reference: "PO-7781", billingAddress: BUYER_ADDRESS, shippingAddress: null },
    });

    await setSeller({ seller: { legalName: "New Name Corp" } });
    const token = issued.body.data.quote.shareToken;
    const link = await api("GET", `quote-links/${token}`, {});
    expect(link.body.data.revision.parties.seller.name).toBe("Old Name Inc");
    expect(link.body.data.revision).toMatchObject({ notes: "Delivery in two weeks.", terms: "Net 30. Prices in USD." });
    const gLink = await gql(QuoteLinkPartiesDocument, { shareToken: token });
    expect(gLink.data!.quoteLink.revision).toEqual({ id: rev1.id, notes: rev1.notes, terms: rev1.terms, parties: link.body.data.revision.parties });

    const r2 = await api("POST", `quotes/${c.body.data.id}/revisions`, { key: key(), body: {} });
    expect(r2.status).toBe(201);
    expect(r2.body.data).toMatchObject({ notes: "Delivery in two weeks.", terms: "Net 30. Prices in USD.", parties: null });
    const again = await api("POST", `quotes/${c.body.data.id}/issue`, { key: key(), body: {} });
    expect(again.body.data.revision.parties.seller.name).toBe("New Name Corp");
    const merchant = await gql(QuoteRevisionPartiesDocument, { id: c.body.data.id }, { key: key() });
    expect(merchant.data!.quote!.revisions.map((r) => r.parties?.seller.name)).toEqual(["Old Name Inc", "New Name Corp"]);
    await setSeller({ seller: null });
  });

  test("without seller details the block is the application's name; the buyer block comes from the quote", async () => {
    const c = await api("POST", "quotes", { key: key(), body: { customerEmail: "plain@example.com", companyName: "Plain LLC", items: [{ name: "Thing", unitPrice: 100 }] } });
    const issued = await api("POST", `quotes/${c.body.data.id}/issue`, { key: key(), body: {} });
    const app = await api("GET", `applications/${demo.applicationId}`, { key: key() });
    expect(issued.body.data.revision.parties).toEqual({
      seller: { name: app.body.data.name, legalName: null, address: null, taxId: null, email: app.body.data.supportEmail, phone: null, paymentInstructions: null },
      buyer: { company: "Plain LLC", name: null, email: "plain@example.com", reference: null, billingAddress: null, shippingAddress: null },
    });
    expect(issued.body.data.revision).toMatchObject({ notes: null, terms: null });
  });
});
