// Every money sum is bounded the same way (issue 34 item 10; src/shared/money.ts assertSumsFit): draft orders, order
// line edits, a recurring checkout's amount x quantity, seat and plan changes (what renewals then charge) and manual
// payments that would push an order's captured sum past MAX_AMOUNT answer 422 validation_error naming the field in
// details.issues, before anything is written; never a 500 from PostgreSQL's integer range. REST and GraphQL.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { MAX_AMOUNT } from "../src/shared/money";
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

const key = () => ({ key: demo.apiKey });
const urls = { returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" };

function expect422(r: { status: number; body: any }, path: (string | number)[]) {
  expect({ status: r.status, code: r.body?.error?.code, paths: (r.body?.error?.details?.issues ?? []).map((i: any) => i.path) }).toEqual({ status: 422, code: "validation_error", paths: [path] });
}

async function gql(query: string, variables: Record<string, unknown>) {
  return (await api("POST", "/graphql", { ...key(), body: { query, variables } })).body as { data: any; errors?: { extensions?: { code?: string; status?: number; details?: any } }[] };
}

function expectGql422(r: { errors?: { extensions?: { code?: string; details?: any } }[] }, path: (string | number)[]) {
  const e = r.errors?.[0]?.extensions;
  expect({ code: e?.code, paths: (e?.details?.issues ?? []).map((i: any) => i.path) }).toEqual({ code: "validation_error", paths: [path] });
}

async function draft(lineItems: Record<string, unknown>[]) {
  const o = await api("POST", "orders", { ...key(), body: { customerEmail: `bounds-${++seq}@example.com`, lineItems } });
  expect(o.status).toBe(201);
  return o.body.data as { id: string; total: number; lineItems: { id: string }[] };
}

const orderCount = () => t.deps.prisma.order.count({ where: { applicationId: demo.applicationId } });

/** A recurring checkout for `amount` x `quantity` (card): the subscription's id. */
async function subscription(amount: number, quantity: number) {
  const cart = await api("POST", "carts", { ...key(), body: { applicationId: demo.applicationId, customerEmail: `sub-${++seq}@example.com` } });
  const s = await api("POST", "checkout/sessions", { ...key(), body: { applicationId: demo.applicationId, cartId: cart.body.data.id, ...urls, recurring: { planReference: `p${seq}`, interval: "monthly", amount, quantity, mode: "auto" } } });
  expect(s.status).toBe(201);
  const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
  expect(done.status).toBe(200);
  return done.body.data.subscriptionId as string;
}

describe("REST", () => {
  test("POST /orders: a line's unitPrice x quantity, or the lines' total, past the bound is 422 naming the field; no order", async () => {
    const before = await orderCount();
    expect422(await api("POST", "orders", { ...key(), body: { lineItems: [{ name: "A", unitPrice: 10, quantity: 1 }, { name: "Big", unitPrice: MAX_AMOUNT, quantity: 2 }] } }), ["lineItems", 1, "quantity"]);
    const half = Math.ceil(MAX_AMOUNT / 2) + 1;
    expect422(await api("POST", "orders", { ...key(), body: { lineItems: [{ name: "A", unitPrice: half, quantity: 1 }, { name: "B", unitPrice: half, quantity: 1 }] } }), ["lineItems"]);
    expect(await orderCount()).toBe(before);
    expect((await api("POST", "orders", { ...key(), body: { lineItems: [{ name: "Max", unitPrice: MAX_AMOUNT, quantity: 1 }] } })).status).toBe(201);
  });

  test("PATCH /orders/{id}/line-items: an added line or a raised quantity past the bound is 422 naming it; the order is unchanged", async () => {
    const o = await draft([{ name: "Most", unitPrice: MAX_AMOUNT - 100, quantity: 1 }]);
    expect422(await api("PATCH", `orders/${o.id}/line-items`, { ...key(), body: { add: [{ name: "More", unitPrice: 101, quantity: 1 }] } }), ["add"]);
    expect422(await api("PATCH", `orders/${o.id}/line-items`, { ...key(), body: { add: [{ name: "Huge", unitPrice: MAX_AMOUNT, quantity: 3 }] } }), ["add", 0, "quantity"]);
    expect422(await api("PATCH", `orders/${o.id}/line-items`, { ...key(), body: { update: [{ lineItemId: o.lineItems[0].id, quantity: 2 }] } }), ["update", 0, "quantity"]);
    const after = (await api("GET", `orders/${o.id}`, key())).body.data;
    expect(after).toMatchObject({ total: MAX_AMOUNT - 100 });
    expect(after.lineItems).toHaveLength(1);
  });

  test("POST /checkout/sessions: a recurring amount x quantity past the bound is 422 recurring.quantity", async () => {
    const cart = await api("POST", "carts", { ...key(), body: { applicationId: demo.applicationId } });
    const r = await api("POST", "checkout/sessions", { ...key(), body: { applicationId: demo.applicationId, cartId: cart.body.data.id, ...urls, recurring: { planReference: "big", interval: "monthly", amount: MAX_AMOUNT, quantity: 2 } } });
    expect422(r, ["recurring", "quantity"]);
    expect(await t.deps.prisma.checkoutSession.count({ where: { cartId: cart.body.data.id } })).toBe(0);
  });

  test("seat and plan changes whose period charge (what renewals charge) passes the bound are 422 naming the field; nothing changes", async () => {
    const id = await subscription(1_500_000_000, 1);
    expect422(await api("POST", `subscriptions/${id}/change-quantity`, { ...key(), body: { quantity: 2, effective: "period_end" } }), ["quantity"]);
    expect422(await api("POST", `subscriptions/${id}/change-quantity`, { ...key(), body: { quantity: 2, effective: "now" } }), ["quantity"]);
    const small = await subscription(1000, 3);
    expect422(await api("POST", `subscriptions/${small}/change-plan`, { ...key(), body: { planReference: "enterprise", interval: "monthly", amount: 1_000_000_000, effective: "period_end" } }), ["amount"]);
    expect422(await api("POST", `subscriptions/${small}/change-plan`, { ...key(), body: { planReference: "enterprise", interval: "monthly", amount: 1_000_000_000, effective: "now" } }), ["amount"]);
    const subs = await t.deps.prisma.subscription.findMany({ where: { id: { in: [id, small] } }, orderBy: { amount: "desc" } });
    expect(subs.map((s) => [s.amount, s.quantity, s.pendingQuantity, s.pendingAmount])).toEqual([[1_500_000_000, 1, null, null], [1000, 3, null, null]]);
  });

  test("POST /orders/{id}/payments/record: a payment that would push the captured sum past the bound is 422 amount; no payment", async () => {
    const o = await draft([{ name: "Max", unitPrice: MAX_AMOUNT, quantity: 1 }]);
    expect((await api("POST", `orders/${o.id}/payments/record`, { ...key(), body: { amount: MAX_AMOUNT, method: "bank_transfer" } })).status).toBe(201);
    expect422(await api("POST", `orders/${o.id}/payments/record`, { ...key(), body: { amount: 1, method: "cash" } }), ["amount"]);
    expect(await t.deps.prisma.payment.count({ where: { orderId: o.id } })).toBe(1);
  });
});

describe("GraphQL", () => {
  test("createDraftOrder and editOrderLineItems: validation_error with the field's path", async () => {
    const before = await orderCount();
    expectGql422(await gql(`mutation($l: [DraftOrderLineInput!]!) { createDraftOrder(lineItems: $l) { id } }`, { l: [{ name: "Big", unitPrice: MAX_AMOUNT, quantity: 2 }] }), ["lineItems", 0, "quantity"]);
    expect(await orderCount()).toBe(before);
    const o = await draft([{ name: "Most", unitPrice: MAX_AMOUNT - 100, quantity: 1 }]);
    expectGql422(await gql(`mutation($id: ID!, $a: [DraftOrderLineInput!]) { editOrderLineItems(id: $id, add: $a) { order { total } } }`, { id: o.id, a: [{ name: "More", unitPrice: 101, quantity: 1 }] }), ["add"]);
    expect((await api("GET", `orders/${o.id}`, key())).body.data.total).toBe(MAX_AMOUNT - 100);
  });

  test("createCheckoutSession(recurring), changeSubscriptionQuantity, changeSubscriptionPlan and recordOrderPayment: validation_error with the field's path", async () => {
    const cart = await api("POST", "carts", { ...key(), body: { applicationId: demo.applicationId } });
    expectGql422(
      await gql(`mutation($c: ID!, $r: RecurringInput) { createCheckoutSession(cartId: $c, returnUrl: "https://a.test/ok", cancelUrl: "https://a.test/no", recurring: $r) { id } }`, {
        c: cart.body.data.id,
        r: { planReference: "big", interval: "monthly", amount: MAX_AMOUNT, quantity: 2, mode: "auto" },
      }),
      ["recurring", "quantity"],
    );
    const id = await subscription(1_500_000_000, 1);
    expectGql422(await gql(`mutation($id: ID!) { changeSubscriptionQuantity(id: $id, quantity: 2, effective: period_end) { id } }`, { id }), ["quantity"]);
    const small = await subscription(1000, 3);
    expectGql422(await gql(`mutation($id: ID!) { changeSubscriptionPlan(id: $id, planReference: "e", interval: monthly, amount: 1000000000, effective: now) { id } }`, { id: small }), ["amount"]);
    const o = await draft([{ name: "Max", unitPrice: MAX_AMOUNT, quantity: 1 }]);
    const first = await gql(`mutation($id: ID!, $a: Int!) { recordOrderPayment(id: $id, amount: $a, method: cash) { id } }`, { id: o.id, a: MAX_AMOUNT });
    expect(first.errors).toBeUndefined();
    expectGql422(await gql(`mutation($id: ID!, $a: Int!) { recordOrderPayment(id: $id, amount: $a, method: cash) { id } }`, { id: o.id, a: 1 }), ["amount"]);
    expect(await t.deps.prisma.payment.count({ where: { orderId: o.id } })).toBe(1);
  });
});
