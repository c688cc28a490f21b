// POST /test-processor/charges (non-production): the test processor's own payment page, for processor-proxy checkouts.
import { Router } from "express";
import { ctxOf, ok } from "../rest/http";
import { chargeView, createTestProcessorCharge } from "./processor-proxy.service";

export function processorProxyRouter() {
  const r = Router();
  r.post("/test-processor/charges", async (req, res) => ok(res, chargeView(await createTestProcessorCharge(ctxOf(req), req.body)), 201));
  return r;
}
