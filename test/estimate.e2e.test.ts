// The publishable-key estimate over REST: POST /shipping-tax/estimate with a pk_ key (header and/or quoteToken), the
// built-in provider's methods and tax on the discounted basket, estimated/final/failed with prompts, warnings and
// errors; 401 invalid_quote_token, 404 store_not_found, secret keys refused (403), a secret-only route refusing the pk
// key, scopes, bad input never 5xx.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;
let pk: string;

beforeAll(async () => {
  t = (await startTestApp())!;
  api = client(t.url);
  demo = await t.bootstrap();
  other = await t.otherWorkspace("estimate-other");
  await api("PUT", "shipping-tax/settings", {
    key: demo.apiKey,
    body: { flatRates: [{ methodId: "std", displayName: "Standard", rateAmount: 700 }, { methodId: "exp", displayName: "Express", rateAmount: 1500 }], taxRates: { US: { rateBps: 1000, name: "Sales tax" } } },
  });
  pk = (await mintKeyVia(api, demo, ["publishable", "shipping_quotes:write", "tax_calculations:write"])).rawKey;
});
afterAll(() => t?.close());

const body = (extra: Record<string, unknown> = {}) => ({
  applicationId: demo.applicationId,
  quoteToken: pk,
  currency: "USD",
  items: [{ id: "sku-1", subtotalAmount: 3000, quantity: 2 }, { id: "sku-2", subtotalAmount: 2500 }],
  ...extra,
});
const estimate = (b: unknown, key: string | undefined = pk) => api("POST", "shipping-tax/estimate", { ...(key ? { key } : {}), body: b });

test("final: methods, the selected rate, tax on (subtotal - discounts + shipping), totals", async () => {
  const r = await estimate(body({ discountsTotal: 500, selectedShippingMethodId: "std", addresses: { shipping: { countryCode: "us", postalCode: "12345" } } }));
  expect(r.status).toBe(200);
  // taxable 5500 - 500 + 700 = 5700 -> 570
  expect(r.body.data).toMatchObject({
    kind: "quote",
    status: "final",
    currency: "USD",
    tax: { taxTotal: 570, lines: [{ name: "Sales tax", amount: 570, jurisdiction: "US" }] },
    totals: { subtotal: 5500, discountTotal: 500, shippingTotal: 700, taxTotal: 570, total: 6270 },
    prompts: [],
    warnings: [],
    errors: [],
  });
  expect(r.body.data.shipping.methods.map((m: any) => m.methodId)).toEqual(["std", "exp"]);
  expect(r.body.data.shipping.selectedMethod.methodId).toBe("std");
  // the quoteToken alone authenticates (no header)
  const keyless = await estimate(body({ selectedShippingMethodId: "exp", addresses: { billing: { countryCode: "US" } } }), undefined);
  expect(keyless.status).toBe(200);
  expect(keyless.body.data.totals).toEqual({ subtotal: 5500, discountTotal: 0, shippingTotal: 1500, taxTotal: 700, total: 7700 });
});

test("estimated with prompts; warnings; failed with errors", async () => {
  const bare = await estimate(body());
  expect(bare.body.data.status).toBe("estimated");
  expect(bare.body.data.prompts.map((p: any) => p.code).sort()).toEqual(["address_required", "select_shipping_method"]);
  expect(bare.body.data.totals).toEqual({ subtotal: 5500, discountTotal: 0, shippingTotal: 0, taxTotal: 0, total: 5500 });
  // nothing ships: no shipping prompt; a country without a rate warns and is final
  const digital = await estimate(body({ items: [{ id: "e-book", subtotalAmount: 999, requiresShipping: false }], addresses: { billing: { countryCode: "FR" } } }));
  expect(digital.body.data).toMatchObject({ status: "final", shipping: { methods: [] }, prompts: [], warnings: [{ code: "no_tax_rate" }], totals: { total: 999 } });
  const over = await estimate(body({ discountsTotal: 99_999, selectedShippingMethodId: "std", addresses: { shipping: { countryCode: "US" } } }));
  expect(over.body.data).toMatchObject({ status: "final", warnings: [{ code: "discounts_exceed_subtotal" }], totals: { discountTotal: 5500, shippingTotal: 700, taxTotal: 70, total: 770 } });
  const badMethod = await estimate(body({ selectedShippingMethodId: "teleport" }));
  expect(badMethod.status).toBe(200);
  expect(badMethod.body.data).toMatchObject({ status: "failed", errors: [{ code: "shipping_method_unavailable", field: "selectedShippingMethodId" }] });
  const eur = await estimate(body({ currency: "EUR" }));
  expect(eur.body.data).toMatchObject({ status: "failed", errors: [{ code: "currency_mismatch", field: "currency" }] });
  // a key with one of the two scopes gets that part only
  const shipOnly = (await mintKeyVia(api, demo, ["publishable", "shipping_quotes:write"])).rawKey;
  const s = await estimate(body({ quoteToken: shipOnly, selectedShippingMethodId: "std", addresses: { shipping: { countryCode: "US" } } }), shipOnly);
  expect(s.body.data).toMatchObject({ status: "final", tax: { taxTotal: 0 }, warnings: [{ code: "tax_not_permitted" }], totals: { shippingTotal: 700, total: 6200 } });
});

