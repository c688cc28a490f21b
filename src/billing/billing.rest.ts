// /api/v1/billing: the workspace's platform subscription and the cards it pays with. Thin: parse, call, respond.
import { ctxOf, ok, send } from "../rest/http";
import { addPaymentMethod, cancel, getBilling, listPaymentMethods, removePaymentMethod, resume, setBackupPaymentMethod, setDefaultPaymentMethod, subscribe } from "./billing.service";
import { apiRouter } from "../rest/api-router";

export function billingRouter() {
  const r = apiRouter();
  r.get("/billing", async (req, res) => ok(res, await getBilling(ctxOf(req))));
  r.post("/billing/subscribe", async (req, res) => ok(res, await subscribe(ctxOf(req), req.body)));
  r.post("/billing/cancel", async (req, res) => ok(res, await cancel(ctxOf(req))));
  r.post("/billing/resume", async (req, res) => ok(res, await resume(ctxOf(req))));
  r.get("/billing/payment-methods", async (req, res) => ok(res, await listPaymentMethods(ctxOf(req))));
  r.post("/billing/payment-methods", async (req, res) => ok(res, await addPaymentMethod(ctxOf(req), req.body), 201));
  r.post("/billing/payment-methods/:id/default", async (req, res) => ok(res, await setDefaultPaymentMethod(ctxOf(req), req.params.id)));
  r.post("/billing/payment-methods/:id/backup", async (req, res) => ok(res, await setBackupPaymentMethod(ctxOf(req), req.params.id)));
  r.delete("/billing/payment-methods/:id", async (req, res) => {
    await removePaymentMethod(ctxOf(req), req.params.id);
    await send(res, 204);
  });
  return r;
}
