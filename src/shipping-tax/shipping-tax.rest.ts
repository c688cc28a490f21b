// /api/v1 shipping and tax routes. Thin: parse, call, respond.
import { ctxOf, ok } from "../rest/http";
import { calculateCart, getSettings, putSettings, settingsView } from "./shipping-tax.service";
import { estimateQuote } from "./estimate.service";
import { apiRouter } from "../rest/api-router";

export function shippingTaxRouter() {
  const r = apiRouter();
  r.get("/shipping-tax/settings", async (req, res) => ok(res, settingsView(await getSettings(ctxOf(req)))));
  r.put("/shipping-tax/settings", async (req, res) => ok(res, settingsView(await putSettings(ctxOf(req), req.body))));
  // Publishable key (browser): X-API-Key pk_… and/or quoteToken in the body.
  r.post("/shipping-tax/estimate", async (req, res) => ok(res, await estimateQuote(ctxOf(req), req.body)));
  r.post("/shipping-tax/carts/:cartId/calculate", async (req, res) => ok(res, await calculateCart(ctxOf(req), req.params.cartId, req.body)));
  return r;
}
