import { ctxOf, ok } from "../rest/http";
import { cancelFulfillment, createFulfillment, fulfillmentView, getFulfillment, markDelivered, orderFulfillments, updateFulfillment } from "./fulfillments.service";
import { cancelReturn, createReturn, getReturn, orderReturns, receiveReturn, returnView } from "./returns.service";
import { apiRouter } from "../rest/api-router";

export function fulfillmentsRouter() {
  const r = apiRouter();
  r.post("/orders/:id/fulfillments", async (req, res) => ok(res, fulfillmentView(await createFulfillment(ctxOf(req), req.params.id, req.body)), 201));
  r.get("/orders/:id/fulfillments", async (req, res) => ok(res, (await orderFulfillments(ctxOf(req), req.params.id)).map(fulfillmentView)));
  r.get("/fulfillments/:id", async (req, res) => ok(res, fulfillmentView(await getFulfillment(ctxOf(req), req.params.id))));
  r.patch("/fulfillments/:id", async (req, res) => ok(res, fulfillmentView(await updateFulfillment(ctxOf(req), req.params.id, req.body))));
  r.post("/fulfillments/:id/delivered", async (req, res) => ok(res, fulfillmentView(await markDelivered(ctxOf(req), req.params.id))));
  r.post("/fulfillments/:id/cancel", async (req, res) => ok(res, fulfillmentView(await cancelFulfillment(ctxOf(req), req.params.id))));
  r.post("/orders/:id/returns", async (req, res) => ok(res, returnView(await createReturn(ctxOf(req), req.params.id, req.body)), 201));
  r.get("/orders/:id/returns", async (req, res) => ok(res, (await orderReturns(ctxOf(req), req.params.id)).map(returnView)));
  r.get("/returns/:id", async (req, res) => ok(res, returnView(await getReturn(ctxOf(req), req.params.id))));
  r.post("/returns/:id/receive", async (req, res) => ok(res, returnView(await receiveReturn(ctxOf(req), req.params.id))));
  r.post("/returns/:id/cancel", async (req, res) => ok(res, returnView(await cancelReturn(ctxOf(req), req.params.id))));
  return r;
}
