// Discounts over REST: the merchant's codes (create, list, read, change; case-insensitive uniqueness), the cart's
// promotion code with every discount_invalid reason, totals with percent and fixed codes and tax, removal when the
// minimum is no longer met, a checkout session's discountCode redeemed with the order, events, tenancy and scopes.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

type Api = ReturnType<typeof client>;
let t: TestApp;
let api: Api;
let demo: BootstrapResult;
let other: BootstrapLike;
let clock: FixedClock;
const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };

beforeAll(async () => {
  clock = new FixedClock(new Date());
  t = (await startTestApp({ clock }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("discounts-other");
  await api("PUT", "shipping-tax/settings", { key: demo.apiKey, body: { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }], taxRates: { US: { rateBps: 1000 } } } });
});
afterAll(() => t?.close());

const key = () => demo.apiKey;
let n = 0;
const uniqueCode = (p = "SAVE") => `${p}${++n}${randomUUID().slice(0, 6)}`;

async function createDiscount(body: Record<string, unknown>) {
  const r = await api("POST", "discounts", { key: key(), body: { code: uniqueCode(), type: "percent", value: 10, ...body } });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; code: string };
}

/** A cart with Widget 2 x 1500 and Gadget 1 x 2500 (subtotal 5500). */
async function cart(extra: { lines?: [string, number, number][] } = {}) {
  const c = await api("POST", "carts", { key: key(), body: { customerEmail: "buyer@example.com" } });
  expect(c.status).toBe(201);
  for (const [name, unitPrice, quantity] of extra.lines ?? [["Widget", 1500, 2], ["Gadget", 2500, 1]]) {
    expect((await api("POST", `carts/${c.body.data.id}/items`, { key: key(), body: { name, unitPrice, quantity } })).status).toBe(201);
  }
  return c.body.data.id as string;
}

const apply = (cartId: string, code: string, k = key()) => api("POST", `carts/${cartId}/discount`, { key: k, body: { code } });