test("401 invalid_quote_token, 404 store_not_found, 403 for secret keys; the pk key on secret routes is 403", async () => {
  const cases: [Record<string, unknown>, string | undefined][] = [
    [body({ quoteToken: "pk_sandbox_notAKey123" }), undefined],
    [body({ quoteToken: "garbage" }), undefined],
    [body({ quoteToken: demo.apiKey }), undefined], // a secret key is not a quote token
    [body({ quoteToken: (await mintKeyVia(api, demo, ["publishable", "tax_calculations:write"])).rawKey }), pk], // not the header's key
    [body(), "pk_sandbox_notAKey123"], // a bad header key on this route
  ];
  for (const [b, key] of cases) {
    const r = await estimate(b, key);
    expect({ q: b.quoteToken, status: r.status, code: r.body.error?.code }).toEqual({ q: b.quoteToken, status: 401, code: "invalid_quote_token" });
  }
  const revoked = await mintKeyVia(api, demo, ["publishable", "tax_calculations:write"]);
  await api("DELETE", `api-keys/${revoked.id}`, { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });
  expect((await estimate(body({ quoteToken: revoked.rawKey }), undefined)).body.error.code).toBe("invalid_quote_token");

  const otherApp = (await api("GET", "whoami", { key: other.apiKey })).body.data.application.id;
  for (const applicationId of [otherApp, randomUUID()]) {
    const r = await estimate(body({ applicationId }));
    expect([r.status, r.body.error.code]).toEqual([404, "store_not_found"]);
  }
  // another tenant's publishable key is its own store: not this one
  const otherPk = (await mintKeyVia(api, other as any, ["publishable", "shipping_quotes:write"])).rawKey;
  expect((await estimate(body({ quoteToken: otherPk }), otherPk)).body.error.code).toBe("store_not_found");

  const secret = await estimate(body(), demo.apiKey);
  expect([secret.status, secret.body.error.code]).toEqual([403, "forbidden"]);
  const dash = await api("POST", "shipping-tax/estimate", { token: demo.dashboardToken, body: body() });
  expect(dash.status).toBe(403);

  for (const [m, path, b] of [["POST", "carts", {}], ["GET", "shipping-tax/settings", undefined], ["POST", `shipping-tax/carts/${randomUUID()}/calculate`, {}], ["GET", "discounts", undefined]] as const) {
    const r = await api(m, path, { key: pk, body: b });
    expect({ path, status: r.status, code: r.body.error.code }).toEqual({ path, status: 403, code: "forbidden" });
  }
});

test("bad input is 422 validation_error naming the field, never 5xx", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [body({ items: [] }), "items"],
    [body({ items: [{ id: "x" }] }), "items"],
    [body({ items: [{ id: "x", subtotalAmount: -1 }] }), "items"],
    [body({ items: [{ id: "x", subtotalAmount: 1.5 }] }), "items"],
    [body({ items: [{ id: "x", subtotalAmount: 2_000_000_000 }, { id: "y", subtotalAmount: 2_000_000_000 }] }), "items"],
    [body({ applicationId: "nope" }), "applicationId"],
    [body({ currency: "dollars" }), "currency"],
    [body({ discountsTotal: -5 }), "discountsTotal"],
    [body({ addresses: { shipping: { city: "X" } } }), "addresses"],
    [body({ addresses: { shipping: { countryCode: "USA" } } }), "addresses"],
    [body({ extra: 1 }), ""],
    [{ ...body(), quoteToken: undefined }, "quoteToken"],
  ];
  for (const [b, field] of cases) {
    const r = await estimate(b);
    expect({ field, status: r.status, code: r.body.error?.code }).toEqual({ field, status: 422, code: "validation_error" });
    if (field) expect(r.body.error.details.issues.map((i: any) => i.path[0])).toContain(field);
  }
  expect((await api("POST", "shipping-tax/estimate", { key: pk, raw: "{nope" })).status).toBe(400);
  expect((await api("POST", "shipping-tax/estimate", { body: body({ quoteToken: 42 }) })).status).toBe(422);
});
