import { ctxOf, ok, okPage, send } from "../rest/http";
import { recordBeacon } from "./beacons.service";
import { createScript, deleteScript, getScript, listScripts, scriptAsset, scriptHealth, setKillSwitch, updateScript } from "./scripts.service";
import { apiRouter } from "../rest/api-router";

export function applicationScriptsRouter() {
  const r = apiRouter();
  r.post("/application-scripts", async (req, res) => ok(res, await createScript(ctxOf(req), req.body), 201));
  r.get("/application-scripts", async (req, res) => okPage(res, await listScripts(ctxOf(req), req.query), (s) => s));
  // before /:id, which would otherwise take these names as ids
  r.post("/application-scripts/kill-switch", async (req, res) => ok(res, await setKillSwitch(ctxOf(req), req.body)));
  r.get("/application-scripts/health", async (req, res) => ok(res, await scriptHealth(ctxOf(req))));
  r.get("/application-scripts/:id", async (req, res) => ok(res, await getScript(ctxOf(req), req.params.id)));
  r.patch("/application-scripts/:id", async (req, res) => ok(res, await updateScript(ctxOf(req), req.params.id, req.body)));
  r.delete("/application-scripts/:id", async (req, res) => {
    await deleteScript(ctxOf(req), req.params.id);
    await send(res, 204);
  });
  // Public and content-addressed: the same URL always answers the same bytes, so it may be cached for a year.
  r.get("/storefront/script-assets/:id/:sha256", async (req, res) => {
    const asset = await scriptAsset(ctxOf(req), req.params.id, req.params.sha256);
    const etag = `"${asset.sha256}"`;
    const cached = (req.get("if-none-match") ?? "").split(",").some((v) => v.trim().replace(/^W\//, "") === etag);
    res
      .status(cached ? 304 : 200)
      .set({
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "public, max-age=31536000, immutable",
        ETag: etag,
        "X-Content-Type-Options": "nosniff",
        // the page loads it with crossorigin (needed for integrity) from the buyer-facing origin, which may differ
        "Access-Control-Allow-Origin": "*",
        "Cross-Origin-Resource-Policy": "cross-origin",
      });
    if (cached) return void res.end();
    res.send(asset.body);
  });
  r.post("/checkout-sessions/:id/script-beacons", async (req, res) => ok(res, await recordBeacon(ctxOf(req), req.params.id, req.body), 202));
  return r;
}
