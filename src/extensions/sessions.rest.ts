// /api/v1 route of extension sessions: a dashboard member mints an iframe session token for one active install.
import { ctxOf, ok } from "../rest/http";
import { mintExtensionSession } from "./sessions.service";
import { apiRouter } from "../rest/api-router";

export function extensionSessionsRouter() {
  const r = apiRouter();
  r.post("/installations/:id/session", async (req, res) => ok(res, await mintExtensionSession(ctxOf(req), req.params.id), 201));
  return r;
}
