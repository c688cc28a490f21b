// Shipping and tax: the built-in provider's settings and POST /shipping-tax/carts/{cartId}/calculate
// (commerce.md part 4), with and without configuration, with and without persisting. Tests run in order:
// the first ones need the tenant unconfigured.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => void ({ t, api, demo, other } = await startWithTwoTenants("ship-other")));
afterAll(() => t?.close());

const key = () => demo.apiKey;
const US = { addressLine1: "1 Main St", city: "Austin", postalCode: "78701", countryCode: "US" };
const CA = { addressLine1: "1 Rue", city: "Montreal", countryCode: "ca" };
const DE = { addressLine1: "1 Strasse", city: "Berlin", countryCode: "DE" };

const SETTINGS = {
  flatRates: [
    { methodId: "standard", displayName: "Standard", rateAmount: 100, carrier: "USPS", estimatedDeliveryDays: 5 },
    { methodId: "express", displayName: "Express", rateAmount: 1500, carrier: "UPS", serviceCode: "2DAY", estimatedDeliveryDays: 2 },
  ],
  taxRates: { US: { rateBps: 825, name: "Sales tax" }, CA: { rateBps: 1300 } },
};

const mintKey = async (scopes: string[]) => (await mintKeyVia(api, demo, scopes)).rawKey;
async function cartWith(items: Record<string, unknown>[], patch?: Record<string, unknown>) {
  const c = (await api("POST", "carts", { key: key(), body: { applicationId: demo.applicationId } })).body.data;
  for (const it of items) expect((await api("POST", `carts/${c.id}/items`, { key: key(), body: { name: "W", ...it } })).status).toBe(201);
  if (patch) expect((await api("PATCH", `carts/${c.id}`, { key: key(), body: patch })).status).toBe(200);
  return c.id as string;
}
const calc = (cartId: string, body: unknown = {}, k = key()) => api("POST", `shipping-tax/carts/${cartId}/calculate`, { key: k, body });
const getCart = async (id: string) => (await api("GET", `carts/${id}`, { key: key() })).body.data;
function expectError(r: { status: number; body: any }, status: number, code: string, path?: (string | number)[]) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  if (path) expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
}
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("unconfigured tenant", () => {
  test("GET /shipping-tax/settings: empty tables, updatedAt null", async () => {
    const r = await api("GET", "shipping-tax/settings", { key: key() });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ flatRates: [], taxRates: {}, updatedAt: null });
  });

  test("calculate: no methods, zero shipping and tax; totals are the cart's", async () => {
    const id = await cartWith([{ unitPrice: 1000, quantity: 2, discountAmount: 100 }], { shippingAddress: US });
    const r = await calc(id);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      snapshotId: expect.stringMatching(UUID_RE),
      shipping: { methods: [], selectedMethod: null },
      tax: { lines: [] },
      totals: { subtotal: 2000, discountTotal: 100, shippingTotal: 0, taxTotal: 0, total: 1900 },
    });
  });
});

describe("settings", () => {
  test.each([
    ["taxRates missing", { flatRates: [] }, ["taxRates"]],
    ["lower-case country", { flatRates: [], taxRates: { us: { rateBps: 1 } } }, ["taxRates", "us"]],
    ["rate above 100%", { flatRates: [], taxRates: { US: { rateBps: 10_001 } } }, ["taxRates", "US", "rateBps"]],
    ["duplicate methodId", { flatRates: [SETTINGS.flatRates[0], SETTINGS.flatRates[0]], taxRates: {} }, ["flatRates", 1, "methodId"]],
    ["negative rate", { flatRates: [{ methodId: "m", displayName: "M", rateAmount: -1 }], taxRates: {} }, ["flatRates", 0, "rateAmount"]],
    ["unknown field", { ...SETTINGS, provider: "x" }, ["provider"]],
  ])("PUT 422 validation_error: %s", async (_n, body, path) => {
    expectError(await api("PUT", "shipping-tax/settings", { key: key(), body }), 422, "validation_error", path);
  });

  test("PUT replaces both tables; GET reads them back; another tenant does not see them", async () => {
    const put = await api("PUT", "shipping-tax/settings", { key: key(), body: { flatRates: [SETTINGS.flatRates[0]], taxRates: { DE: { rateBps: 1900 } } } });
    expect(put.status).toBe(200);
    const r = await api("PUT", "shipping-tax/settings", { key: key(), body: SETTINGS });
    expect(r.status).toBe(200);
    const expected = {
      flatRates: [
        { methodId: "standard", displayName: "Standard", rateAmount: 100, carrier: "USPS", serviceCode: null, estimatedDeliveryDays: 5 },
        { methodId: "express", displayName: "Express", rateAmount: 1500, carrier: "UPS", serviceCode: "2DAY", estimatedDeliveryDays: 2 },
      ],
      taxRates: { US: { rateBps: 825, name: "Sales tax" }, CA: { rateBps: 1300, name: null } },
    };
    expect(r.body.data).toMatchObject(expected);
    const got = await api("GET", "shipping-tax/settings", { key: key() });
    expect(got.body.data).toEqual({ ...expected, updatedAt: expect.any(String) });
    expect((await api("GET", "shipping-tax/settings", { key: other.apiKey })).body.data).toEqual({ flatRates: [], taxRates: {}, updatedAt: null });
  });

  test("scopes: shipping_tax:read reads, shipping_tax:write writes; carts scopes do neither", async () => {
    const reader = await mintKey(["shipping_tax:read"]);
    const carts = await mintKey(["carts:read", "carts:write"]);
    expect((await api("GET", "shipping-tax/settings", { key: reader })).status).toBe(200);
    expectError(await api("PUT", "shipping-tax/settings", { key: reader, body: SETTINGS }), 403, "insufficient_scopes");
    expectError(await api("GET", "shipping-tax/settings", { key: carts }), 403, "insufficient_scopes");
    expectError(await api("PUT", "shipping-tax/settings", { key: carts, body: SETTINGS }), 403, "insufficient_scopes");
  });
});

