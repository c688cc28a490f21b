// The storefront flow over GraphQL: same services as REST, same codes in extensions.code, and orderUpdated(id).
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import {
  AddCartItemDocument,
  CaptureOrderDocument,
  CompleteCheckoutSessionDocument,
  CreateCartDocument,
  CreateCheckoutSessionDocument,
  OrderDocument,
  OrdersDocument,
  RefundPaymentDocument,
  SelectCartShippingDocument,
} from "./generated/graphql";

const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", countryCode: "US" };
let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;

beforeAll(async () => {
  t = (await startTestApp())!;
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
});
afterAll(() => t?.close());

async function sessionWithCart() {
  const key = { key: demo.apiKey };
  const cart = await gql(CreateCartDocument, { applicationId: demo.applicationId, customerEmail: "gql@example.com" }, key);
  expect(cart.errors).toBeNull();
  const cartId = cart.data!.createCart.id;
  for (const [name, unitPrice, quantity] of [["A", 1000, 1], ["B", 2000, 2], ["C", 500, 3]] as const) {
    const r = await gql(AddCartItemDocument, { cartId, item: { name, unitPrice, quantity } }, key);
    expect(r.errors).toBeNull();
  }
  const shipped = await gql(SelectCartShippingDocument, { cartId, shipping: { methodId: "std", displayName: "Standard", rateAmount: 600 } }, key);
  expect(shipped.data!.selectCartShipping).toMatchObject({ shippingTotal: 600, total: 7100 });
  const s = await gql(CreateCheckoutSessionDocument, { applicationId: demo.applicationId, cartId, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no" }, key);
  expect(s.errors).toBeNull();
  return s.data!.createCheckoutSession.id;
}

test("cart, 3 lines, shipping, session, complete with tok_visa -> processing / captured", async () => {
  const id = await sessionWithCart();
  const done = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS }, {});
  expect(done.errors).toBeNull();
  const o = await gql(OrderDocument, { id: done.data!.completeCheckoutSession.orderId }, { key: demo.apiKey });
  expect(o.data!.order).toMatchObject({ status: "processing", paymentStatus: "captured", total: 7100, capturedAmount: 7100, refundedAmount: 0 });
  expect(o.data!.order.payments).toEqual([expect.objectContaining({ status: "captured", method: "card", capturedAmount: 7100 })]);
  const refund = await gql(RefundPaymentDocument, { id: done.data!.completeCheckoutSession.paymentId, amount: 100 }, { key: demo.apiKey });
  expect(refund.data!.refundPayment).toMatchObject({ status: "partially_refunded", refundedAmount: 100 });
  const over = await gql(RefundPaymentDocument, { id: done.data!.completeCheckoutSession.paymentId, amount: 1_000_000 }, { key: demo.apiKey });
  expect(codeOf(over)).toBe("refund_not_allowed");
});

test("declined: payment_failed in extensions.code, order paymentStatus failed; 3DS -> processing", async () => {
  const id = await sessionWithCart();
  const declined = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_card_declined", shippingAddress: ADDRESS }, {});
  expect(codeOf(declined)).toBe("payment_failed");
  const orderId = declined.errors![0].extensions!.details.orderId;
  expect((await gql(OrderDocument, { id: orderId }, { key: demo.apiKey })).data!.order).toMatchObject({ status: "pending", paymentStatus: "failed" });
  const tds = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_3ds_required", shippingAddress: ADDRESS }, {});
  expect(tds.data!.completeCheckoutSession).toMatchObject({ orderId, paymentStatus: "processing" });
  expect(codeOf(await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS }, {}))).toBe("session_not_open");
  expect(codeOf(await gql(CompleteCheckoutSessionDocument, { id: "00000000-0000-4000-8000-000000000000", paymentMethod: "card" }, {}))).toBe("session_not_found");
});

test("orderUpdated(id) streams the order after capture; another tenant gets not_found", async () => {
  const id = await sessionWithCart();
  const done = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_visa_authorize", shippingAddress: ADDRESS }, {});
  const orderId = done.data!.completeCheckoutSession.orderId;
  const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": demo.apiKey }, retryAttempts: 0, lazy: true });
  const it = ws.iterate({ query: `subscription($id: ID!) { orderUpdated(id: $id) { id paymentStatus capturedAmount } }`, variables: { id: orderId } });
  // The current state comes first, so a subscriber never misses what happened before its first event.
  expect((await it.next()).value).toEqual({ data: { orderUpdated: { id: orderId, paymentStatus: "authorized", capturedAmount: 0 } } });
  const next = it.next();
  const cap = await gql(CaptureOrderDocument, { id: orderId }, { key: demo.apiKey });
  expect(cap.data!.captureOrder).toMatchObject({ paymentStatus: "captured", capturedAmount: 7100 });
  expect((await next).value).toEqual({ data: { orderUpdated: { id: orderId, paymentStatus: "captured", capturedAmount: 7100 } } });
  await ws.dispose();

  const other = await t.otherWorkspace("gql-orders-other");
  expect(codeOf(await gql(OrderDocument, { id: orderId }, { key: other.apiKey }))).toBe("not_found");
  const ws2 = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": other.apiKey }, retryAttempts: 0, lazy: true });
  const denied = await ws2.iterate({ query: `subscription($id: ID!) { orderUpdated(id: $id) { id } }`, variables: { id: orderId } }).next();
  expect((denied.value as any).errors[0].extensions.code).toBe("not_found");
  await ws2.dispose();
  const list = await gql(OrdersDocument, { paymentStatus: "captured" }, { key: demo.apiKey });
  expect(list.data!.orders.nodes.map((n) => n.id)).toContain(orderId);
});

test("checkoutSessionUpdated(id) sends the open session first, then the transition to completed; another tenant gets session_not_found", async () => {
  const id = await sessionWithCart();
  const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": demo.apiKey }, retryAttempts: 0, lazy: true });
  const it = ws.iterate({ query: `subscription($id: ID!) { checkoutSessionUpdated(id: $id) { id status orderId } }`, variables: { id } });
  expect((await it.next()).value).toEqual({ data: { checkoutSessionUpdated: { id, status: "open", orderId: null } } });
  const done = await gql(CompleteCheckoutSessionDocument, { id, paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS }, {});
  const orderId = done.data!.completeCheckoutSession.orderId;
  const seen: any[] = [];
  for (;;) {
    const v = (await it.next()).value as any;
    seen.push(v.data.checkoutSessionUpdated);
    if (v.data.checkoutSessionUpdated.status === "completed") break;
  }
  expect(seen.at(-1)).toEqual({ id, status: "completed", orderId });
  await ws.dispose();

  const other = await t.otherWorkspace("gql-session-other");
  const ws2 = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": other.apiKey }, retryAttempts: 0, lazy: true });
  const denied = await ws2.iterate({ query: `subscription($id: ID!) { checkoutSessionUpdated(id: $id) { id } }`, variables: { id } }).next();
  expect((denied.value as any).errors[0].extensions.code).toBe("session_not_found");
  await ws2.dispose();
});
