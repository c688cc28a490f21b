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
import { UNSAFE_TEXT } from "../src/shared/errors";
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

/** Ids no resource can have: NUL raw and inside a UUID, an overlong NUL, a lone surrogate (CESU), bytes no UTF-8 has, not a UUID. */
const BAD_PATH_IDS = ["%00", `${randomUUID()}%00`, "%C0%80", "%ED%A0%80", "%FF%FE", "not-a-uuid"];

test("an id with NUL, invalid UTF-8 escapes, a lone surrogate or not a UUID is an unknown id on every /api/v1 route with a path parameter", async () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, any>>; security?: Record<string, unknown>[] };
  const failures: string[] = [];
  let probed = 0;
  for (const [route, item] of Object.entries(doc.paths)) {
    const params = [...route.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    if (!params.length) continue;
    for (const m of ["get", "post", "put", "patch", "delete"].filter((x) => item[x])) {
      const op = item[m];
      const method = m.toUpperCase();
      const schemes = ((op.security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((s) => Object.keys(s));
      // with each credential the operation takes: a route that refuses the key (403) still reads the id for a session
      const session = { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id };
      const creds: Record<string, string>[] = [...(schemes.includes("apiKey") ? [{ "x-api-key": demo.apiKey }] : []), ...(schemes.includes("dashboardSession") ? [session] : [])];
      const seg = route.split("/")[1];
      const realOf = (n: string) => (n === "id" ? (idBySeg[seg] ?? randomUUID()) : n === "workspaceId" ? demo.workspaceId : n === "environmentId" ? spareEnvironmentId : randomUUID());
      for (const headers of creds.length ? creds : [{}]) {
      const send = async (pth: string) => {
        const res = await fetch(`${t.url}/api/v1${pth}`, { method, headers: method === "GET" || method === "DELETE" ? headers : { ...headers, "content-type": "application/json" }, body: method === "GET" || method === "DELETE" ? undefined : "{}" });
        const text = await res.text();
        return { status: res.status, text: text.slice(0, 200) };
      };
      for (const param of params) {
        const at = (v: string) => route.replace(/\{(\w+)\}/g, (_, n: string) => (n === param ? v : realOf(n)));
        // what an unknown, well-formed id gets here (404 mostly; 401 or 403 where credentials come first)
        const unknown = await send(at(randomUUID()));
        for (const bad of BAD_PATH_IDS) {
          probed++;
          const r = await send(at(bad));
          if (r.status !== 404 && r.status !== unknown.status) failures.push(`${method} ${route} {${param}}=${bad} (${headers["x-api-key"] ? "key" : "session"}): ${r.status}, expected 404 or ${unknown.status} as for an unknown id ${r.text}`);
        }
      }
      }
    }
  }
  expect(probed).toBeGreaterThanOrEqual(500);
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

/** A plain value of an input type (only required input fields), every ID in it `id`. */
function plain(ty: GraphQLInputType, id: string): unknown {
  const inner = isNonNullType(ty) ? ty.ofType : ty;
  if (isListType(inner)) return [plain(inner.ofType as GraphQLInputType, id)];
  if (isInputObjectType(inner)) return Object.fromEntries(Object.values(inner.getFields()).filter((f) => isNonNullType(f.type)).map((f) => [f.name, plain(f.type, id)]));
  if (isEnumType(inner)) return inner.getValues()[0].value;
  const values: Record<string, unknown> = { ID: id, Int: 1, Float: 1, Boolean: true, String: "x", DateTime: "2026-01-01T00:00:00Z", JSON: {} };
  return inner.name in values ? values[inner.name] : "x";
}

const takesId = (ty: GraphQLInputType) => getNamedType(ty).name === "ID" && !isListType(isNonNullType(ty) ? ty.ofType : ty);

test("an ID argument with NUL, a lone surrogate, invalid escapes or not a UUID is an unknown id on every GraphQL field", async () => {
  const failures: string[] = [];
  let probed = 0;
  const cred = (k: number): Record<string, string> => (k % 2 ? { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id } : { "x-api-key": demo.apiKey });
  const ask = async (query: string, variables: Record<string, unknown>, k: number) => {
    const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { ...cred(k), "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { errors?: { extensions?: { code?: string; status?: number } }[] };
    const e = body.errors?.[0]?.extensions;
    return { http: res.status, code: e?.code ?? null, status: e?.status ?? null };
  };
  const fields: [string, GraphQLField<unknown, unknown>][] = [
    ...Object.values(gqlSchema.getQueryType()!.getFields()).map((f) => ["query", f] as [string, GraphQLField<unknown, unknown>]),
    ...Object.values(gqlSchema.getMutationType()!.getFields()).map((f) => ["mutation", f] as [string, GraphQLField<unknown, unknown>]),
  ];
  for (const [kind, f] of fields.filter(([, f]) => f.args.some((a) => takesId(a.type)))) {
    const vars = f.args.map((a) => `$${a.name}: ${String(a.type)}`).join(", ");
    const query = `${kind} BadId(${vars}) { ${f.name}(${f.args.map((a) => `${a.name}: $${a.name}`).join(", ")}) ${selection(f.type)} }`;
    // the bad id in the field's own ID arguments; ids inside input objects are body fields (422 when malformed)
    const variablesWith = (id: string) => Object.fromEntries(f.args.map((a) => [a.name, plain(a.type, getNamedType(a.type).name === "ID" && !isListType(isNonNullType(a.type) ? a.type.ofType : a.type) ? id : randomUUID())]));
    for (const k of [0, 1]) {
      const unknown = await ask(query, variablesWith(randomUUID()), k);
      for (const bad of ["\u0000", `${randomUUID()}\u0000`, "\ud800", "x\udfffy", "%C0%80", "not-a-uuid"]) {
        probed++;
        const r = await ask(query, variablesWith(bad), k);
        const internal = r.http >= 500 || r.code === "internal_error" || Number(r.status) >= 500;
        // a filter (the unknown id answers, with nothing found) may refuse a malformed id as input; a non-UUID that
        // is valid text may be refused as input where the argument is parsed like a body field (never NUL or a
        // lone surrogate: those are 404 whatever the field)
        const unsafe = UNSAFE_TEXT.test(bad);
        const input = r.code === "validation_error" && (unknown.code === null || !unsafe);
        if (internal || (r.status !== 404 && r.code !== unknown.code && !input)) {
          failures.push(`${f.name} ${JSON.stringify(bad)} (${k ? "session" : "key"}): ${r.code} ${r.status}, expected 404 or ${unknown.code} as for an unknown id`);
        }
      }
    }
  }
  expect(probed).toBeGreaterThanOrEqual(500);
  expect(failures).toEqual([]);
}, 600_000);
