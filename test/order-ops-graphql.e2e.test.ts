// Order operations over GraphQL: the same services as REST, each mutation returning the re-read order (with
// paymentActions, refunds or the adjustment), and every error code of these routes in extensions.code; scopes and
// tenancy as over REST.
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { randomToken, sha256Hex } from "../src/shared/crypto";
import {
  AuthorizeOrderDocument,
  CancelOrderDocument,
  CheckoutOrderDocument,
  CloseOrderDocument,
  CompOrderDocument,
  CreateDraftOrderDocument,
  EditOrderLineItemsDocument,
  HoldOrderDocument,
  RecordOrderPaymentDocument,
  RefundOrderDocument,
  ReleaseOrderHoldDocument,
  ReverseOrderCompDocument,
  SetOrderStatusDocument,
  UpdateOrderDocument,
} from "./generated/graphql";

let t: TestApp;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let other: BootstrapLike;
let cred: { key: string };

beforeAll(async () => {
  t = (await startTestApp())!;
  gql = gqlClient(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("other-gql-orders");
  cred = { key: demo.apiKey };
});
afterAll(() => t?.close());

async function draft(unitPrice = 1000, quantity = 2) {
  const r = await gql(CreateDraftOrderDocument, { customerEmail: "g@example.com", lineItems: [{ name: "Widget", unitPrice, quantity }] }, cred);
  expect(r.errors).toBeNull();
  return r.data!.createDraftOrder;
}

async function paid() {
  const o = await draft();
  const r = await gql(AuthorizeOrderDocument, { id: o.id, paymentToken: "tok_visa" }, cred);
  expect(r.data!.authorizeOrder).toMatchObject({ status: "processing", paymentStatus: "captured" });
  return r.data!.authorizeOrder;
}

test("draft, update, checkout, status, close over GraphQL", async () => {
  const o = await draft();
  expect(o).toMatchObject({ status: "draft", total: 2000 });
  const u = await gql(UpdateOrderDocument, { id: o.id, notes: "gift", metadata: { k: "v" } }, cred);
  expect(u.data!.updateOrder).toMatchObject({ notes: "gift", metadata: { k: "v" } });
  const co = await gql(CheckoutOrderDocument, { id: o.id }, cred);
  expect(co.data!.checkoutOrder.order.status).toBe("pending");
  expect(co.data!.checkoutOrder.hostedUrl).toBe(`${t.url}/checkout/${co.data!.checkoutOrder.checkoutSessionId}`);
  const s = await gql(SetOrderStatusDocument, { id: o.id, status: "fulfilled", reason: "by hand" }, cred);
  expect(s.data!.setOrderStatus.status).toBe("fulfilled");
  const c = await gql(CloseOrderDocument, { id: o.id }, cred);
  expect(c.data!.closeOrder.status).toBe("closed");
  const again = await gql(CloseOrderDocument, { id: o.id }, cred);
  expect(codeOf(again)).toBe("invalid_order_transition");
  const bad = await gql(CreateDraftOrderDocument, { currency: "EUR", lineItems: [{ name: "x", unitPrice: 1, quantity: 1 }] }, cred);
  expect(codeOf(bad)).toBe("currency_mismatch");
  const declined = await gql(AuthorizeOrderDocument, { id: (await draft()).id, paymentToken: "tok_card_declined" }, cred);
  expect(codeOf(declined)).toBe("payment_failed");
});

test("holds: order_on_hold (reason in the message), order_not_on_hold, invalid_order_state", async () => {
  const o = await paid();
  const h = await gql(HoldOrderDocument, { id: o.id, reason: "KYC" }, cred);
  expect(h.data!.holdOrder).toMatchObject({ onHold: true, holdReason: "KYC" });
  const blocked = await gql(SetOrderStatusDocument, { id: o.id, status: "fulfilled" }, cred);
  expect(codeOf(blocked)).toBe("order_on_hold");
  expect(blocked.errors![0].message).toContain("KYC");
  expect(codeOf(await gql(RecordOrderPaymentDocument, { id: o.id, amount: 1, method: "cash" }, cred))).toBe("order_on_hold");
  const r = await gql(ReleaseOrderHoldDocument, { id: o.id }, cred);
  expect(r.data!.releaseOrderHold.onHold).toBe(false);
  expect(codeOf(await gql(ReleaseOrderHoldDocument, { id: o.id }, cred))).toBe("order_not_on_hold");
  const d = await draft();
  expect(codeOf(await gql(HoldOrderDocument, { id: d.id, reason: "x" }, cred))).toBe("invalid_order_state");
});

test("comp and reverse with paymentActions; validation_error cases", async () => {
  const o = await draft();
  await gql(AuthorizeOrderDocument, { id: o.id, paymentToken: "tok_visa_authorize" }, cred);
  const c = await gql(CompOrderDocument, { id: o.id, reason: "Goodwill" }, cred);
  expect(c.data!.compOrder.order).toMatchObject({ compAmount: 2000, paymentStatus: "captured", displayStatus: "Processing · Comped" });
  expect(c.data!.compOrder.paymentActions).toEqual([expect.objectContaining({ action: "void", status: "succeeded", errorCode: null })]);
  expect(codeOf(await gql(CompOrderDocument, { id: o.id, reason: "Again" }, cred))).toBe("validation_error");
  const rev = await gql(ReverseOrderCompDocument, { id: o.id }, cred);
  expect(rev.data!.reverseOrderComp.compAmount).toBe(0);
  expect(codeOf(await gql(ReverseOrderCompDocument, { id: o.id }, cred))).toBe("validation_error");
});

test("manual payment, refund, cancel with refunds, line edits; their error codes", async () => {
  const o = await draft(1000, 3);
  const rec = await gql(RecordOrderPaymentDocument, { id: o.id, amount: 3000, method: "bank_transfer", reference: "W-1" }, cred);
  expect(rec.errors).toBeNull();
  expect(rec.data!.recordOrderPayment).toMatchObject({ status: "captured", processor: "manual", capturedAmount: 3000 });
  expect(codeOf(await gql(RefundOrderDocument, { id: o.id, amount: 3001 }, cred))).toBe("refund_amount_exceeds_balance");
  const pay = (await t.deps.prisma.payment.findFirst({ where: { orderId: o.id } }))!;
  await t.deps.prisma.payment.update({ where: { id: pay.id }, data: { refundingAmount: 5 } });
  expect(codeOf(await gql(RefundOrderDocument, { id: o.id, amount: 10 }, cred))).toBe("refund_already_in_progress");
  await t.deps.prisma.payment.update({ where: { id: pay.id }, data: { refundingAmount: 0 } });
  const r = await gql(RefundOrderDocument, { id: o.id, amount: 500 }, cred);
  expect(r.data!.refundOrder.refunds).toEqual([{ paymentId: pay.id, amount: 500, status: "succeeded" }]);
  expect(r.data!.refundOrder.order).toMatchObject({ paymentStatus: "partially_refunded", refundedAmount: 500 });

  const p = await paid();
  const e = await gql(EditOrderLineItemsDocument, { id: p.id, update: [{ lineItemId: p.lineItems[0].id, quantity: 3 }] }, cred);
  expect(e.data!.editOrderLineItems.adjustment).toMatchObject({ delta: 1000, previousTotal: 2000, newTotal: 3000, chargedPaymentId: expect.any(String), refundedPaymentId: null });
  const cancel = await gql(CancelOrderDocument, { id: p.id, refundCapturedPayments: true }, cred);
  expect(cancel.data!.cancelOrder.order).toMatchObject({ status: "cancelled", paymentStatus: "refunded", refundedAmount: 3000 });
  expect(cancel.data!.cancelOrder.paymentActions.map((a) => [a.action, a.status])).toEqual([["refund", "succeeded"], ["refund", "succeeded"]]);
  expect(codeOf(await gql(EditOrderLineItemsDocument, { id: p.id, remove: [p.lineItems[0].id] }, cred))).toBe("order_not_editable");
  expect(codeOf(await gql(RecordOrderPaymentDocument, { id: p.id, amount: 1, method: "cash" }, cred))).toBe("invalid_order_state");
});

test("scopes (insufficient_scopes) and another tenant's order (not_found) for every mutation", async () => {
  const o = await draft();
  const reader = { key: (await mintKeyVia(client(t.url), demo, ["orders:read"])).rawKey };
  const calls = (id: string) => [
    () => gql(UpdateOrderDocument, { id, notes: "x" }, c),
    () => gql(CheckoutOrderDocument, { id }, c),
    () => gql(AuthorizeOrderDocument, { id, paymentToken: "tok_visa" }, c),
    () => gql(CloseOrderDocument, { id }, c),
    () => gql(SetOrderStatusDocument, { id, status: "cancelled" }, c),
    () => gql(CancelOrderDocument, { id }, c),
    () => gql(HoldOrderDocument, { id, reason: "x" }, c),
    () => gql(ReleaseOrderHoldDocument, { id }, c),
    () => gql(CompOrderDocument, { id, reason: "why not" }, c),
    () => gql(ReverseOrderCompDocument, { id }, c),
    () => gql(RecordOrderPaymentDocument, { id, amount: 1, method: "cash" }, c),
    () => gql(RefundOrderDocument, { id }, c),
    () => gql(EditOrderLineItemsDocument, { id, remove: [o.lineItems[0].id] }, c),
  ];
  let c = reader;
  for (const call of calls(o.id)) expect(codeOf(await call())).toBe("insufficient_scopes");
  expect(codeOf(await gql(CreateDraftOrderDocument, { lineItems: [{ name: "x", unitPrice: 1, quantity: 1 }] }, reader))).toBe("insufficient_scopes");
  c = { key: other.apiKey };
  for (const call of calls(o.id)) expect(codeOf(await call())).toBe("not_found");
});

test("orderUpdated(id) fires for each order operation: hold, release, PATCH, status", async () => {
  const o = await paid();
  const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": demo.apiKey }, retryAttempts: 0, lazy: true });
  const it = ws.iterate({ query: `subscription($id: ID!) { orderUpdated(id: $id) { id status onHold compAmount notes } }`, variables: { id: o.id } });
  expect(((await it.next()).value as any).data.orderUpdated).toMatchObject({ status: "processing", onHold: false });
  const step = async (run: () => Promise<unknown>, want: Record<string, unknown>) => {
    const next = it.next();
    await run();
    expect(((await next).value as any).data.orderUpdated).toMatchObject(want);
  };
  await step(() => gql(HoldOrderDocument, { id: o.id, reason: "look" }, cred), { onHold: true });
  await step(() => gql(ReleaseOrderHoldDocument, { id: o.id }, cred), { onHold: false });
  await step(() => gql(UpdateOrderDocument, { id: o.id, notes: "live" }, cred), { notes: "live" });
  await step(() => gql(SetOrderStatusDocument, { id: o.id, status: "fulfilled" }, cred), { status: "fulfilled" });
  await ws.dispose();
});

test("a dashboard developer lacks application:orders:comp and application:payments:record (permission_denied); huge and wrong inputs are 4xx codes", async () => {
  const user = await t.deps.prisma.user.create({ data: { email: `dev-${randomToken(6)}@example.com` } });
  const member = await t.deps.prisma.member.create({
    data: { workspaceId: demo.workspaceId, userId: user.id, workspaceRole: null, applicationRoles: [{ applicationId: demo.applicationId, role: "developer" }], environmentGrants: { grantType: "all" } },
  });
  const token = `dst_${randomToken(40)}`;
  await t.deps.prisma.dashboardSession.create({ data: { memberId: member.id, tokenHash: sha256Hex(token) } });
  const dev = { token, headers: { "x-service-environment-id": demo.environments.sandbox.id } };
  const o = await draft();
  expect(codeOf(await gql(CompOrderDocument, { id: o.id, reason: "dev says" }, dev))).toBe("permission_denied");
  expect(codeOf(await gql(ReverseOrderCompDocument, { id: o.id }, dev))).toBe("permission_denied");
  expect(codeOf(await gql(RecordOrderPaymentDocument, { id: o.id, amount: 1, method: "cash" }, dev))).toBe("permission_denied");
  expect(codeOf(await gql(HoldOrderDocument, { id: o.id, reason: "x".repeat(100_000) }, cred))).toBe("validation_error");
  expect(codeOf(await gql(CompOrderDocument, { id: o.id, reason: "x".repeat(501) }, cred))).toBe("validation_error");
  expect(codeOf(await gql(RecordOrderPaymentDocument, { id: o.id, amount: -5, method: "cash", reference: "r".repeat(121) }, cred))).toBe("validation_error");
  expect(codeOf(await gql(RefundOrderDocument, { id: o.id, amount: 0 }, cred))).toBe("validation_error");
  expect(codeOf(await gql(EditOrderLineItemsDocument, { id: o.id }, cred))).toBe("validation_error");
  expect(codeOf(await gql(EditOrderLineItemsDocument, { id: o.id, update: [{ lineItemId: "nope" }] }, cred))).toBe("validation_error");
  expect(codeOf(await gql(CreateDraftOrderDocument, { lineItems: [] }, cred))).toBe("validation_error");
  expect(codeOf(await gql(SetOrderStatusDocument, { id: "nope", status: "fulfilled" }, cred))).toBe("not_found");
});

test("a held order's checkout takes no payment (order_on_hold); no active card connection is no_payment_connection over REST and GraphQL", async () => {
  const api = client(t.url);
  const o = await draft();
  const co = await gql(CheckoutOrderDocument, { id: o.id }, cred);
  await gql(HoldOrderDocument, { id: o.id, reason: "verify buyer" }, cred);
  const blocked = await api("POST", `checkout-sessions/${co.data!.checkoutOrder.checkoutSessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
  expect([blocked.status, blocked.body.error.code]).toEqual([409, "order_on_hold"]);
  expect(await t.deps.prisma.payment.count({ where: { orderId: o.id } })).toBe(0);
  await gql(ReleaseOrderHoldDocument, { id: o.id }, cred);
  const paidNow = await api("POST", `checkout-sessions/${co.data!.checkoutOrder.checkoutSessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
  expect(paidNow.status).toBe(200);

  // last: the card connection goes away
  const card = (await t.deps.prisma.connector.findFirst({ where: { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, kind: "card", status: "active" } }))!;
  expect((await api("DELETE", `connectors/${card.id}`, { key: demo.apiKey })).status).toBe(200);
  const d = await draft();
  const rest = await api("POST", `orders/${d.id}/authorize`, { key: demo.apiKey, body: { paymentToken: "tok_visa" } });
  expect([rest.status, rest.body.error.code]).toEqual([422, "no_payment_connection"]);
  expect(codeOf(await gql(AuthorizeOrderDocument, { id: d.id, paymentToken: "tok_visa" }, cred))).toBe("no_payment_connection");
  expect(await t.deps.prisma.payment.count({ where: { orderId: d.id } })).toBe(0);
});
