import { type Request, type Response } from "express";
import { ctxOf, ok } from "../rest/http";
import type { Deps } from "../shared/context";
import { commitImport, getImportErrors, undoImport, validateImport } from "./import-passes.service";
import { createImport, getImport, inspectImport, receiveUpload, saveImportMapping } from "./imports.service";
import { apiRouter } from "../rest/api-router";

export function importsRouter() {
  const r = apiRouter();
  r.post("/imports", async (req, res) => ok(res, await createImport(ctxOf(req), req.body), 201));
  r.get("/imports/:id", async (req, res) => ok(res, await getImport(ctxOf(req), req.params.id)));
  r.post("/imports/:id/inspect", async (req, res) => ok(res, await inspectImport(ctxOf(req), req.params.id, req.body ?? {})));
  r.patch("/imports/:id/mapping", async (req, res) => ok(res, await saveImportMapping(ctxOf(req), req.params.id, req.body)));
  r.post("/imports/:id/validate", async (req, res) => ok(res, await validateImport(ctxOf(req), req.params.id, req.body), 202));
  r.post("/imports/:id/commit", async (req, res) => ok(res, await commitImport(ctxOf(req), req.params.id, req.body), 202));
  r.post("/imports/:id/undo", async (req, res) => ok(res, await undoImport(ctxOf(req), req.params.id, req.body), 202));
  r.get("/imports/:id/errors", async (req, res) => ok(res, await getImportErrors(ctxOf(req), req.params.id, req.query)));
  return r;
}

/** Path of the signed upload, mounted before the JSON body parser: the body is the raw file, streamed. */
export const IMPORT_UPLOAD_PATH = "/api/v1/imports/:id/upload";

/** PUT {BASE_URL}/api/v1/imports/{id}/upload?token=…: the signed token is the only credential. */
export function importUploadHandler(deps: Deps) {
  return async (req: Request, res: Response) => {
    const token = typeof req.query.token === "string" ? req.query.token : "";
    const out = await receiveUpload(deps, String(req.params.id), token, req);
    res.status(200).json({ data: out });
  };
}
