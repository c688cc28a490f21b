// Customers, cart edits, shipping and tax settings, embedded checkout, session payment methods, order history,
// payments and transactions over GraphQL: the same services and views as REST (equal bodies), the same codes in
// extensions.code, and another workspace sees none of it.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { codeOf, gqlClient, type GqlResult } from "./helpers/gql";
import { client, mintKeyVia, type Res } from "./helpers/http";
import {
  AddCartItemDocument,
  CartDocument,
  CheckoutSessionEmbedTokenDocument,
  CheckoutSessionPaymentMethodsDocument,
  ClearCartShippingDocument,
  CompleteCheckoutSessionDocument,
  CreateCartDocument,
  CreateCheckoutEmbedTokenDocument,
  CreateCheckoutSessionDetailedDocument,
  CreateCheckoutSessionDocument,
  CreateCustomerCartDocument,
  CreateCustomerDocument,
  CreateWebhookEndpointDocument,
  CustomerByExternalIdDocument,
  CustomerDocument,
  OrderDetailDocument,
  OrderPaymentsDocument,
  OrderStatusHistoryDocument,
  PaymentDocument,
  PaymentTransactionsDocument,
  RemoveCartItemDocument,
  ReplaceCartTaxLinesDocument,
  ReplaceShippingTaxSettingsDocument,
  ResolveTestPaymentDocument,
  SelectCartShippingDocument,
  ShippingTaxSettingsDocument,
  CalculateCartDocument,
  UpdateCartDocument,
  UpdateCartItemDocument,
  WebhookEndpointDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => {
  ({ t, api, demo, other } = await startWithTwoTenants("gql-commerce-other"));
  gql = gqlClient(t.url);
});
afterAll(() => t?.close());

const key = () => ({ key: demo.apiKey });
const UNKNOWN = "00000000-0000-4000-8000-000000000000";
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", countryCode: "US" };

/** The GraphQL error carries REST's code and status for the same request. */
function expectSameError(g: GqlResult<unknown>, r: Res, code: string) {
  expect({ gql: codeOf(g), gqlStatus: g.errors?.[0]?.extensions?.status, rest: r.body?.error?.code, restStatus: r.status }).toEqual({
    gql: code,
    gqlStatus: r.status,
    rest: code,
    restStatus: r.status,
  });
  expect(g.data).toBeNull();
}

/** REST's payment view names Net-N `net_n`; GraphQL names fields in camelCase. */
const restPayment = ({ net_n, ...p }: Record<string, unknown>) => ({ ...p, netN: net_n });

async function cartWithItems(items: [string, number, number][]) {
  const cart = await gql(CreateCartDocument, { applicationId: demo.applicationId, customerEmail: "gql-commerce@example.com" }, key());
  expect(cart.errors).toBeNull();
  const cartId = cart.data!.createCart.id;
  for (const [name, unitPrice, quantity] of items) {
    expect((await gql(AddCartItemDocument, { cartId, item: { name, unitPrice, quantity } }, key())).errors).toBeNull();
  }
  return cartId;
}

async function openSession() {
  const cartId = await cartWithItems([["A", 1000, 1], ["B", 2000, 2]]);
  const s = await gql(CreateCheckoutSessionDocument, { applicationId: demo.applicationId, cartId, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no" }, key());
  expect(s.errors).toBeNull();
  return s.data!.createCheckoutSession.id;
}

async function completed(paymentToken = "tok_visa") {
  const id = await openSession();
  const done = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken, shippingAddress: ADDRESS }, {});
  expect(done.errors).toBeNull();
  return { sessionId: id, ...done.data!.completeCheckoutSession };
}