describe("discount CRUD", () => {
  test("create, read, list (cursor, filters), patch; codes are unique case-insensitively (409 discount_code_taken)", async () => {
    const code = uniqueCode("Summer");
    const created = await api("POST", "discounts", { key: key(), body: { code, type: "percent", value: 15, maxRedemptions: 5, minSubtotal: 1000 } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ code, type: "percent", value: 15, currency: null, maxRedemptions: 5, redemptionCount: 0, minSubtotal: 1000, active: true });
    const dup = await api("POST", "discounts", { key: key(), body: { code: code.toLowerCase(), type: "fixed", value: 100, currency: "USD" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: "discount_code_taken", details: { field: "code" } });
    // another tenant may use the same code
    expect((await api("POST", "discounts", { key: other.apiKey, body: { code, type: "percent", value: 5 } })).status).toBe(201);

    const id = created.body.data.id;
    expect((await api("GET", `discounts/${id}`, { key: key() })).body.data.code).toBe(code);
    const patched = await api("PATCH", `discounts/${id}`, { key: key(), body: { value: 20, maxRedemptions: null, active: false } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ value: 20, maxRedemptions: null, active: false });

    await createDiscount({});
    await createDiscount({});
    const page1 = await api("GET", "discounts?limit=2", { key: key() });
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.meta.pagination.hasMore).toBe(true);
    const page2 = await api("GET", `discounts?limit=2&cursor=${page1.body.meta.pagination.cursor}`, { key: key() });
    expect(page2.body.data.map((d: any) => d.id)).not.toContain(page1.body.data[0].id);
    const byCode = await api("GET", `discounts?code=${code.toUpperCase()}`, { key: key() });
    expect(byCode.body.data.map((d: any) => d.id)).toEqual([id]);
    const inactive = await api("GET", "discounts?active=false", { key: key() });
    expect(inactive.body.data.every((d: any) => d.active === false)).toBe(true);

    // renaming onto another code's key is the same 409
    const second = await createDiscount({});
    const clash = await api("PATCH", `discounts/${second.id}`, { key: key(), body: { code: code.toUpperCase() } });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("discount_code_taken");
  });

  test("validation: percent 1..100, fixed needs the application's currency, endsAt after startsAt, strict bodies; never 5xx", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "percent", value: 101 }, "value"],
      [{ type: "percent", value: 0 }, "value"],
      [{ type: "fixed", value: 500 }, "currency"],
      [{ type: "fixed", value: 500, currency: "EUR" }, "currency"],
      [{ type: "percent", value: 10, currency: "EUR" }, "currency"],
      [{ type: "percent", value: 10, startsAt: "2030-01-02T00:00:00Z", endsAt: "2030-01-01T00:00:00Z" }, "endsAt"],
      [{ type: "percent", value: 10, startsAt: "tomorrow" }, "startsAt"],
      [{ type: "bogus", value: 10 }, "type"],
      [{ type: "percent", value: 1.5 }, "value"],
      [{ type: "percent", value: 10, maxRedemptions: 0 }, "maxRedemptions"],
      [{ type: "percent", value: 10, minSubtotal: -1 }, "minSubtotal"],
      [{ type: "percent", value: 10, extra: true }, ""],
      [{ type: "percent", value: 10, code: "has space" }, "code"],
      [{ type: "percent", value: 10, code: "" }, "code"],
    ];
    for (const [body, field] of cases) {
      const r = await api("POST", "discounts", { key: key(), body: { code: uniqueCode(), ...body } });
      expect({ body, status: r.status, code: r.body.error?.code }).toEqual({ body, status: 422, code: "validation_error" });
      if (field) expect(r.body.error.details.issues.map((i: any) => i.path[0])).toContain(field);
    }
    const fixed = await api("POST", "discounts", { key: key(), body: { code: uniqueCode(), type: "fixed", value: 500, currency: "usd" } });
    expect(fixed.status).toBe(201);
    expect(fixed.body.data.currency).toBe("USD");
    // a patch that breaks a rule across fields
    const p = await api("PATCH", `discounts/${fixed.body.data.id}`, { key: key(), body: { currency: null } });
    expect(p.status).toBe(422);
    expect((await api("PATCH", `discounts/${fixed.body.data.id}`, { key: key(), body: { type: "percent", value: 150 } })).status).toBe(422);
    for (const bad of ["not-a-uuid", randomUUID()]) {
      expect((await api("GET", `discounts/${bad}`, { key: key() })).status).toBe(404);
      expect((await api("PATCH", `discounts/${bad}`, { key: key(), body: { value: 5 } })).status).toBe(404);
    }
    expect((await api("GET", "discounts?limit=0", { key: key() })).status).toBe(422);
    expect((await api("GET", "discounts?cursor=zzz", { key: key() })).status).toBe(422);
    expect((await api("POST", "discounts", { key: key(), raw: "{bad" })).status).toBe(400);
    expect((await api("POST", `carts/${randomUUID()}/discount`, { key: key(), body: { code: 5 } })).status).toBe(422);
  });
});

