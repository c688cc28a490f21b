// Order moves composed into a statement (orders/order.machine.ts orderMove / writingOrderMoves): a checkout's capture
// hands its order's moves to the statement that completes the session (finish). A move whose compare-and-set fails
// there throws order_state_changed and undoes the transaction, as moveOrder does. On PGlite and on PostgreSQL.
import { randomUUID } from "node:crypto";
import { startWithSandbox, type TestApp } from "./helpers/app";
import type { client } from "./helpers/http";
import { assertMoved, moveOrder, orderMove, writingOrderMoves } from "../src/orders/order.machine";
import { makeCtx, withSqlTx, withTx } from "../src/shared/context";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let tenant: { applicationId: string; environmentId: string };

beforeAll(async () => void ({ t, api, demo, tenant } = await startWithSandbox({ worker: false })));
afterAll(() => t?.close());

const newOrder = (status = "pending") => t.deps.prisma.order.create({ data: { ...tenant, status, currency: "USD", subtotal: 100, total: 100, cartId: randomUUID() } });
const history = (orderId: string) =>
  t.deps.prisma.orderStatusHistory.findMany({ where: { orderId }, orderBy: [{ createdAt: "asc" }, { seq: "asc" }], select: { fromStatus: true, toStatus: true, source: true, reason: true } });

test("a checkout whose cart has nothing to ship: the capture's two moves (processing, then fulfilled) are written by the statement that completes the session, with their history", async () => {
  const cart = await api("POST", "carts", { key: demo.apiKey, body: { customerEmail: "deferred@example.com" } });
  expect((await api("POST", `carts/${cart.body.data.id}/items`, { key: demo.apiKey, body: { name: "Setup", unitPrice: 10000, type: "service" } })).status).toBe(201);
  const s = await api("POST", "checkout/sessions", { key: demo.apiKey, body: { cartId: cart.body.data.id, returnUrl: "https://a.example/ok", cancelUrl: "https://a.example/no" } });
  const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
  expect(done.status).toBe(200);
  const order = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: done.body.data.orderId } });
  expect({ status: order.status, paymentStatus: order.paymentStatus }).toEqual({ status: "fulfilled", paymentStatus: "captured" });
  const rows = await history(order.id);
  expect(rows.map((r) => [r.fromStatus, r.toStatus, r.source])).toEqual([
    [null, "pending", "state_machine"],
    ["pending", "processing", "payment"],
    ["processing", "fulfilled", "fulfillment"],
  ]);
  expect(rows[2].reason).toBe("Nothing to deliver");
  const types = (await t.deps.prisma.event.findMany({ where: { type: { startsWith: "order." } } })).filter((e) => (e.data as { orderId?: string }).orderId === order.id).map((e) => e.type);
  expect(types.sort()).toEqual(["order.created", "order.fulfilled", "order.updated"]);
});

test("moves composed into a statement (writingOrderMoves) are written by it, with their history rows, in order", async () => {
  const o = await newOrder();
  const ctx = makeCtx(t.deps);
  await withSqlTx(ctx, async (tx) => {
    const moves = [
      orderMove(tx, o, "processing", { actorType: "system", source: "payment" }, { paymentStatus: "captured" }),
      orderMove(tx, { id: o.id, status: "processing" }, "fulfilled", { actorType: "system", source: "fulfillment", reason: "Nothing to deliver" }),
    ];
    const { qc, moved } = writingOrderMoves(tx.sql, moves);
    assertMoved((await qc.selectNoFrom(moved.as("moved")).executeTakeFirstOrThrow()).moved);
  });
  const after = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: o.id } });
  expect({ status: after.status, paymentStatus: after.paymentStatus }).toEqual({ status: "fulfilled", paymentStatus: "captured" });
  expect((await history(o.id)).map((r) => [r.fromStatus, r.toStatus])).toEqual([["pending", "processing"], ["processing", "fulfilled"]]);
});

test("a composed move whose order changed meanwhile fails with order_state_changed and the transaction is undone", async () => {
  const o = await newOrder();
  const ctx = makeCtx(t.deps);
  const marker = randomUUID();
  const err = await withSqlTx(ctx, async (tx) => {
    const move = orderMove(tx, o, "processing", { actorType: "system", source: "payment" });
    await tx.sql.updateTable("Order").set({ status: "cancelled", notes: marker }).where("id", "=", o.id).execute();
    const { qc, moved } = writingOrderMoves(tx.sql, [move]);
    assertMoved((await qc.selectNoFrom(moved.as("moved")).executeTakeFirstOrThrow()).moved);
  }).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "order_state_changed", status: 409 });
  const after = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: o.id } });
  expect({ status: after.status, notes: after.notes }).toEqual({ status: "pending", notes: null });
  expect(await history(o.id)).toEqual([]);
});

test("orderMove checks the transition at once; moveOrder writes at once", async () => {
  const o = await newOrder("cancelled");
  const ctx = makeCtx(t.deps);
  expect(() => orderMove(ctx, o, "processing", { actorType: "system", source: "payment" })).toThrow(expect.objectContaining({ code: "invalid_order_transition" }));
  const p = await newOrder();
  await withTx(ctx, async (tx) => {
    await moveOrder(tx, p, "processing", { actorType: "system", source: "payment" });
    expect((await tx.sql.selectFrom("Order").select("status").where("id", "=", p.id).executeTakeFirstOrThrow()).status).toBe("processing");
  });
});