describe("customers", () => {
  test("createCustomer, customer (with or without cus_) and customerByExternalId equal REST", async () => {
    const c = await gql(CreateCustomerDocument, { email: "  Ada@Example.COM ", externalId: "crm-gql-1", company: "", name: "Ada", metadata: { tier: "gold" } }, key());
    expect(c.errors).toBeNull();
    const created = c.data!.createCustomer;
    expect(created).toMatchObject({ email: "ada@example.com", externalId: "crm-gql-1", company: null, name: "Ada", phone: null, metadata: { tier: "gold" } });
    const rest = await api("GET", `customers/${created.id}`, key());
    expect(created).toEqual(rest.body.data);
    for (const id of [created.id, `cus_${created.id}`]) expect((await gql(CustomerDocument, { id }, key())).data!.customer).toEqual(rest.body.data);
    expect((await gql(CustomerByExternalIdDocument, { externalId: "crm-gql-1" }, key())).data!.customerByExternalId).toEqual(rest.body.data);
  });

  test("same codes as REST: customer_already_exists, validation_error, not_found, insufficient_scopes", async () => {
    await gql(CreateCustomerDocument, { email: "dup@example.com" }, key());
    expectSameError(await gql(CreateCustomerDocument, { email: "DUP@example.com" }, key()), await api("POST", "customers", { ...key(), body: { email: "DUP@example.com" } }), "customer_already_exists");
    expectSameError(await gql(CreateCustomerDocument, { email: "not-an-email" }, key()), await api("POST", "customers", { ...key(), body: { email: "not-an-email" } }), "validation_error");
    expectSameError(await gql(CustomerDocument, { id: UNKNOWN }, key()), await api("GET", `customers/${UNKNOWN}`, key()), "not_found");
    expectSameError(await gql(CustomerByExternalIdDocument, { externalId: "nobody" }, key()), await api("GET", "customers/by-external/nobody", key()), "not_found");
    const cartsOnly = { key: (await mintKeyVia(api, demo, ["carts:read"])).rawKey };
    expectSameError(await gql(CreateCustomerDocument, { email: "x@example.com" }, cartsOnly), await api("POST", "customers", { ...cartsOnly, body: { email: "x@example.com" } }), "insufficient_scopes");
    expectSameError(await gql(CustomerDocument, { id: UNKNOWN }, cartsOnly), await api("GET", `customers/${UNKNOWN}`, cartsOnly), "insufficient_scopes");
  });
});

