// POST /test-processor/charges (non-production): the test processor's own payment page, for processor-proxy checkouts.
import { ctxOf, ok } from "../rest/http";
import { chargeView, createTestProcessorCharge } from "./processor-proxy.service";
import { apiRouter } from "../rest/api-router";

export function processorProxyRouter() {
  const r = apiRouter();
  r.post("/test-processor/charges", async (req, res) => ok(res, chargeView(await createTestProcessorCharge(ctxOf(req), req.body)), 201));
  return r;
}
