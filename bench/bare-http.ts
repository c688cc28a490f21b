// Baseline for bench/whoami.ts: a bare node:http server that answers every GET with one fixed JSON body.
// No framework, no database, no auth: whatever the real service costs above this is Express/Yoga/Prisma/DB.
// Env: PORT (required), BARE_BODY (optional; the JSON text to serve, defaults to a whoami-shaped ~500-byte body).
import http from "node:http";

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

const server = http.createServer((req, res) => {
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET" }).end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});

server.listen(port, "127.0.0.1", () => console.log(`bare-http listening on http://127.0.0.1:${port} (${body.length}-byte body)`));

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
