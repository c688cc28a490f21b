// Carts over REST (commerce.md part 4): every route, every cart error code, derived totals, line item
// inference and image URL resolution, metadata and line limits, tenancy, scopes and the events recorded.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => void ({ t, api, demo, other } = await startWithTwoTenants("carts-other")));
afterAll(() => t?.close());

const key = () => demo.apiKey;
const US = { addressLine1: "1 Main St", city: "Austin", stateProvince: "TX", postalCode: "78701", countryCode: "us" };

const mintKey = async (scopes: string[]) => (await mintKeyVia(api, demo, scopes)).rawKey;
async function newCart(body: Record<string, unknown> = {}) {
  const r = await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, ...body } });
  expect(r.status).toBe(201);
  return r.body.data;
}
async function addItem(cartId: string, body: Record<string, unknown> = {}) {
  const r = await api("POST", `carts/${cartId}/items`, { key: key(), body: { name: "Widget", unitPrice: 1000, ...body } });
  expect(r.status).toBe(201);
  return r.body.data;
}
function expectError(r: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  if (path) expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
}
async function eventsOf(cartId: string) {
  const rows = await t.deps.prisma.event.findMany({ where: { type: { startsWith: "cart." } }, orderBy: { createdAt: "asc" } });
  return rows.filter((e) => (e.data as any).cartId === cartId);
}
async function setSettings(settings: Record<string, unknown>) {
  await t.deps.prisma.application.update({ where: { id: demo.applicationId }, data: { settings: settings as object } });
}

describe("POST /carts and GET /carts/{id}", () => {
  test("201: open cart in the application's currency, zero totals, every field; GET returns the same snapshot", async () => {
    const c = await newCart({ customerEmail: "Buyer@Example.com", metadata: { source: "web", nested: { a: [1, null, "x"] } } });
    expect(c).toMatchObject({
      status: "open",
      currency: "USD",
      applicationId: demo.applicationId,
      customerId: null,
      customerEmail: "buyer@example.com",
      lineItems: [],
      subtotal: 0,
      discountTotal: 0,
      shippingTotal: 0,
      taxTotal: 0,
      total: 0,
      appliedDiscount: null,
      selectedShipping: null,
      taxLines: [],
      shippingAddress: null,
      billingAddress: null,
      notes: null,
      metadata: { source: "web", nested: { a: [1, null, "x"] } },
    });
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    const r = await api("GET", `carts/${c.id}`, { key: key() });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(c);
  });

  test("currency: same as the application's (any case) is accepted; another is 422 currency_mismatch; a malformed one 422 validation_error", async () => {
    expect((await newCart({ currency: "USD" })).currency).toBe("USD");
    expect((await newCart({ currency: "usd" })).currency).toBe("USD");
    const eur = await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, currency: "EUR" } });
    expectError(eur, 422, "currency_mismatch");
    expect(eur.body.error.details).toEqual({ currency: "EUR", applicationCurrency: "USD" });
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, currency: "US" } }), 422, "validation_error", ["currency"]);
  });

  test("applicationId: optional (the key's application); another application (or another workspace's) is 404 not_found", async () => {
    const res = await api("POST", "carts", { key: key(), body: {} });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ applicationId: demo.applicationId, status: "open" });
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: "nope" } }), 422, "validation_error", ["applicationId"]);
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: randomUUID() } }), 404, "not_found");
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: other.applicationId } }), 404, "not_found");
  });

  test("customerId must be a customer of the tenant; a linked customer's email wins over customerEmail", async () => {
    const cus = (await api("POST", "customers", { key: key(), body: { email: "linked@example.com" } })).body.data;
    const c = await newCart({ customerId: `cus_${cus.id}`, customerEmail: "typed@example.com" });
    expect(c).toMatchObject({ customerId: cus.id, customerEmail: "linked@example.com" });
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, customerId: randomUUID() } }), 404, "not_found");
    const foreign = (await api("POST", "customers", { key: other.apiKey, body: { email: "foreign@example.com" } })).body.data;
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, customerId: foreign.id } }), 404, "not_found");
    expectError(await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId, customerId: "nope" } }), 422, "validation_error", ["customerId"]);
  });

  test("unknown fields, bad email, metadata limits: 422 validation_error with the field path; exactly 50 keys is fine", async () => {
    const base = { applicationId: demo.applicationId };
    expectError(await api("POST", "carts", { key: key(), body: { ...base, notes: "x" } }), 422, "validation_error", ["notes"]);
    expectError(await api("POST", "carts", { key: key(), body: { ...base, customerEmail: "nope" } }), 422, "validation_error", ["customerEmail"]);
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expectError(await api("POST", "carts", { key: key(), body: { ...base, metadata: keys(51) } }), 422, "validation_error", ["metadata"]);
    expectError(await api("POST", "carts", { key: key(), body: { ...base, metadata: { blob: "x".repeat(10_240) } } }), 422, "validation_error", ["metadata"]);
    expect((await newCart({ metadata: keys(50) })).metadata).toEqual(keys(50));
    const nest = (n: number): unknown => (n === 0 ? 1 : { a: nest(n - 1) });
    expectError(await api("POST", "carts", { key: key(), body: { ...base, metadata: { deep: nest(40) } } }), 422, "validation_error", ["metadata"]);
    expect((await newCart({ metadata: { deep: nest(30) } })).metadata).toEqual({ deep: nest(30) });
  });

  test("unknown, malformed and other tenants' cart ids: 404 cart_not_found", async () => {
    const c = await newCart();
    expectError(await api("GET", `carts/${randomUUID()}`, { key: key() }), 404, "cart_not_found");
    expectError(await api("GET", "carts/not-a-uuid", { key: key() }), 404, "cart_not_found");
    expectError(await api("GET", `carts/${c.id}`, { key: other.apiKey }), 404, "cart_not_found");
  });
});