describe("carts", () => {
  test("updateCart, updateCartItem, removeCartItem, clearCartShipping, replaceCartTaxLines: the cart equals GET /carts/{id}", async () => {
    const customer = (await gql(CreateCustomerDocument, { email: "cart-owner@example.com" }, key())).data!.createCustomer;
    const created = await gql(CreateCustomerCartDocument, { applicationId: demo.applicationId, customerId: `cus_${customer.id}` }, key());
    expect(created.errors).toBeNull();
    expect(created.data!.createCart).toMatchObject({ customerId: customer.id, customerEmail: "cart-owner@example.com", applicationId: demo.applicationId });
    const cartId = created.data!.createCart.id;
    const added = await gql(AddCartItemDocument, { cartId, item: { name: "A", unitPrice: 1000, quantity: 1 } }, key());
    await gql(AddCartItemDocument, { cartId, item: { name: "B", unitPrice: 500, quantity: 2 } }, key());
    const [lineA] = added.data!.addCartItem.lineItems;

    const updated = await gql(UpdateCartDocument, { id: cartId, notes: "leave at door", shippingAddress: ADDRESS, metadata: { src: "gql" } }, key());
    expect(updated.errors).toBeNull();
    expect(updated.data!.updateCart).toMatchObject({ notes: "leave at door", shippingAddress: expect.objectContaining({ city: "Springfield", countryCode: "US" }), metadata: { src: "gql" } });
    expect(updated.data!.updateCart).toEqual((await api("GET", `carts/${cartId}`, key())).body.data);
    // absent arguments are unchanged; explicit nulls clear what REST's PATCH clears with null
    const same = await gql(UpdateCartDocument, { id: cartId, metadata: { src: "gql2" } }, key());
    expect(same.data!.updateCart).toMatchObject({ notes: "leave at door", customerId: customer.id, metadata: { src: "gql2" } });
    const cleared = await gql(UpdateCartDocument, { id: cartId, notes: null, customerId: null, customerEmail: null }, key());
    expect(cleared.data!.updateCart).toMatchObject({ notes: null, customerId: null, customerEmail: null, shippingAddress: expect.objectContaining({ city: "Springfield" }) });

    const item = await gql(UpdateCartItemDocument, { cartId, id: lineA.id, quantity: 3, discountAmount: 100, metadata: { gift: true } }, key());
    expect(item.errors).toBeNull();
    expect(item.data!.updateCartItem.lineItems.find((l) => l.id === lineA.id)).toMatchObject({ quantity: 3, discountAmount: 100, total: 2900, metadata: { gift: true } });
    expect(item.data!.updateCartItem).toMatchObject({ subtotal: 4000, discountTotal: 100, total: 3900 });

    const shipped = await gql(SelectCartShippingDocument, { cartId, shipping: { methodId: "std", displayName: "Standard", rateAmount: 600 } }, key());
    expect(shipped.data!.selectCartShipping.shippingTotal).toBe(600);
    const unshipped = await gql(ClearCartShippingDocument, { cartId }, key());
    expect(unshipped.data!.clearCartShipping).toMatchObject({ shippingTotal: 0, selectedShipping: null, total: 3900 });

    const taxed = await gql(ReplaceCartTaxLinesDocument, { cartId, lines: [{ name: "Sales tax", amount: 312, rateBps: 800, jurisdiction: "US" }, { name: "City", amount: 10 }] }, key());
    expect(taxed.errors).toBeNull();
    expect(taxed.data!.replaceCartTaxLines).toMatchObject({
      taxTotal: 322,
      total: 4222,
      taxLines: [
        { name: "Sales tax", amount: 312, rateBps: 800, jurisdiction: "US" },
        { name: "City", amount: 10, rateBps: null, jurisdiction: null },
      ],
    });

    const removed = await gql(RemoveCartItemDocument, { cartId, id: lineA.id }, key());
    expect(removed.errors).toBeNull();
    expect(removed.data!.removeCartItem.lineItems.map((l) => l.name)).toEqual(["B"]);
    const rest = (await api("GET", `carts/${cartId}`, key())).body.data;
    expect(removed.data!.removeCartItem).toEqual(rest);
    expect((await gql(CartDocument, { id: cartId }, key())).data!.cart).toEqual(rest);
    expect(await gql(ReplaceCartTaxLinesDocument, { cartId, lines: [] }, key())).toMatchObject({ data: { replaceCartTaxLines: { taxLines: [], taxTotal: 0 } } });
  });

  test("same codes as REST: validation_error, not_found for a line or cart, cart_not_editable, insufficient_scopes", async () => {
    const cartId = await cartWithItems([["A", 1000, 1]]);
    const lineId = (await gql(CartDocument, { id: cartId }, key())).data!.cart.lineItems[0].id;
    const patchItem = (body: unknown, k = key(), line = lineId) => api("PATCH", `carts/${cartId}/items/${line}`, { ...k, body });
    expectSameError(await gql(UpdateCartItemDocument, { cartId, id: lineId, quantity: 0 }, key()), await patchItem({ quantity: 0 }), "validation_error");
    expectSameError(await gql(UpdateCartItemDocument, { cartId, id: lineId, discountAmount: 5000 }, key()), await patchItem({ discountAmount: 5000 }), "validation_error");
    expectSameError(await gql(UpdateCartItemDocument, { cartId, id: UNKNOWN, quantity: 2 }, key()), await patchItem({ quantity: 2 }, key(), UNKNOWN), "not_found");
    expectSameError(await gql(RemoveCartItemDocument, { cartId, id: UNKNOWN }, key()), await api("DELETE", `carts/${cartId}/items/${UNKNOWN}`, key()), "not_found");
    const badLines = [{ name: "Tax", amount: -1 }];
    expectSameError(await gql(ReplaceCartTaxLinesDocument, { cartId, lines: badLines }, key()), await api("PUT", `carts/${cartId}/tax-lines`, { ...key(), body: { lines: badLines } }), "validation_error");
    expectSameError(await gql(UpdateCartDocument, { id: cartId, customerEmail: "nope" }, key()), await api("PATCH", `carts/${cartId}`, { ...key(), body: { customerEmail: "nope" } }), "validation_error");
    expectSameError(await gql(UpdateCartDocument, { id: UNKNOWN, notes: "x" }, key()), await api("PATCH", `carts/${UNKNOWN}`, { ...key(), body: { notes: "x" } }), "cart_not_found");
    expectSameError(await gql(ClearCartShippingDocument, { cartId: UNKNOWN }, key()), await api("DELETE", `carts/${UNKNOWN}/shipping`, key()), "cart_not_found");
    const readOnly = { key: (await mintKeyVia(api, demo, ["carts:read"])).rawKey };
    expectSameError(await gql(UpdateCartDocument, { id: cartId, notes: "x" }, readOnly), await api("PATCH", `carts/${cartId}`, { ...readOnly, body: { notes: "x" } }), "insufficient_scopes");
    expectSameError(await gql(RemoveCartItemDocument, { cartId, id: lineId }, readOnly), await api("DELETE", `carts/${cartId}/items/${lineId}`, readOnly), "insufficient_scopes");
    // a completed checkout converts its cart: no more edits, over either interface
    const { orderId } = await completed();
    const convertedId = (await gql(OrderDetailDocument, { id: orderId }, key())).data!.order.cartId!;
    expectSameError(await gql(UpdateCartDocument, { id: convertedId, notes: "late" }, key()), await api("PATCH", `carts/${convertedId}`, { ...key(), body: { notes: "late" } }), "cart_not_editable");
  });
});

