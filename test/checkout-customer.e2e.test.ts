// Checkout sessions' `customer` object (commerce.md part 4, issue 34 item 3): `externalCustomerId` finds or creates
// the customer with that externalId, `customerId` names an existing one, and email, names, phone and metadata create
// or update it; the order, the subscription and the saved card of a recurring checkout belong to that customer.
// Over REST and GraphQL; two sessions creating the same externalId at once make one customer.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let seq = 0;

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const RECURRING = { planReference: "pro", planName: "Pro", interval: "monthly", amount: 1500, quantity: 2, mode: "auto" };
const urls = { returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" };
const uniq = (p: string) => `${p}-${Date.now()}-${++seq}`;

async function emptyCart(body: Record<string, unknown> = {}) {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { applicationId: demo.applicationId, ...body } });
  expect(cart.status).toBe(201);
  return cart.body.data.id as string;
}

async function cartWithLine(body: Record<string, unknown> = {}) {
  const id = await emptyCart(body);
  expect((await api("POST", `carts/${id}/items`, { key: demo.apiKey, body: { name: "Service", unitPrice: 2000, quantity: 1, requiresShipping: false } })).status).toBe(201);
  return id;
}

async function gql(query: string, variables: Record<string, unknown>, key: string | null = demo.apiKey) {
  const r = await api("POST", "/graphql", { ...(key ? { key } : {}), body: { query, variables } });
  return r.body as { data: any; errors?: { message: string; extensions?: { code?: string } }[] };
}

const byExternal = (externalId: string) => api("GET", `customers/by-external/${encodeURIComponent(externalId)}`, { key: demo.apiKey });

