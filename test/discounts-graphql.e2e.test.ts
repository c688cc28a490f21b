// Discounts, the cart's promotion code, processor-proxy charges and the publishable estimate over GraphQL: the same
// services as REST, the same codes in extensions.code (and details.reason), tenancy and scopes.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import {
  AddCartItemDocument,
  ApplyCartDiscountDocument,
  CartWithDiscountDocument,
  CompleteWithProcessorChargeDocument,
  CreateCartDocument,
  CreateDiscountDocument,
  CreateDiscountedSessionDocument,
  CreateTestProcessorChargeDocument,
  DiscountDocument,
  DiscountsDocument,
  EstimateDocument,
  RemoveCartDiscountDocument,
  UpdateDiscountDocument,
} from "./generated/graphql";

const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", countryCode: "US" };
let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => {
  t = (await startTestApp())!;
  gql = gqlClient(t.url);
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("discounts-gql-other");
  await api("PUT", "shipping-tax/settings", { key: demo.apiKey, body: { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }], taxRates: { US: { rateBps: 1000 } } } });
});
afterAll(() => t?.close());

const key = () => ({ key: demo.apiKey });
async function cart() {
  const c = await gql(CreateCartDocument, { applicationId: demo.applicationId, customerEmail: "buyer@example.com" }, key());
  await gql(AddCartItemDocument, { cartId: c.data!.createCart.id, item: { name: "Widget", unitPrice: 4000 } }, key());
  return c.data!.createCart.id;
}

test("create, read, list, update a discount; apply and remove it on a cart; the same error codes as REST", async () => {
  const code = `GQL${randomUUID().slice(0, 8)}`;
  const created = await gql(CreateDiscountDocument, { code, type: "percent", value: 25, maxRedemptions: 3 }, key());
  expect(created.errors).toBeNull();
  expect(created.data!.createDiscount).toMatchObject({ code, type: "percent", value: 25, maxRedemptions: 3, redemptionCount: 0, active: true, currency: null });
  const id = created.data!.createDiscount.id;
  const dup = await gql(CreateDiscountDocument, { code: code.toLowerCase(), type: "percent", value: 5 }, key());
  expect(codeOf(dup)).toBe("discount_code_taken");
  const bad = await gql(CreateDiscountDocument, { code: `X${code}`, type: "fixed", value: 5 }, key());
  expect(codeOf(bad)).toBe("validation_error");
  expect((await gql(DiscountDocument, { id }, key())).data!.discount.code).toBe(code);
  const list = await gql(DiscountsDocument, { code: code.toLowerCase() }, key());
  expect(list.data!.discounts.nodes.map((d) => d.id)).toEqual([id]);
  const upd = await gql(UpdateDiscountDocument, { id, value: 50, maxRedemptions: null }, key());
  expect(upd.data!.updateDiscount).toMatchObject({ value: 50, maxRedemptions: null, active: true });

  const cartId = await cart();
  const applied = await gql(ApplyCartDiscountDocument, { cartId, code: code.toLowerCase() }, key());
  expect(applied.data!.applyCartDiscount).toMatchObject({ subtotal: 4000, discountTotal: 2000, total: 2000, appliedDiscount: { code, type: "percent", value: 50, amount: 2000 } });
  expect((await gql(CartWithDiscountDocument, { id: cartId }, key())).data!.cart.appliedDiscount).toMatchObject({ amount: 2000 });
  const unknown = await gql(ApplyCartDiscountDocument, { cartId, code: "NOPE" }, key());
  expect([codeOf(unknown), unknown.errors![0].extensions!.details.reason]).toEqual(["discount_invalid", "unknown_code"]);
  await gql(UpdateDiscountDocument, { id, active: false }, key());
  const inactive = await gql(ApplyCartDiscountDocument, { cartId, code }, key());
  expect(inactive.errors![0].extensions!.details.reason).toBe("inactive");
  const removed = await gql(RemoveCartDiscountDocument, { cartId }, key());
  expect(removed.data!.removeCartDiscount).toMatchObject({ discountTotal: 0, total: 4000, appliedDiscount: null });

  // tenancy and scopes
  expect(codeOf(await gql(DiscountDocument, { id }, { key: other.apiKey }))).toBe("not_found");
  expect(codeOf(await gql(UpdateDiscountDocument, { id, value: 1 }, { key: other.apiKey }))).toBe("not_found");
  expect(codeOf(await gql(ApplyCartDiscountDocument, { cartId, code }, { key: other.apiKey }))).toBe("cart_not_found");
  const reader = (await mintKeyVia(api, demo, ["discounts:read", "carts:read"])).rawKey;
  expect(codeOf(await gql(CreateDiscountDocument, { code: "R1", type: "percent", value: 5 }, { key: reader }))).toBe("insufficient_scopes");
  expect(codeOf(await gql(ApplyCartDiscountDocument, { cartId, code }, { key: reader }))).toBe("insufficient_scopes");
  expect(codeOf(await gql(RemoveCartDiscountDocument, { cartId }, { key: reader }))).toBe("insufficient_scopes");
  expect(codeOf(await gql(DiscountsDocument, {}, { key: (await mintKeyVia(api, demo, ["carts:read"])).rawKey }))).toBe("insufficient_scopes");
});

