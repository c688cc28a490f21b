// Order operations over REST: draft orders and their checkout, authorize, status in any direction, close, cancel with
// its payment actions, PATCH, holds, comps, manual payments, order refunds and line edits; every error code these
// routes name; cross-tenant 404 and 403 insufficient_scopes for every new route; bad input never a 5xx.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { termsHash } from "../src/checkout/checkout-complete.service";
import { randomToken, sha256Hex } from "../src/shared/crypto";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

type Api = ReturnType<typeof client>;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

let t: TestApp;
let api: Api;
let demo: BootstrapResult;
let other: BootstrapLike;
let key: string;

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("other-orders");
  key = demo.apiKey;
});
afterAll(() => t?.close());

async function draft(lines: { name: string; unitPrice: number; quantity: number }[] = [{ name: "Widget", unitPrice: 1500, quantity: 2 }], extra: Record<string, unknown> = {}) {
  const r = await api("POST", "orders", { key, body: { customerEmail: "buyer@example.com", lineItems: lines, ...extra } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; status: string; total: number; lineItems: { id: string }[] };
}

/** A draft order paid by card through POST /orders/{id}/authorize (tok_visa captures). */
async function paidOrder(lines?: { name: string; unitPrice: number; quantity: number }[]) {
  const o = await draft(lines);
  const r = await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa" } });
  expect(r.status).toBe(200);
  expect(r.body.data).toMatchObject({ status: "processing", paymentStatus: "captured" });
  return r.body.data as { id: string; total: number; lineItems: { id: string }[] };
}

const events = async (orderId: string) =>
  (await t.deps.prisma.event.findMany({ where: { data: { path: ["orderId"], equals: orderId } }, orderBy: { createdAt: "asc" } })).map((e) => ({ type: e.type, data: e.data as any }));

describe("draft orders and their payment", () => {
  test("POST /orders creates a draft (source draft, order.created); checkout opens a session for it and completion pays THIS order", async () => {
    const o = await draft([{ name: "Widget", unitPrice: 1500, quantity: 2 }, { name: "Gadget", unitPrice: 2500, quantity: 1 }], { shippingAddress: ADDRESS });
    expect(o).toMatchObject({ status: "draft", paymentStatus: "pending", total: 5500, source: "draft", email: "buyer@example.com" });
    const co = await api("POST", `orders/${o.id}/checkout`, { key, body: {} });
    expect(co.status).toBe(200);
    expect(co.body.data.order.status).toBe("pending");
    const s = co.body.data.checkoutSession;
    expect(s.hostedUrl).toBe(`${t.url}/checkout/${s.id}`);
    const done = await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
    expect(done.status).toBe(200);
    expect(done.body.data.orderId).toBe(o.id);
    const read = await api("GET", `orders/${o.id}`, { key });
    expect(read.body.data).toMatchObject({ status: "processing", paymentStatus: "captured", capturedAmount: 5500 });
    expect(await t.deps.prisma.order.count({ where: { checkoutSessionId: s.id } })).toBe(0);
    const again = await api("POST", `checkout-sessions/${s.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
    expect(again.body.error.code).toBe("session_not_open");
    const types = (await events(o.id)).map((e) => e.type);
    expect(types.filter((x) => x === "order.created")).toHaveLength(1);
    // nothing owed any more: no second checkout
    const none = await api("POST", `orders/${o.id}/checkout`, { key, body: {} });
    expect(none.status).toBe(422);
  });

  test("authorize with tok_visa_authorize holds the balance; a decline is 402 payment_failed", async () => {
    const o = await draft();
    const declined = await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_card_declined" } });
    expect(declined.status).toBe(402);
    expect(declined.body.error.code).toBe("payment_failed");
    const r = await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa_authorize" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "processing", paymentStatus: "authorized" });
  });

  test("currency_mismatch, unknown customer 404, unknown fields 422", async () => {
    expect((await api("POST", "orders", { key, body: { currency: "EUR", lineItems: [{ name: "x", unitPrice: 1, quantity: 1 }] } })).body.error.code).toBe("currency_mismatch");
    expect((await api("POST", "orders", { key, body: { customerId: "00000000-0000-4000-8000-000000000000", lineItems: [{ name: "x", unitPrice: 1, quantity: 1 }] } })).status).toBe(404);
    const bad = await api("POST", "orders", { key, body: { lineItems: [{ name: "x", unitPrice: 1, quantity: 1, colour: "red" }] } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe("validation_error");
  });
});

describe("status, close, cancel, PATCH", () => {
  test("status in any direction with history and the target's event (manual, actor, SET_STATUS); cancelled needs order_cancellations:write", async () => {
    const o = await paidOrder();
    const toFulfilled = await api("POST", `orders/${o.id}/status`, { key, body: { status: "fulfilled", reason: "handed over" } });
    expect(toFulfilled.status).toBe(200);
    const back = await api("POST", `orders/${o.id}/status`, { key, body: { status: "pending" } });
    expect(back.body.data).toMatchObject({ status: "pending", paymentStatus: "captured" });
    const ev = (await events(o.id)).filter((e) => e.data.action === "SET_STATUS");
    expect(ev.map((e) => e.type)).toEqual(["order.fulfilled", "order.updated"]);
    expect(ev[0].data).toMatchObject({ manual: true, status: "fulfilled", previousStatus: "processing", reason: "handed over", actor: { type: "integration" } });
    const writer = await mintKeyVia(api, demo, ["orders:write", "orders:read"]);
    const denied = await api("POST", `orders/${o.id}/status`, { key: writer.rawKey, body: { status: "cancelled" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scopes");
    expect((await api("POST", `orders/${o.id}/status`, { key: writer.rawKey, body: { status: "processing" } })).status).toBe(200);
    const long = await api("POST", `orders/${o.id}/status`, { key, body: { status: "processing", reason: "x".repeat(501) } });
    expect(long.status).toBe(422);
    const history = await api("GET", `orders/${o.id}/status-history`, { key });
    expect(history.body.data.map((h: any) => h.toStatus)).toEqual(["draft", "processing", "fulfilled", "pending", "processing"]);
  });

  test("status cancelled by hand voids authorizations and sets cancelledAt; close needs fulfilled or cancelled and emits order.closed", async () => {
    const o = await draft();
    await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa_authorize" } });
    const c = await api("POST", `orders/${o.id}/status`, { key, body: { status: "cancelled" } });
    expect(c.body.data).toMatchObject({ status: "cancelled", paymentStatus: "voided" });
    expect(c.body.data.cancelledAt).toEqual(expect.any(String));
    const closed = await api("POST", `orders/${o.id}/close`, { key, body: { reason: "done" } });
    expect(closed.body.data).toMatchObject({ status: "closed" });
    expect(closed.body.data.closedAt).toEqual(expect.any(String));
    expect((await events(o.id)).map((e) => e.type)).toEqual(expect.arrayContaining(["order.cancelled", "order.closed", "payment.voided"].slice(0, 2)));
    const again = await api("POST", `orders/${o.id}/close`, { key, body: {} });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("invalid_order_transition");
  });

  test("cancel voids authorizations, refunds captured money only when asked; paymentActions", async () => {
    const a = await draft();
    await api("POST", `orders/${a.id}/authorize`, { key, body: { paymentToken: "tok_visa_authorize" } });
    const ca = await api("POST", `orders/${a.id}/cancel`, { key, body: {} });
    expect(ca.status).toBe(200);
    expect(ca.body.data.status).toBe("cancelled");
    expect(ca.body.data.paymentActions).toEqual([expect.objectContaining({ action: "void", status: "succeeded" })]);
    const b = await paidOrder();
    const keep = await api("POST", `orders/${b.id}/cancel`, { key, body: {} });
    expect(keep.body.data).toMatchObject({ status: "cancelled", paymentStatus: "captured", paymentActions: [] });
    const c = await paidOrder();
    const refund = await api("POST", `orders/${c.id}/cancel`, { key, body: { refundCapturedPayments: true } });
    expect(refund.body.data).toMatchObject({ status: "cancelled", paymentStatus: "refunded", refundedAmount: c.total });
    expect(refund.body.data.paymentActions).toEqual([expect.objectContaining({ action: "refund", status: "succeeded", amount: c.total })]);
    // a refund that cannot start leaves the order cancelled and says so per payment
    const d = await paidOrder();
    const pay = (await t.deps.prisma.payment.findFirst({ where: { orderId: d.id } }))!;
    await t.deps.prisma.payment.update({ where: { id: pay.id }, data: { refundingAmount: 1 } });
    const busy = await api("POST", `orders/${d.id}/cancel`, { key, body: { refundCapturedPayments: true } });
    expect(busy.body.data).toMatchObject({ status: "cancelled", paymentStatus: "captured" });
    expect(busy.body.data.paymentActions).toEqual([{ paymentId: pay.id, action: "refund", status: "failed", amount: d.total, error: expect.objectContaining({ code: "refund_already_in_progress" }) }]);
  });

  test("PATCH /orders/{id}: only the four fields; null clears", async () => {
    const o = await draft();
    const r = await api("PATCH", `orders/${o.id}`, { key, body: { shippingAddress: ADDRESS, notes: "ring twice", metadata: { a: 1 } } });
    expect(r.body.data).toMatchObject({ notes: "ring twice", metadata: { a: 1 }, shippingAddress: ADDRESS });
    const cleared = await api("PATCH", `orders/${o.id}`, { key, body: { shippingAddress: null, notes: null } });
    expect(cleared.body.data).toMatchObject({ notes: null, shippingAddress: null });
    const bad = await api("PATCH", `orders/${o.id}`, { key, body: { total: 1 } });
    expect(bad.status).toBe(422);
  });
});

describe("holds", () => {
  test("place, identical again (nothing emitted), new reason keeps heldAt, release with previousHoldReason; blocked and not-blocked operations", async () => {
    const o = await paidOrder();
    const h = await api("POST", `orders/${o.id}/hold`, { key, body: { reason: "fraud check" } });
    expect(h.body.data).toMatchObject({ onHold: true, holdReason: "fraud check" });
    const heldAt = h.body.data.heldAt;
    const count = async () => (await events(o.id)).filter((e) => e.type === "order.held").length;
    expect(await count()).toBe(1);
    expect((await api("POST", `orders/${o.id}/hold`, { key, body: { reason: "fraud check" } })).status).toBe(200);
    expect(await count()).toBe(1);
    const changed = await api("POST", `orders/${o.id}/hold`, { key, body: { reason: "address check" } });
    expect(changed.body.data).toMatchObject({ holdReason: "address check", heldAt });
    expect(await count()).toBe(2);
    const blocked = await api("POST", `orders/${o.id}/status`, { key, body: { status: "fulfilled" } });
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.code).toBe("order_on_hold");
    expect(blocked.body.error.message).toContain("address check");
    const before = await t.deps.prisma.orderStatusHistory.count({ where: { orderId: o.id } });
    for (const [m, p, body] of [["POST", "comp", { reason: "sorry" }], ["POST", "payments/record", { amount: 100, method: "cash" }], ["POST", "comp/reverse", {}], ["POST", "close", {}]] as const) {
      const r = await api(m, `orders/${o.id}/${p}`, { key, body });
      expect([p, r.status, r.body.error?.code]).toEqual([p, 409, "order_on_hold"]);
    }
    expect(await t.deps.prisma.orderStatusHistory.count({ where: { orderId: o.id } })).toBe(before);
    expect((await api("GET", `orders/${o.id}`, { key })).status).toBe(200);
    const rel = await api("POST", `orders/${o.id}/hold/release`, { key });
    expect(rel.body.data).toMatchObject({ onHold: false, holdReason: null, heldAt: null });
    const released = (await events(o.id)).find((e) => e.type === "order.hold_released")!;
    expect(released.data.previousHoldReason).toBe("address check");
    const notHeld = await api("POST", `orders/${o.id}/hold/release`, { key });
    expect([notHeld.status, notHeld.body.error.code]).toEqual([422, "order_not_on_hold"]);
    // cancel is not blocked
    await api("POST", `orders/${o.id}/hold`, { key, body: { reason: "again" } });
    expect((await api("POST", `orders/${o.id}/cancel`, { key, body: {} })).status).toBe(200);
    const timeline = await t.deps.prisma.orderActivity.findMany({ where: { orderId: o.id, kind: "hold" } });
    expect(timeline.map((r) => r.title)).toEqual(["Order placed on hold", "Hold reason changed", "Hold released", "Order placed on hold"]);
  });

  test("order_holds:write is separate from orders:write", async () => {
    const o = await paidOrder();
    const writer = await mintKeyVia(api, demo, ["orders:write"]);
    const r = await api("POST", `orders/${o.id}/hold`, { key: writer.rawKey, body: { reason: "x" } });
    expect([r.status, r.body.error.code]).toEqual([403, "insufficient_scopes"]);
    const holder = await mintKeyVia(api, demo, ["order_holds:write"]);
    expect((await api("POST", `orders/${o.id}/hold`, { key: holder.rawKey, body: { reason: "x" } })).status).toBe(200);
  });
});

describe("comps", () => {
  test("comp waives the uncollected balance, voids authorizations (buyer emailed), reads captured; reverse restores it and un-voids nothing", async () => {
    const o = await draft();
    await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa_authorize" } });
    const short = await api("POST", `orders/${o.id}/comp`, { key, body: { reason: "no" } });
    expect(short.status).toBe(422);
    const c = await api("POST", `orders/${o.id}/comp`, { key, body: { reason: "Late delivery" } });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ compAmount: o.total, paymentStatus: "captured", total: o.total, compReason: "Late delivery" });
    expect(c.body.data.displayStatus).toBe("Processing · Comped");
    expect(c.body.data.paymentActions).toEqual([expect.objectContaining({ action: "void", status: "succeeded" })]);
    const mail = await t.deps.prisma.email.findMany({ where: { template: "customer.order_comp_voided" } });
    expect(mail.map((m) => m.toAddresses)).toContainEqual(["buyer@example.com"]);
    const again = await api("POST", `orders/${o.id}/comp`, { key, body: { reason: "again please" } });
    expect([again.status, again.body.error.code]).toEqual([422, "validation_error"]);
    const rev = await api("POST", `orders/${o.id}/comp/reverse`, { key });
    expect(rev.body.data).toMatchObject({ compAmount: 0, paymentStatus: "voided" });
    const none = await api("POST", `orders/${o.id}/comp/reverse`, { key });
    expect([none.status, none.body.error.code]).toEqual([422, "validation_error"]);
    const types = (await events(o.id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["order.comped", "order.comp_reversed", "payment.voided"]));
  });

  test("a failed void never undoes the comp; nothing owed is 422", async () => {
    const o = await draft();
    await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa_authorize" } });
    await t.deps.prisma.payment.updateMany({ where: { orderId: o.id }, data: { processor: "gone" } });
    const c = await api("POST", `orders/${o.id}/comp`, { key, body: { reason: "Goodwill" } });
    expect(c.status).toBe(200);
    expect(c.body.data.compAmount).toBe(o.total);
    expect(c.body.data.paymentActions).toEqual([expect.objectContaining({ action: "void", status: "failed", error: expect.objectContaining({ code: "void_failed" }) })]);
    const paid = await paidOrder();
    const nothing = await api("POST", `orders/${paid.id}/comp`, { key, body: { reason: "Goodwill" } });
    expect([nothing.status, nothing.body.error.code]).toEqual([422, "validation_error"]);
  });

  test("dashboard sessions need application:orders:comp and application:payments:record: developer 403 permission_denied, finance and owner allowed", async () => {
    const headers = { "x-service-environment-id": demo.environments.sandbox.id };
    const sessionFor = async (role: string) => {
      const user = await t.deps.prisma.user.create({ data: { email: `${role}-${randomToken(6)}@example.com` } });
      const member = await t.deps.prisma.member.create({
        data: { workspaceId: demo.workspaceId, userId: user.id, workspaceRole: null, applicationRoles: [{ applicationId: demo.applicationId, role }], environmentGrants: { grantType: "all" } },
      });
      const token = `dst_${randomToken(40)}`;
      await t.deps.prisma.dashboardSession.create({ data: { memberId: member.id, tokenHash: sha256Hex(token) } });
      return token;
    };
    const developer = await sessionFor("developer");
    const finance = await sessionFor("finance");
    const o = await draft();
    for (const [p, body] of [["comp", { reason: "dev says" }], ["payments/record", { amount: 1, method: "cash" }]] as const) {
      const r = await api("POST", `orders/${o.id}/${p}`, { token: developer, headers, body });
      expect([p, r.status, r.body.error?.code]).toEqual([p, 403, "permission_denied"]);
    }
    expect((await api("POST", `orders/${o.id}/payments/record`, { token: finance, headers, body: { amount: 100, method: "cash" } })).status).toBe(201);
    expect((await api("POST", `orders/${o.id}/comp`, { token: finance, headers, body: { reason: "finance says" } })).status).toBe(200);
    const owner = await draft();
    expect((await api("POST", `orders/${owner.id}/comp`, { token: demo.dashboardToken, headers, body: { reason: "owner says" } })).status).toBe(200);
  });

  test("a draft paid on Net-N terms through its checkout: the comp voids the unpaid invoice and emails the buyer", async () => {
    const o = await draft([{ name: "Consulting", unitPrice: 40000, quantity: 1 }]);
    const co = await api("POST", `orders/${o.id}/checkout`, { key, body: { allowedMethods: ["net30"] } });
    const terms = { termsHash: termsHash("Net 30"), acceptedAt: new Date().toISOString(), companyName: "Acme", billingEmail: "ap@example.com" };
    const done = await api("POST", `checkout-sessions/${co.body.data.checkoutSession.id}/complete`, { body: { paymentMethod: "net30", net30Acceptance: terms } });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ orderId: o.id, paymentStatus: "authorized" });
    const before = await t.deps.prisma.email.count({ where: { template: "customer.order_comp_voided" } });
    const c = await api("POST", `orders/${o.id}/comp`, { key, body: { reason: "Waived for the pilot" } });
    expect(c.body.data).toMatchObject({ compAmount: 40000, paymentStatus: "captured", paymentActions: [{ paymentId: done.body.data.paymentId, action: "void", status: "succeeded" }] });
    const invoice = await api("GET", `payments/${done.body.data.paymentId}`, { key });
    expect(invoice.body.data.status).toBe("voided");
    const mail = await t.deps.prisma.email.findMany({ where: { template: "customer.order_comp_voided" }, orderBy: { createdAt: "desc" } });
    expect(mail.length).toBe(before + 1);
    expect(mail[0].vars).toMatchObject({ total: "USD 400.00", reason: "Waived for the pilot" });
  });
});

describe("manual payments and order refunds", () => {
  test("record: captured, processor manual, payment.recorded; draft -> processing; invalid_order_state on cancelled", async () => {
    const o = await draft();
    const r = await api("POST", `orders/${o.id}/payments/record`, { key, body: { amount: o.total, method: "bank_transfer", reference: "WIRE-1", note: "paid early", receivedAt: "2026-01-02T10:00:00Z" } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: "captured", processor: "manual", method: "bank_transfer", capturedAmount: o.total });
    const read = await api("GET", `orders/${o.id}`, { key });
    expect(read.body.data).toMatchObject({ status: "processing", paymentStatus: "captured" });
    expect((await events(o.id)).map((e) => e.type)).toContain("payment.recorded");
    for (const body of [{ amount: 0, method: "cash" }, { amount: 1, method: "card" }, { amount: 1, method: "cash", reference: "r".repeat(121) }, { amount: 1, method: "cash", note: "n".repeat(501) }, { amount: "1", method: "cash" }]) {
      const bad = await api("POST", `orders/${o.id}/payments/record`, { key, body });
      expect([JSON.stringify(body), bad.status]).toEqual([JSON.stringify(body), 422]);
    }
    const c = await draft();
    await api("POST", `orders/${c.id}/cancel`, { key, body: {} });
    const refused = await api("POST", `orders/${c.id}/payments/record`, { key, body: { amount: 1, method: "cash" } });
    expect([refused.status, refused.body.error.code]).toEqual([422, "invalid_order_state"]);
  });

  test("a recorded payment refunded on its own (POST /payments/{id}/refund, refundPayment): out of band, in the ledger, never a 500", async () => {
    const o = await draft([{ name: "Widget", unitPrice: 1000, quantity: 3 }]);
    const rec = await api("POST", `orders/${o.id}/payments/record`, { key, body: { amount: o.total, method: "bank_transfer", reference: "WIRE-9" } });
    expect(rec.status).toBe(201);
    const pid = rec.body.data.id;
    const part = await api("POST", `payments/${pid}/refund`, { key, body: { amount: 1000 } });
    expect([part.status, part.body.data?.status, part.body.data?.refundedAmount]).toEqual([200, "partially_refunded", 1000]);
    // the same over GraphQL
    const res = await fetch(`${t.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({ query: "mutation($id: ID!) { refundPayment(id: $id, amount: 500) { id status refundedAmount } }", variables: { id: pid } }),
    });
    const gql = await res.json();
    expect([res.status, gql.errors ?? null, gql.data?.refundPayment]).toEqual([200, null, { id: pid, status: "partially_refunded", refundedAmount: 1500 }]);
    const rest = await api("POST", `payments/${pid}/refund`, { key, body: {} });
    expect([rest.status, rest.body.data?.status, rest.body.data?.refundedAmount]).toEqual([200, "refunded", o.total]);
    const ledger = await t.deps.prisma.transaction.findMany({ where: { paymentId: pid, type: "refund" }, orderBy: { createdAt: "asc" } });
    expect(ledger.map((x) => [x.status, x.amount, x.processorReference?.startsWith("manual_refund_")])).toEqual([
      ["succeeded", 1000, true],
      ["succeeded", 500, true],
      ["succeeded", o.total - 1500, true],
    ]);
    expect((await api("GET", `orders/${o.id}`, { key })).body.data).toMatchObject({ paymentStatus: "refunded", refundedAmount: o.total });
  });

  test("a refund whose processor throws is 402 refund_failed with a failed ledger row and the claim released, never a 500", async () => {
    const o = await draft([{ name: "Widget", unitPrice: 1000, quantity: 1 }]);
    const rec = await api("POST", `orders/${o.id}/payments/record`, { key, body: { amount: o.total, method: "cash" } });
    const pid = rec.body.data.id;
    // a payment row whose processor this process does not have (a processor removed from the configuration)
    await t.deps.prisma.payment.update({ where: { id: pid }, data: { processor: "gone" } });
    const errors = jest.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const r = await api("POST", `payments/${pid}/refund`, { key, body: { amount: 100 } });
      expect([r.status, r.body.error?.code, r.body.error?.details?.reason]).toEqual([402, "refund_failed", "refund_failed"]);
      expect(errors.mock.calls.some((c) => String(c[0]).includes('processor "gone"'))).toBe(true);
    } finally {
      errors.mockRestore();
    }
    const p = await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: pid } });
    expect([p.status, p.refundedAmount, p.refundingAmount]).toEqual(["captured", 0, 0]);
    const ledger = await t.deps.prisma.transaction.findMany({ where: { paymentId: pid, type: "refund" } });
    expect(ledger.map((x) => [x.status, x.amount])).toEqual([["failed", 100]]);
  });

  test("order refund spreads newest capture first; refund_amount_exceeds_balance; refund_already_in_progress", async () => {
    const o = await draft([{ name: "Widget", unitPrice: 1000, quantity: 3 }]);
    const first = await api("POST", `orders/${o.id}/payments/record`, { key, body: { amount: 1000, method: "cash" } });
    const second = await api("POST", `orders/${o.id}/authorize`, { key, body: { paymentToken: "tok_visa" } });
    expect(second.body.data.paymentStatus).toBe("captured");
    const card = (await t.deps.prisma.payment.findFirst({ where: { orderId: o.id, method: "card" } }))!;
    const over = await api("POST", `orders/${o.id}/refund`, { key, body: { amount: 3001 } });
    expect([over.status, over.body.error.code]).toEqual([400, "refund_amount_exceeds_balance"]);
    const r = await api("POST", `orders/${o.id}/refund`, { key, body: { amount: 2500, reason: "damaged" } });
    expect(r.status).toBe(200);
    expect(r.body.data.refunds).toEqual([
      { paymentId: card.id, amount: 2000, status: "succeeded" },
      { paymentId: first.body.data.id, amount: 500, status: "succeeded" },
    ]);
    expect(r.body.data.order).toMatchObject({ paymentStatus: "partially_refunded", refundedAmount: 2500 });
    await t.deps.prisma.payment.update({ where: { id: first.body.data.id }, data: { refundingAmount: 1 } });
    const busy = await api("POST", `orders/${o.id}/refund`, { key, body: {} });
    expect([busy.status, busy.body.error.code]).toEqual([409, "refund_already_in_progress"]);
    await t.deps.prisma.payment.update({ where: { id: first.body.data.id }, data: { refundingAmount: 0 } });
    const rest = await api("POST", `orders/${o.id}/refund`, { key, body: {} });
    expect(rest.body.data.order).toMatchObject({ paymentStatus: "refunded", refundedAmount: 3000 });
    const empty = await api("POST", `orders/${o.id}/refund`, { key, body: {} });
    expect([empty.status, empty.body.error.code]).toEqual([400, "refund_amount_exceeds_balance"]);
  });
});