describe("PATCH /carts/{id}", () => {
  test("addresses are stored canonically; notes, metadata (replaced), customerEmail (null clears), customerId (null unlinks)", async () => {
    const c = await newCart({ customerEmail: "first@example.com", metadata: { a: 1, b: 2 } });
    const r = await api("PATCH", `carts/${c.id}`, { key: key(), body: { shippingAddress: US, billingAddress: { ...US, addressLine2: "Suite 5" }, notes: "gift", metadata: { c: 3 } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      shippingAddress: { addressLine1: "1 Main St", addressLine2: null, city: "Austin", stateProvince: "TX", postalCode: "78701", countryCode: "US" },
      billingAddress: { addressLine2: "Suite 5", countryCode: "US" },
      notes: "gift",
      metadata: { c: 3 },
      customerEmail: "first@example.com",
    });
    const cleared = await api("PATCH", `carts/${c.id}`, { key: key(), body: { customerEmail: null, billingAddress: null, notes: null } });
    expect(cleared.body.data).toMatchObject({ customerEmail: null, billingAddress: null, notes: null, shippingAddress: { city: "Austin" } });

    const cus = (await api("POST", "customers", { key: key(), body: { email: "owner@example.com" } })).body.data;
    const linked = await api("PATCH", `carts/${c.id}`, { key: key(), body: { customerId: cus.id, customerEmail: "other@example.com" } });
    expect(linked.body.data).toMatchObject({ customerId: cus.id, customerEmail: "owner@example.com" });
    const unlinked = await api("PATCH", `carts/${c.id}`, { key: key(), body: { customerId: null } });
    expect(unlinked.body.data).toMatchObject({ customerId: null, customerEmail: "other@example.com" });
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data).toEqual(unlinked.body.data);
  });

  test.each([
    ["a non-canonical address key", { shippingAddress: { ...US, line1: "x" } }, ["shippingAddress", "line1"]],
    ["an address without city", { billingAddress: { addressLine1: "1 Main", countryCode: "US" } }, ["billingAddress", "city"]],
    ["a bad country code", { shippingAddress: { ...US, countryCode: "USA" } }, ["shippingAddress", "countryCode"]],
    ["an unknown field", { currency: "USD" }, ["currency"]],
    ["metadata over 50 keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, ["metadata"]],
    ["metadata over 10 KB", { metadata: { x: "y".repeat(10_300) } }, ["metadata"]],
  ])("422 validation_error for %s", async (_n, body, path) => {
    const c = await newCart();
    expectError(await api("PATCH", `carts/${c.id}`, { key: key(), body }), 422, "validation_error", path);
  });

  test("customerId of another tenant: 404 not_found", async () => {
    const c = await newCart();
    const foreign = (await api("POST", "customers", { key: other.apiKey, body: { email: "f2@example.com" } })).body.data;
    expectError(await api("PATCH", `carts/${c.id}`, { key: key(), body: { customerId: foreign.id } }), 404, "not_found");
  });
});

describe("line items", () => {
  test("POST 201: the line item fields and total; defaults type product, quantity 1, zero tax and discount", async () => {
    const c = await newCart();
    const item = await addItem(c.id, { referenceId: "sku-1", description: "Blue", unitPrice: 1999, metadata: { color: "blue" } });
    expect(Object.keys(item).sort()).toEqual(
      ["description", "discountAmount", "id", "imageUrl", "metadata", "name", "quantity", "referenceId", "requiresShipping", "taxAmount", "total", "type", "unitPrice"].sort(),
    );
    expect(item).toMatchObject({ type: "product", referenceId: "sku-1", name: "Widget", description: "Blue", unitPrice: 1999, quantity: 1, taxAmount: 0, discountAmount: 0, imageUrl: null, requiresShipping: true, metadata: { color: "blue" }, total: 1999 });
    const cart = (await api("GET", `carts/${c.id}`, { key: key() })).body.data;
    expect(cart.lineItems).toEqual([item]);
  });

  test("requiresShipping is inferred from type when omitted: every type but service ships; an explicit value wins", async () => {
    const c = await newCart();
    for (const type of ["product", "subscription", "ticket", "donation", "custom"]) expect((await addItem(c.id, { type })).requiresShipping).toBe(true);
    expect((await addItem(c.id, { type: "service" })).requiresShipping).toBe(false);
    expect((await addItem(c.id, { type: "service", requiresShipping: true })).requiresShipping).toBe(true);
    expect((await addItem(c.id, { type: "product", requiresShipping: false })).requiresShipping).toBe(false);
  });

  test.each([
    ["name missing", { name: undefined }, ["name"]],
    ["unitPrice missing", { unitPrice: undefined }, ["unitPrice"]],
    ["quantity 0", { quantity: 0 }, ["quantity"]],
    ["negative unitPrice", { unitPrice: -1 }, ["unitPrice"]],
    ["fractional unitPrice", { unitPrice: 10.5 }, ["unitPrice"]],
    ["unknown type", { type: "gift" }, ["type"]],
    ["unknown field", { sku: "x" }, ["sku"]],
    ["discount above the line", { unitPrice: 100, quantity: 2, discountAmount: 201 }, ["discountAmount"]],
    ["metadata over 50 keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, ["metadata"]],
    ["non-http imageUrl", { imageUrl: "javascript:alert(1)" }, ["imageUrl"]],
  ])("POST 422 validation_error: %s", async (_n, patch, path) => {
    const c = await newCart();
    const r = await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", unitPrice: 100, ...patch } });
    expectError(r, 422, "validation_error", path);
  });

  describe("imageUrl", () => {
    afterEach(() => setSettings({}));

    test("absolute http(s) URLs are kept as sent", async () => {
      const c = await newCart();
      expect((await addItem(c.id, { imageUrl: "https://cdn.example.com/a.png?v=1" })).imageUrl).toBe("https://cdn.example.com/a.png?v=1");
      expect((await addItem(c.id, { imageUrl: "http://cdn.example.com/b.png" })).imageUrl).toBe("http://cdn.example.com/b.png");
    });

    test("a relative path without storefrontBaseUrl or allowedOrigins: 400 image_url_unresolvable, nothing stored", async () => {
      const c = await newCart();
      await setSettings({ allowedOrigins: [] });
      const r = await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", unitPrice: 1, imageUrl: "/img/a.png" } });
      expectError(r, 400, "image_url_unresolvable");
      expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems).toEqual([]);
      // the cart's own 404 and 409 come first, and a refused add leaves the cart as it was
      const before = await t.deps.prisma.cart.findUniqueOrThrow({ where: { id: c.id } });
      const body = { name: "W", unitPrice: 1, imageUrl: "/img/a.png" };
      expectError(await api("POST", `carts/${randomUUID()}/items`, { key: key(), body }), 404, "cart_not_found");
      expectError(await api("POST", `carts/${c.id}/items`, { key: key(), body }), 400, "image_url_unresolvable");
      expect((await t.deps.prisma.cart.findUniqueOrThrow({ where: { id: c.id } })).updatedAt).toEqual(before.updatedAt);
      await t.deps.prisma.cart.update({ where: { id: c.id }, data: { status: "converted" } });
      expectError(await api("POST", `carts/${c.id}/items`, { key: key(), body }), 409, "cart_not_editable");
    });

    test("a relative path resolves against storefrontBaseUrl, else the first allowed origin", async () => {
      const c = await newCart();
      await setSettings({ storefrontBaseUrl: "https://shop.example.com/store", allowedOrigins: ["https://origin.example.com"] });
      expect((await addItem(c.id, { imageUrl: "img/a.png" })).imageUrl).toBe("https://shop.example.com/store/img/a.png");
      expect((await addItem(c.id, { imageUrl: "/img/b.png" })).imageUrl).toBe("https://shop.example.com/img/b.png");
      await setSettings({ allowedOrigins: ["https://first.example.com", "https://second.example.com"] });
      expect((await addItem(c.id, { imageUrl: "/img/c.png" })).imageUrl).toBe("https://first.example.com/img/c.png");
    });
  });

  test("PATCH: quantity, amounts, metadata replaced; 200 line item; validation with field paths", async () => {
    const c = await newCart();
    const item = await addItem(c.id, { unitPrice: 500, quantity: 2, metadata: { a: 1 } });
    const r = await api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { quantity: 3, unitPrice: 400, taxAmount: 50, discountAmount: 100, metadata: { b: 2 } } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: item.id, quantity: 3, unitPrice: 400, taxAmount: 50, discountAmount: 100, metadata: { b: 2 }, total: 1150, name: "Widget" });
    expectError(await api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { quantity: 0 } }), 422, "validation_error", ["quantity"]);
    expectError(await api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { name: "renamed" } }), 422, "validation_error", ["name"]);
    expectError(await api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { discountAmount: 1201 } }), 422, "validation_error", ["discountAmount"]);
    const after = (await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems[0];
    expect(after).toMatchObject({ quantity: 3, unitPrice: 400 });
  });

  test("DELETE 204; the line is gone; unknown item ids and items of another cart: 404 not_found", async () => {
    const c = await newCart();
    const c2 = await newCart();
    const keep = await addItem(c.id, { name: "Keep" });
    const drop = await addItem(c.id, { name: "Drop" });
    const elsewhere = await addItem(c2.id);
    const del = await api("DELETE", `carts/${c.id}/items/${drop.id}`, { key: key() });
    expect(del.status).toBe(204);
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems.map((l: any) => l.id)).toEqual([keep.id]);
    expectError(await api("DELETE", `carts/${c.id}/items/${drop.id}`, { key: key() }), 404, "not_found");
    expectError(await api("PATCH", `carts/${c.id}/items/${randomUUID()}`, { key: key(), body: { quantity: 2 } }), 404, "not_found");
    expectError(await api("PATCH", `carts/${c.id}/items/not-a-uuid`, { key: key(), body: { quantity: 2 } }), 404, "not_found");
    expectError(await api("PATCH", `carts/${c.id}/items/${elsewhere.id}`, { key: key(), body: { quantity: 2 } }), 404, "not_found");
    expectError(await api("DELETE", `carts/${c.id}/items/${elsewhere.id}`, { key: key() }), 404, "not_found");
    expectError(await api("POST", `carts/${randomUUID()}/items`, { key: key(), body: { name: "W", unitPrice: 1 } }), 404, "cart_not_found");
  });

  test("money stays within 32-bit integers: amounts, a line, and every cart total refuse to pass 2,147,483,647", async () => {
    const MAX = 2_147_483_647;
    const c = await newCart();
    expectError(await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", unitPrice: MAX + 1 } }), 422, "validation_error", ["unitPrice"]);
    expectError(await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", unitPrice: 2_000_000_000, quantity: 2 } }), 422, "validation_error", ["quantity"]);
    const big = await addItem(c.id, { unitPrice: 2_000_000_000, quantity: 1 });
    // a second line, more tax lines, a dearer shipping rate or a larger quantity would push the cart over
    expectError(await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W2", unitPrice: 200_000_000 } }), 422, "validation_error", ["subtotal"]);
    expectError(await api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body: { lines: [{ name: "T", amount: 100_000_000 }, { name: "T2", amount: 100_000_000 }] } }), 422, "validation_error", ["total"]);
    expectError(await api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "m", displayName: "M", rateAmount: 147_483_648 } }), 422, "validation_error", ["total"]);
    expectError(await api("PATCH", `carts/${c.id}/items/${big.id}`, { key: key(), body: { taxAmount: 147_483_648 } }), 422, "validation_error", ["total"]);
    // nothing of those was kept; exactly at the ceiling is fine
    const shipped = await api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "m", displayName: "M", rateAmount: MAX - 2_000_000_000 } });
    expect(shipped.status).toBe(200);
    const cart = (await api("GET", `carts/${c.id}`, { key: key() })).body.data;
    expect(cart).toMatchObject({ subtotal: 2_000_000_000, taxTotal: 0, total: MAX });
    expect(cart.lineItems).toHaveLength(1);
  });

  test("at most 250 line items: the 251st is 422", async () => {
    const c = await newCart();
    await t.deps.prisma.cartLineItem.createMany({ data: Array.from({ length: 249 }, (_, i) => ({ cartId: c.id, name: `L${i}`, unitPrice: 1, requiresShipping: true })) });
    await addItem(c.id);
    const r = await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "one too many", unitPrice: 1 } });
    expectError(r, 422, "validation_error", ["lineItems"]);
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems).toHaveLength(250);
  });

  // The add is one statement without a transaction: its lock, then a fresh read of the lines (cart_line_sums), must
  // count a line that a concurrent add committed while it waited, or the cap and the ceiling would be passed.
  test("concurrent adds: the cap and the totals' ceiling hold, and each added line has its one event", async () => {
    const itemEvents = async (cartId: string) =>
      (await t.deps.prisma.event.findMany({ where: { type: "cart.item_added" } })).filter((e) => (e.data as { cartId?: string }).cartId === cartId);
    const c = await newCart();
    await t.deps.prisma.cartLineItem.createMany({ data: Array.from({ length: 247 }, (_, i) => ({ cartId: c.id, name: `L${i}`, unitPrice: 1, requiresShipping: true })) });
    const adds = await Promise.all(Array.from({ length: 8 }, (_, i) => api("POST", `carts/${c.id}/items`, { key: key(), body: { name: `race ${i}`, unitPrice: 1 } })));
    expect(adds.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of adds.filter((r) => r.status !== 201)) expectError(r, 422, "validation_error", ["lineItems"]);
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems).toHaveLength(250);
    expect((await itemEvents(c.id)).map((e) => (e.data as { lineItemId: string }).lineItemId).sort()).toEqual(adds.filter((r) => r.status === 201).map((r) => r.body.data.id).sort());

    const d = await newCart();
    await addItem(d.id, { unitPrice: 2_000_000_000 });
    const big = await Promise.all(Array.from({ length: 4 }, () => api("POST", `carts/${d.id}/items`, { key: key(), body: { name: "W", unitPrice: 100_000_000 } })));
    expect(big.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of big.filter((r) => r.status !== 201)) expectError(r, 422, "validation_error", ["subtotal"]);
    expect((await api("GET", `carts/${d.id}`, { key: key() })).body.data).toMatchObject({ subtotal: 2_100_000_000 });
    expect(await itemEvents(d.id)).toHaveLength(2);
  });
});

