// Hostile input against every documented /api/v1 operation and every GraphQL Query and Mutation field, generated from
// the OpenAPI document and schema.graphql, so a new route or field is covered the day it is added. Path parameters are
// real ids of seeded resources (a cart, orders, payments, a quote, a discount, ...) and malformed ones; query strings
// carry wrong types, malformed percent-encoding and bracket syntax; bodies and variables are wrong shapes, wrong types,
// huge strings, NUL bytes, out-of-range numbers and impossible dates. Whatever the answer (400, 401, 403, 404, 409,
// 422), it must not be a 5xx, nor a GraphQL internal_error, and the connection must not drop (bad-input.e2e.test.ts
// checks the exact codes for the platform routes; the resources' own files check theirs).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { buildSchema, getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isScalarType, type GraphQLField, type GraphQLInputType, type GraphQLType } from "graphql";
import { openApiDocument } from "../src/openapi/document";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let demo: BootstrapResult;
/** a real id per first path segment, for the REST operations' {id} */
let idBySeg: Record<string, string | undefined> = {};
/** every seeded id, for GraphQL ID arguments */
let realIds: string[] = [];
/** an environment of the table's own, for {environmentId}: archiving the sandbox would end the demo key */
let spareEnvironmentId: string;

const LIMITS = ["AUTH_FAILURES_PER_IP", "CHECKOUT_PER_IP", "CHECKOUT_PER_SESSION", "DECLINES_PER_IP", "DECLINES_PER_SESSION", "PER_CREDENTIAL", "QUOTE_LINKS_PER_IP", "QUOTE_LINKS_PER_TOKEN", "QUOTE_REQUESTS_PER_IP"];

