// /api/v1 customer routes. Thin: parse, call, respond.
import { ctxOf, ok } from "../rest/http";
import { createCustomer, customerView, getCustomer, getCustomerByExternalId } from "./customers.service";
import { apiRouter } from "../rest/api-router";

export function customersRouter() {
  const r = apiRouter();
  r.get("/customers/by-external/:externalId", async (req, res) => ok(res, customerView(await getCustomerByExternalId(ctxOf(req), req.params.externalId))));
  r.post("/customers", async (req, res) => ok(res, customerView(await createCustomer(ctxOf(req), req.body)), 201));
  r.get("/customers/:id", async (req, res) => ok(res, customerView(await getCustomer(ctxOf(req), req.params.id))));
  return r;
}
