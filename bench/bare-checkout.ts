// The bare reference for bench/checkout.ts (issue 10): the same storefront scenario (POST /carts, 3 x POST
// /carts/{id}/items, POST /checkout/sessions, POST /checkout-sessions/{id}/complete with tok_visa) on node:http and pg
// with the least SQL that keeps the service's guarantees, on the service's own migrated schema and API keys.
//
// What it keeps:
// - authentication: the service's one-statement key lookup on every keyed request (no cache), 401 without a live key;
// - tenancy: every statement is scoped to the key's application and environment;
// - a line cap (100) and the integer ceiling of the cart's subtotal, checked under the cart's row lock;
// - single-flight completion: the claim (a compare-and-set on "completionStartedAt", stale after 60 s) is part of the
//   statement that creates the order, so a racing call gets 409 and nothing is created twice;
// - one order per session and per cart (the unique indexes; the insert is ON CONFLICT DO NOTHING);
// - the outbox: every state change writes its events, and their webhook deliveries for subscribed endpoints, in the
//   same statement (so the same transaction) as the change itself: cart.created, cart.item_added,
//   cart.checkout_started, order.created, payment.pending, payment.captured, order.updated, cart.converted.
// What it leaves out: rate limits, Idempotency-Key replay, the validation library and field-level error bodies,
// addresses beyond a JSON copy, shipping and tax settings, customer creation (it links an existing customer by email;
// the service creates one on a first order), the processor abstraction (tok_visa is captured inline), declines and
// Net-N, GraphQL and live subscriptions.
// Statements per request: cart 2 (lookup, insert), line 5 (lookup, BEGIN, lock, insert, COMMIT), session 2, complete 2
// (claim + order + lines + history + payment + events; capture + ledger + order + history + session + cart + events):
// 21 per scenario. Each single-statement write is its own transaction (autocommit), so it needs no BEGIN/COMMIT.
// Run through bench/checkout.ts, which serves it with startBare(pool) after our own phases.
import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Pool, PoolClient } from "pg";

const MAX_LINES = 100;
const INT_MAX = 2_147_483_647;
const STALE_CLAIM_S = 60;
const SESSION_TTL_MS = 24 * 3_600_000;

const LOOKUP = `
  SELECT k.scopes, k."revokedAt", w.id AS "wsId", a.id AS "appId", a.currency AS "appCurrency",
         e.id AS "envId", e.kind AS "envKind", e.status AS "envStatus"
  FROM "ApiKey" k
  JOIN "Workspace" w ON w.id = k."workspaceId"
  JOIN "Application" a ON a.id = k."applicationId"
  JOIN "Environment" e ON e.id = k."environmentId"
  WHERE k."keyHash" = $1`;

