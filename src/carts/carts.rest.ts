// /api/v1 cart routes (commerce.md part 4). Thin: parse, call, respond.
import { ctxOf, ok, send } from "../rest/http";
import { addLineItem, removeLineItem, updateLineItem } from "./cart-items.service";
import { cartView, lineItemView } from "./cart.view";
import { clearShipping, createCart, getCart, replaceTaxLines, selectShipping, updateCart } from "./carts.service";
import { apiRouter } from "../rest/api-router";

export function cartsRouter() {
  const r = apiRouter();
  r.post("/carts", async (req, res) => ok(res, cartView(await createCart(ctxOf(req), req.body)), 201));
  r.get("/carts/:id", async (req, res) => ok(res, cartView(await getCart(ctxOf(req), req.params.id))));
  r.patch("/carts/:id", async (req, res) => ok(res, cartView(await updateCart(ctxOf(req), req.params.id, req.body))));

  r.post("/carts/:id/items", async (req, res) => ok(res, lineItemView(await addLineItem(ctxOf(req), req.params.id, req.body)), 201));
  r.patch("/carts/:cartId/items/:id", async (req, res) =>
    ok(res, lineItemView(await updateLineItem(ctxOf(req), req.params.cartId, req.params.id, req.body))));
  r.delete("/carts/:cartId/items/:id", async (req, res) => {
    await removeLineItem(ctxOf(req), req.params.cartId, req.params.id);
    await send(res, 204);
  });

  r.post("/carts/:id/shipping", async (req, res) => ok(res, cartView(await selectShipping(ctxOf(req), req.params.id, req.body))));
  r.delete("/carts/:id/shipping", async (req, res) => ok(res, cartView(await clearShipping(ctxOf(req), req.params.id))));
  r.put("/carts/:id/tax-lines", async (req, res) => ok(res, cartView(await replaceTaxLines(ctxOf(req), req.params.id, req.body))));
  return r;
}
