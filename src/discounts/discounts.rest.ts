// /api/v1 discount routes and the cart's promotion code. Thin: parse, call, respond.
import { cartView } from "../carts/cart.view";
import { ctxOf, ok, okPage } from "../rest/http";
import { applyCartDiscount, createDiscount, discountView, getDiscount, listDiscounts, removeCartDiscount, updateDiscount } from "./discounts.service";
import { apiRouter } from "../rest/api-router";

export function discountsRouter() {
  const r = apiRouter();
  r.post("/discounts", async (req, res) => ok(res, discountView(await createDiscount(ctxOf(req), req.body)), 201));
  r.get("/discounts", async (req, res) => okPage(res, await listDiscounts(ctxOf(req), req.query), discountView));
  r.get("/discounts/:id", async (req, res) => ok(res, discountView(await getDiscount(ctxOf(req), req.params.id))));
  r.patch("/discounts/:id", async (req, res) => ok(res, discountView(await updateDiscount(ctxOf(req), req.params.id, req.body))));
  r.post("/carts/:id/discount", async (req, res) => ok(res, cartView(await applyCartDiscount(ctxOf(req), req.params.id, req.body))));
  r.delete("/carts/:id/discount", async (req, res) => ok(res, cartView(await removeCartDiscount(ctxOf(req), req.params.id))));
  return r;
}
