import { ctxOf, ok, okPage } from "../rest/http";
import { captureOrderPayments, paymentView } from "../payments/payments.service";
import { getOrder, listOrders, orderPayments, orderStatusHistory, orderView } from "./orders.service";
import { apiRouter } from "../rest/api-router";

export function ordersRouter() {
  const r = apiRouter();
  r.get("/orders", async (req, res) => okPage(res, await listOrders(ctxOf(req), req.query), (o) => orderView(o)));
  r.get("/orders/:id", async (req, res) => ok(res, orderView(await getOrder(ctxOf(req), req.params.id), { single: true })));
  r.get("/orders/:id/payments", async (req, res) => ok(res, (await orderPayments(ctxOf(req), req.params.id)).map(paymentView)));
  r.get("/orders/:id/status-history", async (req, res) =>
    ok(res, (await orderStatusHistory(ctxOf(req), req.params.id)).map((h) => ({ fromStatus: h.fromStatus, toStatus: h.toStatus, actorType: h.actorType, actorId: h.actorId, reason: h.reason, source: h.source, createdAt: h.createdAt.toISOString() }))));
  r.post("/orders/:id/capture", async (req, res) => {
    const ctx = ctxOf(req);
    const id = await captureOrderPayments(ctx, req.params.id);
    await ok(res, orderView(await getOrder(ctx, id), { single: true }));
  });
  return r;
}
