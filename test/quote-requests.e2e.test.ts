// Quote requests (quotes.md parts 2-5, decisions.md part 3): request forms and their qrf_ tokens, the keyless
// intake with its bot protection (honeypot, fill time, bot challenge), a cart's request for a quote, and the
// application settings the buyer links read.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => void ({ t, api, demo, other } = await startWithTwoTenants("qr-other")));
afterAll(() => t?.close());

const key = () => demo.apiKey;
const loaded = () => Date.now() - 10_000;
function expectError(r: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  if (path) expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
}
async function newForm(fields: Record<string, unknown> = {}, k = key()) {
  const r = await api("POST", "quote-request-forms", { key: k, body: { name: "RFQ", fields } });
  expect(r.status).toBe(201);
  return r.body.data;
}
const quoteCount = () => t.deps.prisma.quote.count();
/** Each submission comes from its own address, so the per-IP limit (10/min) is not what these tests meet. */
let ipSeq = 0;
const fromIp = () => ({ "x-forwarded-for": `203.0.113.${++ipSeq % 250}` });
const submit = (body: Record<string, unknown>, headers: Record<string, string> = fromIp()) => api("POST", "quote-requests", { body, headers });

describe("request forms", () => {
  test("the qrf_ token is shown once, stored hashed, never listed; rotation retires the old one at once", async () => {
    const f = await newForm({ targetPrice: true });
    expect(f).toMatchObject({ name: "RFQ", fields: { lineItems: true, targetPrice: true, requireBotChallenge: false }, successMessage: null });
    expect(f.formToken).toMatch(/^qrf_[A-Za-z0-9]{32}$/);
    expect(f.hostedUrl).toBe(`${t.url}/q/request/${f.formToken}`);
    expect(f.tokenPrefix).toBe(f.formToken.slice(0, 12));
    const row = await t.deps.prisma.quoteRequestForm.findUniqueOrThrow({ where: { id: f.id } });
    expect(JSON.stringify(row)).not.toContain(f.formToken);
    const list = await api("GET", "quote-request-forms", { key: key() });
    const listed = list.body.data.find((x: any) => x.id === f.id);
    expect(listed).toMatchObject({ id: f.id, formToken: null, hostedUrl: null });
    expect(JSON.stringify(list.body)).not.toContain(f.formToken);
    const rot = await api("POST", `quote-request-forms/${f.id}/rotate-token`, { key: key() });
    expect(rot.status).toBe(200);
    expect(rot.body.data.formToken).toMatch(/^qrf_/);
    expect(rot.body.data.formToken).not.toBe(f.formToken);
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", message: "hi", formLoadedAt: loaded() }), 404, "not_found");
    expect((await submit({ formToken: rot.body.data.formToken, email: "a@example.com", message: "hi", formLoadedAt: loaded() })).status).toBe(202);
  });

  test("422 on bad form bodies; another tenant's form is 404; scopes", async () => {
    expectError(await api("POST", "quote-request-forms", { key: key(), body: { name: "" } }), 422, "validation_error", ["name"]);
    expectError(await api("POST", "quote-request-forms", { key: key(), body: { name: "x", fields: { lineItems: "no" } } }), 422, "validation_error", ["fields", "lineItems"]);
    expectError(await api("POST", "quote-request-forms", { key: key(), body: { name: "x", extra: 1 } }), 422, "validation_error");
    const f = await newForm();
    expectError(await api("POST", `quote-request-forms/${f.id}/rotate-token`, { key: other.apiKey }), 404, "not_found");
    expectError(await api("POST", "quote-request-forms/not-a-uuid/rotate-token", { key: key() }), 404, "not_found");
    expect((await api("GET", "quote-request-forms", { key: other.apiKey })).body.data.map((x: any) => x.id)).not.toContain(f.id);
    const reader = (await mintKeyVia(api, demo, ["quotes:read"])).rawKey;
    expectError(await api("POST", "quote-request-forms", { key: reader, body: { name: "x" } }), 403, "insufficient_scopes");
    expect((await api("GET", "quote-request-forms", { key: reader })).status).toBe(200);
    // a dashboard session may create one too
    const d = await api("POST", "quote-request-forms", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "dash" } });
    expect(d.status).toBe(201);
  });
});