describe("shipping selection, tax lines and totals", () => {
  test("totals are derived: subtotal, line discounts, line tax plus tax lines, selected shipping", async () => {
    const c = await newCart();
    const a = await addItem(c.id, { unitPrice: 1999, quantity: 3, taxAmount: 100, discountAmount: 500 });
    const b = await addItem(c.id, { unitPrice: 250, quantity: 2 });
    expect([a.total, b.total]).toEqual([5597, 500]);
    const ship = await api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "std", displayName: "Standard", rateAmount: 799, carrier: "UPS", estimatedDeliveryDays: 3 } });
    expect(ship.status).toBe(200);
    expect(ship.body.data.selectedShipping).toEqual({ methodId: "std", displayName: "Standard", rateAmount: 799, currency: "USD", carrier: "UPS", serviceCode: null, estimatedDeliveryDays: 3 });
    const tax = await api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body: { lines: [{ name: "State", amount: 300, rateBps: 625, jurisdiction: "US-TX" }, { name: "City", amount: 25 }] } });
    expect(tax.status).toBe(200);
    expect(tax.body.data.taxLines).toEqual([
      { name: "State", amount: 300, rateBps: 625, jurisdiction: "US-TX" },
      { name: "City", amount: 25, rateBps: null, jurisdiction: null },
    ]);
    const totals = { subtotal: 6497, discountTotal: 500, shippingTotal: 799, taxTotal: 425, total: 6497 - 500 + 799 + 425 };
    expect(tax.body.data).toMatchObject(totals);
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data).toMatchObject(totals);

    await api("PATCH", `carts/${c.id}/items/${b.id}`, { key: key(), body: { quantity: 4 } });
    expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data).toMatchObject({ subtotal: 6997, total: 6997 - 500 + 799 + 425 });

    const cleared = await api("DELETE", `carts/${c.id}/shipping`, { key: key() });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ selectedShipping: null, shippingTotal: 0, total: 6997 - 500 + 425 });
    const noLines = await api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body: { lines: [] } });
    expect(noLines.body.data).toMatchObject({ taxLines: [], taxTotal: 100, total: 6997 - 500 + 100 });
  });

  test.each([
    ["rateAmount missing", { methodId: "m", displayName: "M" }, ["rateAmount"]],
    ["methodId missing", { displayName: "M", rateAmount: 1 }, ["methodId"]],
    ["negative rate", { methodId: "m", displayName: "M", rateAmount: -5 }, ["rateAmount"]],
    ["unknown field", { methodId: "m", displayName: "M", rateAmount: 5, price: 5 }, ["price"]],
  ])("POST /shipping 422 validation_error: %s", async (_n, body, path) => {
    const c = await newCart();
    expectError(await api("POST", `carts/${c.id}/shipping`, { key: key(), body }), 422, "validation_error", path);
  });

  test("POST /shipping in another currency: 422 currency_mismatch", async () => {
    const c = await newCart();
    const r = await api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "m", displayName: "M", rateAmount: 5, currency: "EUR" } });
    expectError(r, 422, "currency_mismatch");
    // The rate's currency against the cart's: not the cart-creation wording about the application's currency.
    expect(r.body.error.message).toBe("Shipping rate currency EUR differs from the cart's currency USD");
    expect(r.body.error.details).toEqual({ currency: "EUR", cartCurrency: "USD", field: "currency" });
  });

  test.each([
    ["lines missing", {}, ["lines"]],
    ["amount negative", { lines: [{ name: "T", amount: -1 }] }, ["lines", 0, "amount"]],
    ["name missing", { lines: [{ amount: 1 }] }, ["lines", 0, "name"]],
    ["unknown line field", { lines: [{ name: "T", amount: 1, rate: 5 }] }, ["lines", 0, "rate"]],
  ])("PUT /tax-lines 422 validation_error: %s", async (_n, body, path) => {
    const c = await newCart();
    expectError(await api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body }), 422, "validation_error", path);
  });
});