describe("line edits", () => {
  test("captured order: an increase is charged to the card, a decrease refunded; adjustment", async () => {
    const o = await paidOrder([{ name: "Widget", unitPrice: 1000, quantity: 2 }]);
    const lineId = o.lineItems[0].id;
    const up = await api("PATCH", `orders/${o.id}/line-items`, { key, body: { add: [{ name: "Extra", unitPrice: 500, quantity: 1 }], update: [{ lineItemId: lineId, quantity: 3 }] } });
    expect(up.status).toBe(200);
    expect(up.body.data.adjustment).toMatchObject({ delta: 1500, previousTotal: 2000, newTotal: 3500, chargedPaymentId: expect.any(String) });
    expect(up.body.data).toMatchObject({ total: 3500, paymentStatus: "captured", capturedAmount: 3500 });
    const extra = up.body.data.lineItems.find((l: any) => l.name === "Extra").id;
    const down = await api("PATCH", `orders/${o.id}/line-items`, { key, body: { remove: [extra], update: [{ lineItemId: lineId, quantity: 1 }] } });
    expect(down.body.data.adjustment).toMatchObject({ delta: -2500, previousTotal: 3500, newTotal: 1000, refundedPaymentId: expect.any(String) });
    expect(down.body.data).toMatchObject({ total: 1000, refundedAmount: 2500 });
  });

  test("draft moves no money and recomputes tax when configured; terminal orders are order_not_editable", async () => {
    await api("PUT", "shipping-tax/settings", { key, body: { flatRates: [], taxRates: { US: { rateBps: 1000 } } } });
    const o = await draft([{ name: "Widget", unitPrice: 1000, quantity: 1 }], { shippingAddress: ADDRESS });
    expect(o.total).toBe(1100);
    const r = await api("PATCH", `orders/${o.id}/line-items`, { key, body: { update: [{ lineItemId: o.lineItems[0].id, quantity: 2 }] } });
    expect(r.body.data).toMatchObject({ subtotal: 2000, taxTotal: 200, total: 2200 });
    expect(r.body.data.adjustment).toEqual({ delta: 1100, previousTotal: 1100, newTotal: 2200 });
    await api("PUT", "shipping-tax/settings", { key, body: { flatRates: [], taxRates: {} } });
    await api("POST", `orders/${o.id}/cancel`, { key, body: {} });
    const no = await api("PATCH", `orders/${o.id}/line-items`, { key, body: { remove: [o.lineItems[0].id] } });
    expect([no.status, no.body.error.code]).toEqual([409, "order_not_editable"]);
    const unknown = await draft();
    const bad = await api("PATCH", `orders/${unknown.id}/line-items`, { key, body: { remove: ["00000000-0000-4000-8000-000000000000"] } });
    expect(bad.status).toBe(422);
  });
});

