// Baseline for bench/whoami.ts: a bare node:http server that answers every GET with one fixed JSON body.
// No framework, no database, no auth: whatever the real service costs above this is Express/Yoga/Prisma/DB.
// Env: PORT (required), BARE_BODY (optional; the JSON text to serve, defaults to a whoami-shaped ~500-byte body).
// With BARE_DATABASE_URL it is instead the bare reference for whoami itself: every GET hashes its x-api-key and runs
// the service's very lookup (one joined SELECT, src/platform/auth.service.ts) on a pg Pool of BARE_POOL_MAX (10, the
// service's DATABASE_POOL_MAX default) connections, then answers the whoami JSON built from the row (401 when none).
import { createHash } from "node:crypto";
import http from "node:http";
import { Pool } from "pg";

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error("bare-http: set PORT to a port number");
  process.exit(1);
}

const defaultBody = JSON.stringify({
  data: {
    type: "api_key",
    scopes: ["*"],
    workspace: { id: "00000000-0000-4000-8000-000000000001", name: "Demo", slug: "demo" },
    application: { id: "00000000-0000-4000-8000-000000000002", name: "Demo Store", slug: "demo-store", currency: "USD" },
    environment: { id: "00000000-0000-4000-8000-000000000003", slug: "sandbox", kind: "non_production", providerEnvironment: "sandbox" },
    apiKey: { id: "00000000-0000-4000-8000-000000000004", name: "Bootstrap sandbox key", keyPrefix: "sk_sandbox_XXXXXX" },
  },
});
const body = Buffer.from(process.env.BARE_BODY || defaultBody);

const LOOKUP = `
  SELECT k.id, k.name, k."keyPrefix", k.type, k.scopes, k."keyHash", k."revokedAt",
         w.id AS "wsId", w.name AS "wsName", w.slug AS "wsSlug",
         a.id AS "appId", a.name AS "appName", a.slug AS "appSlug", a.currency AS "appCurrency",
         e.id AS "envId", e.slug AS "envSlug", e.kind AS "envKind", e."providerEnvironment" AS "envProvider", e.status AS "envStatus"
  FROM "ApiKey" k
  JOIN "Workspace" w ON w.id = k."workspaceId"
  JOIN "Application" a ON a.id = k."applicationId"
  JOIN "Environment" e ON e.id = k."environmentId"
  WHERE k."keyHash" = $1`;
const pool = process.env.BARE_DATABASE_URL ? new Pool({ connectionString: process.env.BARE_DATABASE_URL, max: Number(process.env.BARE_POOL_MAX ?? 10) }) : null;

function send(res: http.ServerResponse, status: number, payload: Buffer) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": payload.length });
  res.end(payload);
}

async function whoami(req: http.IncomingMessage, res: http.ServerResponse) {
  const raw = req.headers["x-api-key"];
  const hash = typeof raw === "string" ? createHash("sha256").update(raw).digest("hex") : "";
  // Named, parsed once per connection, as the service's repeated statements are (src/db/prepared.ts); BENCH_BARE_NAMED=0: unnamed.
  const { rows } = await pool!.query(process.env.BENCH_BARE_NAMED === "0" ? { text: LOOKUP, values: [hash] } : { name: "bare_lookup", text: LOOKUP, values: [hash] });
  const k = rows[0];
  if (!k || k.revokedAt || k.envStatus !== "active") return send(res, 401, Buffer.from('{"error":{"code":"unauthorized"}}'));
  const out = {
    data: {
      type: "api_key",
      scopes: k.scopes,
      workspace: { id: k.wsId, name: k.wsName, slug: k.wsSlug },
      application: { id: k.appId, name: k.appName, slug: k.appSlug, currency: k.appCurrency },
      environment: { id: k.envId, slug: k.envSlug, kind: k.envKind, providerEnvironment: k.envProvider },
      apiKey: { id: k.id, name: k.name, keyPrefix: k.keyPrefix },
    },
  };
  send(res, 200, Buffer.from(JSON.stringify(out)));
}

const server = http.createServer((req, res) => {
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET" }).end();
    return;
  }
  if (pool) {
    whoami(req, res).catch(() => send(res, 500, Buffer.from('{"error":{"code":"internal_error"}}')));
    return;
  }
  send(res, 200, body);
});

server.listen(port, "127.0.0.1", () => console.log(`bare-http listening on http://127.0.0.1:${port} (${body.length}-byte body)`));

const stop = () => {
  server.closeAllConnections();
  server.close(() => void (pool ? pool.end() : Promise.resolve()).finally(() => process.exit(0)));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
