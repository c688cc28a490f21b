import { ctxOf, ok, send } from "../rest/http";
import {
  createEndpoint,
  deleteEndpoint,
  deliveryView,
  endpointView,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateSecret,
  testEndpoint,
  updateEndpoint,
} from "./endpoints.service";
import { apiRouter } from "../rest/api-router";

export function webhooksRouter() {
  const r = apiRouter();
  const now = (req: any) => ctxOf(req).clock.now();
  r.post("/webhook-endpoints", async (req, res) => ok(res, await createEndpoint(ctxOf(req), req.body), 201));
  r.get("/webhook-endpoints", async (req, res) => ok(res, (await listEndpoints(ctxOf(req))).map((e) => endpointView(e, now(req)))));
  r.get("/webhook-endpoints/:id", async (req, res) => ok(res, endpointView(await getEndpoint(ctxOf(req), req.params.id), now(req))));
  r.patch("/webhook-endpoints/:id", async (req, res) => ok(res, endpointView(await updateEndpoint(ctxOf(req), req.params.id, req.body), now(req))));
  r.delete("/webhook-endpoints/:id", async (req, res) => {
    await deleteEndpoint(ctxOf(req), req.params.id);
    await send(res, 204);
  });
  r.post("/webhook-endpoints/:id/rotate-secret", async (req, res) => ok(res, await rotateSecret(ctxOf(req), req.params.id, req.body)));
  r.get("/webhook-endpoints/:id/deliveries", async (req, res) => {
    const page = await listDeliveries(ctxOf(req), req.params.id, req.query);
    await ok(res, page.items.map(deliveryView), 200, { total: page.total, limit: page.limit, offset: page.offset });
  });
  r.get("/webhook-endpoints/:id/deliveries/:deliveryId", async (req, res) => {
    const d = await getDelivery(ctxOf(req), req.params.id, req.params.deliveryId);
    await ok(res, {
      ...deliveryView(d),
      attemptLog: d.attemptLog.map((a) => ({ number: a.number, statusCode: a.statusCode, error: a.error, responseExcerpt: a.responseExcerpt, durationMs: a.durationMs, at: a.at.toISOString() })),
    });
  });
  r.post("/webhook-endpoints/:id/deliveries/:deliveryId/replay", async (req, res) =>
    ok(res, deliveryView(await replayDelivery(ctxOf(req), req.params.id, req.params.deliveryId)), 202));
  r.post("/webhook-endpoints/:id/test", async (req, res) => ok(res, deliveryView(await testEndpoint(ctxOf(req), req.params.id)), 202));
  return r;
}
