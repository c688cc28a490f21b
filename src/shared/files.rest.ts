// GET /files/{token}: a file from storage through a signed, short-lived download token (shared/storage.ts). An
// altered, expired or unknown token is 404 and says nothing more. Served as an attachment, never cached.
import { Router } from "express";
import type { Deps } from "./context";
import { DomainError } from "./errors";
import { storageFor, verifyDownload } from "./storage";

export function filesRouter(deps: Deps) {
  const r = Router();
  r.get("/files/:token", async (req, res) => {
    const grant = verifyDownload(deps.config, String(req.params.token), deps.clock.now());
    const bytes = grant ? await storageFor(deps.config).get(grant.key) : null;
    if (!grant || !bytes) throw new DomainError("not_found", "File not found or link expired");
    const ascii = grant.filename.replace(/[^A-Za-z0-9._-]/g, "_");
    res.set({
      "content-type": grant.contentType,
      "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(grant.filename)}`,
      "cache-control": "private, no-store",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
    res.send(bytes);
  });
  return r;
}
