// Another tenant's ids on every operation, generated from the OpenAPI document and schema.graphql, so a new route or
// field is covered when it is added. Tenant A (the demo) holds an order with its payment and customer, an open cart, a
// checkout session, a quote, a discount, a webhook endpoint, a connector and a spare key; tenant B (another workspace)
// sends every /api/v1 operation whose path names one of them, and every GraphQL field whose only required arguments
// are IDs, with A's ids and its own key or dashboard session. Every answer must be a 4xx (404 mostly; 403 or 422 where
// the route refuses B's credential or body first), never data, and A's rows must be as they were. The resources' own
// files check the exact codes; this table makes sure no route or field was left without the tenant check.
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildSchema, getNamedType, isEnumType, isNonNullType, isObjectType, isScalarType, type GraphQLType } from "graphql";
import { openApiDocument } from "../src/openapi/document";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let demo: BootstrapResult;
let other: BootstrapLike;
/** tenant A's id per first path segment */
let idBySeg: Record<string, string> = {};
let snapshot: unknown;

/**
 * Keyless by the spec: the session id is the buyer's browser capability, whatever credential comes with it
 * (commerce.md: GET /checkout-sessions/{id}/payment-methods and GET /checkout-sessions/{id}/embed-token, auth none).
 */
const KEYLESS_FIELDS = new Set(["checkoutSessionPaymentMethods", "checkoutSessionEmbedToken"]);

/** Tenant A's rows that a foreign request could have changed. */
async function rowsOfA() {
  const p = t.deps.prisma;
  const w = { applicationId: demo.applicationId };
  return Promise.all([
    p.order.findMany({ where: w, orderBy: { id: "asc" } }),
    p.payment.findMany({ where: w, orderBy: { id: "asc" } }),
    p.cart.findMany({ where: w, orderBy: { id: "asc" } }),
    p.quote.findMany({ where: w, orderBy: { id: "asc" } }),
    p.discount.findMany({ where: w, orderBy: { id: "asc" } }),
    p.customer.findMany({ where: w, orderBy: { id: "asc" } }),
    p.webhookEndpoint.findMany({ where: w, orderBy: { id: "asc" } }),
    p.apiKey.findMany({ where: { workspaceId: demo.workspaceId }, orderBy: { id: "asc" } }),
    p.checkoutSession.findMany({ where: w, orderBy: { id: "asc" } }),
  ]);
}