describe("REST", () => {
  test("a recurring checkout with externalCustomerId: the customer is created with it, and the order, subscription and card are that customer's", async () => {
    const ext = uniq("ext");
    const email = `${ext}@example.com`;
    const s = await api("POST", "checkout/sessions", {
      key: demo.apiKey,
      body: {
        applicationId: demo.applicationId,
        cartId: await emptyCart(),
        ...urls,
        recurring: RECURRING,
        customer: { externalCustomerId: ext, email, firstName: "Ada", lastName: "Lovelace", phone: "+1 555 0100", metadata: { tier: "gold" } },
      },
    });
    expect(s.status).toBe(201);
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
    expect(done.status).toBe(200);

    const c = await byExternal(ext);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ externalId: ext, email, name: "Ada Lovelace", phone: "+1 555 0100", metadata: { tier: "gold" } });
    const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data;
    expect(order.customerId).toBe(c.body.data.id);
    const sub = (await api("GET", `subscriptions/${done.body.data.subscriptionId}`, { key: demo.apiKey })).body.data;
    expect(sub.customerId).toBe(c.body.data.id);
    const cards = await t.deps.prisma.savedCard.findMany({ where: { customerId: c.body.data.id } });
    expect(cards).toHaveLength(1);
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, OR: [{ externalId: ext }, { email }] } })).toBe(1);
  });

  test("an existing externalId: found, updated with what the object sends, and the order is its own even when the buyer types another email", async () => {
    const ext = uniq("known");
    const made = await api("POST", "customers", { key: demo.apiKey, body: { externalId: ext, email: `${ext}@example.com`, name: "Old Name" } });
    expect(made.status).toBe(201);
    const s = await api("POST", "checkout/sessions", {
      key: demo.apiKey,
      body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { externalCustomerId: ext, firstName: "New", lastName: "Name", metadata: { vip: true } } },
    });
    expect(s.status).toBe(201);
    const after = await byExternal(ext);
    expect(after.body.data).toMatchObject({ id: made.body.data.id, email: `${ext}@example.com`, name: "New Name", metadata: { vip: true } });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", email: `other-${ext}@example.com` } });
    expect(done.status).toBe(200);
    const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data;
    expect(order).toMatchObject({ customerId: made.body.data.id, email: `other-${ext}@example.com` });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: `other-${ext}@example.com` } })).toBe(0);
  });

  test("customerId: the named customer is updated and owns the order; an email already a customer's gets the externalId linked", async () => {
    const ext = uniq("cid");
    const made = await api("POST", "customers", { key: demo.apiKey, body: { email: `${ext}@example.com` } });
    const s = await api("POST", "checkout/sessions", {
      key: demo.apiKey,
      body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { customerId: made.body.data.id, phone: "+44 20 7946 0000", firstName: "Grace" } },
    });
    expect(s.status).toBe(201);
    const read = await api("GET", `customers/${made.body.data.id}`, { key: demo.apiKey });
    expect(read.body.data).toMatchObject({ phone: "+44 20 7946 0000", name: "Grace" });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", email: `${ext}@example.com` } });
    expect(done.status).toBe(200);
    expect((await api("GET", `orders/${done.body.data.orderId}`, { key: demo.apiKey })).body.data.customerId).toBe(made.body.data.id);

    // a guest customer (email only) gets the merchant's externalId when a session names both
    const guestEmail = `guest-${ext}@example.com`;
    const guest = await api("POST", "customers", { key: demo.apiKey, body: { email: guestEmail } });
    const linked = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { externalCustomerId: `x-${ext}`, email: guestEmail } } });
    expect(linked.status).toBe(201);
    expect((await byExternal(`x-${ext}`)).body.data).toMatchObject({ id: guest.body.data.id, email: guestEmail });
  });

  test("two sessions creating the same new externalId at once make one customer; both sessions name it", async () => {
    const ext = uniq("race");
    const make = async () =>
      api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { externalCustomerId: ext, email: `${ext}@example.com` } } });
    const [a, b] = await Promise.all([make(), make()]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const rows = await t.deps.prisma.customer.findMany({ where: { applicationId: demo.applicationId, externalId: ext } });
    expect(rows).toHaveLength(1);
    const sessions = await t.deps.prisma.checkoutSession.findMany({ where: { id: { in: [a.body.data.id, b.body.data.id] } } });
    expect(sessions.map((x) => x.customerId)).toEqual([rows[0].id, rows[0].id]);
  });

  test("an email that is another customer's cannot be given to the externalId's customer: 409 customer_already_exists, nothing written", async () => {
    const ext = uniq("clash");
    await api("POST", "customers", { key: demo.apiKey, body: { externalId: ext, email: `${ext}@example.com` } });
    await api("POST", "customers", { key: demo.apiKey, body: { email: `taken-${ext}@example.com` } });
    const cartId = await cartWithLine();
    const r = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId, ...urls, customer: { externalCustomerId: ext, email: `taken-${ext}@example.com`, phone: "1" } } });
    expect({ status: r.status, code: r.body.error?.code, field: r.body.error?.details?.field }).toEqual({ status: 409, code: "customer_already_exists", field: "email" });
    expect((await byExternal(ext)).body.data).toMatchObject({ email: `${ext}@example.com`, phone: null });
    expect(await t.deps.prisma.checkoutSession.count({ where: { cartId } })).toBe(0);
  });
  test("the customer object's addresses are stored on the customer (canonical shape) and read back; a later session changes only what differs", async () => {
    const ext = uniq("addr");
    const billing = { addressLine1: "9 Bill Rd", addressLine2: "Suite 4", city: "Leeds", stateProvince: "West Yorkshire", postalCode: "LS1 1AA", countryCode: "gb" };
    const s = await api("POST", "checkout/sessions", {
      key: demo.apiKey,
      body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { externalCustomerId: ext, email: `${ext}@example.com`, shippingAddress: ADDRESS, billingAddress: billing } },
    });
    expect(s.status).toBe(201);
    const canonicalShipping = { addressLine1: "1 Main St", addressLine2: null, city: "Springfield", stateProvince: null, postalCode: "12345", countryCode: "US" };
    const c = await byExternal(ext);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ shippingAddress: canonicalShipping, billingAddress: { ...billing, countryCode: "GB" } });
    const byId = await api("GET", `customers/${c.body.data.id}`, { key: demo.apiKey });
    expect(byId.body.data).toMatchObject({ shippingAddress: canonicalShipping, billingAddress: { ...billing, countryCode: "GB" } });

    // a second session sending only a new shipping address keeps the billing address
    const moved = { ...ADDRESS, addressLine1: "2 Elm St" };
    expect((await api("POST", "checkout/sessions", { key: demo.apiKey, body: { applicationId: demo.applicationId, cartId: await cartWithLine(), ...urls, customer: { externalCustomerId: ext, shippingAddress: moved } } })).status).toBe(201);
    expect((await byExternal(ext)).body.data).toMatchObject({ shippingAddress: { ...canonicalShipping, addressLine1: "2 Elm St" }, billingAddress: { ...billing, countryCode: "GB" } });

    // POST /customers takes them too; a customer without addresses reads them as null
    const made = await api("POST", "customers", { key: demo.apiKey, body: { externalId: `made-${ext}`, billingAddress: ADDRESS } });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ shippingAddress: null, billingAddress: canonicalShipping });
    const bad = await api("POST", "customers", { key: demo.apiKey, body: { externalId: `bad-${ext}`, shippingAddress: { ...ADDRESS, planet: "Mars" } } });
    expect({ status: bad.status, code: bad.body.error?.code }).toEqual({ status: 422, code: "validation_error" });
  });
});

