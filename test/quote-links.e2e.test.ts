// Quotes, buyer side over REST (quotes.md parts 3-7, decisions.md parts 3 and 5): the link read and its 404s,
// views and the expired-link notification, comments, request-revision, decline, acceptance by the buyer and by a
// rep with every accept rule, the checkout the terms pin (methods, Net-N, deposit, address steps), conversion in
// the order's transaction, and tenancy, scopes and hostile input.
import { termsHash } from "../src/checkout/checkout-complete.service";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { type BootstrapLike, startTestApp, type TestApp, postgresPassTest } from "./helpers/app";
import { client } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;
let clock: FixedClock;

beforeAll(async () => {
  clock = new FixedClock(new Date());
  t = (await startTestApp({ clock, env: { RATE_LIMIT_QUOTE_LINKS_PER_IP: "off", RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "off" } }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("links-other");
});
afterAll(() => t?.close());

const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const key = () => demo.apiKey;
const LINES = [
  { name: "Widget", unitPrice: 1500, quantity: 2, qtyEditable: true },
  { name: "Gadget", unitPrice: 2500, quantity: 1, optional: true },
  { name: "Setup", unitPrice: 10000, type: "service" },
];

function expectError(r: { status: number; body: any }, status: number, code: string) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
}

/** An issued quote: { quote (merchant view), token, rev (its current revision) } */
async function issued(body: Record<string, unknown> = {}) {
  const c = await api("POST", "quotes", { key: key(), body: { customerEmail: "buyer@example.com", items: LINES, ...body } });
  expect(c.status).toBe(201);
  const i = await api("POST", `quotes/${c.body.data.id}/issue`, { key: key(), body: {} });
  expect(i.status).toBe(200);
  const quote = i.body.data.quote;
  expect(i.body.data.revision.id).toBe(quote.currentRevisionId);
  return { quote, token: quote.shareToken as string, rev: quote.revisions.find((r: any) => r.id === quote.currentRevisionId) };
}
const link = (token: string, suffix = "") => `quote-links/${token}${suffix}`;
const accept = (token: string, revisionId: string, extra: Record<string, unknown> = {}) =>
  api("POST", link(token, "/accept"), { body: { revisionId, acceptedByName: "Bea Buyer", ...extra } });
async function events(quoteId: string, type: string) {
  const rows = await t.deps.prisma.event.findMany({ where: { type }, orderBy: { createdAt: "asc" } });
  return rows.filter((e) => (e.data as any).quoteId === quoteId);
}

describe("GET /quote-links/{token}", () => {
  test("the buyer read: current issued revision, issued history, shared comments only, branding, the PDF link; no internal material", async () => {
    await api("PATCH", `applications/${demo.applicationId}`, { key: key(), body: { logoUrl: "https://cdn.example.com/logo.png", brandColor: "#112233" } });
    const { quote, token, rev } = await issued({ internalNote: "margin is thin", buyerReference: "PO-1" });
    await api("POST", `quotes/${quote.id}/comments`, { key: key(), body: { body: "INTERNAL: push for upsell", visibility: "internal" } });
    await api("POST", `quotes/${quote.id}/comments`, { key: key(), body: { body: "Happy to help", visibility: "shared" } });
    await api("POST", `quotes/${quote.id}/revisions`, { key: key(), body: {} }); // a working revision the buyer must not see
    const r = await api("GET", link(token));
    expect(r.status).toBe(200);
    const b = r.body.data;
    expect(b.quote).toMatchObject({ number: quote.number, status: "proposed", currency: "USD", buyerReference: "PO-1", checkoutUrl: null });
    expect(b.revision).toMatchObject({ id: rev.id, number: 1, status: "issued", subtotal: 15500, total: 15500 });
    expect(b.revision.items.map((i: any) => i.name)).toEqual(["Widget", "Gadget", "Setup"]);
    expect(b.revisions).toEqual([{ id: rev.id, number: 1, status: "issued", issuedAt: expect.any(String), total: 15500 }]);
    expect(b.comments.map((c: any) => c.body)).toEqual(["Happy to help"]);
    expect(b.merchant).toEqual({ name: expect.any(String), logoUrl: "https://cdn.example.com/logo.png", brandColor: "#112233" });
    expect(b.pdfUrl).toMatch(new RegExp(`/api/v1/quote-links/${token}/pdf$`));
    const text = JSON.stringify(b);
    for (const secret of ["margin is thin", "INTERNAL", "internalNote", "targetUnitPrice", "shareToken\""]) expect(text).not.toContain(secret);
  });

  test("404 for a draft, an archived quote, a rotated-out token and garbage tokens", async () => {
    const d = await api("POST", "quotes", { key: key(), body: { customerEmail: "d@example.com", items: LINES } });
    expectError(await api("GET", link(d.body.data.shareToken)), 404, "not_found");
    const { quote, token } = await issued();
    const rotated = await api("POST", `quotes/${quote.id}/rotate-link`, { key: key(), body: {} });
    expectError(await api("GET", link(token)), 404, "not_found");
    expect((await api("GET", link(rotated.body.data.shareToken))).status).toBe(200);
    await api("PATCH", `quotes/${quote.id}`, { key: key(), body: { status: "archived" } });
    expectError(await api("GET", link(rotated.body.data.shareToken)), 404, "not_found");
    for (const bad of ["x", "qt_short", `qt_${"A".repeat(32)}`, "%00", "qt_" + "é".repeat(32), "a".repeat(5000)]) {
      expectError(await api("GET", link(encodeURIComponent(bad)), { validate: false }), 404, "not_found");
    }
  });
});

describe("views, comments, request-revision, decline", () => {
  test("view: 204; quote.viewed once per revision per 6 hours; an expired link notifies the rep in-app once", async () => {
    const { quote, token } = await issued();
    for (let i = 0; i < 3; i++) expect((await api("POST", link(token, "/view"), { body: {} })).status).toBe(204);
    expect(await events(quote.id, "quote.viewed")).toHaveLength(1);
    clock.advance(6 * 3600 * 1000 + 1);
    await api("POST", link(token, "/view"), { body: {} });
    expect(await events(quote.id, "quote.viewed")).toHaveLength(2);

    await t.deps.prisma.quote.update({ where: { id: quote.id }, data: { expiresAt: new Date(clock.now().getTime() - 1000) } });
    clock.advance(6 * 3600 * 1000 + 1);
    await api("POST", link(token, "/view"), { body: {} });
    await api("POST", link(token, "/view"), { body: {} });
    const n = await api("GET", `notifications?quoteId=${quote.id}&type=quote.expired_link_opened`, { key: key() });
    expect(n.status).toBe(200);
    expect(n.body.data).toHaveLength(1);
    expect(n.body.data[0]).toMatchObject({ type: "quote.expired_link_opened", quoteId: quote.id, read: false, title: expect.stringContaining(quote.number) });
    const read = await api("POST", `notifications/${n.body.data[0].id}/read`, { key: key() });
    expect(read.body.data).toMatchObject({ read: true, readAt: expect.any(String) });
    expect((await api("GET", `notifications?quoteId=${quote.id}&unread=true`, { key: key() })).body.data).toHaveLength(0);
    // another tenant sees none of it
    expect((await api("GET", `notifications?quoteId=${quote.id}`, { key: other.apiKey })).body.data).toHaveLength(0);
    expectError(await api("POST", `notifications/${n.body.data[0].id}/read`, { key: other.apiKey }), 404, "not_found");
    expectError(await api("POST", link(token, "/view"), { body: { x: 1 } }), 422, "validation_error");
  });

  test("comments: 201 shared from the buyer, quote.comment_added, the rep notified; bodies validated", async () => {
    const { quote, token } = await issued();
    const c = await api("POST", link(token, "/comments"), { body: { body: "Can you do 3 widgets?", authorName: "Bea" } });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ authorType: "buyer", authorName: "Bea", body: "Can you do 3 widgets?" });
    expect((await api("GET", `quotes/${quote.id}`, { key: key() })).body.data.comments).toContainEqual(expect.objectContaining({ visibility: "shared", authorType: "buyer" }));
    expect(await events(quote.id, "quote.comment_added")).toHaveLength(1);
    expect((await api("GET", `notifications?quoteId=${quote.id}&type=quote.comment_added`, { key: key() })).body.data).toHaveLength(1);
    expectError(await api("POST", link(token, "/comments"), { body: { body: "" } }), 422, "validation_error");
    expectError(await api("POST", link(token, "/comments"), { body: { body: "x".repeat(5001) } }), 422, "validation_error");
    expectError(await api("POST", link(token, "/comments"), { body: { body: 7 } }), 422, "validation_error");
  });

  test("request-revision: proposed -> revision_requested with the message in the thread; then 409 on a second ask", async () => {
    const { quote, token } = await issued();
    const r = await api("POST", link(token, "/request-revision"), { body: { message: "Need net 60" } });
    expect(r.status).toBe(200);
    expect(r.body.data.quote.status).toBe("revision_requested");
    expect(r.body.data.comments.map((c: any) => c.body)).toContain("Need net 60");
    expect((await events(quote.id, "quote.revision_requested"))[0].data).toMatchObject({ message: "Need net 60" });
    expectError(await api("POST", link(token, "/request-revision"), { body: {} }), 409, "invalid_quote_transition");
  });

  test("decline: declinedBy buyer with the reason; the link stays readable; accept afterwards is 409", async () => {
    const { quote, token, rev } = await issued();
    const r = await api("POST", link(token, "/decline"), { body: { reason: "Too pricey" } });
    expect(r.status).toBe(200);
    expect(r.body.data.quote).toMatchObject({ status: "declined", declinedBy: "buyer", declinedReason: "Too pricey" }); // the buyer who declined reads their own reason (issue 35 item 2)
    const m = (await api("GET", `quotes/${quote.id}`, { key: key() })).body.data;
    expect(m).toMatchObject({ status: "declined", declinedBy: "buyer", declinedReason: "Too pricey" });
    expect((await events(quote.id, "quote.declined"))[0].data).toMatchObject({ declinedBy: "buyer", reason: "Too pricey" });
    expectError(await accept(token, rev.id), 409, "invalid_quote_transition");
  });
});

