// /api/v1 routes of the platform: whoami, API keys, environments, connectors. Thin: parse, call, respond.
import { getApplication, updateApplication } from "./applications.service";
import { ctxOf, ok, okPage, send } from "../rest/http";
import { parsePage } from "../shared/pagination";
import { apiKeyView, createApiKey, listApiKeys, revokeApiKey } from "./api-keys.service";
import { connectorView, createConnector, deactivateConnector, getConnector, listConnectors } from "./connectors.service";
import { archiveEnvironment, createEnvironment, environmentView, listEnvironments } from "./environments.service";
import { whoami } from "./whoami.service";
import { apiRouter } from "../rest/api-router";

export function platformRouter() {
  const r = apiRouter();

  r.get("/whoami", async (req, res) => ok(res, whoami(ctxOf(req))));
  r.get("/applications/:id", async (req, res) => ok(res, await getApplication(ctxOf(req), req.params.id)));
  r.patch("/applications/:id", async (req, res) => ok(res, await updateApplication(ctxOf(req), req.params.id, req.body)));

  r.get("/api-keys", async (req, res) => okPage(res, await listApiKeys(ctxOf(req), parsePage(req.query)), apiKeyView));
  r.post("/api-keys", async (req, res) => ok(res, await createApiKey(ctxOf(req), req.body), 201));
  r.delete("/api-keys/:id", async (req, res) => {
    await revokeApiKey(ctxOf(req), req.params.id);
    await send(res, 204);
  });

  r.get("/workspaces/:workspaceId/environments", async (req, res) =>
    ok(res, (await listEnvironments(ctxOf(req), req.params.workspaceId, req.query)).map(environmentView)));
  r.post("/workspaces/:workspaceId/environments", async (req, res) =>
    ok(res, environmentView(await createEnvironment(ctxOf(req), req.params.workspaceId, req.body)), 201));
  r.delete("/workspaces/:workspaceId/environments/:environmentId", async (req, res) =>
    ok(res, environmentView(await archiveEnvironment(ctxOf(req), req.params.workspaceId, req.params.environmentId))));

  r.get("/connectors", async (req, res) => okPage(res, await listConnectors(ctxOf(req), parsePage(req.query)), connectorView));
  r.get("/connectors/:id", async (req, res) => ok(res, connectorView(await getConnector(ctxOf(req), req.params.id))));
  r.post("/connectors", async (req, res) => ok(res, connectorView(await createConnector(ctxOf(req), req.body)), 201));
  r.delete("/connectors/:id", async (req, res) => ok(res, connectorView(await deactivateConnector(ctxOf(req), req.params.id))));

  return r;
}