describe("GraphQL", () => {
  test("createCheckoutSession(customer: { externalCustomerId }) creates the customer; a recurring completion makes everything theirs", async () => {
    const ext = uniq("gql");
    const email = `${ext}@example.com`;
    const created = await gql(
      `mutation($cartId: ID!, $customer: CheckoutCustomerInput, $recurring: RecurringInput) {
        createCheckoutSession(cartId: $cartId, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no", customer: $customer, recurring: $recurring) { id }
      }`,
      { cartId: await emptyCart(), customer: { externalCustomerId: ext, email, firstName: "Lin", lastName: "Qiao" }, recurring: RECURRING },
    );
    expect(created.errors).toBeUndefined();
    const found = await gql(`query($e: String!) { customerByExternalId(externalId: $e) { id email name } }`, { e: ext });
    expect(found.data.customerByExternalId).toMatchObject({ email, name: "Lin Qiao" });
    const done = await gql(
      `mutation($id: ID!, $a: AddressInput) { completeCheckoutSession(id: $id, paymentMethod: card, paymentToken: "tok_visa", shippingAddress: $a) { orderId subscriptionId } }`,
      { id: created.data.createCheckoutSession.id, a: ADDRESS },
      null,
    );
    expect(done.errors).toBeUndefined();
    const order = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: done.data.completeCheckoutSession.orderId } });
    const sub = await t.deps.prisma.subscription.findUniqueOrThrow({ where: { id: done.data.completeCheckoutSession.subscriptionId } });
    expect([order.customerId, sub.customerId]).toEqual([found.data.customerByExternalId.id, found.data.customerByExternalId.id]);
    expect(await t.deps.prisma.savedCard.count({ where: { customerId: found.data.customerByExternalId.id } })).toBe(1);
  });

  test("createCheckoutSession(customer: { shippingAddress, billingAddress }) stores them on the customer; Customer reads them", async () => {
    const ext = uniq("gqladdr");
    const created = await gql(
      `mutation($cartId: ID!, $customer: CheckoutCustomerInput) {
        createCheckoutSession(cartId: $cartId, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no", customer: $customer) { id }
      }`,
      { cartId: await cartWithLine(), customer: { externalCustomerId: ext, shippingAddress: ADDRESS, billingAddress: { ...ADDRESS, city: "Shelbyville" } } },
    );
    expect(created.errors).toBeUndefined();
    const fields = "id shippingAddress { addressLine1 addressLine2 city stateProvince postalCode countryCode } billingAddress { city countryCode }";
    const found = await gql(`query($e: String!) { customerByExternalId(externalId: $e) { ${fields} } }`, { e: ext });
    expect(found.errors).toBeUndefined();
    expect(found.data.customerByExternalId).toMatchObject({
      shippingAddress: { addressLine1: "1 Main St", addressLine2: null, city: "Springfield", stateProvince: null, postalCode: "12345", countryCode: "US" },
      billingAddress: { city: "Shelbyville", countryCode: "US" },
    });
    const byId = await gql(`query($id: ID!) { customer(id: $id) { billingAddress { city } } }`, { id: found.data.customerByExternalId.id });
    expect(byId.data.customer.billingAddress).toEqual({ city: "Shelbyville" });
  });
});