describe("the cart's promotion code", () => {
  test("percent: appliedDiscount, discountTotal and total; recomputed when lines change; tax on the discounted subtotal", async () => {
    const d = await createDiscount({ type: "percent", value: 10 });
    const cartId = await cart();
    const r = await apply(cartId, d.code.toLowerCase());
    expect(r.status).toBe(200);
    expect(r.body.data.appliedDiscount).toEqual({ code: d.code, type: "percent", value: 10, amount: 550 });
    expect(r.body.data).toMatchObject({ subtotal: 5500, discountTotal: 550, total: 4950 });
    // a new line: 10% follows
    await api("POST", `carts/${cartId}/items`, { key: key(), body: { name: "Extra", unitPrice: 1005 } });
    const after = (await api("GET", `carts/${cartId}`, { key: key() })).body.data;
    // 10% of 6505 = 650.5 -> 651 (half up)
    expect(after).toMatchObject({ subtotal: 6505, discountTotal: 651, total: 5854, appliedDiscount: { amount: 651 } });
    // tax: 10% of (6505 - 651 + 700) = 655.4 -> 655
    const calc = await api("POST", `shipping-tax/carts/${cartId}/calculate`, { key: key(), body: { shippingAddress: ADDRESS, selectedShippingMethodId: "std", persist: true } });
    expect(calc.status).toBe(200);
    expect(calc.body.data.totals).toEqual({ subtotal: 6505, discountTotal: 651, shippingTotal: 700, taxTotal: 655, total: 6505 - 651 + 700 + 655 });
    const read = (await api("GET", `carts/${cartId}`, { key: key() })).body.data;
    expect(read).toMatchObject({ discountTotal: 651, shippingTotal: 700, taxTotal: 655, total: 7209 });
  });

  test("fixed: takes its amount (never more than the goods), with the lines' own discounts; removal restores the totals", async () => {
    const d = await createDiscount({ type: "fixed", value: 1000, currency: "USD" });
    const cartId = await cart();
    const line = (await api("GET", `carts/${cartId}`, { key: key() })).body.data.lineItems[0];
    await api("PATCH", `carts/${cartId}/items/${line.id}`, { key: key(), body: { discountAmount: 500 } });
    const r = await apply(cartId, d.code);
    expect(r.body.data).toMatchObject({ subtotal: 5500, discountTotal: 1500, total: 4000, appliedDiscount: { type: "fixed", value: 1000, amount: 1000 } });
    const big = await createDiscount({ type: "fixed", value: 100_000, currency: "USD" });
    const capped = await apply(cartId, big.code);
    expect(capped.body.data).toMatchObject({ discountTotal: 5500, total: 0, appliedDiscount: { amount: 5000 } });
    const removed = await api("DELETE", `carts/${cartId}/discount`, { key: key() });
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ appliedDiscount: null, discountTotal: 500, total: 5000 });
    // removing none is a no-op
    expect((await api("DELETE", `carts/${cartId}/discount`, { key: key() })).status).toBe(200);
  });

  test("every discount_invalid reason, with details.reason", async () => {
    const now = clock.now().getTime();
    const cartId = await cart();
    const cases: [Record<string, unknown> | null, string][] = [
      [null, "unknown_code"],
      [{ active: false }, "inactive"],
      [{ startsAt: new Date(now + 3_600_000).toISOString() }, "not_started"],
      [{ endsAt: new Date(now - 1000).toISOString() }, "expired"],
      [{ minSubtotal: 5501 }, "below_minimum"],
    ];
    for (const [body, reason] of cases) {
      const code = body ? (await createDiscount(body)).code : "NO-SUCH-CODE";
      const r = await apply(cartId, code);
      expect({ reason, status: r.status, code: r.body.error?.code, got: r.body.error?.details?.reason }).toEqual({ reason, status: 422, code: "discount_invalid", got: reason });
    }
    // over limit: redeemed as often as allowed
    const limited = await createDiscount({ maxRedemptions: 1 });
    await t.deps.prisma.discount.update({ where: { id: limited.id }, data: { redemptionCount: 1 } });
    const over = await apply(cartId, limited.code);
    expect(over.body.error).toMatchObject({ code: "discount_invalid", details: { reason: "over_limit", maxRedemptions: 1 } });
    // another currency (a row from before an application currency change)
    const eur = await createDiscount({ type: "fixed", value: 100, currency: "USD" });
    await t.deps.prisma.discount.update({ where: { id: eur.id }, data: { currency: "EUR" } });
    const cur = await apply(cartId, eur.code);
    expect(cur.body.error).toMatchObject({ code: "discount_invalid", details: { reason: "currency_mismatch", currency: "EUR" } });
    // the cart is unchanged by the refusals
    expect((await api("GET", `carts/${cartId}`, { key: key() })).body.data).toMatchObject({ appliedDiscount: null, discountTotal: 0 });
    // once started it applies; once the clock passes endsAt it is refused
    const window = await createDiscount({ startsAt: new Date(now + 60_000).toISOString(), endsAt: new Date(now + 120_000).toISOString() });
    clock.advance(90_000);
    expect((await apply(cartId, window.code)).status).toBe(200);
    clock.advance(60_000);
    const late = await apply(cartId, window.code);
    expect(late.body.error.details.reason).toBe("expired");
  });

  test("a line change that takes the subtotal under minSubtotal removes the code (cart.discount_removed, reason below_minimum)", async () => {
    const d = await createDiscount({ minSubtotal: 5000 });
    const cartId = await cart();
    expect((await apply(cartId, d.code)).status).toBe(200);
    const lines = (await api("GET", `carts/${cartId}`, { key: key() })).body.data.lineItems;
    await api("PATCH", `carts/${cartId}/items/${lines[0].id}`, { key: key(), body: { quantity: 1 } }); // 4000
    const read = (await api("GET", `carts/${cartId}`, { key: key() })).body.data;
    expect(read).toMatchObject({ subtotal: 4000, appliedDiscount: null, discountTotal: 0, total: 4000 });
    const events = await t.deps.prisma.event.findMany({ where: { type: { in: ["cart.discount_applied", "cart.discount_removed", "discount.applied", "discount.removed"] }, data: { path: ["cartId"], equals: cartId } }, orderBy: { createdAt: "asc" } });
    expect(events.map((e) => e.type).sort()).toEqual(["cart.discount_applied", "cart.discount_removed", "discount.applied", "discount.removed"]);
    expect(events.find((e) => e.type === "cart.discount_removed")!.data).toMatchObject({ code: d.code, reason: "below_minimum" });
    expect(events.find((e) => e.type === "discount.applied")!.data).toMatchObject({ discountId: d.id, code: d.code, amount: 550 });
  });

  test("closed carts refuse it (409 cart_not_editable); another tenant's cart and discount are 404; scopes are 403", async () => {
    const d = await createDiscount({});
    const cartId = await cart();
    // another tenant: its key sees neither the cart nor the discount
    const foreign = await apply(cartId, d.code, other.apiKey);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "cart_not_found"]);
    expect((await api("DELETE", `carts/${cartId}/discount`, { key: other.apiKey })).status).toBe(404);
    expect((await api("GET", `discounts/${d.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await api("PATCH", `discounts/${d.id}`, { key: other.apiKey, body: { value: 1 } })).status).toBe(404);
    expect((await api("GET", "discounts", { key: other.apiKey })).body.data.map((x: any) => x.id)).not.toContain(d.id);
    // the other tenant's own cart cannot use this tenant's code
    const otherCart = await api("POST", "carts", { key: other.apiKey, body: { customerEmail: "x@example.com" } });
    await api("POST", `carts/${otherCart.body.data.id}/items`, { key: other.apiKey, body: { name: "A", unitPrice: 100 } });
    expect((await apply(otherCart.body.data.id, d.code, other.apiKey)).body.error.details.reason).toBe("unknown_code");

    const reader = (await mintKeyVia(api, demo, ["discounts:read", "carts:read"])).rawKey;
    const writerOnly = (await mintKeyVia(api, demo, ["discounts:write"])).rawKey;
    const none = (await mintKeyVia(api, demo, ["customers:read"])).rawKey;
    const pk = (await mintKeyVia(api, demo, ["publishable", "shipping_quotes:write"])).rawKey;
    expect((await api("GET", `discounts/${d.id}`, { key: reader })).status).toBe(200);
    expect((await api("GET", "discounts", { key: reader })).status).toBe(200);
    const forbidden = [
      api("POST", "discounts", { key: reader, body: { code: uniqueCode(), type: "percent", value: 5 } }),
      api("PATCH", `discounts/${d.id}`, { key: reader, body: { value: 5 } }),
      api("GET", "discounts", { key: writerOnly }),
      api("GET", `discounts/${d.id}`, { key: none }),
      apply(cartId, d.code, reader),
      api("DELETE", `carts/${cartId}/discount`, { key: reader }),
      apply(cartId, d.code, writerOnly),
    ];
    for (const r of await Promise.all(forbidden)) expect([r.status, r.body.error.code]).toEqual([403, "insufficient_scopes"]);
    // a publishable key is refused on every secret route
    for (const r of await Promise.all([api("GET", "discounts", { key: pk }), apply(cartId, d.code, pk), api("POST", "discounts", { key: pk, body: {} })])) {
      expect([r.status, r.body.error.code]).toEqual([403, "forbidden"]);
    }

    expect((await apply(cartId, d.code)).status).toBe(200);
    const s = await api("POST", "checkout/sessions", { key: key(), body: { cartId, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });
    expect(done.status).toBe(200);
    const closed = await apply(cartId, d.code);
    expect([closed.status, closed.body.error.code]).toEqual([409, "cart_not_editable"]);
    expect((await api("DELETE", `carts/${cartId}/discount`, { key: key() })).status).toBe(409);
  });
});

describe("checkout", () => {
  const sessionBody = (cartId: string, extra: Record<string, unknown> = {}) => ({ cartId, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", ...extra });
  const pay = (sessionId: string) => api("POST", `checkout-sessions/${sessionId}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: ADDRESS } });

  test("discountCode on a session: applied to the cart (synchronously validated), redeemed with the order; the order carries it", async () => {
    const d = await createDiscount({ type: "percent", value: 20, maxRedemptions: 2 });
    const cartId = await cart();
    const bad = await api("POST", "checkout/sessions", { key: key(), body: sessionBody(cartId, { discountCode: "NOPE" }) });
    expect([bad.status, bad.body.error.code, bad.body.error.details.reason]).toEqual([422, "discount_invalid", "unknown_code"]);
    const s = await api("POST", "checkout/sessions", { key: key(), body: sessionBody(cartId, { discountCode: d.code.toLowerCase() }) });
    expect(s.status).toBe(201);
    expect(s.body.data.discountCode).toBe(d.code);
    expect((await api("GET", `carts/${cartId}`, { key: key() })).body.data).toMatchObject({ appliedDiscount: { code: d.code, amount: 1100 }, total: 4400 });
    const done = await pay(s.body.data.id);
    expect(done.status).toBe(200);
    const order = (await api("GET", `orders/${done.body.data.orderId}`, { key: key() })).body.data;
    expect(order).toMatchObject({ subtotal: 5500, discountTotal: 1100, total: 4400, capturedAmount: 4400, discountCode: d.code });
    const row = await t.deps.prisma.order.findUniqueOrThrow({ where: { id: done.body.data.orderId } });
    expect(row.discountSnapshot).toEqual({ discountId: d.id, code: d.code, type: "percent", value: 20, amount: 1100 });
    expect((await api("GET", `discounts/${d.id}`, { key: key() })).body.data.redemptionCount).toBe(1);
    expect(await t.deps.prisma.discountRedemption.findMany({ where: { discountId: d.id } })).toEqual([expect.objectContaining({ orderId: order.id, amount: 1100 })]);
  });

  test("a code that ran out between session and completion: 422 discount_invalid over_limit before any charge; nothing is ordered", async () => {
    const d = await createDiscount({ maxRedemptions: 1 });
    const [c1, c2] = [await cart(), await cart()];
    const s1 = await api("POST", "checkout/sessions", { key: key(), body: sessionBody(c1, { discountCode: d.code }) });
    const s2 = await api("POST", "checkout/sessions", { key: key(), body: sessionBody(c2, { discountCode: d.code }) });
    expect((await pay(s1.body.data.id)).status).toBe(200);
    const late = await pay(s2.body.data.id);
    expect([late.status, late.body.error.code, late.body.error.details.reason]).toEqual([422, "discount_invalid", "over_limit"]);
    expect(await t.deps.prisma.order.count({ where: { cartId: c2 } })).toBe(0);
    expect(await t.deps.prisma.payment.count({ where: { checkoutSessionId: s2.body.data.id } })).toBe(0);
    // the session is still open and unclaimed: without the code it completes at full price
    expect((await api("DELETE", `carts/${c2}/discount`, { key: key() })).status).toBe(200);
    const ok = await pay(s2.body.data.id);
    expect(ok.status).toBe(200);
    expect((await api("GET", `orders/${ok.body.data.orderId}`, { key: key() })).body.data).toMatchObject({ total: 5500, discountTotal: 0, discountCode: null });
    // a code deactivated meanwhile: reason inactive
    const d2 = await createDiscount({});
    const c3 = await cart();
    const s3 = await api("POST", "checkout/sessions", { key: key(), body: sessionBody(c3, { discountCode: d2.code }) });
    await api("PATCH", `discounts/${d2.id}`, { key: key(), body: { active: false } });
    const off = await pay(s3.body.data.id);
    expect([off.status, off.body.error.details.reason]).toEqual([422, "inactive"]);
  });
});

test("the hosted checkout page names the code on its discount line", async () => {
  const code = uniqueCode("PAGE");
  await createDiscount({ code, active: true });
  const cartId = await cart();
  const s = await api("POST", "checkout/sessions", { key: key(), body: { cartId, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no", discountCode: code.toLowerCase() } });
  expect(s.status).toBe(201);
  const html = await (await fetch(`${t.url}/checkout/${s.body.data.id}`)).text();
  expect(html).toContain(`Discount: ${code}`);
});