describe("only open carts change", () => {
  test.each(["converted", "checkout", "abandoned"])("a %s cart: every mutation is 409 cart_not_editable and nothing changes; reads still work", async (status) => {
    const c = await newCart();
    const item = await addItem(c.id);
    await t.deps.prisma.cart.update({ where: { id: c.id }, data: { status } });
    const before = (await api("GET", `carts/${c.id}`, { key: key() })).body.data;
    const calls = [
      api("PATCH", `carts/${c.id}`, { key: key(), body: { notes: "x" } }),
      api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", unitPrice: 1 } }),
      api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { quantity: 5 } }),
      api("DELETE", `carts/${c.id}/items/${item.id}`, { key: key() }),
      api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "m", displayName: "M", rateAmount: 5 } }),
      api("DELETE", `carts/${c.id}/shipping`, { key: key() }),
      api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body: { lines: [] } }),
    ];
    for (const r of await Promise.all(calls)) {
      expectError(r, 409, "cart_not_editable");
      expect(r.body.error.details).toEqual({ status });
    }
    const after = await api("GET", `carts/${c.id}`, { key: key() });
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before);
  });
});

/** Every write route on one cart and one of its items, called with key `k`. */
const cartWrites = (k: string, cartId: string, itemId: string) => [
  api("PATCH", `carts/${cartId}`, { key: k, body: { notes: "x" } }),
  api("POST", `carts/${cartId}/items`, { key: k, body: { name: "W", unitPrice: 1 } }),
  api("PATCH", `carts/${cartId}/items/${itemId}`, { key: k, body: { quantity: 5 } }),
  api("DELETE", `carts/${cartId}/items/${itemId}`, { key: k }),
  api("POST", `carts/${cartId}/shipping`, { key: k, body: { methodId: "m", displayName: "M", rateAmount: 5 } }),
  api("DELETE", `carts/${cartId}/shipping`, { key: k }),
  api("PUT", `carts/${cartId}/tax-lines`, { key: k, body: { lines: [] } }),
];

