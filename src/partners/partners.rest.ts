// /api/v1/partner: a partner's client trials and their handoff. Thin: parse, call, respond.
import { ctxOf, ok, okPage } from "../rest/http";
import { parsePage } from "../shared/pagination";
import { acceptHandoff, claimBilling, createTrial, listReferrals, referralView, revokeHandoff } from "./partners.service";
import { apiRouter } from "../rest/api-router";

export function partnersRouter() {
  const r = apiRouter();
  r.post("/partner/trials", async (req, res) => ok(res, await createTrial(ctxOf(req), req.body), 201));
  r.get("/partner/me/referrals", async (req, res) => okPage(res, await listReferrals(ctxOf(req), parsePage(req.query)), referralView));
  r.post("/partner/trials/:referralId/claim-billing", async (req, res) => ok(res, await claimBilling(ctxOf(req), req.params.referralId)));
  r.post("/partner/trials/:referralId/revoke-handoff", async (req, res) => ok(res, await revokeHandoff(ctxOf(req), req.params.referralId)));
  r.post("/partner/handoffs/accept", async (req, res) => ok(res, await acceptHandoff(ctxOf(req), req.body)));
  return r;
}
