// Fulfillments and returns over REST and GraphQL: every rule (statuses, quantities, the order status recompute,
// holds), deliveryState for each row of the location qualifier table and the `delivery` filter, displayStatus,
// events with data.customer, tenancy (404) and scopes (403), bad input never 5xx, and concurrent fulfillments on
// PostgreSQL never exceeding the ordered quantity.
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { displayStatus } from "../src/orders/orders.service";
import { deliveryStateOf } from "../src/fulfillments/order-lock";
import { notStarted, pgTest, startPgApp, startTestApp, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { codeOf, gqlClient } from "./helpers/gql";
import { seedOrder, type SeedLine } from "./helpers/orders";
import {
  FCancelFulfillmentDocument,
  FCancelReturnDocument,
  FCreateFulfillmentDocument,
  FCreateReturnDocument,
  FFulfillmentDocument,
  FMarkDeliveredDocument,
  FOrderFulfillmentsDocument,
  FOrderReturnDocument,
  FOrderReturnsDocument,
  FOrdersByDeliveryDocument,
  FOrderStatusDocument,
  FReceiveReturnDocument,
  FUpdateFulfillmentDocument,
} from "./generated/graphql";

type Api = ReturnType<typeof client>;

describe("fulfillments and returns", () => {
  let t: TestApp;
  let api: Api;
  let demo: BootstrapResult;
  let other: BootstrapLike;
  let key: string;
  const seed = (lines: SeedLine[], opts: Omit<Parameters<typeof seedOrder>[2], "lines"> = {}) => seedOrder(t, demo, { lines, ...opts });
  const order = async (id: string) => (await api("GET", `orders/${id}`, { key })).body.data;
  // in the order written: events of one transaction share a millisecond often, so ties go by physical position
  // (the Event table is insert-only here; one statement inserts a transaction's events in the order recorded)
  const eventsOf = async (orderId: string) =>
    (await t.deps.prisma.$queryRaw<{ type: string; data: any }[]>`SELECT type, data FROM "Event" WHERE data->>'orderId' = ${orderId} ORDER BY "createdAt", ctid`).map((e) => ({ type: e.type, data: e.data }));
  const fulfil = (orderId: string, body: unknown, k = key) => api("POST", `orders/${orderId}/fulfillments`, { key: k, body });

  beforeAll(async () => {
    t = (await startTestApp())!;
    api = client(t.url);
    demo = await t.bootstrap();
    other = await t.otherWorkspace("fulfil-other");
    key = demo.apiKey;
  });
  afterAll(() => t?.close());

  test("a handover without a shipment completes at once; the order goes processing -> partially_fulfilled -> fulfilled (order.updated, order.fulfilled)", async () => {
    const { order: o, lines } = await seed([{ name: "Widget", quantity: 3 }, { name: "Manual", quantity: 1, requiresShipping: false }], { customerEmail: "ann@example.com" });
    const first = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }], note: "front desk" });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ orderId: o.id, status: "completed", shipment: null, note: "front desk", lineItems: [{ lineItemId: lines[0].id, quantity: 2 }] });
    expect(await order(o.id)).toMatchObject({ status: "partially_fulfilled", displayStatus: "Partially fulfilled", deliveryState: null, fulfillmentSummary: { itemsTotal: 3, itemsFulfilled: 2, itemsRemaining: 1 } });
    const second = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    expect(second.status).toBe(201);
    expect(await order(o.id)).toMatchObject({ status: "fulfilled", displayStatus: "Fulfilled", fulfillmentSummary: { itemsRemaining: 0 } });
    const history = (await api("GET", `orders/${o.id}/status-history`, { key })).body.data;
    expect(history.map((h: any) => [h.fromStatus, h.toStatus, h.source])).toEqual([["processing", "partially_fulfilled", "fulfillment"], ["partially_fulfilled", "fulfilled", "fulfillment"]]);
    const ev = await eventsOf(o.id);
    expect(ev.map((e) => e.type)).toEqual(["fulfillment.created", "fulfillment.completed", "order.updated", "fulfillment.created", "fulfillment.completed", "order.fulfilled"]);
    for (const e of ev) expect(e.data.customer).toEqual({ id: o.customerId, email: "ann@example.com" });
    // nothing left: a third is refused naming the line, and the listing has both, oldest first
    const third = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    expect(third.status).toBe(422); // fulfilled is not a state that takes fulfillments
    expect(third.body.error.code).toBe("invalid_order_state");
    const list = await api("GET", `orders/${o.id}/fulfillments`, { key });
    expect(list.body.data.map((f: any) => f.id)).toEqual([first.body.data.id, second.body.data.id]);
  });

  test("a fulfillment that leaves status and deliveryState as they were still emits order.updated (its fulfillmentSummary moved)", async () => {
    const { order: o, lines } = await seed([{ quantity: 3 }]);
    await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    const before = (await eventsOf(o.id)).length;
    await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    const ev = (await eventsOf(o.id)).slice(before);
    expect(ev.map((e) => e.type)).toEqual(["fulfillment.created", "fulfillment.completed", "order.updated"]);
    expect(ev[2].data).toMatchObject({ orderId: o.id, status: "partially_fulfilled", previousStatus: "partially_fulfilled" });
    expect((await order(o.id)).fulfillmentSummary).toEqual({ itemsTotal: 3, itemsFulfilled: 2, itemsRemaining: 1 });
  });

  test("orderUpdated(id) streams the order after each fulfillment, shipment and return change", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const ws = createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": key }, retryAttempts: 0, lazy: true });
    const it = ws.iterate({ query: `subscription($id: ID!) { orderUpdated(id: $id) { status deliveryState displayStatus fulfillmentSummary { itemsFulfilled } } }`, variables: { id: o.id } });
    const next = async () => ((await it.next()).value as any).data.orderUpdated;
    expect(await next()).toEqual({ status: "processing", deliveryState: null, displayStatus: "Processing", fulfillmentSummary: { itemsFulfilled: 0 } });
    let p = next();
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { carrier: "UPS" } });
    expect(await p).toEqual({ status: "partially_fulfilled", deliveryState: null, displayStatus: "Partially fulfilled", fulfillmentSummary: { itemsFulfilled: 1 } });
    p = next();
    await api("PATCH", `fulfillments/${f.body.data.id}`, { key, body: { shipment: { trackingNumber: "WS1" } } });
    expect(await p).toMatchObject({ deliveryState: "in_transit", displayStatus: "Partially fulfilled · In transit" });
    p = next();
    await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    expect(await p).toMatchObject({ deliveryState: "delivered" });
    p = next();
    const r = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] } });
    await api("POST", `returns/${r.body.data.id}/receive`, { key });
    expect(await p).toMatchObject({ deliveryState: "returned", displayStatus: "Partially fulfilled · Returned" });
    p = next();
    await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    expect(await p).toMatchObject({ status: "fulfilled", fulfillmentSummary: { itemsFulfilled: 2 } });
    await ws.dispose();
  });

  test("a shipment is pending until it has a tracking number; PATCH adds one (completed, shippedAt, shipped); delivered records arrival", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }], shipment: { carrier: "UPS" } });
    expect(f.status).toBe(201);
    expect(f.body.data).toMatchObject({ status: "pending", shipment: { carrier: "UPS", trackingNumber: null, trackingUrl: null, shippedAt: null, deliveredAt: null } });
    expect(await order(o.id)).toMatchObject({ status: "fulfilled", deliveryState: null, displayStatus: "Fulfilled" });
    const patched = await api("PATCH", `fulfillments/${f.body.data.id}`, { key, body: { shipment: { trackingNumber: "1Z999", trackingUrl: "https://ups.example/1Z999" } } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ status: "completed", shipment: { carrier: "UPS", trackingNumber: "1Z999", trackingUrl: "https://ups.example/1Z999", deliveredAt: null } });
    expect(patched.body.data.shipment.shippedAt).toEqual(expect.any(String));
    expect(await order(o.id)).toMatchObject({ deliveryState: "in_transit", displayStatus: "Fulfilled · In transit" });
    // a second PATCH changes the carrier only: no second shipped event
    expect((await api("PATCH", `fulfillments/${f.body.data.id}`, { key, body: { shipment: { carrier: "DHL" } } })).body.data.shipment).toMatchObject({ carrier: "DHL", trackingNumber: "1Z999" });
    const delivered = await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    expect(delivered.status).toBe(200);
    expect(delivered.body.data.shipment.deliveredAt).toEqual(expect.any(String));
    expect(await order(o.id)).toMatchObject({ status: "fulfilled", deliveryState: "delivered", displayStatus: "Fulfilled · Delivered" });
    // delivered again: unchanged, nothing emitted
    const again = await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    expect(again.body.data.shipment.deliveredAt).toBe(delivered.body.data.shipment.deliveredAt);
    const types = (await eventsOf(o.id)).map((e) => e.type);
    expect(types).toEqual(["fulfillment.created", "order.fulfilled", "fulfillment.completed", "fulfillment.shipment.shipped", "order.updated", "fulfillment.shipment.delivered", "order.updated"]);
    expect((await eventsOf(o.id)).every((e) => e.data.customer === null)).toBe(true);
    const got = await api("GET", `fulfillments/${f.body.data.id}`, { key });
    expect(got.body.data).toEqual(again.body.data);
  });

  test("created with a tracking number: completed and shipped at once; delivered on a pending shipment completes it first", async () => {
    const { order: o, lines } = await seed([{ quantity: 1 }, { quantity: 1 }]);
    const shipped = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { carrier: "USPS", trackingNumber: "9400" } });
    expect(shipped.body.data).toMatchObject({ status: "completed", shipment: { trackingNumber: "9400" } });
    expect(shipped.body.data.shipment.shippedAt).toEqual(expect.any(String));
    expect(await order(o.id)).toMatchObject({ status: "partially_fulfilled", deliveryState: "in_transit", displayStatus: "Partially fulfilled · In transit" });
    const pending = await fulfil(o.id, { lineItems: [{ lineItemId: lines[1].id, quantity: 1 }], shipment: {} });
    expect(pending.body.data.status).toBe("pending");
    const d = await api("POST", `fulfillments/${pending.body.data.id}/delivered`, { key });
    expect(d.body.data).toMatchObject({ status: "completed" });
    expect(d.body.data.shipment.shippedAt).toEqual(d.body.data.shipment.deliveredAt);
    // one arrived, one still on its way
    expect(await order(o.id)).toMatchObject({ status: "fulfilled", deliveryState: "in_transit" });
    await api("POST", `fulfillments/${shipped.body.data.id}/delivered`, { key });
    expect(await order(o.id)).toMatchObject({ deliveryState: "delivered", displayStatus: "Fulfilled · Delivered" });
    const types = (await eventsOf(o.id)).map((e) => e.type);
    expect(types.filter((x) => x === "fulfillment.shipment.shipped")).toHaveLength(2);
    expect(types.filter((x) => x === "fulfillment.shipment.delivered")).toHaveLength(2);
    expect(types.filter((x) => x === "fulfillment.completed")).toHaveLength(2);
  });

  test("cancel frees the quantities: fulfilled -> partially_fulfilled -> processing; a cancelled or delivered one cannot be cancelled", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const a = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    const b = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { trackingNumber: "T1" } });
    expect((await order(o.id)).status).toBe("fulfilled");
    const c1 = await api("POST", `fulfillments/${a.body.data.id}/cancel`, { key });
    expect(c1.status).toBe(200);
    expect(c1.body.data).toMatchObject({ status: "cancelled" });
    expect(await order(o.id)).toMatchObject({ status: "partially_fulfilled", fulfillmentSummary: { itemsFulfilled: 1, itemsRemaining: 1 } });
    const c2 = await api("POST", `fulfillments/${b.body.data.id}/cancel`, { key });
    expect(c2.status).toBe(200);
    expect(await order(o.id)).toMatchObject({ status: "processing", deliveryState: null, fulfillmentSummary: { itemsFulfilled: 0 } });
    const again = await api("POST", `fulfillments/${a.body.data.id}/cancel`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("invalid_fulfillment_state");
    expect((await api("POST", `fulfillments/${a.body.data.id}/delivered`, { key })).body.error.code).toBe("invalid_fulfillment_state");
    expect((await api("PATCH", `fulfillments/${a.body.data.id}`, { key, body: { shipment: { trackingNumber: "X" } } })).body.error.code).toBe("invalid_fulfillment_state");
    // the freed units can be fulfilled again; a delivered fulfillment is not cancellable
    const c = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }], shipment: { trackingNumber: "T2" } });
    expect(c.status).toBe(201);
    await api("POST", `fulfillments/${c.body.data.id}/delivered`, { key });
    expect((await api("POST", `fulfillments/${c.body.data.id}/cancel`, { key })).body.error.code).toBe("invalid_fulfillment_state");
    const history = (await api("GET", `orders/${o.id}/status-history`, { key })).body.data.map((h: any) => h.toStatus);
    expect(history).toEqual(["partially_fulfilled", "fulfilled", "partially_fulfilled", "processing", "fulfilled"]);
    const types = (await eventsOf(o.id)).map((e) => e.type);
    expect(types.filter((x) => x === "fulfillment.cancelled")).toHaveLength(2);
    expect(types.filter((x) => x === "order.fulfilled")).toHaveLength(2);
  });

  test("422 naming the line: more than remains, a line with nothing to deliver, not a line of the order, listed twice; 422 invalid_order_state; nothing written", async () => {
    const { order: o, lines } = await seed([{ name: "Widget", quantity: 2 }, { name: "Setup fee", quantity: 1, requiresShipping: false }]);
    const tooMany = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 3 }] });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.code).toBe("validation_error");
    expect(tooMany.body.error.details.issues).toEqual([{ path: ["lineItems", 0, "quantity"], message: expect.stringContaining(lines[0].id) }]);
    expect(tooMany.body.error.message).toContain("Widget");
    const nothing = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }, { lineItemId: lines[1].id, quantity: 1 }] });
    expect(nothing.status).toBe(422);
    expect(nothing.body.error.details.issues).toEqual([{ path: ["lineItems", 1, "lineItemId"], message: expect.stringContaining("nothing to deliver") }]);
    const { lines: foreign } = await seed([{ quantity: 1 }]);
    const notMine = await fulfil(o.id, { lineItems: [{ lineItemId: foreign[0].id, quantity: 1 }] });
    expect(notMine.status).toBe(422);
    expect(notMine.body.error.details.issues[0].path).toEqual(["lineItems", 0, "lineItemId"]);
    const twice = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }, { lineItemId: lines[0].id, quantity: 1 }] });
    expect(twice.status).toBe(422);
    expect(twice.body.error.details.issues[0].path).toEqual(["lineItems", 1, "lineItemId"]);
    for (const status of ["pending", "draft", "cancelled", "closed"]) {
      const { order: p, lines: pl } = await seed([{ quantity: 1 }], { status, paymentStatus: "pending" });
      const r = await fulfil(p.id, { lineItems: [{ lineItemId: pl[0].id, quantity: 1 }] });
      expect({ status, code: r.status, error: r.body.error.code }).toEqual({ status, code: 422, error: "invalid_order_state" });
    }
    expect(await t.deps.prisma.fulfillment.count({ where: { orderId: o.id } })).toBe(0);
    expect((await order(o.id)).fulfillmentSummary.itemsFulfilled).toBe(0);
  });

  test("a held order refuses new fulfillments (409 order_on_hold repeating the reason, nothing written) and cancels; delivered still works", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { trackingNumber: "H1" } });
    await t.deps.prisma.order.update({ where: { id: o.id }, data: { onHold: true, holdReason: "Address check with the buyer", heldAt: new Date() } });
    const before = await t.deps.prisma.event.count();
    const refused = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("order_on_hold");
    expect(refused.body.error.message).toContain("Address check with the buyer");
    expect((await api("POST", `fulfillments/${f.body.data.id}/cancel`, { key })).body.error.code).toBe("order_on_hold");
    expect(await t.deps.prisma.fulfillment.count({ where: { orderId: o.id } })).toBe(1);
    expect(await t.deps.prisma.event.count()).toBe(before);
    const delivered = await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    expect(delivered.status).toBe(200);
    expect(await order(o.id)).toMatchObject({ onHold: true, deliveryState: "delivered", status: "partially_fulfilled" });
  });

  test("returns: requested, received (returnedQuantity, partially_returned then returned), cancelled; never more than fulfilled minus returned", async () => {
    const { order: o, lines } = await seed([{ name: "Chair", quantity: 3 }, { name: "Table", quantity: 1 }], { customerEmail: "ret@example.com" });
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }, { lineItemId: lines[1].id, quantity: 1 }], shipment: { trackingNumber: "R1" } });
    await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key });
    const tooMany = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 3 }] } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details.issues[0]).toEqual({ path: ["lineItems", 0, "quantity"], message: expect.stringContaining("Chair") });
    const r1 = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], reason: "Scratched" } });
    expect(r1.status).toBe(201);
    expect(r1.body.data).toMatchObject({ id: expect.any(String), status: "requested", reason: "Scratched", lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] });
    // a requested return holds its units: 2 handed over, 1 requested -> 1 more at most
    expect((await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }] } })).status).toBe(422);
    expect((await order(o.id)).deliveryState).toBe("delivered");
    const received = await api("POST", `returns/${r1.body.data.id}/receive`, { key });
    expect(received.status).toBe(200);
    expect(received.body.data).toMatchObject({ status: "received" });
    expect(received.body.data.receivedAt).toEqual(expect.any(String));
    expect(await order(o.id)).toMatchObject({ deliveryState: "partially_returned", displayStatus: "Partially fulfilled · Partially returned" });
    expect((await api("POST", `returns/${r1.body.data.id}/receive`, { key })).body.error.code).toBe("invalid_return_state");
    // a cancelled return frees its units again
    const r2 = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }, { lineItemId: lines[1].id, quantity: 1 }] } });
    const cancelled = await api("POST", `returns/${r2.body.data.id}/cancel`, { key });
    expect(cancelled.body.data).toMatchObject({ status: "cancelled" });
    expect((await api("POST", `returns/${r2.body.data.id}/receive`, { key })).body.error.code).toBe("invalid_return_state");
    // a fulfillment whose units are being returned cannot be cancelled
    const r3 = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }, { lineItemId: lines[1].id, quantity: 1 }] } });
    expect(r3.status).toBe(201);
    await api("POST", `returns/${r3.body.data.id}/receive`, { key });
    expect(await order(o.id)).toMatchObject({ deliveryState: "returned", displayStatus: "Partially fulfilled · Returned" });
    const rows = await t.deps.prisma.orderLineItem.findMany({ where: { orderId: o.id }, orderBy: { position: "asc" } });
    expect(rows.map((l) => [l.fulfilledQuantity, l.returnedQuantity])).toEqual([[2, 2], [1, 1]]);
    const list = await api("GET", `orders/${o.id}/returns`, { key });
    expect(list.body.data.map((r: any) => r.status)).toEqual(["received", "cancelled", "received"]);
    expect((await api("GET", `returns/${r2.body.data.id}`, { key })).body.data).toEqual(cancelled.body.data);
    const ev = (await eventsOf(o.id)).filter((e) => e.type.startsWith("return."));
    expect(ev.map((e) => [e.type, e.data.status])).toEqual([
      ["return.created", "requested"], ["return.updated", "received"], ["return.created", "requested"], ["return.updated", "cancelled"], ["return.created", "requested"], ["return.updated", "received"],
    ]);
    for (const e of ev) expect(e.data.customer).toEqual({ id: o.customerId, email: "ret@example.com" });
    // nothing fulfilled: nothing to return
    const { order: fresh, lines: fl } = await seed([{ quantity: 1 }]);
    expect((await api("POST", `orders/${fresh.id}/returns`, { key, body: { lineItems: [{ lineItemId: fl[0].id, quantity: 1 }] } })).status).toBe(422);
  });

  test("deliveryState for each row of the location qualifier table, and the delivery filter (REST and GraphQL)", async () => {
    // the table, as a pure function
    const line = (f: number, r: number) => ({ fulfilledQuantity: f, returnedQuantity: r });
    const ship = (trackingNumber: string | null, delivered: boolean, status = "completed") => ({ hasShipment: true, trackingNumber, deliveredAt: delivered ? new Date() : null, status });
    expect(deliveryStateOf([line(2, 2)], [ship("a", true)])).toBe("returned");
    expect(deliveryStateOf([line(2, 1)], [ship("a", true)])).toBe("partially_returned");
    expect(deliveryStateOf([line(2, 0)], [ship("a", true), ship("b", true)])).toBe("delivered");
    expect(deliveryStateOf([line(2, 0)], [ship("a", true), ship("b", false)])).toBe("in_transit");
    expect(deliveryStateOf([line(2, 0)], [ship(null, false, "pending")])).toBeNull();
    expect(deliveryStateOf([line(2, 0)], [])).toBeNull();
    expect(deliveryStateOf([line(0, 0)], [ship("a", false, "cancelled")])).toBeNull();

    // the same rows through the API
    const { order: none } = await seed([{ quantity: 1 }]);
    const mk = async () => seed([{ quantity: 2 }]);
    const transit = await mk();
    await fulfil(transit.order.id, { lineItems: [{ lineItemId: transit.lines[0].id, quantity: 2 }], shipment: { trackingNumber: "IT" } });
    const delivered = await mk();
    const df = await fulfil(delivered.order.id, { lineItems: [{ lineItemId: delivered.lines[0].id, quantity: 2 }], shipment: { trackingNumber: "DL" } });
    await api("POST", `fulfillments/${df.body.data.id}/delivered`, { key });
    const partial = await mk();
    const pf = await fulfil(partial.order.id, { lineItems: [{ lineItemId: partial.lines[0].id, quantity: 2 }] });
    expect(pf.status).toBe(201);
    const pr = await api("POST", `orders/${partial.order.id}/returns`, { key, body: { lineItems: [{ lineItemId: partial.lines[0].id, quantity: 1 }] } });
    await api("POST", `returns/${pr.body.data.id}/receive`, { key });
    const back = await mk();
    await fulfil(back.order.id, { lineItems: [{ lineItemId: back.lines[0].id, quantity: 2 }] });
    const br = await api("POST", `orders/${back.order.id}/returns`, { key, body: { lineItems: [{ lineItemId: back.lines[0].id, quantity: 2 }] } });
    await api("POST", `returns/${br.body.data.id}/receive`, { key });
    expect((await order(none.id)).deliveryState).toBeNull();
    expect(await order(transit.order.id)).toMatchObject({ deliveryState: "in_transit", displayStatus: "Fulfilled · In transit" });
    expect(await order(delivered.order.id)).toMatchObject({ deliveryState: "delivered", displayStatus: "Fulfilled · Delivered" });
    expect(await order(partial.order.id)).toMatchObject({ deliveryState: "partially_returned", displayStatus: "Fulfilled · Partially returned" });
    expect(await order(back.order.id)).toMatchObject({ deliveryState: "returned", displayStatus: "Fulfilled · Returned" });

    const ids = async (delivery: string) => {
      const out: string[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await api("GET", `orders?delivery=${delivery}&limit=100${cursor ? `&cursor=${cursor}` : ""}`, { key });
        expect(r.status).toBe(200);
        out.push(...r.body.data.map((o: any) => o.id));
        cursor = r.body.meta.pagination.cursor;
      } while (cursor);
      return out;
    };
    const mine = [none.id, transit.order.id, delivered.order.id, partial.order.id, back.order.id];
    const pick = (list: string[]) => mine.filter((id) => list.includes(id));
    expect(pick(await ids("not_shipped"))).toEqual([none.id]);
    expect(pick(await ids("in_transit"))).toEqual([transit.order.id]);
    expect(pick(await ids("delivered"))).toEqual([delivered.order.id]);
    expect(pick(await ids("returned")).sort()).toEqual([partial.order.id, back.order.id].sort());
    expect((await api("GET", "orders?delivery=lost", { key })).status).toBe(422);
    const gql = gqlClient(t.url);
    const g = await gql(FOrdersByDeliveryDocument, { delivery: "returned" as any }, { key });
    expect(g.errors).toBeNull();
    expect(g.data!.orders.nodes.every((n) => ["returned", "partially_returned"].includes(n.deliveryState!))).toBe(true);
    expect(g.data!.orders.nodes.map((n) => n.id)).toEqual(expect.arrayContaining([partial.order.id, back.order.id]));
  });

  test("displayStatus: the status label and at most one qualifier (comp, then money, then goods)", () => {
    const o = (status: string, paymentStatus: string, deliveryState: string | null, compAmount = 0) => displayStatus({ status, paymentStatus, deliveryState, compAmount });
    expect(o("fulfilled", "captured", "delivered")).toBe("Fulfilled · Delivered");
    expect(o("processing", "captured", "in_transit")).toBe("Processing · In transit");
    expect(o("partially_fulfilled", "captured", "partially_returned")).toBe("Partially fulfilled · Partially returned");
    expect(o("fulfilled", "partially_refunded", "delivered")).toBe("Fulfilled · Partially refunded");
    expect(o("fulfilled", "captured", "returned", 500)).toBe("Fulfilled · Comped");
    expect(o("fulfilled", "captured", null)).toBe("Fulfilled");
  });

  test("an order with nothing to deliver reaches fulfilled when payment lands (checkout), with order.fulfilled", async () => {
    const cart = await api("POST", "carts", { key, body: { customerEmail: "svc@example.com" } });
    await api("POST", `carts/${cart.body.data.id}/items`, { key, body: { name: "Consulting", unitPrice: 5000, quantity: 1, type: "service" } });
    const s = await api("POST", "checkout/sessions", { key, body: { cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" } });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
    expect(done.status).toBe(200);
    const o = await order(done.body.data.orderId);
    expect(o).toMatchObject({ status: "fulfilled", paymentStatus: "captured", displayStatus: "Fulfilled", fulfillmentSummary: { itemsTotal: 0, itemsRemaining: 0 } });
    const history = (await api("GET", `orders/${o.id}/status-history`, { key })).body.data.map((h: any) => [h.fromStatus, h.toStatus]);
    expect(history).toEqual([[null, "pending"], ["pending", "processing"], ["processing", "fulfilled"]]);
    const types = (await eventsOf(o.id)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(["order.updated", "order.fulfilled"]));
    // a shippable cart stays processing
    const cart2 = await api("POST", "carts", { key, body: { customerEmail: "ship@example.com" } });
    await api("POST", `carts/${cart2.body.data.id}/items`, { key, body: { name: "Lamp", unitPrice: 5000, quantity: 1 } });
    const s2 = await api("POST", "checkout/sessions", { key, body: { cartId: cart2.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" } });
    const done2 = await api("POST", `checkout-sessions/${s2.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" } } });
    expect((await order(done2.body.data.orderId)).status).toBe("processing");
  });

  test("another tenant's ids are 404 on every route; each route needs its scope (403 insufficient_scopes)", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 2 }], shipment: {} });
    const r = await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] } });
    expect(r.status).toBe(201);
    const routes: [string, string, unknown, string][] = [
      ["POST", `orders/${o.id}/fulfillments`, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] }, "fulfillments:write"],
      ["GET", `orders/${o.id}/fulfillments`, undefined, "fulfillments:read"],
      ["GET", `fulfillments/${f.body.data.id}`, undefined, "fulfillments:read"],
      ["PATCH", `fulfillments/${f.body.data.id}`, { shipment: { trackingNumber: "Z" } }, "fulfillments:write"],
      ["POST", `fulfillments/${f.body.data.id}/delivered`, undefined, "fulfillments:write"],
      ["POST", `fulfillments/${f.body.data.id}/cancel`, undefined, "fulfillments:write"],
      ["POST", `orders/${o.id}/returns`, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] }, "order_returns:write"],
      ["GET", `orders/${o.id}/returns`, undefined, "order_returns:read"],
      ["GET", `returns/${r.body.data.id}`, undefined, "order_returns:read"],
      ["POST", `returns/${r.body.data.id}/receive`, undefined, "order_returns:write"],
      ["POST", `returns/${r.body.data.id}/cancel`, undefined, "order_returns:write"],
    ];
    const readOnly = await mintKeyVia(api, demo, ["orders:read", "orders:write"]);
    for (const [method, path, body, scope] of routes) {
      const cross = await api(method, path, { key: other.apiKey, body });
      expect({ path, method, status: cross.status, code: cross.body.error?.code }).toEqual({ path, method, status: 404, code: "not_found" });
      const denied = await api(method, path, { key: readOnly.rawKey, body });
      expect({ path, method, status: denied.status, code: denied.body.error?.code }).toEqual({ path, method, status: 403, code: "insufficient_scopes" });
      expect(denied.body.error.details.required).toEqual([scope]);
    }
    // nothing changed
    expect((await api("GET", `fulfillments/${f.body.data.id}`, { key })).body.data.status).toBe("pending");
    expect((await api("GET", `returns/${r.body.data.id}`, { key })).body.data.status).toBe("requested");
    // the scoped key works with exactly its scopes
    const scoped = await mintKeyVia(api, demo, ["fulfillments:write", "fulfillments:read"]);
    expect((await api("POST", `fulfillments/${f.body.data.id}/delivered`, { key: scoped.rawKey })).status).toBe(200);
  });

  test("bad input is a 4xx naming the field, never a 5xx", async () => {
    const { order: o, lines } = await seed([{ quantity: 2 }]);
    const f = await fulfil(o.id, { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: {} });
    const bodies: [unknown, (string | number)[]][] = [
      [{}, ["lineItems"]],
      [{ lineItems: [] }, ["lineItems"]],
      [{ lineItems: [{ lineItemId: "nope", quantity: 1 }] }, ["lineItems", 0, "lineItemId"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 0 }] }, ["lineItems", 0, "quantity"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 1.5 }] }, ["lineItems", 0, "quantity"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: "1" }] }, ["lineItems", 0, "quantity"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { trackingUrl: "javascript:alert(1)" } }, ["shipment", "trackingUrl"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { trackingNumber: "" } }, ["shipment", "trackingNumber"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], colour: "red" }, ["colour"]],
      [{ lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], note: "x".repeat(1001) }, ["note"]],
      [{ lineItems: "all" }, ["lineItems"]],
      [[1, 2], []],
    ];
    for (const [body, path] of bodies) {
      const r = await fulfil(o.id, body);
      expect({ body, status: r.status, code: r.body.error?.code }).toEqual({ body, status: 422, code: "validation_error" });
      if (path.length) expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
    }
    const bad = await api("POST", `orders/${o.id}/fulfillments`, { key, raw: "{not json" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_json");
    expect((await api("PATCH", `fulfillments/${f.body.data.id}`, { key, body: {} })).status).toBe(422);
    expect((await api("PATCH", `fulfillments/${f.body.data.id}`, { key, body: { shipment: { trackingNumber: 7 } } })).status).toBe(422);
    expect((await api("POST", `orders/${o.id}/returns`, { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], reason: "" } })).status).toBe(422);
    for (const path of ["fulfillments/not-a-uuid", "returns/not-a-uuid", "orders/not-a-uuid/fulfillments", "orders/not-a-uuid/returns", `fulfillments/${o.id}`, `returns/${o.id}`]) {
      expect({ path, status: (await api("GET", path, { key })).status }).toEqual({ path, status: 404 });
    }
    expect((await api("POST", "fulfillments/00000000-0000-4000-8000-000000000000/cancel", { key })).status).toBe(404);
    expect((await api("POST", "orders/00000000-0000-4000-8000-000000000000/fulfillments", { key, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] } })).status).toBe(404);
  });

  test("GraphQL: the same operations and error codes", async () => {
    const gql = gqlClient(t.url);
    const { order: o, lines } = await seed([{ quantity: 2 }], { customerEmail: "gql@example.com" });
    const created = await gql(FCreateFulfillmentDocument, { orderId: o.id, lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], shipment: { carrier: "UPS" } }, { key });
    expect(created.errors).toBeNull();
    const f = created.data!.createFulfillment;
    expect(f).toMatchObject({ status: "pending", shipment: { carrier: "UPS", trackingNumber: null } });
    const up = await gql(FUpdateFulfillmentDocument, { id: f.id, shipment: { trackingNumber: "G1", trackingUrl: null } }, { key });
    expect(up.data!.updateFulfillment).toMatchObject({ status: "completed", shipment: { trackingNumber: "G1", carrier: "UPS" } });
    const dl = await gql(FMarkDeliveredDocument, { id: f.id }, { key });
    expect(dl.data!.markFulfillmentDelivered.shipment!.deliveredAt).toEqual(expect.any(String));
    expect((await gql(FOrderStatusDocument, { id: o.id }, { key })).data!.order).toMatchObject({ status: "partially_fulfilled", deliveryState: "delivered", displayStatus: "Partially fulfilled · Delivered" });
    expect((await gql(FFulfillmentDocument, { id: f.id }, { key })).data!.fulfillment.id).toBe(f.id);
    expect((await gql(FOrderFulfillmentsDocument, { orderId: o.id }, { key })).data!.orderFulfillments.map((x) => x.id)).toEqual([f.id]);
    const tooMany = await gql(FCreateFulfillmentDocument, { orderId: o.id, lineItems: [{ lineItemId: lines[0].id, quantity: 5 }] }, { key });
    expect(codeOf(tooMany)).toBe("validation_error");
    const ret = await gql(FCreateReturnDocument, { orderId: o.id, lineItems: [{ lineItemId: lines[0].id, quantity: 1 }], reason: "Too big" }, { key });
    expect(ret.data!.createOrderReturn).toMatchObject({ status: "requested", reason: "Too big" });
    const rid = ret.data!.createOrderReturn.id;
    expect((await gql(FOrderReturnDocument, { id: rid }, { key })).data!.orderReturn.id).toBe(rid);
    expect((await gql(FOrderReturnsDocument, { orderId: o.id }, { key })).data!.orderReturns).toHaveLength(1);
    expect((await gql(FReceiveReturnDocument, { id: rid }, { key })).data!.receiveOrderReturn.status).toBe("received");
    expect(codeOf(await gql(FCancelReturnDocument, { id: rid }, { key }))).toBe("invalid_return_state");
    expect((await gql(FOrderStatusDocument, { id: o.id }, { key })).data!.order.deliveryState).toBe("returned");
    const second = await gql(FCreateFulfillmentDocument, { orderId: o.id, lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] }, { key });
    expect((await gql(FCancelFulfillmentDocument, { id: second.data!.createFulfillment.id }, { key })).data!.cancelFulfillment.status).toBe("cancelled");
    await t.deps.prisma.order.update({ where: { id: o.id }, data: { onHold: true, holdReason: "Fraud review" } });
    const held = await gql(FCreateFulfillmentDocument, { orderId: o.id, lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] }, { key });
    expect(codeOf(held)).toBe("order_on_hold");
    expect(held.errors![0].message).toContain("Fraud review");
    expect(codeOf(await gql(FFulfillmentDocument, { id: f.id }, { key: other.apiKey }))).toBe("not_found");
    const writeOnly = await mintKeyVia(api, demo, ["fulfillments:write"]);
    expect(codeOf(await gql(FFulfillmentDocument, { id: f.id }, { key: writeOnly.rawKey }))).toBe("insufficient_scopes");
  });
});

describe("on PostgreSQL: concurrent fulfillments", () => {
  let t: TestApp | null;
  let api: Api;
  let demo: BootstrapResult;
  beforeAll(async () => {
    t = await startPgApp({ env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
    if (!t) return; // no PostgreSQL: every test below is registered as skipped
    api = client(t.url);
    demo = await t.bootstrap();
  });
  afterAll(() => t?.close());

  pgTest("20 parallel fulfillments of 1 unit on a line of 5 (and returns racing receipts): exactly 5 + 3 succeed, the rest refused, quantities never exceeded", async () => {
    if (!t) throw notStarted();
    for (let round = 0; round < 3; round++) {
      const { order: o, lines } = await seedOrder(t, demo, { lines: [{ quantity: 5 }, { quantity: 3 }] });
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => api("POST", `orders/${o.id}/fulfillments`, { key: demo.apiKey, body: { lineItems: [{ lineItemId: lines[i % 2].id, quantity: 1 }], ...(i % 3 ? { shipment: { trackingNumber: `P${i}` } } : {}) } })),
      );
      const codes = results.map((r) => r.status);
      expect(codes.filter((c) => c === 201)).toHaveLength(8);
      // refused: 422 (that line is done) or, once every line is done, 422 invalid_order_state (fulfilled)
      const refused = results.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.body.error.code}`);
      expect(refused.filter((x) => x !== "422 validation_error" && x !== "422 invalid_order_state")).toEqual([]);
      const rows = await t.deps.prisma.orderLineItem.findMany({ where: { orderId: o.id }, orderBy: { position: "asc" } });
      expect(rows.map((l) => l.fulfilledQuantity)).toEqual([5, 3]);
      const sums = await t.deps.prisma.fulfillmentLine.groupBy({ by: ["lineItemId"], where: { fulfillment: { orderId: o.id, status: { not: "cancelled" } } }, _sum: { quantity: true } });
      expect(Object.fromEntries(sums.map((s) => [s.lineItemId, s._sum.quantity]))).toEqual({ [lines[0].id]: 5, [lines[1].id]: 3 });
      const order = (await api("GET", `orders/${o.id}`, { key: demo.apiKey })).body.data;
      expect(order.status).toBe("fulfilled");
      const history = (await api("GET", `orders/${o.id}/status-history`, { key: demo.apiKey })).body.data.map((h: any) => h.toStatus);
      expect(history).toEqual(["partially_fulfilled", "fulfilled"]);
      // 10 parallel returns of 1 unit against 5 handed over on line 0: exactly 5 requested
      const rets = await Promise.all(Array.from({ length: 10 }, () => api("POST", `orders/${o.id}/returns`, { key: demo.apiKey, body: { lineItems: [{ lineItemId: lines[0].id, quantity: 1 }] } })));
      expect(rets.filter((r) => r.status === 201)).toHaveLength(5);
      // parallel cancels and deliveries of the same fulfillment: one outcome each, quantities consistent
      const fs = (await api("GET", `orders/${o.id}/fulfillments`, { key: demo.apiKey })).body.data.filter((f: any) => f.lineItems[0].lineItemId === lines[1].id);
      const raced = await Promise.all(fs.flatMap((f: any) => [api("POST", `fulfillments/${f.id}/cancel`, { key: demo.apiKey }), api("POST", `fulfillments/${f.id}/cancel`, { key: demo.apiKey })]));
      expect(raced.filter((r) => r.status === 200)).toHaveLength(fs.length);
      expect(raced.every((r) => r.status === 200 || r.status === 409)).toBe(true);
      const after = await t.deps.prisma.orderLineItem.findUniqueOrThrow({ where: { id: lines[1].id } });
      expect(after.fulfilledQuantity).toBe(0);
    }
  });
});