const ROUTES: [string, string, unknown, string][] = [
  ["PATCH", "", { notes: "x" }, "orders:write"],
  ["POST", "/checkout", {}, "orders:write"],
  ["POST", "/authorize", { paymentToken: "tok_visa" }, "payments:write"],
  ["POST", "/close", {}, "orders:write"],
  ["POST", "/status", { status: "processing" }, "orders:write"],
  ["POST", "/cancel", {}, "order_cancellations:write"],
  ["POST", "/hold", { reason: "x" }, "order_holds:write"],
  ["POST", "/hold/release", undefined, "order_holds:write"],
  ["POST", "/comp", { reason: "because" }, "order_comps:write"],
  ["POST", "/comp/reverse", undefined, "order_comps:write"],
  ["POST", "/payments/record", { amount: 1, method: "cash" }, "payment_records:write"],
  ["POST", "/refund", {}, "payment_refunds:write"],
  ["PATCH", "/line-items", { add: [{ name: "x", unitPrice: 1, quantity: 1 }] }, "orders:write"],
];

describe("tenancy, scopes and bad input for every new route", () => {
  test("another workspace's order id is 404; an unknown id is 404", async () => {
    const o = await draft();
    for (const [m, p, body] of ROUTES) {
      const r = await api(m, `orders/${o.id}${p}`, { key: other.apiKey, body });
      expect([m, p, r.status, r.body.error?.code]).toEqual([m, p, 404, "not_found"]);
      const u = await api(m, `orders/not-a-uuid${p}`, { key, body });
      expect([m, p, u.status]).toEqual([m, p, 404]);
    }
  });

  test("a key without the route's scope gets 403 insufficient_scopes", async () => {
    const o = await draft();
    const reader = await mintKeyVia(api, demo, ["orders:read"]);
    for (const [m, p, body, scope] of ROUTES) {
      const r = await api(m, `orders/${o.id}${p}`, { key: reader.rawKey, body });
      expect([m, p, r.status, r.body.error?.code, r.body.error?.details?.required]).toEqual([m, p, 403, "insufficient_scopes", [scope]]);
    }
    const create = await api("POST", "orders", { key: reader.rawKey, body: { lineItems: [{ name: "x", unitPrice: 1, quantity: 1 }] } });
    expect([create.status, create.body.error.code]).toEqual([403, "insufficient_scopes"]);
  });

  test("wrong types, huge strings and unknown fields are 4xx, never 5xx", async () => {
    const o = await draft();
    const garbage: unknown[] = [[], "x", 42, null, { reason: 5 }, { reason: "x".repeat(100_000) }, { amount: -1 }, { amount: 1e20 }, { status: "nope" }, { unknown: true }, { add: "x" }, { update: [{ lineItemId: "x" }] }, { lineItems: [] }];
    for (const [m, p] of [["POST", ""], ...ROUTES.map(([m, p]) => [m, p])] as [string, string][]) {
      const path = p === "" && m === "POST" ? "orders" : `orders/${o.id}${p}`;
      for (const body of garbage) {
        const r = await api(m, path, { key, body, validate: false });
        expect([m, path, JSON.stringify(body).slice(0, 40), r.status < 500]).toEqual([m, path, JSON.stringify(body).slice(0, 40), true]);
      }
    }
  });
});
