// GET /orders/export.csv and GET /orders/{id}/timeline. Mounted before ordersRouter so /orders/export.csv is not
// taken for an order id.
import { ctxOf, ok } from "../rest/http";
import { EXPORT_MAX_ROWS, prepareExport, streamOrdersCsv } from "./export.service";
import { orderTimeline } from "./timeline.service";
import { apiRouter } from "../rest/api-router";

export function orderReportsRouter() {
  const r = apiRouter();
  r.get("/orders/export.csv", async (req, res) => {
    const ctx = ctxOf(req);
    const prepared = prepareExport(ctx, req.query);
    const stamp = ctx.clock.now().toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-");
    res.status(200);
    res.set({
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="orders-${stamp}.csv"`,
      "Cache-Control": "no-store",
      "X-Export-Row-Limit": String(EXPORT_MAX_ROWS),
    });
    try {
      await streamOrdersCsv(ctx, prepared, res);
    } catch (e) {
      // the status line is gone: cut the response so the client sees an incomplete file, never a silent short one
      console.error("[orders export] failed mid-stream", e);
      res.destroy(e as Error);
    }
  });
  r.get("/orders/:id/timeline", async (req, res) => {
    const page = await orderTimeline(ctxOf(req), req.params.id, req.query);
    await ok(res, page.items, 200, { pagination: page.pagination });
  });
  return r;
}
