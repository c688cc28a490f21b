// GET /api/v1/openapi.json (the document) and /api/v1/docs (Swagger UI, served from the swagger-ui-dist package:
// no CDN, no inline script). Public: the document describes the API, not any tenant's data.
import express, { Router } from "express";
import helmet from "helmet";
import { openApiDocument } from "./document";

// swagger-ui-dist ships no types; absolute-path.js names the folder of its built assets (its index.js would also
// load the 1 MB bundle into this process, a fifth of a second at every start, for nothing).
const getAbsoluteFSPath = require("swagger-ui-dist/absolute-path.js") as () => string;

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Quote-to-cash API reference</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/api/v1/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/v1/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/v1/docs/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#ui", deepLinking: true });`;

export function openapiRouter() {
  const r = Router();
  r.get("/api/v1/openapi.json", (_req, res) => void res.json(openApiDocument()));
  const docs = Router();
  // Swagger UI sets style attributes at run time, hence 'unsafe-inline' for styles only; scripts are same-origin files.
  docs.use(helmet({ contentSecurityPolicy: { directives: { "style-src": ["'self'", "'unsafe-inline'"], "img-src": ["'self'", "data:"] } }, strictTransportSecurity: false }));
  docs.get("/", (_req, res) => void res.type("html").send(DOCS_PAGE));
  docs.get("/init.js", (_req, res) => void res.type("application/javascript").send(INIT));
  docs.use("/assets", express.static(getAbsoluteFSPath(), { index: false, maxAge: "1h" }));
  r.use("/api/v1/docs", docs);
  return r;
}
