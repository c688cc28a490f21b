// Public routes of the extension bridge, outside /api/v1: the two bridge modules and the JWKS that verifies session
// tokens. No credential: the modules are code anyone may load, the JWKS holds public keys only.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { type Request, type Response, Router } from "express";
import type { Deps } from "../shared/context";
import { PROJECT_ROOT } from "../shared/paths";

const ASSET_DIR = path.join(PROJECT_ROOT, "pages", "extension-bridge");
export const BRIDGE_ASSETS = { "/extension-bridge.js": "extension-bridge.js", "/extension-host.js": "extension-host.js" } as const;

/** Read once per process, then served from memory with a strong ETag. */
const loaded = new Map<string, { body: Buffer; etag: string }>();
function asset(file: string) {
  let a = loaded.get(file);
  if (!a) {
    const body = readFileSync(path.join(ASSET_DIR, file));
    a = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
    loaded.set(file, a);
  }
  return a;
}

export function extensionBridgeRouter(_deps: Deps) {
  const r = Router();
  for (const [route, file] of Object.entries(BRIDGE_ASSETS)) {
    r.get(route, (req: Request, res: Response) => {
      const a = asset(file);
      res.set({
        "Content-Type": "text/javascript; charset=utf-8",
        // an extension's iframe (another origin) imports it as a module script, which is a CORS request
        "Access-Control-Allow-Origin": "*",
        "Cross-Origin-Resource-Policy": "cross-origin",
        "X-Content-Type-Options": "nosniff",
        // not a versioned URL: short cache, then a cheap revalidation by ETag
        "Cache-Control": "public, max-age=300, must-revalidate",
        ETag: a.etag,
      });
      const match = (req.get("if-none-match") ?? "").split(",").map((v) => v.trim().replace(/^W\//, ""));
      if (match.includes(a.etag) || match.includes("*")) return void res.status(304).end();
      res.send(a.body);
    });
  }
  return r;
}