interface Tenant {
  wsId: string;
  appId: string;
  envId: string;
  envKind: string;
  currency: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/**
 * The outbox as CTEs: `rows` is a SELECT yielding (type, data, ws, app, env, kind); the events are inserted and a
 * delivery row is added for every active endpoint of the tenant that subscribes to the type.
 */
const outbox = (rows: string) => `
  ev AS (
    INSERT INTO "Event" (id, "workspaceId", "applicationId", "environmentId", "environmentKind", type, data, "createdAt")
    SELECT gen_random_uuid(), x.ws, x.app, x.env, x.kind, x.type, x.data, now() FROM (${rows}) AS x
    RETURNING id, "applicationId", "environmentId", type, "createdAt"
  ), dl AS (
    INSERT INTO "WebhookDelivery" (id, "endpointId", "eventId", "nextAttemptAt")
    SELECT gen_random_uuid(), e.id, ev.id, ev."createdAt" FROM ev
    JOIN "WebhookEndpoint" e ON e."applicationId" = ev."applicationId" AND e."environmentId" = ev."environmentId"
      AND e."deletedAt" IS NULL AND e."isActive" AND ev.type = ANY (e."enabledEvents")
  )`;

export async function startBare(pool: Pool, port = 0): Promise<{ url: string; close: () => Promise<void> }> {
  // Every statement as a named (prepared) statement, parsed once per connection, as the service sends its repeated
  // statements (src/db/prepared.ts). BENCH_BARE_NAMED=0: unnamed, the reference of issue 10's steps one to ten.
  const names = new Map<string, string>();
  const query = (q: Pool | PoolClient, text: string, values?: unknown[]) => {
    if (process.env.BENCH_BARE_NAMED === "0") return (q as Pool).query(text, values);
    let name = names.get(text);
    if (!name) names.set(text, (name = `bare_${names.size}`));
    return (q as Pool).query({ name, text }, values);
  };
  async function auth(req: http.IncomingMessage): Promise<Tenant> {
    const raw = req.headers["x-api-key"];
    if (typeof raw !== "string" || raw.length > 200) throw new HttpError(401, "unauthorized");
    const { rows } = await query(pool, LOOKUP, [createHash("sha256").update(raw).digest("hex")]);
    const k = rows[0];
    if (!k || k.revokedAt || k.envStatus !== "active") throw new HttpError(401, "unauthorized");
    return { wsId: k.wsId, appId: k.appId, envId: k.envId, envKind: k.envKind, currency: k.appCurrency };
  }

  async function createCart(t: Tenant, body: any) {
    const email = typeof body?.customerEmail === "string" ? body.customerEmail.toLowerCase() : null;
    const { rows } = await query(pool, 
      `WITH c AS (
         INSERT INTO "Cart" (id, "applicationId", "environmentId", currency, "customerEmail", "createdAt", "updatedAt")
         VALUES (gen_random_uuid(), $1, $2, $3, $4, now(), now()) RETURNING id, status, currency, "customerEmail"
       ), ${outbox(`SELECT 'cart.created' AS type, jsonb_build_object('cartId', c.id) AS data, $5::uuid AS ws, $1::uuid AS app, $2::uuid AS env, $6 AS kind FROM c`)}
       SELECT * FROM c`,
      [t.appId, t.envId, t.currency, email, t.wsId, t.envKind],
    );
    return { status: 201, body: { data: rows[0] } };
  }

  async function addLine(t: Tenant, cartId: string, body: any) {
    const unitPrice = body?.unitPrice;
    const quantity = body?.quantity ?? 1;
    if (typeof body?.name !== "string" || !Number.isInteger(unitPrice) || unitPrice < 0 || !Number.isInteger(quantity) || quantity < 1) throw new HttpError(422, "validation_error");
    const type = typeof body.type === "string" ? body.type : "product";
    return tx(async (c) => {
      // The lock: every line committed before it is seen by the next statement.
      const locked = await query(c, `UPDATE "Cart" SET "updatedAt" = now() WHERE id = $1 AND "applicationId" = $2 AND "environmentId" = $3 AND status = 'open' RETURNING id`, [cartId, t.appId, t.envId]);
      if (!locked.rowCount) throw new HttpError(404, "cart_not_found");
      const { rows } = await query(c, 
        `WITH cur AS (
           SELECT count(*) AS n, COALESCE(SUM("unitPrice"::bigint * quantity), 0) AS subtotal FROM "CartLineItem" WHERE "cartId" = $1::uuid
         ), li AS (
           INSERT INTO "CartLineItem" (id, "cartId", type, name, "unitPrice", quantity, "requiresShipping", "createdAt")
           SELECT gen_random_uuid(), $1::uuid, $2::text, $3::text, $4::int, $5::int, $6::boolean, clock_timestamp() FROM cur
           WHERE cur.n < ${MAX_LINES} AND cur.subtotal + $4::int::bigint * $5::int <= ${INT_MAX}
           RETURNING *
         ), ${outbox(`SELECT 'cart.item_added' AS type, jsonb_build_object('cartId', li."cartId", 'lineItemId', li.id, 'quantity', li.quantity, 'unitPrice', li."unitPrice") AS data,
                 $7::uuid AS ws, $8::uuid AS app, $9::uuid AS env, $10 AS kind FROM li`)}
         SELECT * FROM li`,
        [cartId, type, body.name, unitPrice, quantity, type !== "service", t.wsId, t.appId, t.envId, t.envKind],
      );
      if (!rows[0]) throw new HttpError(422, "validation_error");
      return { status: 201, body: { data: rows[0] } };
    });
  }

  async function createSession(t: Tenant, body: any) {
    if (typeof body?.cartId !== "string" || typeof body.returnUrl !== "string" || typeof body.cancelUrl !== "string") throw new HttpError(422, "validation_error");
    const { rows } = await query(pool, 
      `WITH c AS (
         UPDATE "Cart" SET "expiresAt" = $4, status = 'open', "updatedAt" = now()
         WHERE id = $1 AND "applicationId" = $2 AND "environmentId" = $3 AND status IN ('open', 'abandoned')
           AND EXISTS (SELECT 1 FROM "CartLineItem" WHERE "cartId" = $1)
         RETURNING id, "customerEmail", "customerId"
       ), m AS (
         SELECT COALESCE(array_agg(DISTINCT CASE kind WHEN 'card' THEN 'card' ELSE 'net30' END ORDER BY CASE kind WHEN 'card' THEN 'card' ELSE 'net30' END), ARRAY['card']) AS methods
         FROM "Connector" WHERE "applicationId" = $2 AND "environmentId" = $3 AND status = 'active' AND kind IN ('card', 'invoice_terms')
       ), s AS (
         INSERT INTO "CheckoutSession" (id, "applicationId", "environmentId", "cartId", "returnUrl", "cancelUrl", "customerEmail", "customerId", "allowedMethods", "expiresAt", "createdAt")
         SELECT gen_random_uuid(), $2, $3, c.id, $5, $6, c."customerEmail", c."customerId", m.methods, $4, now() FROM c, m
         RETURNING id, "cartId", status, "allowedMethods", "expiresAt"
       ), ${outbox(`SELECT 'cart.checkout_started' AS type, jsonb_build_object('cartId', s."cartId", 'checkoutSessionId', s.id) AS data, $7::uuid AS ws, $2::uuid AS app, $3::uuid AS env, $8 AS kind FROM s`)}
       SELECT * FROM s`,
      [body.cartId, t.appId, t.envId, new Date(Date.now() + SESSION_TTL_MS), body.returnUrl, body.cancelUrl, t.wsId, t.envKind],
    );
    if (!rows[0]) throw new HttpError(409, "cart_not_editable");
    return { status: 201, body: { data: rows[0] } };
  }

  async function complete(sessionId: string, body: any) {
    if (body?.paymentMethod !== "card" || typeof body.paymentToken !== "string") throw new HttpError(422, "missing_required_field");
    const orderId = randomUUID();
    const paymentId = randomUUID();
    // 1. Claim, order, lines, history, pending payment and their events: one statement, so one transaction.
    const placed = await query(pool, 
      `WITH s AS (
         UPDATE "CheckoutSession" SET "completionStartedAt" = now()
         WHERE id = $1 AND status = 'open' AND "expiresAt" > now() AND 'card' = ANY ("allowedMethods")
           AND ("completionStartedAt" IS NULL OR "completionStartedAt" < now() - interval '${STALE_CLAIM_S} seconds')
         RETURNING id, "applicationId", "environmentId", "cartId", "customerEmail", metadata
       ), env AS (
         SELECT e."workspaceId" AS ws, e.kind FROM "Environment" e JOIN s ON e.id = s."environmentId"
       ), conn AS (
         SELECT c.id, c.provider FROM "Connector" c JOIN s ON c."applicationId" = s."applicationId" AND c."environmentId" = s."environmentId"
         WHERE c.kind = 'card' AND c.status = 'active' ORDER BY c."createdAt" LIMIT 1
       ), cart AS (
         SELECT k.id, k.currency, COALESCE(s."customerEmail", k."customerEmail") AS email FROM "Cart" k JOIN s ON k.id = s."cartId"
       ), li AS (
         SELECT l.*, row_number() OVER (ORDER BY l."createdAt", l.id) - 1 AS pos FROM "CartLineItem" l JOIN s ON l."cartId" = s."cartId"
       ), tot AS (
         SELECT COALESCE(SUM("unitPrice" * quantity), 0)::int AS subtotal, COALESCE(SUM("discountAmount"), 0)::int AS discount, COALESCE(SUM("taxAmount"), 0)::int AS tax FROM li
       ), cust AS (
         SELECT cu.id FROM "Customer" cu JOIN s ON cu."applicationId" = s."applicationId" AND cu."environmentId" = s."environmentId" JOIN cart ON cu.email = cart.email
       ), o AS (
         INSERT INTO "Order" (id, "applicationId", "environmentId", "checkoutSessionId", "cartId", "customerId", email, status, currency,
           subtotal, "discountTotal", "taxTotal", total, "shippingAddress", metadata, "createdAt", "updatedAt")
         SELECT $2, s."applicationId", s."environmentId", s.id, s."cartId", (SELECT id FROM cust), cart.email, 'pending', cart.currency,
           tot.subtotal, tot.discount, tot.tax, tot.subtotal - tot.discount + tot.tax, $4::jsonb, s.metadata, now(), now()
         FROM s, cart, tot, conn
         ON CONFLICT DO NOTHING
         RETURNING id, total, currency, "applicationId", "environmentId", "customerId"
       ), ol AS (
         INSERT INTO "OrderLineItem" (id, "orderId", type, "referenceId", name, description, "unitPrice", quantity, "taxAmount", "discountAmount", "requiresShipping", "imageUrl", metadata, position)
         SELECT gen_random_uuid(), o.id, li.type, li."referenceId", li.name, li.description, li."unitPrice", li.quantity, li."taxAmount", li."discountAmount", li."requiresShipping", li."imageUrl", li.metadata, li.pos
         FROM o, li
       ), h AS (
         INSERT INTO "OrderStatusHistory" (id, "orderId", "toStatus", "actorType", source, "createdAt")
         SELECT gen_random_uuid(), o.id, 'pending', 'system', 'state_machine', now() FROM o
       ), p AS (
         INSERT INTO "Payment" (id, "applicationId", "environmentId", "orderId", "checkoutSessionId", amount, currency, method, processor, "connectorId", "createdAt", "updatedAt")
         SELECT $3, o."applicationId", o."environmentId", o.id, $1, o.total, o.currency, 'card', conn.provider, conn.id, now(), now() FROM o, conn
         RETURNING id, amount, currency, "orderId"
       ), ${outbox(`
         SELECT 'order.created' AS type, jsonb_build_object('orderId', o.id, 'checkoutSessionId', $1::uuid, 'total', o.total, 'currency', o.currency, 'customerId', o."customerId") AS data,
           env.ws, o."applicationId" AS app, o."environmentId" AS env, env.kind FROM o, env
         UNION ALL
         SELECT 'payment.pending', jsonb_build_object('paymentId', p.id, 'orderId', p."orderId", 'amount', p.amount, 'currency', p.currency, 'method', 'card'),
           env.ws, o."applicationId", o."environmentId", env.kind FROM p, o, env`)}
       SELECT EXISTS (SELECT 1 FROM s) AS claimed, (SELECT id FROM o) AS "orderId", (SELECT amount FROM p) AS amount,
         (SELECT ws FROM env) AS ws, (SELECT kind FROM env) AS kind, (SELECT "applicationId" FROM s) AS app, (SELECT "environmentId" FROM s) AS env`,
      [sessionId, orderId, paymentId, JSON.stringify(body.shippingAddress ?? null)],
    );
    const r = placed.rows[0];
    if (!r.claimed) {
      const { rows } = await query(pool, `SELECT status, "completionStartedAt" FROM "CheckoutSession" WHERE id = $1`, [sessionId]);
      if (!rows[0]) throw new HttpError(404, "session_not_found");
      throw rows[0].status === "open" && rows[0].completionStartedAt ? new HttpError(409, "checkout_in_progress") : new HttpError(422, "session_not_open");
    }
    if (!r.orderId) {
      await query(pool, `UPDATE "CheckoutSession" SET "completionStartedAt" = NULL WHERE id = $1`, [sessionId]);
      throw new HttpError(422, "session_not_open"); // the cart is ordered already, or no connector
    }
    // 2. The processor: tok_visa captures at once.
    if (body.paymentToken !== "tok_visa") throw new HttpError(402, "payment_failed");
    const reference = `test_${paymentId}`;
    // 3. Capture, ledger, order, history, session, cart and their events: one statement.
    const done = await query(pool, 
      `WITH p AS (
         UPDATE "Payment" SET status = 'captured', "authorizedAmount" = amount, "capturedAmount" = amount, "processorPaymentId" = $2, "updatedAt" = now()
         WHERE id = $1 AND status = 'pending' RETURNING id, "orderId", amount, currency
       ), t AS (
         INSERT INTO "Transaction" (id, "paymentId", type, status, amount, currency, "processorReference", "createdAt")
         SELECT gen_random_uuid(), p.id, x.type, 'succeeded', p.amount, p.currency, $2, now() FROM p, (VALUES ('authorization', 1), ('capture', 2)) AS x(type, n) ORDER BY x.n
       ), o AS (
         UPDATE "Order" SET status = 'processing', "paymentStatus" = 'captured', "updatedAt" = now() WHERE id = (SELECT "orderId" FROM p) AND status = 'pending' RETURNING id
       ), h AS (
         INSERT INTO "OrderStatusHistory" (id, "orderId", "fromStatus", "toStatus", "actorType", source, "createdAt")
         SELECT gen_random_uuid(), o.id, 'pending', 'processing', 'system', 'payment', now() FROM o
       ), s AS (
         UPDATE "CheckoutSession" SET status = 'completed', "completedAt" = now(), "orderId" = $3, "paymentId" = $1, "completionStartedAt" = NULL
         WHERE id = $4 AND EXISTS (SELECT 1 FROM p) RETURNING id, "cartId"
       ), c AS (
         UPDATE "Cart" SET status = 'converted', "updatedAt" = now() WHERE id = (SELECT "cartId" FROM s) RETURNING id
       ), ${outbox(`
         SELECT 'payment.captured' AS type, jsonb_build_object('paymentId', p.id, 'orderId', p."orderId", 'status', 'captured', 'amount', p.amount, 'capturedAmount', p.amount) AS data,
           $5::uuid AS ws, $6::uuid AS app, $7::uuid AS env, $8 AS kind FROM p
         UNION ALL
         SELECT 'order.updated', jsonb_build_object('orderId', o.id, 'status', 'processing', 'paymentStatus', 'captured', 'previousStatus', 'pending'), $5::uuid, $6::uuid, $7::uuid, $8 FROM o
         UNION ALL
         SELECT 'cart.converted', jsonb_build_object('cartId', c.id, 'orderId', $3::uuid, 'checkoutSessionId', $4::uuid), $5::uuid, $6::uuid, $7::uuid, $8 FROM c`)}
       SELECT EXISTS (SELECT 1 FROM p) AS moved`,
      [paymentId, reference, r.orderId, sessionId, r.ws, r.app, r.env, r.kind],
    );
    if (!done.rows[0].moved) throw new HttpError(409, "payment_state_changed");
    return { status: 200, body: { data: { orderId: r.orderId, paymentId, paymentStatus: "captured" } } };
  }

  async function tx<T>(fn: (c: PoolClient) => Promise<T>): Promise<T> {
    const c = await pool.connect();
    try {
      await query(c, "BEGIN");
      const r = await fn(c);
      await query(c, "COMMIT");
      return r;
    } catch (e) {
      await query(c, "ROLLBACK").catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async function route(req: http.IncomingMessage, body: unknown) {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "POST") throw new HttpError(405, "method_not_allowed");
    if (path === "/api/v1/carts") return createCart(await auth(req), body);
    if (path === "/api/v1/checkout/sessions") return createSession(await auth(req), body);
    let m = /^\/api\/v1\/carts\/([0-9a-f-]{36})\/items$/.exec(path);
    if (m) return addLine(await auth(req), m[1], body);
    m = /^\/api\/v1\/checkout-sessions\/([0-9a-f-]{36})\/complete$/.exec(path);
    if (m) return complete(m[1], body);
    throw new HttpError(404, "not_found");
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: unknown;
      const reply = (status: number, payload: unknown) => {
        const text = Buffer.from(JSON.stringify(payload));
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": text.length }).end(text);
      };
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
      } catch {
        return reply(400, { error: { code: "invalid_json" } });
      }
      route(req, body).then(
        (r) => reply(r.status, r.body),
        (e) => (e instanceof HttpError ? reply(e.status, { error: { code: e.code } }) : (console.error("[bare]", e), reply(500, { error: { code: "internal_error" } }))),
      );
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
