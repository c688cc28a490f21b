import { ctxOf, ok, okPage } from "../rest/http";
import { renewSubscriptionNow } from "./renewals.service";
import { changeSubscriptionPlan, changeSubscriptionQuantity, clearPendingChange, resumeSubscription, updateSubscription } from "./subscription-changes.service";
import { getSubscription, listSubscriptions, trialEligibility } from "./subscriptions.service";
import { apiRouter } from "../rest/api-router";

export function subscriptionsRouter() {
  const r = apiRouter();
  r.get("/subscriptions", async (req, res) => okPage(res, await listSubscriptions(ctxOf(req), req.query), (s) => s));
  r.get("/subscriptions/:id", async (req, res) => ok(res, await getSubscription(ctxOf(req), req.params.id)));
  r.patch("/subscriptions/:id", async (req, res) => ok(res, await updateSubscription(ctxOf(req), req.params.id, req.body)));
  r.post("/subscriptions/:id/renew", async (req, res) => ok(res, await renewSubscriptionNow(ctxOf(req), req.params.id)));
  r.post("/subscriptions/:id/change-plan", async (req, res) => ok(res, await changeSubscriptionPlan(ctxOf(req), req.params.id, req.body)));
  r.post("/subscriptions/:id/change-quantity", async (req, res) => ok(res, await changeSubscriptionQuantity(ctxOf(req), req.params.id, req.body)));
  r.delete("/subscriptions/:id/pending-change", async (req, res) => ok(res, await clearPendingChange(ctxOf(req), req.params.id)));
  r.post("/subscriptions/:id/resume", async (req, res) => ok(res, await resumeSubscription(ctxOf(req), req.params.id)));
  r.get("/customers/:id/trial-eligibility", async (req, res) => ok(res, await trialEligibility(ctxOf(req), req.params.id, req.query)));
  return r;
}