describe("calculate with the built-in provider", () => {
  beforeAll(async () => {
    expect((await api("PUT", "shipping-tax/settings", { key: key(), body: SETTINGS })).status).toBe(200);
  });

  test("methods are the flat rates; tax is the country rate, half up, on subtotal - discount + shipping; nothing persisted by default", async () => {
    const id = await cartWith([{ unitPrice: 150, quantity: 1, discountAmount: 50 }], { shippingAddress: US });
    const before = await getCart(id);
    const r = await calc(id, { selectedShippingMethodId: "standard" });
    expect(r.status).toBe(200);
    // taxable = 150 - 50 + 100 = 200; 200 x 8.25% = 16.5 -> 17
    expect(r.body.data).toEqual({
      snapshotId: expect.stringMatching(UUID_RE),
      shipping: {
        methods: [
          { methodId: "standard", displayName: "Standard", rateAmount: 100, currency: "USD", carrier: "USPS", serviceCode: null, estimatedDeliveryDays: 5 },
          { methodId: "express", displayName: "Express", rateAmount: 1500, currency: "USD", carrier: "UPS", serviceCode: "2DAY", estimatedDeliveryDays: 2 },
        ],
        selectedMethod: { methodId: "standard", displayName: "Standard", rateAmount: 100, currency: "USD", carrier: "USPS", serviceCode: null, estimatedDeliveryDays: 5 },
      },
      tax: { lines: [{ name: "Sales tax", amount: 17, rateBps: 825, jurisdiction: "US" }] },
      totals: { subtotal: 150, discountTotal: 50, shippingTotal: 100, taxTotal: 17, total: 217 },
    });
    expect(await getCart(id)).toEqual(before);
    const again = await calc(id, { selectedShippingMethodId: "standard" });
    expect(again.body.data.snapshotId).not.toBe(r.body.data.snapshotId);
  });

  test("half up rounds down below the half: 8.25% of 1000 + 1500 = 206.25 -> 206; line tax adds to the total", async () => {
    const id = await cartWith([{ unitPrice: 500, quantity: 2, taxAmount: 10 }], { shippingAddress: US });
    const r = await calc(id, { selectedShippingMethodId: "express" });
    expect(r.body.data.tax.lines).toEqual([{ name: "Sales tax", amount: 206, rateBps: 825, jurisdiction: "US" }]);
    expect(r.body.data.totals).toEqual({ subtotal: 1000, discountTotal: 0, shippingTotal: 1500, taxTotal: 216, total: 2716 });
  });

  test("persist: true writes selectedShipping and taxLines; the cart then reads the same totals; cart.tax_recomputed recorded", async () => {
    const id = await cartWith([{ unitPrice: 2000 }], { shippingAddress: US });
    const r = await calc(id, { selectedShippingMethodId: "express", persist: true });
    expect(r.status).toBe(200);
    const cart = await getCart(id);
    expect(cart.selectedShipping).toEqual(r.body.data.shipping.selectedMethod);
    expect(cart.taxLines).toEqual(r.body.data.tax.lines);
    expect({ subtotal: cart.subtotal, discountTotal: cart.discountTotal, shippingTotal: cart.shippingTotal, taxTotal: cart.taxTotal, total: cart.total }).toEqual(r.body.data.totals);
    expect(r.body.data.totals).toEqual({ subtotal: 2000, discountTotal: 0, shippingTotal: 1500, taxTotal: 289, total: 3789 });
    const events = (await t.deps.prisma.event.findMany({ where: { type: { startsWith: "cart." } }, orderBy: { createdAt: "asc" } })).filter((e) => (e.data as any).cartId === id);
    const recomputed = events.find((e) => e.type === "cart.tax_recomputed")!;
    expect(recomputed.data).toMatchObject({ source: "calculation", kind: "cart_estimate", snapshotId: r.body.data.snapshotId, taxTotal: 289 });
    expect(events.map((e) => e.type)).toContain("cart.shipping_selected");

    // The persisted selection is kept by the next calculation without an explicit method.
    const next = await calc(id);
    expect(next.body.data.shipping.selectedMethod.methodId).toBe("express");
  });

  test("kind checkout_final persists without the flag", async () => {
    const id = await cartWith([{ unitPrice: 1000 }], { shippingAddress: US });
    const r = await calc(id, { kind: "checkout_final", selectedShippingMethodId: "standard", taxDate: "2025-06-30" });
    expect(r.status).toBe(200);
    const cart = await getCart(id);
    expect(cart.selectedShipping.methodId).toBe("standard");
    expect(cart.taxLines).toEqual([{ name: "Sales tax", amount: 91, rateBps: 825, jurisdiction: "US" }]);
    expect(cart.total).toBe(r.body.data.totals.total);
  });

  test("inline addresses are persisted before the calculation, even without persist; the tax name defaults to Tax", async () => {
    const id = await cartWith([{ unitPrice: 1000 }]);
    const r = await calc(id, { shippingAddress: CA, billingAddress: US });
    expect(r.status).toBe(200);
    expect(r.body.data.tax.lines).toEqual([{ name: "Tax", amount: 130, rateBps: 1300, jurisdiction: "CA" }]);
    const cart = await getCart(id);
    expect(cart.shippingAddress).toMatchObject({ city: "Montreal", countryCode: "CA" });
    expect(cart.billingAddress).toMatchObject({ city: "Austin", countryCode: "US" });
    expect(cart.taxLines).toEqual([]);
    expect(cart.selectedShipping).toBeNull();
  });

  test("a country missing from the table, or no address at all: no tax", async () => {
    const de = await cartWith([{ unitPrice: 1000 }], { shippingAddress: DE });
    expect((await calc(de)).body.data.tax.lines).toEqual([]);
    const none = await cartWith([{ unitPrice: 1000 }]);
    const r = await calc(none, { selectedShippingMethodId: "standard" });
    expect(r.body.data.tax.lines).toEqual([]);
    expect(r.body.data.totals).toMatchObject({ shippingTotal: 100, taxTotal: 0, total: 1100 });
  });

  test("a cart with nothing to ship has no shipping methods", async () => {
    const id = await cartWith([{ unitPrice: 1000, type: "service" }], { shippingAddress: US });
    const r = await calc(id);
    expect(r.body.data.shipping).toEqual({ methods: [], selectedMethod: null });
    expect(r.body.data.tax.lines[0].amount).toBe(83);
    expectError(await calc(id, { selectedShippingMethodId: "standard" }), 422, "validation_error", ["selectedShippingMethodId"]);
  });

  test.each([
    ["an unknown field", { persist: true, currency: "USD" }, ["currency"]],
    ["an unknown kind", { kind: "final" }, ["kind"]],
    ["persist not boolean", { persist: "yes" }, ["persist"]],
    ["a malformed taxDate", { taxDate: "30/06/2025" }, ["taxDate"]],
    ["an impossible taxDate", { taxDate: "2025-02-30" }, ["taxDate"]],
    ["a non-canonical address", { shippingAddress: { ...US, zip: "1" } }, ["shippingAddress", "zip"]],
    ["an unknown shipping method", { selectedShippingMethodId: "teleport" }, ["selectedShippingMethodId"]],
  ])("422 validation_error for %s; nothing is written", async (_n, body, path) => {
    const id = await cartWith([{ unitPrice: 1000 }], { shippingAddress: US });
    const before = await getCart(id);
    expectError(await calc(id, body), 422, "validation_error", path);
    expect(await getCart(id)).toEqual(before);
  });

  test("unknown and other tenants' carts: 404 cart_not_found", async () => {
    const id = await cartWith([{ unitPrice: 1000 }]);
    expectError(await calc(randomUUID()), 404, "cart_not_found");
    expectError(await calc("nope"), 404, "cart_not_found");
    expectError(await calc(id, {}, other.apiKey), 404, "cart_not_found");
    expectError(await calc(id, { persist: true }, other.apiKey), 404, "cart_not_found");
  });

  test("a converted cart: an estimate still answers; persisting or inline addresses are 409 cart_not_editable", async () => {
    const id = await cartWith([{ unitPrice: 1000 }], { shippingAddress: US });
    await t.deps.prisma.cart.update({ where: { id }, data: { status: "converted" } });
    expect((await calc(id)).status).toBe(200);
    expectError(await calc(id, { persist: true }), 409, "cart_not_editable");
    expectError(await calc(id, { kind: "checkout_final" }), 409, "cart_not_editable");
    expectError(await calc(id, { shippingAddress: CA }), 409, "cart_not_editable");
    expect((await getCart(id)).shippingAddress.countryCode).toBe("US");
  });

  test("scopes: shipping_tax:write or carts:write suffices; read scopes alone are 403 insufficient_scopes", async () => {
    const id = await cartWith([{ unitPrice: 1000 }], { shippingAddress: US });
    for (const scopes of [["shipping_tax:write"], ["carts:write"]]) expect((await calc(id, {}, await mintKey(scopes))).status).toBe(200);
    const denied = await calc(id, {}, await mintKey(["carts:read", "shipping_tax:read"]));
    expectError(denied, 403, "insufficient_scopes");
    expect(denied.body.error.details.required).toEqual(["shipping_tax:write", "carts:write"]);
  });
});
