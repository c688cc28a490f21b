import { ctxOf, ok, send } from "../rest/http";
import { listAuthorizedApps, revokeAuthorizedApp } from "./grants.service";
import { apiRouter } from "../rest/api-router";

/** The dashboard user's authorized OAuth apps (dashboard session only). */
export function oauthRouter() {
  const r = apiRouter();
  r.get("/oauth/grants", async (req, res) => ok(res, await listAuthorizedApps(ctxOf(req))));
  r.delete("/oauth/grants/:id", async (req, res) => {
    await revokeAuthorizedApp(ctxOf(req), req.params.id);
    await send(res, 204);
  });
  return r;
}
