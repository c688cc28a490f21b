// The order timeline (one row per status change, payment transaction and activity; newest first; cursor paging;
// kinds) and the CSV export (the GET /orders filters, RFC 4180 quoting parsed back with a CSV library, keyset
// batches, tenancy and scope), over REST and GraphQL.
import { parse } from "csv-parse/sync";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { makeCtx } from "../src/shared/context";
import { EXPORT_MAX_ROWS, exportBatches } from "../src/orders/export.service";
import { notStarted, pgTest, startPgApp, startTestApp, type BootstrapLike, type TestApp } from "./helpers/app";
import { kindOf, statementsOf } from "./helpers/statements";
import { client, mintKeyVia } from "./helpers/http";
import { codeOf, gqlClient } from "./helpers/gql";
import { seedOrder } from "./helpers/orders";
import { FOrdersExportDocument, FOrderTimelineDocument } from "./generated/graphql";

type Api = ReturnType<typeof client>;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

describe("order timeline and CSV export", () => {
  let t: TestApp;
  let api: Api;
  let demo: BootstrapResult;
  let other: BootstrapLike;
  let clock: FixedClock;
  let key: string;

  beforeAll(async () => {
    clock = new FixedClock(new Date("2026-03-01T10:00:00.000Z"));
    t = (await startTestApp({ clock }))!;
    api = client(t.url);
    demo = await t.bootstrap();
    other = await t.otherWorkspace("timeline-other");
    key = demo.apiKey;
  });
  afterAll(() => t?.close());

  async function paidOrder() {
    const cart = await api("POST", "carts", { key, body: { customerEmail: "tl@example.com" } });
    await api("POST", `carts/${cart.body.data.id}/items`, { key, body: { name: "Lamp", unitPrice: 4000, quantity: 2 } });
    const s = await api("POST", "checkout/sessions", { key, body: { cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" } });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa_authorize", shippingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    return done.body.data as { orderId: string; paymentId: string };
  }

  test("newest first, one row per status change, payment transaction and activity, with kinds, titles and sources; paging covers every row once", async () => {
    const { orderId, paymentId } = await paidOrder();
    clock.advance(60_000);
    expect((await api("POST", `payments/${paymentId}/capture`, { key, body: {} })).status).toBe(200);
    clock.advance(60_000);
    const lineId = (await api("GET", `orders/${orderId}`, { key })).body.data.lineItems[0].id;
    const f = await api("POST", `orders/${orderId}/fulfillments`, { key, body: { lineItems: [{ lineItemId: lineId, quantity: 2 }], shipment: { carrier: "UPS", trackingNumber: "1Z" } } });
    expect(f.status).toBe(201);
    clock.advance(60_000);
    await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    clock.advance(60_000);
    const r = await api("POST", `orders/${orderId}/returns`, { key, body: { lineItems: [{ lineItemId: lineId, quantity: 1 }], reason: "Broken" } });
    clock.advance(60_000);
    await api("POST", `returns/${r.body.data.id}/receive`, { key });
    clock.advance(60_000);
    // a hold row as the holds code writes it (OrderActivity kind hold)
    await t.deps.prisma.orderActivity.create({ data: { orderId, kind: "hold", title: "Order placed on hold", source: "manual", reason: "Fraud check", actorType: "user", actorName: "ops@example.com", createdAt: clock.now() } });

    const all = await api("GET", `orders/${orderId}/timeline?limit=200`, { key });
    expect(all.status).toBe(200);
    expect(all.body.meta.pagination).toEqual({ cursor: null, hasMore: false });
    const rows = all.body.data as any[];
    expect(rows.map((x) => [x.kind, x.title])).toEqual([
      ["hold", "Order placed on hold"],
      ["fulfillment", "Return of 1 item received"],
      ["fulfillment", "Return of 1 item requested"],
      ["fulfillment", "Shipment delivered"],
      ["fulfillment", "Shipment handed to the carrier"],
      ["fulfillment", "Shipment of 2 items created"],
      ["status", "Status changed from Processing to Fulfilled"],
      ["payment", "Payment captured"],
      ["status", "Status changed from Pending to Processing"],
      ["payment", "Payment authorized"],
      ["status", "Order created as Pending"],
    ]);
    expect(rows[0]).toMatchObject({ source: "manual", reason: "Fraud check", actorType: "user", actorName: "ops@example.com" });
    expect(rows[2]).toMatchObject({ source: "return", reason: "Broken", actorType: "integration" });
    expect(rows[4]).toMatchObject({ detail: "via UPS, tracking 1Z" });
    expect(rows[7]).toMatchObject({ source: "payment", amount: 8000, currency: "USD", detail: "Card" });
    expect(rows[6]).toMatchObject({ source: "fulfillment" });
    for (let i = 1; i < rows.length; i++) expect(rows[i - 1].at >= rows[i].at).toBe(true);
    expect(new Set(rows.map((x) => x.id)).size).toBe(rows.length);

    // pages of 3, then of 1: the same rows in the same order, each once
    for (const limit of [3, 1]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const p: any = await api("GET", `orders/${orderId}/timeline?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { key });
        expect(p.status).toBe(200);
        expect(p.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...p.body.data.map((x: any) => x.id));
        cursor = p.body.meta.pagination.cursor;
        expect(p.body.meta.pagination.hasMore).toBe(cursor !== null);
        pages++;
      } while (cursor);
      expect(seen).toEqual(rows.map((x) => x.id));
      expect(pages).toBe(Math.ceil(rows.length / limit));
    }
    expect((await api("GET", `orders/${orderId}/timeline`, { key })).body.data).toHaveLength(rows.length); // default 50

    // GraphQL pages the same way
    const gql = gqlClient(t.url);
    const g1 = await gql(FOrderTimelineDocument, { id: orderId, limit: 5 }, { key });
    expect(g1.errors).toBeNull();
    expect(g1.data!.orderTimeline.nodes.map((n) => n.id)).toEqual(rows.slice(0, 5).map((x) => x.id));
    const g2 = await gql(FOrderTimelineDocument, { id: orderId, limit: 200, cursor: g1.data!.orderTimeline.pageInfo.cursor }, { key });
    expect(g2.data!.orderTimeline.nodes.map((n) => n.id)).toEqual(rows.slice(5).map((x) => x.id));
    expect(g1.data!.orderTimeline.nodes[0]).toMatchObject({ kind: "hold", actorType: "user", reason: "Fraud check" });
    expect(codeOf(await gql(FOrderTimelineDocument, { id: orderId, limit: 0 }, { key }))).toBe("validation_error");
    expect(codeOf(await gql(FOrderTimelineDocument, { id: orderId }, { key: other.apiKey }))).toBe("not_found");
  });

  test("rows of one clock tick keep the order they happened in; bad limit or cursor is 422, another tenant's order 404, no orders:read 403", async () => {
    const { orderId } = await paidOrder(); // every row at the same instant (fixed clock)
    const rows = (await api("GET", `orders/${orderId}/timeline`, { key })).body.data;
    expect(rows.map((x: any) => x.title)).toEqual(["Status changed from Pending to Processing", "Payment authorized", "Order created as Pending"]);
    expect(new Set(rows.map((x: any) => x.at)).size).toBe(1);
    for (const q of ["limit=0", "limit=201", "limit=abc", "cursor=nope", `cursor=${Buffer.from('["x",1,1]').toString("base64url")}`, "colour=red"]) {
      const r = await api("GET", `orders/${orderId}/timeline?${q}`, { key });
      expect({ q, status: r.status, code: r.body.error?.code }).toEqual({ q, status: 422, code: "validation_error" });
    }
    expect((await api("GET", `orders/${orderId}/timeline`, { key: other.apiKey })).status).toBe(404);
    expect((await api("GET", "orders/not-a-uuid/timeline", { key })).status).toBe(404);
    const noRead = await mintKeyVia(api, demo, ["fulfillments:read"]);
    const denied = await api("GET", `orders/${orderId}/timeline`, { key: noRead.rawKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scopes");
  });

  test("the export of many orders parses back with a CSV library to the same rows, in GET /orders order, quoting commas, quotes and line breaks", async () => {
    const app = await t.otherWorkspace("export-many"); // a clean tenant: exactly the orders seeded here
    const tricky = ['comma,buyer@example.com', 'quote"d@example.com', "line\nbreak@example.com", "crlf\r\nx@example.com", "ünï@example.com", "=cmd@example.com", ""];
    const base = new Date("2026-02-01T00:00:00.000Z").getTime();
    const db = t.deps.prisma;
    const n = 2345; // more than two keyset batches
    await db.$executeRaw`
      INSERT INTO "Order" (id, "applicationId", "environmentId", status, "paymentStatus", currency, subtotal, total, "compAmount", email, "deliveryState", "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${app.applicationId}::uuid, ${app.environments.sandbox.id}::uuid,
             (ARRAY['processing','fulfilled','partially_fulfilled'])[1 + i % 3], 'captured', 'USD', 1000 + i, 1100 + i, CASE WHEN i % 50 = 0 THEN 100 ELSE 0 END,
             'buyer' || i || '@example.com', (ARRAY[NULL,'in_transit','delivered','returned','partially_returned'])[1 + i % 5],
             ${new Date(base)}::timestamptz + (i / 3) * interval '1 second', now()
      FROM generate_series(1, ${n}) AS i`;
    for (const [i, email] of tricky.entries()) {
      const { order } = await seedOrder(t, app, { lines: [{ quantity: 1 }], email: email || null, createdAt: new Date(base - (i + 1) * 1000) });
      await db.payment.create({ data: { applicationId: app.applicationId, environmentId: app.environments.sandbox.id, orderId: order.id, amount: 1000, currency: "USD", method: "card", processor: "test", status: "partially_refunded", capturedAmount: 1000, refundedAmount: 250 } });
    }
    const res = await fetch(`${t.url}/api/v1/orders/export.csv`, { headers: { "x-api-key": app.apiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="orders-\d{8}-\d{6}\.csv"$/);
    const text = await res.text();
    expect(text.startsWith("id,createdAt,status,paymentStatus,displayStatus,customerEmail,currency,subtotal,total,compAmount,capturedAmount,refundedAmount,delivery_state\r\n")).toBe(true);
    const records: string[][] = parse(text, { relax_column_count: false });
    const [header, ...rows] = records;
    expect(header.at(-1)).toBe("delivery_state");
    expect(rows).toHaveLength(n + tricky.length);

    // the same orders, in the same order, as the paged GET /orders
    const listed: any[] = [];
    let cursor: string | null = null;
    do {
      const p: any = await api("GET", `orders?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { key: app.apiKey });
      listed.push(...p.body.data);
      cursor = p.body.meta.pagination.cursor;
    } while (cursor);
    expect(rows.map((r) => r[0])).toEqual(listed.map((o) => o.id));
    const byId = new Map(listed.map((o) => [o.id, o]));
    for (const r of rows) {
      const o = byId.get(r[0]);
      const expected = [o.id, o.createdAt, o.status, o.paymentStatus, o.displayStatus, o.email ?? "", o.currency, String(o.subtotal), String(o.total), String(o.compAmount)];
      expect(r.slice(0, 10)).toEqual(expected[5]?.startsWith("=") ? [...expected.slice(0, 5), `'${expected[5]}`, ...expected.slice(6)] : expected);
      expect(r[12]).toBe(o.deliveryState ?? "");
    }
    const trickyRows = rows.slice(-tricky.length);
    expect(trickyRows.map((r) => r[5])).toEqual(tricky.map((e) => (e.startsWith("=") ? `'${e}` : e)));
    expect(trickyRows.every((r) => r[10] === "1000" && r[11] === "250" && r[4] === "Processing")).toBe(true);
    expect(text).toContain('"quote""d@example.com"');
    expect(text).toContain('"line\nbreak@example.com"');

    // the filters of GET /orders
    const filtered = async (q: string) => {
      const r = await fetch(`${t.url}/api/v1/orders/export.csv?${q}`, { headers: { "x-api-key": app.apiKey } });
      expect(r.status).toBe(200);
      return (parse(await r.text()) as string[][]).slice(1);
    };
    const returned = await filtered("delivery=returned");
    expect(returned.length).toBe(listed.filter((o) => ["returned", "partially_returned"].includes(o.deliveryState)).length);
    expect(returned.every((r) => ["returned", "partially_returned"].includes(r[12]))).toBe(true);
    const notShipped = await filtered("delivery=not_shipped&status=fulfilled");
    expect(notShipped.length).toBe(listed.filter((o) => o.deliveryState === null && o.status === "fulfilled").length);
    expect(await filtered("q=buyer17%40")).toEqual(rows.filter((r) => r[5].startsWith("buyer17")).filter((r) => r[5].includes("buyer17@")));
    expect(await filtered(`applicationId=${demo.applicationId}`)).toEqual([]);
    // the row cap: batches stop at the limit (the route's is EXPORT_MAX_ROWS = 100,000; bench/export.ts runs it)
    const tenant = { applicationId: app.applicationId, environmentId: app.environments.sandbox.id } as any;
    const sizes: number[] = [];
    for await (const batch of exportBatches(makeCtx(t.deps), { t: tenant, q: {}, empty: false }, 1500)) sizes.push(batch.length);
    expect(sizes).toEqual([1000, 500]);
    expect(EXPORT_MAX_ROWS).toBe(100_000);
  });

  test("export: tenant isolation, orders:read scope, bad filters as JSON errors, GraphQL ordersExport URL", async () => {
    const mine = await seedOrder(t, demo, { lines: [{ quantity: 1 }], email: "mine-export@example.com" });
    const theirs = await fetch(`${t.url}/api/v1/orders/export.csv`, { headers: { "x-api-key": other.apiKey } });
    expect(theirs.status).toBe(200);
    expect(await theirs.text()).not.toContain(mine.order.id);
    const noRead = await mintKeyVia(api, demo, ["fulfillments:read"]);
    const denied = await api("GET", "orders/export.csv", { key: noRead.rawKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("insufficient_scopes");
    for (const q of ["status=lost", "delivery=moon", "limit=5", "customerId=nope", "colour=red"]) {
      const r = await api("GET", `orders/export.csv?${q}`, { key });
      expect({ q, status: r.status, code: r.body.error?.code }).toEqual({ q, status: 422, code: "validation_error" });
    }
    expect((await api("GET", "orders/export.csv", {})).status).toBe(401);
    const gql = gqlClient(t.url);
    const g = await gql(FOrdersExportDocument, { status: "processing" as any, delivery: "not_shipped" as any, q: "mine-export@" }, { key });
    expect(g.errors).toBeNull();
    expect(g.data!.ordersExport).toMatchObject({ maxRows: 100000, columns: expect.arrayContaining(["id", "delivery_state"]) });
    expect(g.data!.ordersExport.columns.at(-1)).toBe("delivery_state");
    const url = g.data!.ordersExport.url;
    expect(url).toBe("/api/v1/orders/export.csv?status=processing&q=mine-export%40&delivery=not_shipped");
    const csv = await (await fetch(`${t.url}${url}`, { headers: { "x-api-key": key } })).text();
    const rows = (parse(csv) as string[][]).slice(1);
    expect(rows.map((r) => r[0])).toEqual([mine.order.id]);
    expect(codeOf(await gql(FOrdersExportDocument, {}, { key: noRead.rawKey }))).toBe("insufficient_scopes");
  });
});

describe("on PostgreSQL: statements per timeline page and per export batch", () => {
  let t: TestApp | null;
  let api: Api;
  let demo: BootstrapResult;
  beforeAll(async () => {
    t = await startPgApp({ worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
    if (!t) return; // no PostgreSQL: every test below is registered as skipped
    api = client(t.url);
    demo = await t.bootstrap();
  });
  afterAll(() => t?.close());

  pgTest("a timeline page is one UNION ALL statement whatever its size; the export one statement per 1,000 orders", async () => {
    if (!t) throw notStarted();
    const { order, lines } = await seedOrder(t, demo, { lines: [{ quantity: 60 }] });
    for (let i = 0; i < 30; i++) {
      const f = await api("POST", `orders/${order.id}/fulfillments`, { key: demo.apiKey, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { trackingNumber: `S${i}` } } });
      expect(f.status).toBe(201);
    }
    await api("GET", `orders/${order.id}/timeline?limit=1`, { key: demo.apiKey }); // principal cache warm
    const small = await statementsOf(() => api("GET", `orders/${order.id}/timeline?limit=2`, { key: demo.apiKey }));
    const big = await statementsOf(() => api("GET", `orders/${order.id}/timeline?limit=200`, { key: demo.apiKey }));
    expect(small.result.body.data).toHaveLength(2);
    expect(big.result.body.data.length).toBeGreaterThan(60);
    expect(big.statements.map(kindOf)).toEqual(small.statements.map(kindOf));
    expect(big.statements.filter((s) => /union all/i.test(s))).toHaveLength(1);
    expect(big.statements.length).toBeLessThanOrEqual(3);

    await t.deps.prisma.$executeRaw`
      INSERT INTO "Order" (id, "applicationId", "environmentId", status, "paymentStatus", currency, subtotal, total, email, "createdAt", "updatedAt")
      SELECT gen_random_uuid(), ${demo.applicationId}::uuid, ${demo.environments.sandbox.id}::uuid, 'processing', 'captured', 'USD', 100, 100, 'e' || i || '@example.com', now() - i * interval '1 second', now()
      FROM generate_series(1, 2500) AS i`;
    const exp = await statementsOf(async () => {
      const r = await fetch(`${t!.url}/api/v1/orders/export.csv`, { headers: { "x-api-key": demo.apiKey } });
      return (parse(await r.text()) as string[][]).length - 1;
    });
    expect(exp.result).toBe(2501);
    const orderReads = exp.statements.filter((s) => /FROM "public"\."Order"/.test(s));
    expect(orderReads).toHaveLength(3); // 1,000 + 1,000 + 501, each with its payments joined
    expect(exp.statements.length).toBeLessThanOrEqual(5);
  });
});