beforeAll(async () => {
  // the limiter would turn most of the table into 429s before the routes see it
  t = (await startTestApp({ env: Object.fromEntries(LIMITS.map((k) => [`RATE_LIMIT_${k}`, "off"])) }))!;
  demo = await t.bootstrap();
  const api = client(t.url);
  const k = { key: demo.apiKey };
  for (let i = 0; i < 2; i++) {
    const c = await api("POST", "carts", { ...k, body: { customerEmail: "hostile@example.com" } });
    await api("POST", `carts/${c.body.data.id}/items`, { ...k, body: { name: "W", unitPrice: 1000, quantity: 3 } });
    const s = await api("POST", "checkout/sessions", { ...k, body: { cartId: c.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
    const done = await api("POST", `checkout-sessions/${s.body.data.id}/complete`, { body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" } } });
    expect(done.status).toBe(200);
  }
  expect((await api("POST", "carts", { ...k, body: { customerEmail: "open@example.com" } })).status).toBe(201);
  expect((await api("POST", "quotes", { ...k, body: { customerEmail: "quote@example.com", items: [{ name: "x", unitPrice: 500, quantity: 2 }] } })).status).toBe(201);
  expect((await api("POST", "discounts", { ...k, body: { code: "HOSTILE10", type: "percent", value: 10 } })).status).toBe(201);
  expect((await api("POST", "webhook-endpoints", { ...k, body: { url: "https://hooks.example.com/x", enabledEvents: ["order.created"] } })).status).toBe(201);
  // A key and an environment of the table's own: DELETE /api-keys/{id} and archiving {environmentId} are valid
  // requests, and on the demo's key or sandbox they would turn the rest of the table into 401s.
  const spareKey = await mintKeyVia(api, demo, ["*"], demo.environments.sandbox.id, "spare");
  const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "hostile", name: "Hostile" } });
  expect(env.status).toBe(201);
  spareEnvironmentId = env.body.data.id;
  const p = t.deps.prisma;
  const one = async (rows: Promise<{ id: string } | null>) => (await rows)?.id;
  idBySeg = {
    workspaces: demo.workspaceId,
    applications: demo.applicationId,
    "api-keys": spareKey.id,
    connectors: await one(p.connector.findFirst({ select: { id: true } })),
    "webhook-endpoints": await one(p.webhookEndpoint.findFirst({ select: { id: true } })),
    customers: await one(p.customer.findFirst({ select: { id: true } })),
    carts: await one(p.cart.findFirst({ where: { status: "open" }, select: { id: true } })),
    discounts: await one(p.discount.findFirst({ select: { id: true } })),
    orders: await one(p.order.findFirst({ select: { id: true } })),
    payments: await one(p.payment.findFirst({ select: { id: true } })),
    quotes: await one(p.quote.findFirst({ select: { id: true } })),
    "checkout-sessions": await one(p.checkoutSession.findFirst({ select: { id: true } })),
  };
  realIds = [...new Set(Object.values(idBySeg).filter((x): x is string => Boolean(x)))];
  expect(realIds.length).toBe(Object.keys(idBySeg).length); // every seeded resource is there
});
afterAll(() => t?.close());

/** Sends one request; records it when it is a 5xx (or a GraphQL internal_error) or the connection fails. */
async function probe(failures: string[], method: string, url: string, headers: Record<string, string>, raw?: string) {
  try {
    const res = await fetch(url, { method, headers: raw === undefined ? headers : { ...headers, "content-type": "application/json" }, body: raw });
    const text = await res.text();
    let internal = res.status >= 500;
    if (url.endsWith("/graphql")) {
      const errors = (() => {
        try {
          return (JSON.parse(text).errors ?? []) as { extensions?: { code?: string; status?: number } }[];
        } catch {
          return [];
        }
      })();
      internal ||= errors.some((e) => e.extensions?.code === "internal_error" || Number(e.extensions?.status) >= 500);
    }
    if (internal) failures.push(`${res.status} ${method} ${url.replace(t.url, "")} ${raw?.slice(0, 160) ?? ""} -> ${text.slice(0, 240)}`);
  } catch (e) {
    failures.push(`no answer: ${method} ${url.replace(t.url, "")} ${raw?.slice(0, 160) ?? ""}: ${String(e)}`);
  }
}

// ---- REST ----------------------------------------------------------------------------------------------------

const HOSTILE: unknown[] = [{}, [], -1, 1e308, "x".repeat(5000), null, true, "2026-13-45T99:99:99Z", "\u0000", 1.5, "", { a: { b: { c: 1 } } }, ["x"], -Number.MAX_SAFE_INTEGER - 2, "NaN"];

function bodiesFor(schema: { properties?: Record<string, unknown> } | undefined): string[] {
  const out = ["{}", "[]", "null", '"s"', "1", '{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}', '{"a":'];
  const keys = Object.keys(schema?.properties ?? {});
  if (keys.length) {
    // every field hostile at once, rotating the values across the fields
    for (let k = 0; k < HOSTILE.length; k++) out.push(JSON.stringify(Object.fromEntries(keys.map((key, i) => [key, HOSTILE[(i + k) % HOSTILE.length]]))));
    // one hostile field at a time
    for (const key of keys) for (const v of HOSTILE.slice(0, 5)) out.push(JSON.stringify({ [key]: v }));
  }
  return out;
}

test("no /api/v1 operation answers 5xx to hostile path parameters, query strings or bodies", async () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, any>>; security?: Record<string, unknown>[] };
  const failures: string[] = [];
  let operations = 0;
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const m of ["get", "post", "put", "patch", "delete"].filter((x) => item[x])) {
      operations++;
      const op = item[m];
      const method = m.toUpperCase();
      const schemes = ((op.security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
      const headers: Record<string, string> = {};
      if (schemes.includes("apiKey")) headers["x-api-key"] = demo.apiKey;
      else if (schemes.includes("dashboardSession")) Object.assign(headers, { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id });
      const seg = route.split("/")[1];
      const real = route.replace(/\{(\w+)\}/g, (_, n: string) => (n === "id" ? (idBySeg[seg] ?? randomUUID()) : n === "workspaceId" ? demo.workspaceId : n === "environmentId" ? spareEnvironmentId : randomUUID()));
      const paths = [...new Set([real, ...["%E0%A4%A", "x".repeat(300), "'%20OR%201=1--"].map((v) => route.replace(/\{(\w+)\}/g, v))])];
      const query: string[] = (op.parameters ?? []).filter((x: { in: string }) => x.in === "query").map((x: { name: string }) => x.name);
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      for (const [i, pth] of paths.entries()) {
        const url = `${t.url}/api/v1${pth}`;
        if (m === "get" || m === "delete") {
          await probe(failures, method, url, headers);
          await probe(failures, method, `${url}?limit=-1&cursor=%FF%FE&status=zzz&createdAfter=notadate&q=${"%27".repeat(50)}`, headers);
          if (query.length) {
            for (const v of ["-1", "1e999", "abc", "%00", "[]", "2026-99-99"]) await probe(failures, method, `${url}?${query.map((n) => `${n}=${v}`).join("&")}`, headers);
            await probe(failures, method, `${url}?${query.map((n) => `${n}[a]=1&${n}=2`).join("&")}`, headers);
          }
        }
        if (m !== "get") for (const raw of i === 0 ? bodiesFor(schema) : bodiesFor(schema).slice(0, 3)) await probe(failures, method, url, headers, raw);
      }
    }
  }
  expect(operations).toBeGreaterThanOrEqual(200);
  expect(failures).toEqual([]);
}, 600_000);