describe("POST /quote-requests", () => {
  test("a real request: 202, a requested quote with unpriced lines, targets kept, the message as the first shared comment, quote.requested", async () => {
    const f = await newForm({ targetPrice: true });
    const email = `req-${Date.now()}@example.com`;
    const r = await submit({
      formToken: f.formToken,
      email,
      companyName: "Buyer Co",
      message: "We need 500 units by March",
      items: [{ name: "Widget", sku: "W-1", quantity: 500, targetUnitPrice: 900, note: "blue" }, { name: "Install" }],
      formLoadedAt: loaded(),
    });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ data: { received: true } });
    const q = await t.deps.prisma.quote.findFirstOrThrow({ where: { customerEmail: email }, include: { revisions: { include: { items: { orderBy: { position: "asc" } } } }, comments: true, customer: true } });
    expect(q).toMatchObject({ status: "requested", source: "request_form", requestFormId: f.id, companyName: "Buyer Co" });
    expect(q.customer?.email).toBe(email);
    expect(q.revisions[0].items.map((i) => [i.name, i.sku, i.quantity, i.unitPrice, i.targetUnitPrice, i.note])).toEqual([
      ["Widget", "W-1", 500, null, 900, "blue"],
      ["Install", null, 1, null, null, null],
    ]);
    expect(q.comments.map((c) => [c.visibility, c.authorType, c.body])).toEqual([["shared", "buyer", "We need 500 units by March"]]);
    const ev = await t.deps.prisma.event.findMany({ where: { type: "quote.requested" } });
    const mine = ev.filter((e) => (e.data as any).quoteId === q.id);
    expect(mine).toHaveLength(1);
    expect(mine[0].data).toMatchObject({ source: "request_form", quote: { status: "requested" }, revision: { status: "working" } });
    // the merchant can price and issue it
    const read = await api("GET", `quotes/${q.id}`, { key: key() });
    const rev = read.body.data.workingRevision;
    expectError(await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} }), 409, "unpriced_items");
    const items = rev.items.map((i: any) => ({ id: i.id, name: i.name, quantity: i.quantity, unitPrice: 1000, sku: i.sku, note: i.note, targetUnitPrice: i.targetUnitPrice }));
    expect((await api("PATCH", `quotes/${q.id}/revisions/${rev.id}`, { key: key(), body: { items } })).status).toBe(200);
    expect((await api("POST", `quotes/${q.id}/issue`, { key: key(), body: {} })).body.data.quote.status).toBe("proposed");
  });

  test("the honeypot's answer is the real answer (status, body) and nothing is created", async () => {
    const f = await newForm();
    const before = await quoteCount();
    const bot = await submit({ formToken: f.formToken, email: "bot@example.com", message: "buy now", website: "http://spam.example", formLoadedAt: loaded() });
    const real = await submit({ formToken: f.formToken, email: "human@example.com", message: "buy now", formLoadedAt: loaded() });
    expect({ status: bot.status, body: bot.body }).toEqual({ status: real.status, body: real.body });
    expect(bot.headers.get("content-type")).toBe(real.headers.get("content-type"));
    expect(await quoteCount()).toBe(before + 1);
    expect(await t.deps.prisma.customer.count({ where: { email: "bot@example.com" } })).toBe(0);
  });

  test("422: too fast, neither items nor message, item rows on a prose form, target prices on a form without them, bad token 404", async () => {
    const f = await newForm();
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", message: "x", formLoadedAt: Date.now() - 500 }), 422, "form_submitted_too_fast");
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", message: "x", formLoadedAt: Date.now() + 60_000 }), 422, "form_submitted_too_fast");
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", formLoadedAt: loaded() }), 422, "validation_error", ["items"]);
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", items: [{ name: "A", targetUnitPrice: 5 }], formLoadedAt: loaded() }), 422, "validation_error", ["items", 0, "targetUnitPrice"]);
    const prose = await newForm({ lineItems: false });
    expectError(await submit({ formToken: prose.formToken, email: "a@example.com", items: [{ name: "A" }], formLoadedAt: loaded() }), 422, "validation_error", ["items"]);
    expectError(await submit({ formToken: f.formToken, email: "not an email", message: "x", formLoadedAt: loaded() }), 422, "validation_error", ["email"]);
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", message: "x" }), 422, "validation_error", ["formLoadedAt"]);
    expectError(await submit({ formToken: "qrf_unknownunknownunknownunknown12", email: "a@example.com", message: "x", formLoadedAt: loaded() }), 404, "not_found");
    expectError(await submit({ formToken: 5, email: "a@example.com", message: "x", formLoadedAt: loaded() } as any), 422, "validation_error", ["formToken"]);
  });

  test("cartId: lines join the request with the cart's prices as targets only, the cart unchanged; another tenant's cart is 404", async () => {
    const f = await newForm();
    const cart = (await api("POST", "carts", { key: key(), body: {} })).body.data;
    await api("POST", `carts/${cart.id}/items`, { key: key(), body: { name: "Gadget", unitPrice: 2500, quantity: 2 } });
    const before = (await api("GET", `carts/${cart.id}`, { key: key() })).body.data;
    const email = `cart-${Date.now()}@example.com`;
    expect((await submit({ formToken: f.formToken, email, cartId: cart.id, formLoadedAt: loaded() })).status).toBe(202);
    const q = await t.deps.prisma.quote.findFirstOrThrow({ where: { customerEmail: email }, include: { revisions: { include: { items: true } } } });
    expect(q.cartId).toBe(cart.id);
    expect(q.revisions[0].items.map((i) => [i.name, i.quantity, i.unitPrice, i.targetUnitPrice])).toEqual([["Gadget", 2, null, 2500]]);
    expect((await api("GET", `carts/${cart.id}`, { key: key() })).body.data).toEqual(before);
    const foreign = (await api("POST", "carts", { key: other.apiKey, body: {} })).body.data;
    expectError(await submit({ formToken: f.formToken, email, cartId: foreign.id, formLoadedAt: loaded() }), 404, "not_found");
    expectError(await submit({ formToken: f.formToken, email, cartId: "nope", formLoadedAt: loaded() }), 404, "not_found");
  });

  test("bot challenge: 503 bot_challenge_not_configured when the server has none; verified server-side against siteverify when it has", async () => {
    const f = await newForm({ requireBotChallenge: true });
    expectError(await submit({ formToken: f.formToken, email: "a@example.com", message: "x", formLoadedAt: loaded(), botChallengeToken: "tok" }), 503, "bot_challenge_not_configured");
    // forms that do not require it are unaffected
    const plain = await newForm();
    expect((await submit({ formToken: plain.formToken, email: "a@example.com", message: "x", formLoadedAt: loaded() })).status).toBe(202);

    const seen: string[] = [];
    const verifier = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push(body);
        const p = new URLSearchParams(body);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ success: p.get("secret") === "s3cret" && p.get("response") === "good-token" }));
      });
    });
    await new Promise<void>((r) => verifier.listen(0, "127.0.0.1", r));
    const t2 = (await startTestApp({ env: { BOT_CHALLENGE_VERIFY_URL: `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`, BOT_CHALLENGE_SECRET: "s3cret" } }))!;
    try {
      const demo2 = await t2.bootstrap();
      const api2 = client(t2.url);
      const f2 = (await api2("POST", "quote-request-forms", { key: demo2.apiKey, body: { name: "bot", fields: { requireBotChallenge: true } } })).body.data;
      const send = (extra: Record<string, unknown>) => api2("POST", "quote-requests", { body: { formToken: f2.formToken, email: "b@example.com", message: "x", formLoadedAt: loaded(), ...extra }, headers: fromIp() });
      expectError(await send({}), 422, "validation_error", ["botChallengeToken"]);
      expectError(await send({ botChallengeToken: "bad-token" }), 403, "bot_challenge_failed");
      expect((await send({ botChallengeToken: "good-token" })).status).toBe(202);
      expect(seen.every((b) => new URLSearchParams(b).get("secret") === "s3cret")).toBe(true);
      expect(await t2.deps.prisma.quote.count()).toBe(1);
    } finally {
      await t2.close();
      verifier.close();
    }
  });

  test("the per-IP limit: the 11th request in a minute from one address is 429 with Retry-After", async () => {
    const f = await newForm();
    const ip = { "x-forwarded-for": "198.51.100.77" };
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await submit({ formToken: f.formToken, email: "a@example.com", message: `m${i}`, formLoadedAt: loaded() }, ip)).status);
    expect(codes.slice(0, 10).every((c) => c === 202)).toBe(true);
    const r = await submit({ formToken: f.formToken, email: "a@example.com", message: "again", formLoadedAt: loaded() }, ip);
    expectError(r, 429, "rate_limited");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("POST /carts/{cartId}/request-quote", () => {
  test("201: a requested quote from the cart's lines (unpriced, targets), the note as a shared comment; the cart is unchanged", async () => {
    const cart = (await api("POST", "carts", { key: key(), body: { customerEmail: "cartbuyer@example.com" } })).body.data;
    await api("POST", `carts/${cart.id}/items`, { key: key(), body: { name: "Consulting", unitPrice: 20000, type: "service" } });
    const before = (await api("GET", `carts/${cart.id}`, { key: key() })).body.data;
    const r = await api("POST", `carts/${cart.id}/request-quote`, { key: key(), body: { buyerReference: "PO-99", note: "Can you do better?" } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ status: "requested", source: "cart", cartId: cart.id, customerEmail: "cartbuyer@example.com", buyerReference: "PO-99" });
    expect(r.body.data.workingRevision.items.map((i: any) => [i.name, i.unitPrice, i.targetUnitPrice, i.deliveryMethod])).toEqual([["Consulting", null, 20000, "none"]]);
    expect(r.body.data.comments.map((c: any) => [c.visibility, c.authorType, c.body])).toEqual([["shared", "buyer", "Can you do better?"]]);
    expect((await api("GET", `carts/${cart.id}`, { key: key() })).body.data).toEqual(before);
    const ev = (await t.deps.prisma.event.findMany({ where: { type: "quote.requested" } })).filter((e) => (e.data as any).quoteId === r.body.data.id);
    expect(ev.map((e) => (e.data as any).source)).toEqual(["cart"]);
  });

  test("422 without a buyer email; 404 for another tenant's cart; scope", async () => {
    const cart = (await api("POST", "carts", { key: key(), body: {} })).body.data;
    await api("POST", `carts/${cart.id}/items`, { key: key(), body: { name: "A", unitPrice: 100 } });
    expectError(await api("POST", `carts/${cart.id}/request-quote`, { key: key(), body: {} }), 422, "validation_error", ["customerEmail"]);
    expect((await api("POST", `carts/${cart.id}/request-quote`, { key: key(), body: { customerEmail: "x@example.com" } })).status).toBe(201);
    expectError(await api("POST", `carts/${cart.id}/request-quote`, { key: other.apiKey, body: { customerEmail: "x@example.com" } }), 404, "cart_not_found");
    const reader = (await mintKeyVia(api, demo, ["quotes:read", "carts:write"])).rawKey;
    expectError(await api("POST", `carts/${cart.id}/request-quote`, { key: reader, body: {} }), 403, "insufficient_scopes");
  });
});