describe("checkout", () => {
  test("checkoutSessionPaymentMethods needs no credential and equals REST; unknown session is session_not_found", async () => {
    const id = await openSession();
    const g = await gql(CheckoutSessionPaymentMethodsDocument, { id }, {});
    expect(g.errors).toBeNull();
    expect(g.data!.checkoutSessionPaymentMethods.methods.map((m) => m.method).sort()).toEqual(["card"]); // anonymous: no Net-N by default
    const rest = await api("GET", `checkout-sessions/${id}/payment-methods`);
    expect(g.data!.checkoutSessionPaymentMethods).toEqual({ ...rest.body.data, unavailableReason: rest.body.data.unavailableReason ?? null });
    expectSameError(await gql(CheckoutSessionPaymentMethodsDocument, { id: UNKNOWN }, {}), await api("GET", `checkout-sessions/${UNKNOWN}/payment-methods`), "session_not_found");
  });

  test("createCheckoutEmbedToken (key) and checkoutSessionEmbedToken (no credential): tokens shown, same values as REST", async () => {
    const e = await gql(CreateCheckoutEmbedTokenDocument, { amount: 2500, currency: "USD", externalCartId: "ext-gql-embed" }, key());
    expect(e.errors).toBeNull();
    const made = e.data!.createCheckoutEmbedToken;
    expect(made.embedToken).toMatch(/^emb_/);
    expect(made.hostedUrl).toBe(`${t.url}/checkout/${made.checkoutSessionId}`);
    expect(new Date(made.expiresAt).getTime()).toBeGreaterThan(Date.now());

    const g = await gql(CheckoutSessionEmbedTokenDocument, { id: made.checkoutSessionId }, {});
    expect(g.errors).toBeNull();
    expect(g.data!.checkoutSessionEmbedToken).toMatchObject({ amount: 2500, currency: "USD" });
    expect(g.data!.checkoutSessionEmbedToken.embedToken).toMatch(/^emb_/);
    expect(g.data!.checkoutSessionEmbedToken.embedToken).not.toBe(made.embedToken);
    const rest = (await api("GET", `checkout-sessions/${made.checkoutSessionId}/embed-token`)).body.data;
    const { embedToken: _a, expiresAt: _b, ...values } = g.data!.checkoutSessionEmbedToken;
    expect(values).toEqual({ amount: rest.amount, currency: rest.currency, environment: rest.environment });

    const bad = { amount: 0, currency: "USD" };
    expectSameError(await gql(CreateCheckoutEmbedTokenDocument, bad, key()), await api("POST", "checkout-sessions/embed-token", { ...key(), body: bad }), "validation_error");
    expectSameError(await gql(CheckoutSessionEmbedTokenDocument, { id: UNKNOWN }, {}), await api("GET", `checkout-sessions/${UNKNOWN}/embed-token`), "session_not_found");
    const noCheckout = { key: (await mintKeyVia(api, demo, ["carts:write"])).rawKey };
    expectSameError(await gql(CreateCheckoutEmbedTokenDocument, { amount: 100, currency: "USD" }, noCheckout), await api("POST", "checkout-sessions/embed-token", { ...noCheckout, body: { amount: 100, currency: "USD" } }), "insufficient_scopes");
    expect(codeOf(await gql(CreateCheckoutEmbedTokenDocument, { amount: 100, currency: "USD" }, {}))).toBe("unauthorized");
  });

  test("createCheckoutSession takes externalCartId, collect and metadata and shows the whole session", async () => {
    const e = await gql(CreateCheckoutEmbedTokenDocument, { amount: 700, currency: "USD", externalCartId: "ext-gql-session" }, key());
    expect(e.errors).toBeNull();
    const s = await gql(
      CreateCheckoutSessionDetailedDocument,
      { applicationId: demo.applicationId, externalCartId: "ext-gql-session", returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no", collect: { billingAddress: true }, metadata: { ref: "r1" }, netN: 45 },
      key(),
    );
    expect(s.errors).toBeNull();
    expect(s.data!.createCheckoutSession).toMatchObject({
      status: "open",
      collect: { shippingAddress: true, billingAddress: true },
      returnUrl: "https://a.test/ok",
      cancelUrl: "https://a.test/no",
      paymentTerms: { netN: 45 },
      metadata: { ref: "r1" },
      orderId: null,
      paymentId: null,
      completedAt: null,
    });
    const neither = { applicationId: demo.applicationId, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no" };
    expectSameError(await gql(CreateCheckoutSessionDetailedDocument, neither, key()), await api("POST", "checkout/sessions", { ...key(), body: neither }), "validation_error");
  });
});

describe("orders and payments", () => {
  test("after a completed checkout: order, orderStatusHistory, orderPayments, payment and paymentTransactions equal REST", async () => {
    const { orderId, paymentId } = await completed();
    const order = await gql(OrderDetailDocument, { id: orderId }, key());
    expect(order.errors).toBeNull();
    expect(order.data!.order).toMatchObject({ status: "processing", paymentStatus: "captured", total: 5000, capturedAmount: 5000 });
    expect(order.data!.order).toEqual((await api("GET", `orders/${orderId}`, key())).body.data);

    const history = await gql(OrderStatusHistoryDocument, { orderId }, key());
    expect(history.errors).toBeNull();
    expect(history.data!.orderStatusHistory.at(-1)).toMatchObject({ toStatus: "processing" });
    expect(history.data!.orderStatusHistory).toEqual((await api("GET", `orders/${orderId}/status-history`, key())).body.data);

    const payments = await gql(OrderPaymentsDocument, { orderId }, key());
    expect(payments.data!.orderPayments).toEqual([expect.objectContaining({ id: paymentId, status: "captured", capturedAmount: 5000 })]);
    expect(payments.data!.orderPayments).toEqual((await api("GET", `orders/${orderId}/payments`, key())).body.data.map(restPayment));
    expect((await gql(PaymentDocument, { id: paymentId }, key())).data!.payment).toEqual(restPayment((await api("GET", `payments/${paymentId}`, key())).body.data));

    const txs = await gql(PaymentTransactionsDocument, { paymentId }, key());
    expect(txs.errors).toBeNull();
    expect(txs.data!.paymentTransactions.length).toBeGreaterThan(0);
    expect(txs.data!.paymentTransactions.every((x) => x.paymentId === paymentId && x.status === "succeeded")).toBe(true);
    expect(txs.data!.paymentTransactions).toEqual((await api("GET", `payments/${paymentId}/transactions`, key())).body.data);

    expectSameError(await gql(OrderStatusHistoryDocument, { orderId: UNKNOWN }, key()), await api("GET", `orders/${UNKNOWN}/status-history`, key()), "not_found");
    expectSameError(await gql(PaymentTransactionsDocument, { paymentId: UNKNOWN }, key()), await api("GET", `payments/${UNKNOWN}/transactions`, key()), "not_found");
    const ordersOnly = { key: (await mintKeyVia(api, demo, ["orders:read"])).rawKey };
    expect((await gql(OrderStatusHistoryDocument, { orderId }, ordersOnly)).errors).toBeNull();
    expectSameError(await gql(OrderPaymentsDocument, { orderId }, ordersOnly), await api("GET", `orders/${orderId}/payments`, ordersOnly), "insufficient_scopes");
    expectSameError(await gql(PaymentTransactionsDocument, { paymentId }, ordersOnly), await api("GET", `payments/${paymentId}/transactions`, ordersOnly), "insufficient_scopes");
  });

  test("resolveTestPayment settles a 3-D Secure payment; same codes as REST", async () => {
    const { orderId, paymentId, paymentStatus } = await completed("tok_3ds_required");
    expect(paymentStatus).toBe("processing");
    expectSameError(await gql(ResolveTestPaymentDocument, { id: paymentId, outcome: "maybe" as never }, key()), await api("POST", `test-processor/payments/${paymentId}/resolve`, { ...key(), body: { outcome: "maybe" } }), "validation_error");
    const resolved = await gql(ResolveTestPaymentDocument, { id: paymentId, outcome: "captured" }, key());
    expect(resolved.errors).toBeNull();
    expect(resolved.data!.resolveTestPayment).toMatchObject({ id: paymentId, status: "captured", capturedAmount: 5000 });
    expect((await gql(OrderDetailDocument, { id: orderId }, key())).data!.order).toMatchObject({ paymentStatus: "captured" });
    expectSameError(await gql(ResolveTestPaymentDocument, { id: paymentId, outcome: "captured" }, key()), await api("POST", `test-processor/payments/${paymentId}/resolve`, { ...key(), body: { outcome: "captured" } }), "payment_not_processing");
    expectSameError(await gql(ResolveTestPaymentDocument, { id: UNKNOWN, outcome: "captured" }, key()), await api("POST", `test-processor/payments/${UNKNOWN}/resolve`, { ...key(), body: { outcome: "captured" } }), "not_found");
  });
});

describe("shipping and tax settings", () => {
  const SETTINGS = {
    flatRates: [
      { methodId: "standard", displayName: "Standard", rateAmount: 100, carrier: "USPS", estimatedDeliveryDays: 5 },
      { methodId: "express", displayName: "Express", rateAmount: 1500, serviceCode: "2DAY" },
    ],
    taxRates: { US: { rateBps: 825, name: "Sales tax" }, CA: { rateBps: 1300 } },
  };
  /** GraphQL cannot type a map: the tax table is a list of { countryCode, rateBps, name } there. */
  const asList = (m: Record<string, { rateBps: number; name?: string | null }>) => Object.entries(m).map(([countryCode, r]) => ({ countryCode, ...r }));
  const restAsGraphql = (d: { taxRates: Record<string, { rateBps: number; name: string | null }> }) => ({ ...d, taxRates: asList(d.taxRates).sort((a, b) => a.countryCode.localeCompare(b.countryCode)) });
  const GQL_SETTINGS = { ...SETTINGS, taxRates: asList(SETTINGS.taxRates) };

  test("shippingTaxSettings and replaceShippingTaxSettings equal REST; calculateCart persists with the new tables", async () => {
    const before = await gql(ShippingTaxSettingsDocument, {}, key());
    expect(before.data!.shippingTaxSettings).toEqual(restAsGraphql((await api("GET", "shipping-tax/settings", key())).body.data));
    const put = await gql(ReplaceShippingTaxSettingsDocument, GQL_SETTINGS, key());
    expect(put.errors).toBeNull();
    expect(put.data!.replaceShippingTaxSettings).toMatchObject({
      flatRates: [
        { methodId: "standard", displayName: "Standard", rateAmount: 100, carrier: "USPS", serviceCode: null, estimatedDeliveryDays: 5 },
        { methodId: "express", displayName: "Express", rateAmount: 1500, carrier: null, serviceCode: "2DAY", estimatedDeliveryDays: null },
      ],
      taxRates: [
        { countryCode: "CA", rateBps: 1300, name: null },
        { countryCode: "US", rateBps: 825, name: "Sales tax" },
      ],
    });
    expect(put.data!.replaceShippingTaxSettings.updatedAt).not.toBeNull();
    const rest = restAsGraphql((await api("GET", "shipping-tax/settings", key())).body.data);
    expect(rest.taxRates).toHaveLength(2);
    expect(put.data!.replaceShippingTaxSettings).toEqual(rest);
    expect((await gql(ShippingTaxSettingsDocument, {}, key())).data!.shippingTaxSettings).toEqual(rest);

    const cartId = await cartWithItems([["W", 1000, 2]]);
    const calc = await gql(CalculateCartDocument, { cartId, persist: true, selectedShippingMethodId: "standard", shippingAddress: ADDRESS }, key());
    expect(calc.errors).toBeNull();
    expect(calc.data!.calculateCart).toMatchObject({ tax: { lines: [{ amount: 173, rateBps: 825, jurisdiction: "US" }] }, totals: { shippingTotal: 100, taxTotal: 173, total: 2273 } });
    expect((await gql(CartDocument, { id: cartId }, key())).data!.cart).toMatchObject({ shippingTotal: 100, taxTotal: 173, total: 2273 });
  });

  test("same codes as REST: validation_error, insufficient_scopes", async () => {
    const bad = { flatRates: [], taxRates: { us: { rateBps: 1 } } };
    expectSameError(await gql(ReplaceShippingTaxSettingsDocument, { flatRates: [], taxRates: asList(bad.taxRates) }, key()), await api("PUT", "shipping-tax/settings", { ...key(), body: bad }), "validation_error");
    const dup = { flatRates: [SETTINGS.flatRates[0], SETTINGS.flatRates[0]], taxRates: {} };
    expectSameError(await gql(ReplaceShippingTaxSettingsDocument, { ...dup, taxRates: [] }, key()), await api("PUT", "shipping-tax/settings", { ...key(), body: dup }), "validation_error");
    // A country twice has no REST equivalent (a JSON object has each key once): refused by name, nothing stored.
    const twice = await gql(ReplaceShippingTaxSettingsDocument, { flatRates: [], taxRates: [{ countryCode: "US", rateBps: 1 }, { countryCode: "US", rateBps: 2 }] }, key());
    expect(twice.errors?.[0].extensions).toMatchObject({ code: "validation_error", details: { issues: [{ path: ["taxRates", 1, "countryCode"] }] } });
    const readOnly = { key: (await mintKeyVia(api, demo, ["shipping_tax:read"])).rawKey };
    expect((await gql(ShippingTaxSettingsDocument, {}, readOnly)).errors).toBeNull();
    expectSameError(await gql(ReplaceShippingTaxSettingsDocument, GQL_SETTINGS, readOnly), await api("PUT", "shipping-tax/settings", { ...readOnly, body: SETTINGS }), "insufficient_scopes");
    const cartsOnly = { key: (await mintKeyVia(api, demo, ["carts:read"])).rawKey };
    expectSameError(await gql(ShippingTaxSettingsDocument, {}, cartsOnly), await api("GET", "shipping-tax/settings", cartsOnly), "insufficient_scopes");
  });
});

test("another workspace's credential gets not_found, never data, for this tenant's endpoint, customer, cart, order and payment", async () => {
  const endpoint = (await gql(CreateWebhookEndpointDocument, { url: "https://example.com/hook", enabledEvents: ["order.created"] }, key())).data!.createWebhookEndpoint.endpoint;
  const customer = (await gql(CreateCustomerDocument, { email: "tenant-a@example.com", externalId: "tenant-a" }, key())).data!.createCustomer;
  const cartId = await cartWithItems([["A", 100, 1]]);
  const lineId = (await gql(CartDocument, { id: cartId }, key())).data!.cart.lineItems[0].id;
  const { orderId, paymentId } = await completed("tok_3ds_required");
  const theirs = { key: other.apiKey };

  const cases: [GqlResult<unknown>, Res, string][] = [
    [await gql(WebhookEndpointDocument, { id: endpoint.id }, theirs), await api("GET", `webhook-endpoints/${endpoint.id}`, theirs), "not_found"],
    [await gql(CustomerDocument, { id: customer.id }, theirs), await api("GET", `customers/${customer.id}`, theirs), "not_found"],
    [await gql(CustomerByExternalIdDocument, { externalId: "tenant-a" }, theirs), await api("GET", "customers/by-external/tenant-a", theirs), "not_found"],
    [await gql(CartDocument, { id: cartId }, theirs), await api("GET", `carts/${cartId}`, theirs), "cart_not_found"],
    [await gql(UpdateCartDocument, { id: cartId, notes: "mine now" }, theirs), await api("PATCH", `carts/${cartId}`, { ...theirs, body: { notes: "mine now" } }), "cart_not_found"],
    [await gql(UpdateCartItemDocument, { cartId, id: lineId, quantity: 9 }, theirs), await api("PATCH", `carts/${cartId}/items/${lineId}`, { ...theirs, body: { quantity: 9 } }), "cart_not_found"],
    [await gql(RemoveCartItemDocument, { cartId, id: lineId }, theirs), await api("DELETE", `carts/${cartId}/items/${lineId}`, theirs), "cart_not_found"],
    [await gql(ReplaceCartTaxLinesDocument, { cartId, lines: [] }, theirs), await api("PUT", `carts/${cartId}/tax-lines`, { ...theirs, body: { lines: [] } }), "cart_not_found"],
    [await gql(ClearCartShippingDocument, { cartId }, theirs), await api("DELETE", `carts/${cartId}/shipping`, theirs), "cart_not_found"],
    [await gql(OrderDetailDocument, { id: orderId }, theirs), await api("GET", `orders/${orderId}`, theirs), "not_found"],
    [await gql(OrderStatusHistoryDocument, { orderId }, theirs), await api("GET", `orders/${orderId}/status-history`, theirs), "not_found"],
    [await gql(OrderPaymentsDocument, { orderId }, theirs), await api("GET", `orders/${orderId}/payments`, theirs), "not_found"],
    [await gql(PaymentDocument, { id: paymentId }, theirs), await api("GET", `payments/${paymentId}`, theirs), "not_found"],
    [await gql(PaymentTransactionsDocument, { paymentId }, theirs), await api("GET", `payments/${paymentId}/transactions`, theirs), "not_found"],
    [await gql(ResolveTestPaymentDocument, { id: paymentId, outcome: "captured" }, theirs), await api("POST", `test-processor/payments/${paymentId}/resolve`, { ...theirs, body: { outcome: "captured" } }), "not_found"],
  ];
  for (const [g, r, code] of cases) expectSameError(g, r, code);

  // nothing changed for the owner
  expect((await gql(CartDocument, { id: cartId }, key())).data!.cart).toMatchObject({ notes: null, lineItems: [expect.objectContaining({ id: lineId, quantity: 1 })] });
  expect((await gql(PaymentDocument, { id: paymentId }, key())).data!.payment.status).toBe("processing");
});
