// The bare reference for bench/quotes.ts: GET /api/v1/quotes/{id} on node:http + pg, with the least SQL that keeps
// the service's guarantees: the key lookup the service runs (one joined SELECT; revoked keys and archived
// environments refused), then the quote with its revisions, lines, comments, customer and application settings in
// one statement (json_agg: the service's own SQL, quotes.service.ts selectQuoteFull), scoped to the key's
// application and environment (another tenant's id is 404). The response is the service's own JSON: the row goes
// through the same shaping and view functions, so the comparison is about the HTTP, auth and data layers.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Pool } from "pg";
import type { Config } from "../src/config";
import { quoteView } from "../src/quotes/quote.view";
import { shapeQuoteRow } from "../src/quotes/quote-read.service";
import type { Ctx } from "../src/shared/context";

const LOOKUP = `
  SELECT k.id, k.scopes, k."revokedAt", a.id AS "appId", e.id AS "envId", e.status AS "envStatus"
  FROM "ApiKey" k
  JOIN "Workspace" w ON w.id = k."workspaceId"
  JOIN "Application" a ON a.id = k."applicationId"
  JOIN "Environment" e ON e.id = k."environmentId"
  WHERE k."keyHash" = $1`;

const QUOTE = `
  SELECT q.*, CASE WHEN c.id IS NULL THEN NULL ELSE json_build_object('id', c.id, 'email', c.email) END AS customer, json_build_object('name', a.name, 'settings', a.settings) AS application,
    (SELECT coalesce(json_agg(r ORDER BY r.number), '[]'::json) FROM (
       SELECT r.*, (SELECT coalesce(json_agg(i ORDER BY i.position), '[]'::json) FROM "QuoteLineItem" i WHERE i."revisionId" = r.id) AS items
       FROM "QuoteRevision" r WHERE r."quoteId" = q.id) r) AS revisions,
    (SELECT coalesce(json_agg(cm ORDER BY cm."createdAt", cm.id), '[]'::json) FROM "QuoteComment" cm WHERE cm."quoteId" = q.id) AS comments,
    (SELECT st."taxRates" FROM "ShippingTaxSettings" st WHERE st."applicationId" = q."applicationId" AND st."environmentId" = q."environmentId") AS "taxRates"
  FROM "Quote" q
  LEFT JOIN "Customer" c ON c.id = q."customerId"
  JOIN "Application" a ON a.id = q."applicationId"
  WHERE q.id = $1 AND q."applicationId" = $2 AND q."environmentId" = $3`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function send(res: http.ServerResponse, status: number, payload: string) {
  const b = Buffer.from(payload);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": b.length });
  res.end(b);
}

export async function startBareQuote(pool: Pool, config: Config) {
  // Named statements, parsed once per connection, as the service sends its repeated ones (src/db/prepared.ts);
  // BENCH_BARE_NAMED=0 sends them unnamed, as before.
  const named = process.env.BENCH_BARE_NAMED !== "0";
  const ctx = { deps: { config } } as unknown as Ctx;
  const server = http.createServer((req, res) => {
    const m = /^\/api\/v1\/quotes\/([^/?]+)$/.exec(req.url ?? "");
    if (req.method !== "GET" || !m) return send(res, 404, '{"error":{"code":"not_found"}}');
    (async () => {
      const raw = req.headers["x-api-key"];
      const hash = typeof raw === "string" ? createHash("sha256").update(raw).digest("hex") : "";
      const k = (await pool.query(named ? { name: "bare_lookup", text: LOOKUP, values: [hash] } : { text: LOOKUP, values: [hash] })).rows[0];
      if (!k || k.revokedAt || k.envStatus !== "active") return send(res, 401, '{"error":{"code":"unauthorized"}}');
      if (!k.scopes.includes("*") && !k.scopes.includes("quotes:read")) return send(res, 403, '{"error":{"code":"insufficient_scopes"}}');
      if (!UUID.test(m[1])) return send(res, 404, '{"error":{"code":"not_found"}}');
      const row = (await pool.query(named ? { name: "bare_quote", text: QUOTE, values: [m[1], k.appId, k.envId] } : { text: QUOTE, values: [m[1], k.appId, k.envId] })).rows[0];
      if (!row) return send(res, 404, '{"error":{"code":"not_found"}}');
      send(res, 200, JSON.stringify({ data: quoteView(ctx, shapeQuoteRow(row)) }));
    })().catch((e) => {
      console.error("[bare-quote]", e);
      send(res, 500, '{"error":{"code":"internal_error"}}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