test("another tenant's key: 404 cart_not_found on every cart and item route, and nothing changes", async () => {
  const c = await newCart({ metadata: { mine: true } });
  const item = await addItem(c.id);
  const before = (await api("GET", `carts/${c.id}`, { key: key() })).body.data;
  const k = other.apiKey;
  const calls = [api("GET", `carts/${c.id}`, { key: k }), ...cartWrites(k, c.id, item.id)];
  for (const r of await Promise.all(calls)) expectError(r, 404, "cart_not_found");
  expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data).toEqual(before);
});

test("scopes: carts:read reads only; a key without carts scopes gets 403 insufficient_scopes everywhere", async () => {
  const c = await newCart();
  const item = await addItem(c.id);
  const reader = await mintKey(["carts:read"]);
  const none = await mintKey(["customers:read"]);
  expect((await api("GET", `carts/${c.id}`, { key: reader })).status).toBe(200);
  const writes = (k: string) => [api("POST", "carts", { key: k, body: { applicationId: demo.applicationId } }), ...cartWrites(k, c.id, item.id)];
  for (const r of await Promise.all([...writes(reader), ...writes(none), api("GET", `carts/${c.id}`, { key: none })])) {
    expectError(r, 403, "insufficient_scopes");
  }
  expect((await api("GET", `carts/${c.id}`, { key: key() })).body.data.lineItems).toHaveLength(1);
});