describe("application settings", () => {
  const dash = () => ({ token: demo.dashboardToken });
  test("GET and PATCH for the owner: validated, merged, null removes; buyerUrl follows checkoutLinkBaseUrl", async () => {
    const g = await api("GET", `applications/${demo.applicationId}`, dash());
    expect(g.status).toBe(200);
    expect(g.body.data).toMatchObject({ id: demo.applicationId, workspaceId: demo.workspaceId, currency: "USD", checkoutLinkBaseUrl: null, allowedOrigins: expect.any(Array) });
    const p = await api("PATCH", `applications/${demo.applicationId}`, {
      ...dash(),
      body: { name: "Demo Store", checkoutLinkBaseUrl: "https://buy.example.com/", brandColor: "#A1B2C3", supportEmail: "Help@Example.com", cartRecoveryUrlTemplate: "https://shop.example.com/cart/{cartId}", allowedOrigins: ["https://shop.example.com/"] },
    });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ name: "Demo Store", checkoutLinkBaseUrl: "https://buy.example.com", brandColor: "#a1b2c3", supportEmail: "help@example.com", allowedOrigins: ["https://shop.example.com"] });
    const q = (await api("POST", "quotes", { key: key(), body: { customerEmail: "a@example.com" } })).body.data;
    expect(q.buyerUrl).toBe(`https://buy.example.com/q/${q.shareToken}`);
    const f = (await api("POST", "quote-request-forms", { key: key(), body: { name: "x" } })).body.data;
    expect(f.hostedUrl).toBe(`https://buy.example.com/q/request/${f.formToken}`);
    // a second PATCH of another setting keeps the first; null removes
    const p2 = await api("PATCH", `applications/${demo.applicationId}`, { ...dash(), body: { logoUrl: "https://cdn.example.com/logo.png", checkoutLinkBaseUrl: null } });
    expect(p2.body.data).toMatchObject({ logoUrl: "https://cdn.example.com/logo.png", checkoutLinkBaseUrl: null, brandColor: "#a1b2c3" });
    expect((await api("GET", `quotes/${q.id}`, { key: key() })).body.data.buyerUrl).toBe(`${t.url}/q/${q.shareToken}`);
  });

  test("422 naming the field; 404 for other applications; keys need applications:* and reach only their own", async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ brandColor: "red" }, "brandColor"],
      [{ cartRecoveryUrlTemplate: "https://shop.example.com/cart" }, "cartRecoveryUrlTemplate"],
      [{ storefrontBaseUrl: "javascript:alert(1)" }, "storefrontBaseUrl"],
      [{ allowedOrigins: ["https://shop.example.com/path"] }, "allowedOrigins"],
      [{ supportEmail: "nope" }, "supportEmail"],
      [{ name: "" }, "name"],
      [{ name: 5 }, "name"],
    ];
    for (const [body, field] of bad) {
      const r = await api("PATCH", `applications/${demo.applicationId}`, { token: demo.dashboardToken, body });
      expect({ field, status: r.status, code: r.body.error?.code, first: r.body.error?.details?.issues?.[0]?.path?.[0] }).toEqual({ field, status: 422, code: "validation_error", first: field });
    }
    expectError(await api("PATCH", `applications/${demo.applicationId}`, { token: demo.dashboardToken, body: { currency: "EUR" } }), 422, "validation_error");
    expectError(await api("GET", `applications/${other.applicationId}`, { token: demo.dashboardToken }), 404, "not_found");
    expectError(await api("GET", "applications/not-a-uuid", { token: demo.dashboardToken }), 404, "not_found");
    expectError(await api("GET", `applications/${demo.applicationId}`, { key: other.apiKey }), 404, "not_found");
    const writer = (await mintKeyVia(api, demo, ["applications:write"])).rawKey;
    expect((await api("PATCH", `applications/${demo.applicationId}`, { key: writer, body: { supportEmail: "ops@example.com" } })).status).toBe(200);
    expect((await api("GET", `applications/${demo.applicationId}`, { key: writer })).status).toBe(200);
    const reader = (await mintKeyVia(api, demo, ["applications:read"])).rawKey;
    expect((await api("GET", `applications/${demo.applicationId}`, { key: reader })).body.data.supportEmail).toBe("ops@example.com");
    expectError(await api("PATCH", `applications/${demo.applicationId}`, { key: reader, body: { logoUrl: null } }), 403, "insufficient_scopes");
    expectError(await api("GET", `applications/${demo.applicationId}`, { key: key().replace(/.$/, (c) => (c === "x" ? "y" : "x")) }), 401, "unauthorized");
    const none = (await mintKeyVia(api, demo, ["quotes:read"])).rawKey;
    expectError(await api("GET", `applications/${demo.applicationId}`, { key: none }), 403, "insufficient_scopes");
  });
});