// ---- GraphQL -------------------------------------------------------------------------------------------------

const gqlSchema = buildSchema(readFileSync(path.resolve(__dirname, "../schema.graphql"), "utf8"));

/** A small selection of the field's type: up to six scalar fields, or the first object field's. */
function selection(ty: GraphQLType, depth = 0): string {
  const n = getNamedType(ty);
  if (!isObjectType(n)) return "";
  const fields = Object.values(n.getFields()).filter((f) => !f.args.length);
  const leaves = fields.filter((f) => isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type))).slice(0, 6);
  if (leaves.length) return `{ ${leaves.map((f) => f.name).join(" ")} }`;
  const obj = fields.find((f) => isObjectType(getNamedType(f.type)));
  return depth < 2 && obj ? `{ ${obj.name} ${selection(obj.type, depth + 1)} }` : "{ __typename }";
}

/** The k-th hostile value of an input type, valid for the type's shape where GraphQL would refuse it outright. */
function hostile(ty: GraphQLInputType, k: number): unknown {
  const inner = isNonNullType(ty) ? ty.ofType : ty;
  if (isListType(inner)) return k % 3 === 0 ? [] : [hostile(inner.ofType as GraphQLInputType, k + 1)];
  if (isInputObjectType(inner)) return Object.fromEntries(Object.values(inner.getFields()).map((f) => [f.name, hostile(f.type, k + f.name.length)]));
  if (isEnumType(inner)) return inner.getValues()[k % inner.getValues().length].value;
  // IDs alternate between a seeded resource's (any kind: the wrong kind must be a 404 too) and malformed ones
  if (inner.name === "ID") return k % 2 ? realIds[(k >> 1) % realIds.length] : [randomUUID(), "not-a-uuid", "", "x".repeat(300)][(k >> 1) % 4];
  const values: Record<string, unknown[]> = {
    Int: [-1, 0, 2147483647, -2147483648, 99999999],
    Float: [-1, 1e300, 0.5],
    String: ["", "x".repeat(5000), "\u0000", "' OR 1=1--", "%E0%A4%A", "2026-13-45"],
    Boolean: [true, false],
  };
  // custom scalars (DateTime, JSON, ...)
  const vals = values[inner.name] ?? ["", "x".repeat(3000), "\u0000", "not-a-date", { a: [1, { b: null }] }, -1, "2026-13-45T99:99:99Z", randomUUID()];
  return vals[k % vals.length];
}

test("no GraphQL Query or Mutation field answers internal_error to hostile variables", async () => {
  const failures: string[] = [];
  const creds: Record<string, string>[] = [{ "x-api-key": demo.apiKey }, { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id }];
  const fields: [string, GraphQLField<unknown, unknown>][] = [
    ...Object.values(gqlSchema.getQueryType()!.getFields()).map((f) => ["query", f] as [string, GraphQLField<unknown, unknown>]),
    ...Object.values(gqlSchema.getMutationType()!.getFields()).map((f) => ["mutation", f] as [string, GraphQLField<unknown, unknown>]),
  ];
  for (const [kind, f] of fields) {
    const vars = f.args.map((a) => `$${a.name}: ${String(a.type)}`).join(", ");
    const args = f.args.map((a) => `${a.name}: $${a.name}`).join(", ");
    const query = `${kind} Hostile${vars ? `(${vars})` : ""} { ${f.name}${args ? `(${args})` : ""} ${selection(f.type)} }`;
    // eight sets of variables, the key and the dashboard session taking turns
    for (let k = 0; k < 8; k++) {
      const variables = Object.fromEntries(f.args.map((a) => [a.name, hostile(a.type, k + a.name.length)]));
      await probe(failures, "POST", `${t.url}/graphql`, { ...creds[k % 2], "content-type": "application/json" }, JSON.stringify({ query, variables }));
    }
  }
  expect(fields.length).toBeGreaterThanOrEqual(150);
  expect(failures).toEqual([]);
}, 600_000);

test("the service still answers after the tables", async () => {
  expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
  // and the table's credentials were never the ones it revoked or archived, so every operation above was authorized
  expect((await client(t.url)("GET", "whoami", { key: demo.apiKey })).status).toBe(200);
  expect((await client(t.url)("GET", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken })).status).toBe(200);
});
