// A payment's move reads its order's payment facts in the same statement (payment.machine.ts movePaymentReadingOrder):
// what it returns equals a read of the order after the move (payments/payment-facts.ts), with the order's other
// payments read from the table and the moved one as the move wrote it. On PGlite and on PostgreSQL.
import { randomUUID } from "node:crypto";
import { startWithSandbox, type TestApp } from "./helpers/app";
import { sql } from "kysely";
import type { Sql } from "../src/db/sql";
import { movePaymentReadingOrder } from "../src/payments/payment.machine";
import { type OrderPaymentFacts, orderPaymentFactsJson } from "../src/payments/payment-facts";
import { makeCtx, withTx } from "../src/shared/context";

let t: TestApp;
let tenant: { applicationId: string; environmentId: string };

beforeAll(async () => void ({ t, tenant } = await startWithSandbox({ worker: false })));
afterAll(() => t?.close());

async function orderWith(payments: { status: string; amount: number; capturedAmount?: number; refundedAmount?: number; disputed?: boolean }[], shipping: boolean) {
  const order = await t.deps.prisma.order.create({
    data: { ...tenant, status: "pending", currency: "USD", subtotal: 9000, total: 9000, compAmount: 500, cartId: randomUUID(), paymentStatus: "pending" },
  });
  await t.deps.prisma.orderLineItem.create({ data: { orderId: order.id, name: "Thing", unitPrice: 9000, quantity: 1, requiresShipping: shipping, position: 0 } });
  const rows = [];
  for (const p of payments) {
    rows.push(
      await t.deps.prisma.payment.create({
        data: { ...tenant, orderId: order.id, method: "card", processor: "test", currency: "USD", ...p, capturedAmount: p.capturedAmount ?? 0, refundedAmount: p.refundedAmount ?? 0, disputed: p.disputed ?? false },
      }),
    );
  }
  return { order, payments: rows };
}

const sorted = (f: OrderPaymentFacts | null) => f && { ...f, payments: [...f.payments].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))) };
const readAfter = async (db: Sql, orderId: string) => (await sql<{ facts: OrderPaymentFacts | null }>`SELECT ${orderPaymentFactsJson(sql<string>`${orderId}::uuid`)} AS facts`.execute(db)).rows[0].facts;

test("the facts a capture reads with its move equal a read of the order after it: other payments from the table, the moved one as written", async () => {
  const { order, payments } = await orderWith(
    [
      { status: "captured", amount: 3000, capturedAmount: 3000, refundedAmount: 1000, disputed: true },
      { status: "failed", amount: 6000 },
      { status: "pending", amount: 6000 },
    ],
    false,
  );
  const ctx = makeCtx(t.deps);
  const { moved, after } = await withTx(ctx, async (tx) => {
    const moved = await movePaymentReadingOrder(tx, payments[2], "captured", { authorizedAmount: 6000, capturedAmount: 6000 }, [
      { type: "capture", status: "succeeded", amount: 6000, currency: "USD", processorReference: null, createdAt: tx.clock.now() },
    ]);
    return { moved, after: await readAfter(tx.sql, order.id) };
  });
  expect(moved.payment).toMatchObject({ id: payments[2].id, status: "captured", capturedAmount: 6000 });
  expect(sorted(moved.order)).toEqual(sorted(after));
  expect(moved.order).toMatchObject({ id: order.id, status: "pending", total: 9000, compAmount: 500, needsShipping: false });
  expect(sorted(moved.order)!.payments).toEqual(
    sorted({
      ...moved.order!,
      payments: [
        { status: "captured", capturedAmount: 3000, refundedAmount: 1000, disputed: true },
        { status: "failed", capturedAmount: 0, refundedAmount: 0, disputed: false },
        { status: "captured", capturedAmount: 6000, refundedAmount: 0, disputed: false },
      ],
    })!.payments,
  );
  // the ledger row went in with the move
  expect(await t.deps.prisma.transaction.count({ where: { paymentId: payments[2].id, type: "capture" } })).toBe(1);
});

test("an order that ships, and a payment with no order (null facts)", async () => {
  const { order, payments } = await orderWith([{ status: "pending", amount: 9000 }], true);
  const ctx = makeCtx(t.deps);
  const moved = await withTx(ctx, (tx) =>
    movePaymentReadingOrder(tx, payments[0], "authorized", { authorizedAmount: 9000 }, [
      { type: "authorization", status: "succeeded", amount: 9000, currency: "USD", processorReference: null, createdAt: tx.clock.now() },
    ]),
  );
  expect(moved.order).toEqual(await readAfter(t.deps.sql, order.id));
  expect(moved.order).toMatchObject({ needsShipping: true, payments: [{ status: "authorized", capturedAmount: 0 }] });

  const loose = await t.deps.prisma.payment.create({ data: { ...tenant, method: "card", processor: "test", currency: "USD", amount: 100, status: "pending" } });
  const alone = await withTx(ctx, (tx) => movePaymentReadingOrder(tx, loose, "failed", {}, [
    { type: "authorization", status: "failed", amount: 100, currency: "USD", processorReference: null, createdAt: tx.clock.now() },
  ]));
  expect(alone).toMatchObject({ payment: { id: loose.id, status: "failed" }, order: null });
});