describe("hostile input on the request, form and settings routes", () => {
  test("hostile ids are 404 and wrong types or garbage bodies are 4xx, never 5xx", async () => {
    const ids = ["not-a-uuid", "00000000-0000-0000-0000-000000000000", "%00", "'; DROP TABLE \"Quote\"; --", "a".repeat(300)];
    for (const id of ids) {
      const enc = encodeURIComponent(id);
      for (const [m, p, cred] of [
        ["POST", `quote-request-forms/${enc}/rotate-token`, { key: key() }],
        ["POST", `carts/${enc}/request-quote`, { key: key() }],
        ["GET", `applications/${enc}`, { token: demo.dashboardToken }],
        ["PATCH", `applications/${enc}`, { token: demo.dashboardToken }],
      ] as const) {
        const r = await api(m, p, { ...cred, body: m === "GET" ? undefined : {} });
        expect({ m, p, status: r.status }).toEqual({ m, p, status: 404 });
      }
    }
    const f = await newForm();
    const bodies: unknown[] = [null, [], "x", 7, { formToken: [] }, { formToken: f.formToken, email: {}, formLoadedAt: "now" }, { formToken: f.formToken, email: "a@example.com", items: [null], formLoadedAt: 1 }, { formToken: f.formToken, email: "a@example.com", items: "many", formLoadedAt: 1 }, { formToken: f.formToken, email: "a@example.com", message: "x", formLoadedAt: 1e300 }, { formToken: "\u0000", email: "a@example.com", message: "x", formLoadedAt: 1 }];
    for (const b of bodies) {
      for (const [m, p, cred] of [
        ["POST", "quote-requests", { headers: fromIp() }],
        ["POST", "quote-request-forms", { key: key() }],
        ["PATCH", `applications/${demo.applicationId}`, { token: demo.dashboardToken }],
      ] as const) {
        const r = await api(m, p, { ...cred, raw: JSON.stringify(b) });
        expect({ m, p, b, ok: r.status >= 400 && r.status < 500 }).toEqual({ m, p, b, ok: true });
      }
    }
    expectError(await api("POST", "quote-requests", { raw: "{oops", headers: fromIp() }), 400, "invalid_json");
  });
});
