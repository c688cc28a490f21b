// REST routes of the extension platform: thin, one service call each.
import express from "express";
import { z } from "zod";
import { ctxOf, ok, okPage } from "../rest/http";
import { parseInput } from "../shared/errors";
import { deliveryView } from "../webhooks/endpoints.service";
import {
  createClientCredentials,
  createExtension,
  createVersion,
  getExtension,
  getVersion,
  listExtensions,
  listVersions,
  publishVersion,
  setListed,
  updateExtension,
  UPLOAD_LIMITS,
  uploadImage,
} from "./extensions.service";
import { mintInstallationApiKey, listMyInstallations, readWebhookSecret, rotateInstallationWebhookSecret } from "./installation-self.service";
import {
  getInstallation,
  installExtension,
  listInstallations,
  listInstallDeliveries,
  replayInstallDelivery,
  testInstallation,
  toggleSuspend,
  uninstall,
} from "./installations.service";
import { apiRouter } from "../rest/api-router";

/** Verbs that take no body: a body with fields is 422 naming them (decisions.md part 1), never silently ignored. */
const noFields = (body: unknown) => void parseInput(z.strictObject({}), body ?? {});

export function extensionsRouter() {
  const r = apiRouter();
  const same = <T>(x: T) => x;
  r.post("/extensions", async (req, res) => ok(res, await createExtension(ctxOf(req), req.body), 201));
  r.get("/extensions", async (req, res) => okPage(res, await listExtensions(ctxOf(req), req.query), same));
  // fixed names before /extensions/:id, which would take them as ids
  for (const kind of ["icon", "screenshot"] as const) {
    r.post(`/extensions/${kind}-upload`, express.raw({ type: () => true, limit: UPLOAD_LIMITS[kind] }), async (req, res) =>
      ok(res, await uploadImage(ctxOf(req), kind, req.query, req.get("content-type"), Buffer.isBuffer(req.body) ? req.body : undefined), 201));
  }
  r.get("/extensions/me/installations", async (req, res) => okPage(res, await listMyInstallations(ctxOf(req), req.query), same));
  r.get("/extensions/:id", async (req, res) => ok(res, await getExtension(ctxOf(req), req.params.id)));
  r.patch("/extensions/:id", async (req, res) => ok(res, await updateExtension(ctxOf(req), req.params.id, req.body)));
  r.post("/extensions/:id/delist", async (req, res) => (noFields(req.body), ok(res, await setListed(ctxOf(req), req.params.id, false))));
  r.post("/extensions/:id/relist", async (req, res) => (noFields(req.body), ok(res, await setListed(ctxOf(req), req.params.id, true))));
  r.post("/extensions/:id/versions", async (req, res) => ok(res, await createVersion(ctxOf(req), req.params.id, req.body), 201));
  r.get("/extensions/:id/versions", async (req, res) => okPage(res, await listVersions(ctxOf(req), req.params.id, req.query), same));
  r.get("/extensions/:id/versions/:versionId", async (req, res) => ok(res, await getVersion(ctxOf(req), req.params.id, req.params.versionId)));
  r.post("/extensions/:id/versions/:versionId/publish", async (req, res) => ok(res, await publishVersion(ctxOf(req), req.params.id, req.params.versionId, req.body)));
  r.post("/extensions/:id/install", async (req, res) => ok(res, await installExtension(ctxOf(req), req.params.id, req.body), 201));
  r.post("/extensions/:id/suspend", async (req, res) => (noFields(req.body), ok(res, await toggleSuspend(ctxOf(req), req.params.id))));
  r.post("/extensions/:id/client-credentials", async (req, res) => ok(res, await createClientCredentials(ctxOf(req), req.params.id, req.body), 201));
  // merchant side
  r.get("/extension-installations", async (req, res) => okPage(res, await listInstallations(ctxOf(req), req.query), same));
  r.get("/installations/:id", async (req, res) => ok(res, await getInstallation(ctxOf(req), req.params.id)));
  r.post("/installations/:id/uninstall", async (req, res) => ok(res, await uninstall(ctxOf(req), req.params.id, req.body)));
  r.get("/installations/:id/deliveries", async (req, res) => {
    const page = await listInstallDeliveries(ctxOf(req), req.params.id, req.query);
    await ok(res, page.items.map(deliveryView), 200, { total: page.total, limit: page.limit, offset: page.offset });
  });
  r.post("/installations/:id/deliveries/:deliveryId/replay", async (req, res) =>
    (noFields(req.body), ok(res, deliveryView(await replayInstallDelivery(ctxOf(req), req.params.id, req.params.deliveryId)), 202)));
  r.post("/installations/:id/test", async (req, res) => (noFields(req.body), ok(res, deliveryView(await testInstallation(ctxOf(req), req.params.id)), 202)));
  // the extension's own routes (client credentials; the secret read and rotation also take the installation's key)
  r.get("/installations/:id/webhook-secret", async (req, res) => ok(res, await readWebhookSecret(ctxOf(req), req.params.id)));
  r.post("/installations/:id/api-key", async (req, res) => ok(res, await mintInstallationApiKey(ctxOf(req), req.params.id, req.body), 201));
  r.post("/installations/:id/rotate-webhook-secret", async (req, res) => ok(res, await rotateInstallationWebhookSecret(ctxOf(req), req.params.id, req.body)));
  return r;
}