describe("acceptance", () => {
  test("the buyer accepts with selections: a cart of exactly the chosen lines, a session pinned to card, quote.accepted; re-accept returns the same session", async () => {
    const { quote, token, rev } = await issued();
    const [widget, gadget] = rev.items;
    const r = await accept(token, rev.id, { acceptedByEmail: "bea@example.com", itemSelections: [{ itemId: gadget.id, selected: false }, { itemId: widget.id, quantity: 5 }] });
    expect(r.status).toBe(200);
    const sessionId = r.body.data.checkoutUrl.split("/").pop();
    expect(r.body.data.checkoutUrl).toBe(`${t.deps.config.CHECKOUT_URL}/checkout/${sessionId}`);
    expect(r.body.data.quote).toMatchObject({ status: "accepted", acceptedRevisionId: rev.id, checkoutUrl: r.body.data.checkoutUrl, acceptance: { by: "buyer", name: "Bea Buyer", email: "bea@example.com" } });
    const s = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId }, include: { cart: { include: { lineItems: { orderBy: { createdAt: "asc" } } } } } });
    expect(s).toMatchObject({ allowedMethods: ["card"], netN: null, quoteId: quote.id, depositAmount: null, collectShipping: true, collectBilling: true });
    expect(s.cart.lineItems.map((l) => [l.name, l.unitPrice, l.quantity, l.requiresShipping])).toEqual([
      ["Widget", 1500, 5, true],
      ["Setup", 10000, 1, false],
    ]);
    expect((await events(quote.id, "quote.accepted"))[0].data).toMatchObject({ acceptedBy: "buyer", checkoutSessionId: sessionId });
    const again = await accept(token, rev.id);
    expect(again.status).toBe(200);
    expect(again.body.data.checkoutUrl).toBe(r.body.data.checkoutUrl);
    expect(await t.deps.prisma.checkoutSession.count({ where: { quoteId: quote.id } })).toBe(1);

    // Paying converts the quote in the order's own transaction; the link stays readable.
    const pay = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
    expect(pay.status).toBe(200);
    const order = (await api("GET", `orders/${pay.body.data.orderId}`, { key: key() })).body.data;
    expect(order).toMatchObject({ total: 17500, paymentStatus: "captured" });
    expect(order.lineItems.map((l: any) => [l.name, l.quantity])).toEqual([["Widget", 5], ["Setup", 1]]);
    const m = (await api("GET", `quotes/${quote.id}`, { key: key() })).body.data;
    expect(m).toMatchObject({ status: "converted", orderId: order.id, convertedAt: expect.any(String) });
    const conv = await events(quote.id, "quote.converted");
    expect(conv).toHaveLength(1);
    expect(conv[0].data).toMatchObject({ orderId: order.id });
    // Same transaction: the quote row and the order's first history row carry one writing transaction id (xmin).
    const [{ quoteTx }] = await t.deps.prisma.$queryRaw<{ quoteTx: string }[]>`SELECT xmin::text AS "quoteTx" FROM "Quote" WHERE id = ${quote.id}::uuid`;
    const [{ orderTx }] = await t.deps.prisma.$queryRaw<{ orderTx: string }[]>`SELECT xmin::text AS "orderTx" FROM "OrderStatusHistory" WHERE "orderId" = ${order.id}::uuid AND "toStatus" = 'pending'`;
    expect(quoteTx).toBe(orderTx);
    expect((await api("GET", link(token))).body.data.quote.status).toBe("converted");
    expect((await accept(token, rev.id)).body.data.checkoutUrl).toBe(r.body.data.checkoutUrl); // converted: the same (completed) checkout
  });

  test("every accept rule's error: revision_superseded (details.currentRevisionId), quote_expired 410, invalid_item_selection x5", async () => {
    const { quote, token, rev } = await issued({ paymentTerms: { mode: "deposit_balance", balanceNetN: 30 }, deposit: { type: "fixed", value: 12000 } });
    const [widget, gadget, setup] = rev.items;
    const sel = async (itemSelections: unknown[], reason: string) => {
      const r = await accept(token, rev.id, { itemSelections });
      expectError(r, 400, "invalid_item_selection");
      expect(r.body.error.details.reason).toBe(reason);
    };
    await sel([{ itemId: setup.id, selected: false }], "not_optional");
    await sel([{ itemId: gadget.id, quantity: 3 }], "quantity_locked");
    await sel([{ itemId: "00000000-0000-4000-8000-000000000000", selected: true }], "unknown_item");
    await sel([{ itemId: widget.id, quantity: 1 }, { itemId: gadget.id, selected: false }], "deposit_floor"); // 1500 + 10000 <= 12000
    expectError(await accept(token, rev.id, { itemSelections: [{ itemId: widget.id, quantity: 0 }] }), 422, "validation_error");
    expectError(await accept(token, rev.id, { itemSelections: [{ itemId: widget.id }, { itemId: widget.id }] }), 422, "validation_error");
    expect(await t.deps.prisma.checkoutSession.count({ where: { quoteId: quote.id } })).toBe(0);

    await api("POST", `quotes/${quote.id}/revisions`, { key: key(), body: {} });
    const re = await api("POST", `quotes/${quote.id}/issue`, { key: key(), body: {} });
    const sup = await accept(token, rev.id);
    expectError(sup, 409, "revision_superseded");
    expect(sup.body.error.details.currentRevisionId).toBe(re.body.data.quote.currentRevisionId);

    await api("PATCH", `quotes/${quote.id}`, { key: key(), body: { expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() } });
    clock.advance(61_000);
    expectError(await accept(token, re.body.data.quote.currentRevisionId), 410, "quote_expired");
    expectError(await api("POST", link(token, "/accept"), { body: { revisionId: rev.id } }), 422, "validation_error");
    expectError(await api("POST", link(token, "/accept"), { raw: "{not json" }), 400, "invalid_json");
  });

  test("net terms: the session allows net30 only with the quote's Net-N, the payment says cart_override; completing by card is 422 listing net30", async () => {
    await t.deps.prisma.customer.updateMany({ where: { email: "net@example.com" }, data: { netTermsDays: 15 } });
    const { quote, token, rev } = await issued({ customerEmail: "net@example.com", paymentTerms: { mode: "net_terms", netN: 45 } });
    await t.deps.prisma.customer.updateMany({ where: { email: "net@example.com" }, data: { netTermsDays: 15 } });
    const r = await accept(token, rev.id);
    const sessionId = r.body.data.checkoutUrl.split("/").pop();
    const s = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect([s.allowedMethods, s.netN]).toEqual([["net30"], 45]);
    const byCard = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
    expectError(byCard, 422, "payment_method_not_allowed");
    expect(byCard.body.error.details.allowedMethods).toEqual(["net30"]);
    const acceptance = { termsHash: termsHash("Net 45"), acceptedAt: clock.now().toISOString(), companyName: "Acme", billingEmail: "ap@acme.test" };
    const done = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, billingAddress: ADDRESS, net30Acceptance: acceptance } });
    expect(done.status).toBe(200);
    const p = await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: done.body.data.paymentId } });
    expect([p.status, p.netN, p.netNSource]).toEqual(["authorized", 45, "cart_override"]);
    expect((await api("GET", `quotes/${quote.id}`, { key: key() })).body.data.status).toBe("converted");

    const pif = await issued();
    const pr = await accept(pif.token, pif.rev.id);
    const pifSession = pr.body.data.checkoutUrl.split("/").pop();
    const asNet = await api("POST", `checkout-sessions/${pifSession}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, billingAddress: ADDRESS, net30Acceptance: acceptance } });
    expectError(asNet, 422, "payment_method_not_allowed"); // a pay_in_full quote cannot be settled as Net-N
    expect(asNet.body.error.details.allowedMethods).toEqual(["card"]);
  });

  test("deposit terms: the card pays the deposit, the balance is a Net-N invoice authorized at balanceNetN, the order partially_paid until captured", async () => {
    const { quote, token, rev } = await issued({ paymentTerms: { mode: "deposit_balance", balanceNetN: 20 }, deposit: { type: "percent", value: 30 } });
    expect(rev.depositAmount).toBe(4650);
    const r = await accept(token, rev.id);
    const sessionId = r.body.data.checkoutUrl.split("/").pop();
    const done = await api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS, billingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: key() })).body.data;
    expect(order.paymentStatus).toBe("partially_paid");
    const payments = await t.deps.prisma.payment.findMany({ where: { orderId: order.id }, orderBy: { createdAt: "asc" } });
    expect(payments.map((p) => [p.method, p.status, p.amount, p.netN, p.netNSource])).toEqual([
      ["card", "captured", 4650, null, null],
      ["net30", "authorized", 10850, 20, "cart_override"],
    ]);
    expect(payments[1].dueDate!.toISOString().slice(0, 10)).toBe(new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth(), clock.now().getUTCDate() + 20)).toISOString().slice(0, 10));
    expect((await api("GET", `quotes/${quote.id}`, { key: key() })).body.data.status).toBe("converted");
    const cap = await api("POST", `orders/${order.id}/capture`, { key: key(), body: {} });
    expect(cap.status).toBe(200);
    expect((await api("GET", `orders/${order.id}`, { key: key() })).body.data.paymentStatus).toBe("captured");
  });

  test("address steps: deselecting the only shippable line drops the shipping step; a collect override wins and survives a resumed checkout", async () => {
    const only = await issued({ items: [{ name: "Box", unitPrice: 500, optional: true }, { name: "Consulting", unitPrice: 9000, type: "service" }] });
    const r = await accept(only.token, only.rev.id, { itemSelections: [{ itemId: only.rev.items[0].id, selected: false }] });
    const s = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: r.body.data.checkoutUrl.split("/").pop() } });
    expect([s.collectShipping, s.collectBilling]).toEqual([false, true]);

    const ov = await issued({ collect: { shippingAddress: false, billingAddress: false } });
    const first = await accept(ov.token, ov.rev.id);
    const s1 = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: first.body.data.checkoutUrl.split("/").pop() } });
    expect([s1.collectShipping, s1.collectBilling]).toEqual([false, false]);
    clock.advance(t.deps.config.CHECKOUT_SESSION_TTL_MS + 1000);
    const resumed = await accept(ov.token, ov.rev.id);
    expect(resumed.status).toBe(200);
    expect(resumed.body.data.checkoutUrl).not.toBe(first.body.data.checkoutUrl);
    const s2 = await t.deps.prisma.checkoutSession.findUniqueOrThrow({ where: { id: resumed.body.data.checkoutUrl.split("/").pop() } });
    expect([s2.cartId, s2.collectShipping, s2.collectBilling, s2.status, s2.allowedMethods]).toEqual([s1.cartId, false, false, "open", ["card"]]);
    expect((await api("GET", `quotes/${ov.quote.id}`, { key: key() })).body.data.checkoutSessionId).toBe(s2.id);
    const pay = await api("POST", `checkout-sessions/${s2.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa" } });
    expect(pay.status).toBe(200); // no address asked for
  });

  test("a rep records acceptance (quotes:write): merchant view with the reason; scopes and tenancy", async () => {
    const { quote, rev } = await issued();
    const ro = await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "ro", scopes: ["quotes:read"] } });
    expectError(await api("POST", `quotes/${quote.id}/accept`, { key: ro.body.data.rawKey, body: { revisionId: rev.id, acceptedByName: "Bea" } }), 403, "insufficient_scopes");
    expectError(await api("POST", `quotes/${quote.id}/accept`, { key: other.apiKey, body: { revisionId: rev.id, acceptedByName: "Bea" } }), 404, "not_found");
    expectError(await api("POST", "quotes/not-a-uuid/accept", { key: key(), body: { revisionId: rev.id, acceptedByName: "Bea" } }), 404, "not_found");
    const r = await api("POST", `quotes/${quote.id}/accept`, { key: key(), body: { revisionId: rev.id, acceptedByName: "Bea", acceptedByEmail: "bea@example.com", reason: "Confirmed by phone" } });
    expect(r.status).toBe(200);
    expect(r.body.data.quote).toMatchObject({ status: "accepted", acceptance: { by: "merchant", name: "Bea", reason: "Confirmed by phone" }, checkoutSessionId: expect.any(String) });
    expect(r.body.data.checkoutUrl).toContain(r.body.data.quote.checkoutSessionId);
    const ev = (await events(quote.id, "quote.accepted"))[0];
    expect(JSON.stringify(ev.data)).not.toContain("Confirmed by phone"); // the rep's reason stays on the merchant side
    const hist = await t.deps.prisma.quoteStatusHistory.findFirstOrThrow({ where: { quoteId: quote.id, toStatus: "accepted" } });
    expect(hist).toMatchObject({ actorType: "integration", reason: "Confirmed by phone" });
    expectError(await api("GET", "notifications", { key: ro.body.data.rawKey.replace(/.$/, (c: string) => (c === "x" ? "y" : "x")) }), 401, "unauthorized");
  });

  postgresPassTest("a concurrent accept holding the quote's row lock answers 409 accept_in_progress at once", async () => {
    const { quote, token, rev } = await issued();
    const { Client } = await import("pg");
    const holder = new Client({ connectionString: t.databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM "Quote" WHERE id = $1 FOR UPDATE`, [quote.id]);
      expectError(await accept(token, rev.id), 409, "accept_in_progress");
      await holder.query("ROLLBACK");
      expect((await accept(token, rev.id)).status).toBe(200);
    } finally {
      await holder.end();
    }
  });
});

describe("rate limits", () => {
  test("buyer routes are limited per token and per IP: 429 rate_limited with Retry-After", async () => {
    const lim = (await startTestApp({ env: { RATE_LIMIT_QUOTE_LINKS_PER_TOKEN: "3/1m", RATE_LIMIT_QUOTE_LINKS_PER_IP: "5/1m" } }))!;
    try {
      const la = client(lim.url);
      const d = await lim.bootstrap();
      const tokens: string[] = [];
      for (let i = 0; i < 2; i++) {
        const c = await la("POST", "quotes", { key: d.apiKey, body: { customerEmail: "rl@example.com", items: [{ name: "x", unitPrice: 100 }] } });
        tokens.push((await la("POST", `quotes/${c.body.data.id}/issue`, { key: d.apiKey, body: {} })).body.data.quote.shareToken);
      }
      for (let i = 0; i < 3; i++) expect((await la("GET", link(tokens[0]))).status).toBe(200);
      const byToken = await la("GET", link(tokens[0]));
      expectError(byToken, 429, "rate_limited");
      expect(Number(byToken.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await la("POST", link(tokens[1], "/view"), { body: {} })).status).toBe(204); // the address's 5th request
      expectError(await la("GET", link(tokens[1])), 429, "rate_limited"); // its token has room; the address has none
    } finally {
      await lim.close();
    }
  });
});