test("events: each change records its cart.* event in order, in the tenant, with the cart id", async () => {
  const c = await newCart();
  const item = await addItem(c.id, { referenceId: "sku-9" });
  await api("PATCH", `carts/${c.id}/items/${item.id}`, { key: key(), body: { quantity: 2 } });
  await api("PATCH", `carts/${c.id}`, { key: key(), body: { notes: "n", shippingAddress: US } });
  await api("POST", `carts/${c.id}/shipping`, { key: key(), body: { methodId: "m", displayName: "M", rateAmount: 5 } });
  await api("DELETE", `carts/${c.id}/shipping`, { key: key() });
  await api("PUT", `carts/${c.id}/tax-lines`, { key: key(), body: { lines: [{ name: "T", amount: 7 }] } });
  await api("DELETE", `carts/${c.id}/items/${item.id}`, { key: key() });
  // No-ops and refused changes record nothing.
  await api("DELETE", `carts/${c.id}/shipping`, { key: key() });
  await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "bad", unitPrice: -1 } });

  const events = await eventsOf(c.id);
  expect(events.map((e) => e.type)).toEqual([
    "cart.created",
    "cart.item_added",
    "cart.item_updated",
    "cart.updated",
    "cart.shipping_selected",
    "cart.shipping_cleared",
    "cart.tax_recomputed",
    "cart.item_removed",
  ]);
  for (const e of events) expect(e).toMatchObject({ applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, workspaceId: demo.workspaceId });
  const by = (type: string) => events.find((e) => e.type === type)!.data as any;
  expect(by("cart.item_added")).toMatchObject({ lineItemId: item.id, referenceId: "sku-9" });
  expect(by("cart.item_updated")).toMatchObject({ lineItemId: item.id, changed: ["quantity"], quantity: 2 });
  expect(by("cart.updated").changed.sort()).toEqual(["notes", "shippingAddress"]);
  expect(by("cart.tax_recomputed")).toMatchObject({ source: "manual", taxTotal: 7 });
  // Readable through the events API with the carts:read scope.
  const listed = await api("GET", "events?type=cart.item_removed", { key: key() });
  expect(listed.body.data.map((e: any) => e.data.cartId)).toContain(c.id);
});