beforeAll(async () => {
  const s = await startWithTwoTenants("cross-tenant-other");
  ({ t, demo, other } = s);
  const api = s.api;
  const k = { key: demo.apiKey };
  const c = await api("POST", "carts", { ...k, body: { customerEmail: "a@example.com" } });
  await api("POST", `carts/${c.body.data.id}/items`, { ...k, body: { name: "W", unitPrice: 1000, quantity: 3 } });
  const session = await api("POST", "checkout/sessions", { ...k, body: { cartId: c.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
  const done = await api("POST", `checkout-sessions/${session.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" } } });
  expect(done.status).toBe(200);
  const open = await api("POST", "carts", { ...k, body: { customerEmail: "open@example.com" } });
  expect((await api("POST", `carts/${open.body.data.id}/items`, { ...k, body: { name: "G", unitPrice: 700 } })).status).toBe(201);
  const openSession = await api("POST", "checkout/sessions", { ...k, body: { cartId: open.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
  const quote = await api("POST", "quotes", { ...k, body: { customerEmail: "quote@example.com", items: [{ name: "x", unitPrice: 500, quantity: 2 }] } });
  const discount = await api("POST", "discounts", { ...k, body: { code: "TENANTA", type: "percent", value: 10 } });
  const endpoint = await api("POST", "webhook-endpoints", { ...k, body: { url: "https://hooks.example.com/x", enabledEvents: ["order.created"] } });
  for (const r of [open, openSession, quote, discount, endpoint]) expect({ status: r.status, body: r.status === 201 ? null : r.body }).toEqual({ status: 201, body: null });
  const spare = await mintKeyVia(client(t.url), demo, ["*"], demo.environments.sandbox.id, "spare");
  const connector = await t.deps.prisma.connector.findFirstOrThrow({ where: { applicationId: demo.applicationId }, select: { id: true } });
  idBySeg = {
    workspaces: demo.workspaceId,
    applications: demo.applicationId,
    "api-keys": spare.id,
    connectors: connector.id,
    "webhook-endpoints": endpoint.body.data.id,
    customers: done.body.data.customerId ?? (await t.deps.prisma.customer.findFirstOrThrow({ where: { applicationId: demo.applicationId } })).id,
    carts: open.body.data.id,
    discounts: discount.body.data.id,
    orders: done.body.data.orderId,
    payments: done.body.data.paymentId,
    quotes: quote.body.data.id,
    "checkout-sessions": openSession.body.data.id,
  };
  for (const [seg, id] of Object.entries(idBySeg)) expect({ seg, id: typeof id }).toEqual({ seg, id: "string" });
  snapshot = JSON.parse(JSON.stringify(await rowsOfA()));
});
afterAll(() => t?.close());

test("REST: every operation on another tenant's id answers 4xx", async () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, any>>; security?: Record<string, unknown>[] };
  const leaks: string[] = [];
  let sent = 0;
  for (const [route, item] of Object.entries(doc.paths)) {
    const seg = route.split("/")[1];
    if (!/\{(id|workspaceId|environmentId)\}/.test(route) || !(seg in idBySeg)) continue;
    for (const m of ["get", "post", "put", "patch", "delete"].filter((x) => item[x])) {
      const schemes = ((item[m].security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
      const creds: Record<string, string>[] = [];
      if (schemes.includes("apiKey")) creds.push({ "x-api-key": other.apiKey });
      if (schemes.includes("dashboardSession")) creds.push({ authorization: `Bearer ${other.dashboardToken}`, "x-service-environment-id": other.environments.sandbox.id });
      const url = route.replace(/\{(\w+)\}/g, (_, n: string) => (n === "id" ? idBySeg[seg] : n === "workspaceId" ? demo.workspaceId : n === "environmentId" ? demo.environments.sandbox.id : "00000000-0000-4000-8000-000000000000"));
      for (const headers of creds) {
        sent++;
        const res = await fetch(`${t.url}/api/v1${url}`, { method: m.toUpperCase(), headers: { ...headers, "content-type": "application/json" }, body: m === "get" || m === "delete" ? undefined : "{}" });
        const text = await res.text();
        if (res.status < 400 || res.status >= 500) leaks.push(`${res.status} ${m.toUpperCase()} ${route} (${Object.keys(headers)[0]}) -> ${text.slice(0, 200)}`);
      }
    }
  }
  expect(sent).toBeGreaterThanOrEqual(80);
  expect(leaks).toEqual([]);
}, 300_000);

const gqlSchema = buildSchema(readFileSync(path.resolve(__dirname, "../schema.graphql"), "utf8"));

function selection(ty: GraphQLType): string {
  const n = getNamedType(ty);
  if (!isObjectType(n)) return "";
  const leaves = Object.values(n.getFields()).filter((f) => !f.args.length && (isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type)))).slice(0, 4);
  return leaves.length ? `{ ${leaves.map((f) => f.name).join(" ")} }` : "{ __typename }";
}

test("GraphQL: every field whose required arguments are IDs answers an error for another tenant's ids, never data", async () => {
  const ids = Object.values(idBySeg);
  const creds: Record<string, string>[] = [{ "x-api-key": other.apiKey }, { authorization: `Bearer ${other.dashboardToken}`, "x-service-environment-id": other.environments.sandbox.id }];
  const leaks: string[] = [];
  const fields = new Set<string>();
  for (const [kind, type] of [["query", gqlSchema.getQueryType()!], ["mutation", gqlSchema.getMutationType()!]] as const) {
    for (const f of Object.values(type.getFields())) {
      const required = f.args.filter((a) => isNonNullType(a.type));
      if (!required.length || KEYLESS_FIELDS.has(f.name) || required.some((a) => String(a.type) !== "ID!")) continue;
      fields.add(f.name);
      // each id once, the key and the dashboard session taking turns (shifted per field, so each id meets both)
      const queries = ids.map((id, i) => ({ id, headers: creds[(i + fields.size) % 2], query: `${kind} { ${f.name}(${required.map((a) => `${a.name}: "${id}"`).join(", ")}) ${selection(f.type)} }` }));
      for (let i = 0; i < queries.length; i += 6) {
        await Promise.all(
          queries.slice(i, i + 6).map(async ({ id, headers, query }) => {
            const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ query }) });
            const body = (await res.json()) as { data?: Record<string, unknown> | null; errors?: { extensions?: { status?: number } }[] };
            const status = Number(body.errors?.[0]?.extensions?.status ?? 0);
            if (!body.errors?.length || body.data?.[f.name] != null || status < 400 || status >= 500) leaks.push(`${f.name}(${id}) -> ${JSON.stringify(body).slice(0, 200)}`);
          }),
        );
      }
    }
  }
  expect(fields.size).toBeGreaterThanOrEqual(40);
  expect(leaks).toEqual([]);
}, 600_000);

test("tenant A's rows are as they were", async () => {
  expect(JSON.parse(JSON.stringify(await rowsOfA()))).toEqual(snapshot);
});
