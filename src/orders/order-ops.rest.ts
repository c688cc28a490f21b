// REST for the order operations: validate -> one service call -> the re-read order (plus what the route adds).
import { ctxOf, ok } from "../rest/http";
import { paymentView } from "../payments/payments.service";
import type { Ctx } from "../shared/context";
import { compOrder, reverseComp } from "./comps.service";
import { placeHold, releaseHold } from "./holds.service";
import { editLineItems } from "./line-edits.service";
import { recordManualPayment } from "./manual-payments.service";
import { authorizeOrder, checkoutOrder } from "./order-checkout.service";
import { cancelOrder, closeOrder, createDraftOrder, setOrderStatus, updateOrder } from "./order-lifecycle.service";
import { refundOrder } from "./order-refunds.service";
import { orderView, readOrder } from "./orders.service";
import { apiRouter } from "../rest/api-router";

/** The order as a single read shows it, re-read after the operation committed. */
export async function orderOut(ctx: Ctx, id: string) {
  return orderView(await readOrder(ctx, id), { single: true });
}

export function orderOpsRouter() {
  const r = apiRouter();
  r.post("/orders", async (req, res) => {
    const ctx = ctxOf(req);
    const o = await createDraftOrder(ctx, req.body);
    await ok(res, orderView(o, { single: true }), 201);
  });
  r.patch("/orders/:id", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, await orderOut(ctx, await updateOrder(ctx, req.params.id, req.body)));
  });
  r.post("/orders/:id/checkout", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await checkoutOrder(ctx, req.params.id, req.body);
    await ok(res, { order: await orderOut(ctx, out.orderId), checkoutSession: out.checkoutSession });
  });
  r.post("/orders/:id/authorize", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await authorizeOrder(ctx, req.params.id, req.body);
    await ok(res, await orderOut(ctx, out.orderId));
  });
  r.post("/orders/:id/close", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, await orderOut(ctx, await closeOrder(ctx, req.params.id, req.body)));
  });
  r.post("/orders/:id/status", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await setOrderStatus(ctx, req.params.id, req.body);
    await ok(res, await orderOut(ctx, out.orderId));
  });
  r.post("/orders/:id/cancel", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await cancelOrder(ctx, req.params.id, req.body);
    await ok(res, { ...(await orderOut(ctx, out.orderId)), paymentActions: out.paymentActions });
  });
  r.post("/orders/:id/hold", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, orderView(await placeHold(ctx, req.params.id, req.body), { single: true }));
  });
  r.post("/orders/:id/hold/release", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, orderView(await releaseHold(ctx, req.params.id), { single: true }));
  });
  r.post("/orders/:id/comp", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await compOrder(ctx, req.params.id, req.body);
    await ok(res, { ...(await orderOut(ctx, out.orderId)), paymentActions: out.paymentActions });
  });
  r.post("/orders/:id/comp/reverse", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, await orderOut(ctx, await reverseComp(ctx, req.params.id)));
  });
  r.post("/orders/:id/payments/record", async (req, res) => {
    const ctx = ctxOf(req);
    await ok(res, paymentView(await recordManualPayment(ctx, req.params.id, req.body)), 201);
  });
  r.post("/orders/:id/refund", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await refundOrder(ctx, req.params.id, req.body);
    await ok(res, { order: await orderOut(ctx, out.orderId), refunds: out.refunds });
  });
  r.patch("/orders/:id/line-items", async (req, res) => {
    const ctx = ctxOf(req);
    const out = await editLineItems(ctx, req.params.id, req.body);
    await ok(res, { ...(await orderOut(ctx, out.orderId)), adjustment: out.adjustment });
  });
  return r;
}