test("a session's discountCode and a processor-proxy completion over GraphQL", async () => {
  const code = `PX${randomUUID().slice(0, 8)}`;
  await gql(CreateDiscountDocument, { code, type: "fixed", value: 1000, currency: "USD" }, key());
  const cartId = await cart();
  const bad = await gql(CreateDiscountedSessionDocument, { cartId, discountCode: "NOPE" }, key());
  expect(codeOf(bad)).toBe("discount_invalid");
  const s = await gql(CreateDiscountedSessionDocument, { cartId, discountCode: code, allowedMethods: ["processor_proxy"] }, key());
  expect(s.data!.createCheckoutSession).toMatchObject({ discountCode: code, allowedMethods: ["processor_proxy"] });
  const sessionId = s.data!.createCheckoutSession.id;

  const wrong = await gql(CreateTestProcessorChargeDocument, { amount: 4000, currency: "USD" }, key());
  const mismatch = await gql(CompleteWithProcessorChargeDocument, { id: sessionId, processorTransactionId: wrong.data!.createTestProcessorCharge.id, shippingAddress: ADDRESS });
  expect([codeOf(mismatch), mismatch.errors![0].extensions!.details.reason]).toEqual(["payment_failed", "amount_mismatch"]);
  const charge = await gql(CreateTestProcessorChargeDocument, { amount: 3000, currency: "USD", status: "authorized" }, key());
  expect(charge.data!.createTestProcessorCharge).toMatchObject({ amount: 3000, currency: "USD", status: "authorized" });
  const done = await gql(CompleteWithProcessorChargeDocument, { id: sessionId, processorTransactionId: charge.data!.createTestProcessorCharge.id, shippingAddress: ADDRESS });
  expect(done.errors).toBeNull();
  expect(done.data!.completeCheckoutSession.paymentStatus).toBe("authorized");
  const again = await gql(CompleteWithProcessorChargeDocument, { id: (await gql(CreateDiscountedSessionDocument, { cartId: await cart(), allowedMethods: ["processor_proxy"] }, key())).data!.createCheckoutSession.id, processorTransactionId: charge.data!.createTestProcessorCharge.id, shippingAddress: ADDRESS });
  expect(again.errors![0].extensions!.details.reason).toBe("amount_mismatch");
  const reader = (await mintKeyVia(api, demo, ["payments:read"])).rawKey;
  expect(codeOf(await gql(CreateTestProcessorChargeDocument, { amount: 1, currency: "USD" }, { key: reader }))).toBe("insufficient_scopes");
});

test("estimate with a publishable key; invalid_quote_token, store_not_found, secret keys refused", async () => {
  const pk = (await mintKeyVia(api, demo, ["publishable", "shipping_quotes:write", "tax_calculations:write"])).rawKey;
  const vars = { applicationId: demo.applicationId, quoteToken: pk, currency: "USD", items: [{ id: "a", subtotalAmount: 5000 }], discountsTotal: 1000, selectedShippingMethodId: "std", addresses: { shipping: { countryCode: "US" } } };
  const r = await gql(EstimateDocument, vars, { key: pk });
  expect(r.errors).toBeNull();
  expect(r.data!.estimate).toMatchObject({ kind: "quote", status: "final", tax: { taxTotal: 470 }, totals: { subtotal: 5000, discountTotal: 1000, shippingTotal: 700, taxTotal: 470, total: 5170 } });
  expect((await gql(EstimateDocument, vars)).data!.estimate.status).toBe("final"); // the token alone
  expect(codeOf(await gql(EstimateDocument, { ...vars, quoteToken: "pk_sandbox_nope1" }))).toBe("invalid_quote_token");
  expect(codeOf(await gql(EstimateDocument, { ...vars, applicationId: randomUUID() }, { key: pk }))).toBe("store_not_found");
  expect(codeOf(await gql(EstimateDocument, vars, key()))).toBe("forbidden");
  expect(codeOf(await gql(EstimateDocument, { ...vars, items: [] }, { key: pk }))).toBe("validation_error");
  expect(codeOf(await gql(DiscountsDocument, {}, { key: pk }))).toBe("forbidden");
});
