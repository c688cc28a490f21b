// Hostile input against every /api/v1 route of src/platform/platform.rest.ts and POST /graphql. A generated
// table: each case is one test. Nothing may answer 5xx; each answer is the clear 4xx of decisions.md part 1
// (400 invalid_json, 422 validation_error with details.issues, 413 payload_too_large, 404 not_found), or, where
// the hostile value is a legitimate one (a free-text name), a 2xx that echoes it back as data. Afterwards the
// service must still be ready and the database must hold exactly what the accepted cases created.
import { randomUUID } from "node:crypto";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";

let t: TestApp;
let demo: BootstrapResult;

type Model = "apiKey" | "environment" | "connector";
type CredKind = "key" | "dash" | "dashSandbox" | "none";

/** Rows present before the table ran (bootstrap) and rows the accepted cases created, per model. */
const before: Record<Model, Set<string>> = { apiKey: new Set(), environment: new Set(), connector: new Set() };
const created: Record<Model, { id: string; name?: string }[]> = { apiKey: [], environment: [], connector: [] };

beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
  const p = t.deps.prisma;
  for (const r of await p.apiKey.findMany({ select: { id: true } })) before.apiKey.add(r.id);
  for (const r of await p.environment.findMany({ select: { id: true } })) before.environment.add(r.id);
  for (const r of await p.connector.findMany({ select: { id: true } })) before.connector.add(r.id);
});
afterAll(() => t?.close());

// ---- HTTP ----------------------------------------------------------------------------------------------

interface Call {
  method: string;
  /** absolute path (already percent-encoded where it must be) */
  path: string;
  cred?: CredKind;
  json?: unknown;
  raw?: string | Uint8Array;
  /** sent chunked, without Content-Length */
  stream?: Uint8Array;
  /** overrides the content type; null sends none */
  contentType?: string | null;
  headers?: Record<string, string>;
}

interface Res {
  status: number;
  contentType: string;
  text: string;
  body: any;
  /** the request, for failure messages */
  req: string;
}

function credHeaders(cred: CredKind): Record<string, string> {
  switch (cred) {
    case "key":
      return { "x-api-key": demo.apiKey };
    case "dash":
      return { authorization: `Bearer ${demo.dashboardToken}` };
    case "dashSandbox":
      return { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": demo.environments.sandbox.id };
    default:
      return {};
  }
}

const preview = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

function describeBody(c: Call): string {
  if (c.json !== undefined) return preview(JSON.stringify(c.json));
  if (c.stream) return `<chunked stream of ${c.stream.length} bytes>`;
  if (typeof c.raw === "string") return preview(JSON.stringify(c.raw));
  if (c.raw) return `<bytes ${preview(Buffer.from(c.raw).toString("hex"))}>`;
  return "";
}

async function call(c: Call): Promise<Res> {
  const headers: Record<string, string> = { ...credHeaders(c.cred ?? "none"), ...c.headers };
  let body: BodyInit | undefined;
  if (c.json !== undefined) body = JSON.stringify(c.json);
  else if (c.raw !== undefined) body = c.raw as BodyInit;
  else if (c.stream) {
    const bytes = c.stream;
    body = new ReadableStream<Uint8Array>({
      start(ctrl) {
        for (let i = 0; i < bytes.length; i += 64 * 1024) ctrl.enqueue(bytes.subarray(i, i + 64 * 1024));
        ctrl.close();
      },
    });
  }
  if (c.contentType === null) delete headers["content-type"];
  else if (c.contentType !== undefined) headers["content-type"] = c.contentType;
  else if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const init: RequestInit & { duplex?: "half" } = { method: c.method, headers, body };
  if (c.stream) init.duplex = "half";
  const req = `${c.method} ${preview(c.path, 200)}${headers["content-type"] ? ` [content-type: ${headers["content-type"]}]` : ""} ${describeBody(c)}`.trim();
  let res: Response;
  try {
    res = await fetch(`${t.url}${c.path}`, init);
  } catch (e) {
    throw new Error(`request failed at the transport level: ${req}: ${String((e as Error)?.cause ?? e)}`, { cause: e });
  }
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  // DEBUG_BAD_INPUT=1 prints every request and response
  if (process.env.DEBUG_BAD_INPUT) console.log(req.slice(0, 300), "\n=>", res.status, text.slice(0, 400));
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", text, body: parsed, req };
}

// ---- assertions that print the exact request and response on failure -----------------------------------

function fail(res: Res, why: string): never {
  throw new Error(`${why}\n  request:  ${res.req}\n  response: ${res.status} ${preview(res.text, 600)}`);
}

function expectNo5xx(res: Res) {
  if (res.status >= 500) fail(res, `server error ${res.status}`);
}

/** An error body of decisions.md part 1 with one of the allowed (status, code) pairs. */
function expectError(res: Res, allowed: [number, string | RegExp][]) {
  expectNo5xx(res);
  const e = res.body?.error;
  const hit = allowed.find(([s, c]) => res.status === s && e?.code !== undefined && (typeof c === "string" ? e.code === c : c.test(e.code)));
  if (!hit) fail(res, `expected one of ${allowed.map(([s, c]) => `${s} ${String(c)}`).join(" | ")}`);
  if (e.status !== res.status) fail(res, "error.status differs from the HTTP status");
  if (typeof e.message !== "string" || !e.message) fail(res, "error.message must be a non-empty string");
  if (!res.contentType.includes("application/json")) fail(res, "error body must be application/json");
}

/** 422 validation_error whose details.issues name `field` (in a path, or for unknown keys in the message). */
function expectValidation(res: Res, field?: string, where: "path" | "anywhere" = "path") {
  expectError(res, [[422, "validation_error"]]);
  const issues = res.body.error.details?.issues;
  if (!Array.isArray(issues) || issues.length === 0) fail(res, "details.issues must be a non-empty array");
  for (const i of issues) {
    if (!Array.isArray(i.path) || typeof i.message !== "string") fail(res, "each issue must be { path: [], message }");
  }
  if (field === undefined) return;
  const names = (i: any) => (where === "path" ? i.path.includes(field) : i.path.includes(field) || String(i.message).includes(field));
  if (!issues.some(names)) fail(res, `details.issues must name "${field}"`);
}

function expectStatus(res: Res, allowed: number[]) {
  expectNo5xx(res);
  if (!allowed.includes(res.status)) fail(res, `expected status ${allowed.join(" | ")}`);
}

// ---- hostile values ------------------------------------------------------------------------------------

const HOSTILE: [label: string, value: string][] = [
  ["sql ' OR 1=1 --", "' OR 1=1 --"],
  ["sql DROP TABLE", '"; DROP TABLE "ApiKey"; --'],
  ["html <script>", "<script>alert(1)</script>"],
  ["literal %00", "%00"],
  ["path traversal", "../../etc/passwd"],
  ["10,000 chars", "A".repeat(10_000)],
  ["emoji", "🔥💳🧾"],
  ["NUL \\u0000", "\u0000"],
  ["lone surrogate \\ud800", "\ud800"],
];

const MALFORMED_JSON: [label: string, body: string | Uint8Array][] = [
  ["{bad", "{bad"],
  ['{"a":', '{"a":'],
  ['lone "', '"'],
  ["nul", "nul"],
  ["UTF-8 BOM + {}", Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])],
  ["invalid UTF-8 bytes", Uint8Array.from([0xff, 0xfe, 0xfd])],
];

const NON_OBJECT_JSON = ["[]", '"str"', "42", "null", "true"];
const TWO_MIB = 2 * 1024 * 1024;
/** false for strings encodeURIComponent refuses (lone surrogates) */
const encodable = (v: string) => {
  try {
    encodeURIComponent(v);
    return true;
  } catch {
    return false;
  }
};
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

// ---- routes --------------------------------------------------------------------------------------------

type FieldKind = "text" | "scope" | "slug" | "enum";
interface FieldSpec {
  name: string;
  kind: FieldKind;
  /** values of the wrong JSON type */
  wrong: unknown[];
}
interface RouteDef {
  method: "GET" | "POST" | "DELETE";
  /** path under /api/v1 with :params */
  template: string;
  cred: CredKind;
  create?: { model: Model; valid: () => Record<string, unknown>; fields: FieldSpec[] };
  list?: "page" | "environments";
}

let slugSeq = 0;
const nextSlug = () => `bad-input-${++slugSeq}`;

const ROUTES: RouteDef[] = [
  { method: "GET", template: "/whoami", cred: "key" },
  { method: "GET", template: "/api-keys", cred: "key", list: "page" },
  {
    method: "POST",
    template: "/api-keys",
    cred: "dashSandbox",
    create: {
      model: "apiKey",
      valid: () => ({ name: "valid key", scopes: ["connectors:read"] }),
      fields: [
        { name: "name", kind: "text", wrong: [123, true, null, {}, []] },
        { name: "scopes", kind: "scope", wrong: ["x", [1], [null], {}, null, 5] },
      ],
    },
  },
  { method: "DELETE", template: "/api-keys/:id", cred: "dash" },
  { method: "GET", template: "/workspaces/:workspaceId/environments", cred: "dash", list: "environments" },
  {
    method: "POST",
    template: "/workspaces/:workspaceId/environments",
    cred: "dash",
    create: {
      model: "environment",
      valid: () => ({ slug: nextSlug(), name: "Valid env" }),
      fields: [
        { name: "slug", kind: "slug", wrong: [{}, 123, [], null, true] },
        { name: "name", kind: "text", wrong: [123, false, null, {}, ["x"]] },
      ],
    },
  },
  { method: "DELETE", template: "/workspaces/:workspaceId/environments/:environmentId", cred: "dash" },
  { method: "GET", template: "/connectors", cred: "key", list: "page" },
  { method: "GET", template: "/connectors/:id", cred: "key" },
  {
    method: "POST",
    template: "/connectors",
    cred: "key",
    create: {
      model: "connector",
      valid: () => ({ kind: "card", provider: "test" }),
      fields: [
        { name: "kind", kind: "enum", wrong: [[], 1, null, {}, true] },
        { name: "provider", kind: "enum", wrong: [null, 2, [], {}, false] },
      ],
    },
  },
  { method: "DELETE", template: "/connectors/:id", cred: "key" },
];

/** Fills :params (workspaceId: the demo workspace; other ids: an unknown UUID) unless overridden (pre-encoded). */
function pathOf(route: RouteDef, overrides: Record<string, string> = {}, query = "") {
  const filled = route.template.replace(/:(\w+)/g, (_m, p: string) => overrides[p] ?? (p === "workspaceId" ? demo.workspaceId : randomUUID()));
  return `/api/v1${filled}${query ? `?${query}` : ""}`;
}

/** Records a 201 the case judged legitimate, after checking the echo. */
function acceptCreated(res: Res, model: Model, echo: Record<string, unknown>) {
  if (res.status !== 201) fail(res, "expected 201");
  if (!res.contentType.includes("application/json")) fail(res, "a created resource must come back as application/json");
  const data = res.body?.data;
  if (!data || typeof data.id !== "string") fail(res, "201 must carry data.id");
  for (const [k, v] of Object.entries(echo)) {
    if (JSON.stringify(data[k]) !== JSON.stringify(v)) fail(res, `data.${k} must echo the input verbatim (got ${preview(JSON.stringify(data[k]))})`);
  }
  created[model].push({ id: data.id, name: typeof data.name === "string" ? data.name : undefined });
}

// ---- the table -----------------------------------------------------------------------------------------

interface Case {
  name: string;
  run: () => Promise<void>;
}
const cases: Case[] = [];
const add = (name: string, run: () => Promise<void>) => cases.push({ name, run });

for (const route of ROUTES) {
  const label = `${route.method} ${route.template}`;
  const ids = [...route.template.matchAll(/:(\w+)/g)].map((m) => m[1]);

  // control: the well-formed request works, so every rejection below is about the input
  add(`${label}: control, well-formed request`, async () => {
    if (route.create) {
      const body = route.create.valid();
      const res = await call({ method: route.method, path: pathOf(route), cred: route.cred, json: body });
      acceptCreated(res, route.create.model, body);
    } else if (route.method === "GET" && ids.filter((i) => i !== "workspaceId").length === 0) {
      expectStatus(await call({ method: route.method, path: pathOf(route), cred: route.cred }), [200]);
    } else {
      // unknown (well-formed) UUID
      expectError(await call({ method: route.method, path: pathOf(route), cred: route.cred }), [[404, /not_found$/]]);
    }
  });

  // hostile path ids: a non-UUID id answers 404, exactly like an unknown one
  for (const param of ids) {
    // a lone surrogate cannot be percent-encoded as UTF-8; the malformed-escape case below covers undecodable paths
    for (const [hl, hv] of HOSTILE.filter(([, v]) => encodable(v))) {
      add(`${label}: path :${param} = ${hl} -> 404`, async () => {
        const body = route.create?.valid();
        const res = await call({ method: route.method, path: pathOf(route, { [param]: encodeURIComponent(hv) }), cred: route.cred, json: body });
        expectError(res, [[404, /not_found$/]]);
      });
    }
    add(`${label}: path :${param} = raw %00 (decodes to NUL) -> 404`, async () => {
      const res = await call({ method: route.method, path: pathOf(route, { [param]: "%00" }), cred: route.cred, json: route.create?.valid() });
      expectError(res, [[404, /not_found$/]]);
    });
    add(`${label}: path :${param} = malformed escape %E0%A4%A -> 400 or 404`, async () => {
      const res = await call({ method: route.method, path: pathOf(route, { [param]: "%E0%A4%A" }), cred: route.cred, json: route.create?.valid() });
      expectError(res, [
        [404, /not_found$/],
        [400, /^(bad_request|invalid_path)$/],
      ]);
    });
  }

  // query strings
  if (route.list === "page") {
    const queries: [string, string][] = [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=abc", "limit"],
      ["limit[]=1", "limit[]"],
      ["cursor=!!!", "cursor"],
      ["limit=-1", "limit"],
      ["limit=1.5", "limit"],
      ["limit=1&limit=2", "limit"],
      [`cursor=${"A".repeat(201)}`, "cursor"],
      [`cursor=${encodeURIComponent("' OR 1=1 --")}`, "cursor"],
    ];
    for (const [q, param] of queries) {
      add(`${label}: ?${preview(q, 40)} -> 422 validation_error`, async () => {
        expectValidation(await call({ method: "GET", path: pathOf(route, {}, q), cred: route.cred }), param);
      });
    }
    // structurally valid but forged cursors: the keyset values reach the database
    const forged: [string, unknown][] = [
      ["non-UUID id", ["2024-01-01T00:00:00.000Z", "' OR 1=1 --"]],
      ["date beyond PostgreSQL's range", ["-271821-04-20T00:00:00.000Z", randomUUID()]],
      ["id of wrong type", ["2024-01-01T00:00:00.000Z", 5]],
    ];
    for (const [fl, payload] of forged) {
      add(`${label}: forged cursor (${fl}) -> 422 or an empty page, never 5xx`, async () => {
        const res = await call({ method: "GET", path: pathOf(route, {}, `cursor=${b64url(payload)}`), cred: route.cred });
        expectNo5xx(res);
        if (res.status === 200) {
          if (!Array.isArray(res.body?.data)) fail(res, "200 must carry a data array");
        } else expectValidation(res, "cursor");
      });
    }
  }
  if (route.list === "environments") {
    for (const q of ["includeArchived=maybe", "includeArchived=1", "includeArchived=TRUE", `includeArchived=${encodeURIComponent("' OR 1=1 --")}`, "includeArchived=true&includeArchived=false"]) {
      add(`${label}: ?${q} -> 422 validation_error`, async () => {
        expectValidation(await call({ method: "GET", path: pathOf(route, {}, q), cred: route.cred }), "includeArchived");
      });
    }
  }

  if (!route.create) continue;
  const { model, valid, fields } = route.create;
  const post = (c: Omit<Call, "method" | "path" | "cred">) => call({ method: "POST", path: pathOf(route), cred: route.cred, ...c });

  for (const [ml, raw] of MALFORMED_JSON) {
    add(`${label}: malformed JSON ${ml} -> 400 invalid_json`, async () => {
      expectError(await post({ raw }), [[400, "invalid_json"]]);
    });
  }
  add(`${label}: invalid UTF-8 inside a string of an otherwise valid body -> 400 invalid_json`, async () => {
    const body = valid();
    const textField = fields.find((f) => f.kind === "text")?.name ?? fields[0].name;
    const json = JSON.stringify({ [textField]: body[textField], ...body });
    const at = json.indexOf('":"') + 3; // start of the free-text value (or the first string)
    const raw = Buffer.concat([Buffer.from(json.slice(0, at)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from(json.slice(at))]);
    expectError(await post({ raw }), [[400, "invalid_json"]]);
  });
  for (const nj of NON_OBJECT_JSON) {
    add(`${label}: JSON but not an object ${nj} -> 400 invalid_json or 422 validation_error`, async () => {
      expectError(await post({ raw: nj }), [
        [400, "invalid_json"],
        [422, "validation_error"],
      ]);
    });
  }
  add(`${label}: empty body -> 4xx`, async () => {
    expectError(await post({ raw: "" }), [
      [400, "invalid_json"],
      [422, "validation_error"],
    ]);
  });

  for (const f of fields) {
    for (const w of f.wrong) {
      add(`${label}: ${f.name}: ${JSON.stringify(w)} (wrong type) -> 422 naming ${f.name}`, async () => {
        expectValidation(await post({ json: { ...valid(), [f.name]: w } }), f.name);
      });
    }
    add(`${label}: ${f.name} missing -> 422 naming ${f.name}`, async () => {
      const { [f.name]: _drop, ...rest } = valid();
      expectValidation(await post({ json: rest }), f.name);
    });
  }

  add(`${label}: unknown field isAdmin -> 422 naming isAdmin`, async () => {
    expectValidation(await post({ json: { ...valid(), isAdmin: true } }), "isAdmin", "anywhere");
  });
  add(`${label}: __proto__ / constructor.prototype keys -> 422, no prototype pollution`, async () => {
    const json = JSON.stringify(valid());
    const raw = `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${json.slice(1)}`;
    const res = await post({ raw });
    expectValidation(res, undefined);
    if (({} as any).polluted !== undefined) fail(res, "Object.prototype was polluted");
  });

  add(`${label}: 2 MiB body -> 413 payload_too_large`, async () => {
    const first = fields[0].name;
    const body = fields[0].kind === "enum" ? { ...valid(), padding: "x".repeat(TWO_MIB) } : { ...valid(), [first]: "x".repeat(TWO_MIB) };
    expectError(await post({ json: body }), [[413, "payload_too_large"]]);
  });
  add(`${label}: 2 MiB body, chunked (no Content-Length) -> 413 payload_too_large`, async () => {
    const bytes = Buffer.from(JSON.stringify({ ...valid(), padding: "x".repeat(TWO_MIB) }));
    expectError(await post({ stream: bytes }), [[413, "payload_too_large"]]);
  });

  // hostile strings in every string field
  for (const f of fields) {
    for (const [hl, hv] of HOSTILE) {
      const accepts = f.kind === "text" ? "201 echo or 422" : f.kind === "scope" ? "400 invalid_scope or 422" : "422";
      add(`${label}: ${f.name} = ${hl} -> ${accepts}`, async () => {
        const body = { ...valid(), [f.name]: f.kind === "scope" ? [hv] : hv };
        const res = await post({ json: body });
        expectNo5xx(res);
        if (f.kind === "text" && res.status === 201) return acceptCreated(res, model, { [f.name]: hv });
        if (f.kind === "scope") {
          expectError(res, [
            [400, "invalid_scope"],
            [422, "validation_error"],
          ]);
          if (res.status === 422) expectValidation(res, f.name);
          return;
        }
        expectValidation(res, f.name);
      });
    }
  }

  // wrong content types: the body is not parsed as JSON, so it can never create anything
  const form = Object.entries(valid())
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(Array.isArray(v) ? v[0] : String(v))}`)
    .join("&");
  const wrongTypes: [string, Omit<Call, "method" | "path" | "cred">][] = [
    ["text/plain with a JSON body", { raw: JSON.stringify(valid()), contentType: "text/plain" }],
    ["application/x-www-form-urlencoded", { raw: form, contentType: "application/x-www-form-urlencoded" }],
    ["multipart/form-data", { raw: `--b\r\ncontent-disposition: form-data; name="x"\r\n\r\n1\r\n--b--\r\n`, contentType: "multipart/form-data; boundary=b" }],
    ["no content type", { raw: new TextEncoder().encode(JSON.stringify(valid())), contentType: null }],
    ["application/json; charset=latin1", { raw: JSON.stringify(valid()), contentType: "application/json; charset=latin1" }],
    ["content-encoding: gzip with a plain body", { raw: JSON.stringify(valid()), headers: { "content-encoding": "gzip" } }],
    ["content-encoding: compress (unsupported)", { raw: JSON.stringify(valid()), headers: { "content-encoding": "compress" } }],
  ];
  const NOT_JSON = new Set(["text/plain with a JSON body", "application/x-www-form-urlencoded", "multipart/form-data", "no content type"]);
  for (const [wl, c] of wrongTypes) {
    add(`${label}: ${wl} -> 4xx, nothing created`, async () => {
      const res = await post(c);
      expectNo5xx(res);
      if (res.status < 400 || res.status > 499) fail(res, "expected a 4xx");
      // A body that is not JSON at all is 415 naming the fix.
      if (NOT_JSON.has(wl)) expectError(res, [[415, "unsupported_media_type"]]);
      else expectError(res, [[res.status, /.+/]]);
    });
  }
}

// credentials carrying hostile values
for (const [hl, hv] of HOSTILE.filter(([, v]) => /^[\x20-\x7e]*$/.test(v))) {
  add(`POST /api-keys: X-Service-Environment-Id = ${hl} -> 404 environment_not_found`, async () => {
    const res = await call({
      method: "POST",
      path: "/api/v1/api-keys",
      headers: { authorization: `Bearer ${demo.dashboardToken}`, "x-service-environment-id": hv },
      json: { name: "k", scopes: ["*"] },
    });
    expectError(res, [[404, "environment_not_found"]]);
  });
  add(`GET /whoami: X-API-Key = ${hl} -> 401 unauthorized`, async () => {
    expectError(await call({ method: "GET", path: "/api/v1/whoami", headers: { "x-api-key": hv } }), [[401, "unauthorized"]]);
  });
  add(`GET /whoami: Authorization: Bearer ${hl} -> 401 unauthorized`, async () => {
    expectError(await call({ method: "GET", path: "/api/v1/whoami", headers: { authorization: `Bearer ${hv}` } }), [[401, "unauthorized"]]);
  });
}

// unknown routes and methods
for (const [method, path] of [
  ["GET", "/api/v1/nope"],
  ["PUT", "/api/v1/whoami"],
  ["PATCH", "/api/v1/connectors"],
  ["POST", "/api/v1/whoami"],
  ["DELETE", "/api/v1/connectors"],
  ["GET", `/api/v1/connectors/${"00000000-0000-4000-8000-000000000000"}/extra`],
  ["GET", "/api/v1/..%2F..%2Fetc%2Fpasswd"],
  ["GET", "/nope"],
] as const) {
  add(`${method} ${path}: unknown route -> 404 not_found`, async () => {
    expectError(await call({ method, path, cred: "key", ...(method === "GET" || method === "DELETE" ? {} : { json: {} }) }), [[404, "not_found"]]);
  });
}

// ---- GraphQL -------------------------------------------------------------------------------------------

const gqlPost = (json: unknown, cred: CredKind = "key") => call({ method: "POST", path: "/graphql", cred, json });

/** HTTP 200 or 400 with a non-empty errors array; never 5xx, never internal_error. */
function expectGqlRejected(res: Res, codes?: (string | RegExp)[], statuses = [200, 400]) {
  expectStatus(res, statuses);
  const errs = res.body?.errors;
  if (!Array.isArray(errs) || errs.length === 0) fail(res, "expected a non-empty errors array");
  expectNoInternal(res);
  if (codes) {
    const got = errs.map((e: any) => e?.extensions?.code);
    if (!got.some((c: unknown) => typeof c === "string" && codes.some((k) => (typeof k === "string" ? k === c : k.test(c))))) {
      fail(res, `expected an error code ${codes.map(String).join(" | ")}`);
    }
  }
}
function expectNoInternal(res: Res) {
  if (res.text.includes("internal_error")) fail(res, "internal_error leaked into a GraphQL response");
}

/** `open` repeated `times`, then `leaf`, then every brace the repetitions opened, closed. */
const nested = (open: string, times: number, leaf: string) => `${open.repeat(times)}${leaf}${" }".repeat(times * (open.split("{").length - 1))}`;
const GQL_REJECTS: [string, unknown][] = [
  ["malformed query text {", { query: "{ viewer {" }],
  ["malformed query text }{", { query: "}{" }],
  ["unknown root field", { query: "{ nope }" }],
  ["unknown nested field", { query: "{ viewer { nope } }" }],
  ["wrong variable type Int <- string", { query: "query Q($limit: Int) { connectors(limit: $limit) { nodes { id } } }", variables: { limit: "abc" } }],
  ["wrong variable type ID! <- object", { query: "query Q($id: ID!) { connector(id: $id) { id } }", variables: { id: { a: 1 } } }],
  ["missing required variable", { query: "query Q($id: ID!) { connector(id: $id) { id } }", variables: {} }],
  ["enum variable outside the enum", { query: "mutation M($k: ConnectorKind!) { createConnector(kind: $k, provider: test) { id } }", variables: { k: "bitcoin" } }],
  ["String! <- number", { query: 'mutation M($n: String!) { createApiKey(name: $n, scopes: ["*"]) { rawKey } }', variables: { n: 123 } }],
  ["variables is a string", { query: "{ viewer { type } }", variables: "nope" }],
  ["query is a number", { query: 123 }],
  ["no query", {}],
  ["deep __schema introspection (depth 14)", { query: `{ __schema { types { ${nested("fields { type { ", 6, "name")} } } }` }],
  ["deep cyclic __schema introspection (depth 20)", { query: `{ __schema { types { ${nested("fields { type { ofType { ", 6, "name")} } } }` }],
  ["deep __type introspection (depth 13)", { query: `{ __type(name: "Query") { fields { type { ${nested("ofType { ", 10, "name")} } } } }` }],
  ["deep unknown-field nesting (depth 12)", { query: `{ viewer { ${nested("workspace { ", 10, "id")} } }` }],
  ["50 aliases of viewer", { query: `{ ${Array.from({ length: 50 }, (_, i) => `v${i}: viewer { type }`).join(" ")} }` }],
  ["limit: 0 argument", { query: "{ connectors(limit: 0) { nodes { id } } }" }],
  ["cursor: !!! argument", { query: '{ connectors(cursor: "!!!") { nodes { id } } }' }],
];
for (const [gl, json] of GQL_REJECTS) {
  add(`POST /graphql: ${gl} -> 200/400 with errors`, async () => {
    expectGqlRejected(await gqlPost(json));
  });
}

for (const [ml, raw] of MALFORMED_JSON) {
  add(`POST /graphql: malformed JSON ${ml} -> 4xx with errors`, async () => {
    const res = await call({ method: "POST", path: "/graphql", cred: "key", raw });
    expectGqlRejected(res, undefined, [400, 415]);
  });
}
for (const [ml, raw] of MALFORMED_JSON) {
  for (const param of ["variables", "extensions"]) {
    add(`GET /graphql: malformed JSON in ${param} ${ml} -> 400 invalid_json`, async () => {
      const qs = new URLSearchParams({ query: "{ viewer { type } }", [param]: Buffer.from(raw).toString("latin1") });
      const res = await call({ method: "GET", path: `/graphql?${qs}`, cred: "key", headers: { accept: "application/json" } });
      expectGqlRejected(res, ["invalid_json"], [400]);
    });
  }
  add(`POST /graphql: malformed JSON ${ml} -> 400 invalid_json`, async () => {
    expectGqlRejected(await call({ method: "POST", path: "/graphql", cred: "key", raw }), ["invalid_json"], [400, 415]);
  });
}
add("GET /graphql: variables given twice -> 400 invalid_json; well-formed variables still work", async () => {
  const twice = await call({ method: "GET", path: `/graphql?query=${encodeURIComponent("{ viewer { type } }")}&variables=%7B%7D&variables=%7B%7D`, cred: "key", headers: { accept: "application/json" } });
  expectGqlRejected(twice, ["invalid_json"], [400]);
  const ok = await call({ method: "GET", path: `/graphql?query=${encodeURIComponent("{ viewer { type } }")}&variables=%7B%7D&extensions=%7B%7D`, cred: "key", headers: { accept: "application/json" } });
  expectStatus(ok, [200]);
  if (ok.body?.data?.viewer?.type !== "api_key") fail(ok, "expected the viewer");
});
for (const nj of NON_OBJECT_JSON) {
  add(`POST /graphql: JSON but not an object ${nj} -> 4xx with errors`, async () => {
    expectGqlRejected(await call({ method: "POST", path: "/graphql", cred: "key", raw: nj }), undefined, [400, 415]);
  });
}
add("POST /graphql: text/plain body -> 4xx with errors, or 200 without internal_error", async () => {
  const res = await call({ method: "POST", path: "/graphql", cred: "key", raw: JSON.stringify({ query: "{ viewer { type } }" }), contentType: "text/plain" });
  expectStatus(res, [200, 400, 415]);
  expectNoInternal(res);
});
add("POST /graphql: 2 MiB body -> 413 payload_too_large", async () => {
  const res = await gqlPost({ query: "{ viewer { type } }", variables: { pad: "x".repeat(TWO_MIB) } });
  expectStatus(res, [413]);
  if (res.body?.errors?.[0]?.extensions?.code !== "payload_too_large") fail(res, "expected extensions.code payload_too_large");
});
add("POST /graphql: 2 MiB body, chunked (no Content-Length) -> 413 payload_too_large", async () => {
  const bytes = Buffer.from(JSON.stringify({ query: "{ viewer { type } }", variables: { pad: "x".repeat(TWO_MIB) } }));
  const res = await call({ method: "POST", path: "/graphql", cred: "key", stream: bytes });
  expectStatus(res, [413]);
  if (res.body?.errors?.[0]?.extensions?.code !== "payload_too_large") fail(res, "expected extensions.code payload_too_large");
});

// hostile strings through GraphQL arguments: same services, same codes
for (const [hl, hv] of HOSTILE) {
  add(`POST /graphql: connector(id: ${hl}) -> errors not_found`, async () => {
    expectGqlRejected(await gqlPost({ query: "query Q($id: ID!) { connector(id: $id) { id } }", variables: { id: hv } }), [/not_found$/]);
  });
  add(`POST /graphql: environments(workspaceId: ${hl}) -> errors not_found`, async () => {
    expectGqlRejected(await gqlPost({ query: "query Q($w: ID!) { environments(workspaceId: $w) { id } }", variables: { w: hv } }, "dash"), [/not_found$/]);
  });
  add(`POST /graphql: connectors(cursor: ${hl}) -> errors validation_error`, async () => {
    expectGqlRejected(await gqlPost({ query: "query Q($c: String) { connectors(cursor: $c) { nodes { id } } }", variables: { c: hv } }), ["validation_error"]);
  });
  add(`POST /graphql: createApiKey(name: ${hl}) -> echoed data or validation_error`, async () => {
    const res = await gqlPost(
      { query: 'mutation M($n: String!) { createApiKey(name: $n, scopes: ["connectors:read"]) { rawKey apiKey { id name } } }', variables: { n: hv } },
      "dashSandbox",
    );
    expectStatus(res, [200, 400]);
    expectNoInternal(res);
    const k = res.body?.data?.createApiKey?.apiKey;
    if (k) {
      if (k.name !== hv) fail(res, "apiKey.name must echo the input verbatim");
      created.apiKey.push({ id: k.id, name: k.name });
    } else expectGqlRejected(res, ["validation_error"]);
  });
  add(`POST /graphql: createEnvironment(name: ${hl}) -> echoed data or validation_error`, async () => {
    const res = await gqlPost(
      { query: "mutation M($w: ID!, $s: String!, $n: String!) { createEnvironment(workspaceId: $w, slug: $s, name: $n) { id name } }", variables: { w: demo.workspaceId, s: nextSlug(), n: hv } },
      "dash",
    );
    expectStatus(res, [200, 400]);
    expectNoInternal(res);
    const e = res.body?.data?.createEnvironment;
    if (e) {
      if (e.name !== hv) fail(res, "environment.name must echo the input verbatim");
      created.environment.push({ id: e.id, name: e.name });
    } else expectGqlRejected(res, ["validation_error"]);
  });
}
add("POST /graphql: connectors(cursor: forged non-UUID id) -> errors validation_error", async () => {
  const c = b64url(["2024-01-01T00:00:00.000Z", "' OR 1=1 --"]);
  expectGqlRejected(await gqlPost({ query: "query Q($c: String) { connectors(cursor: $c) { nodes { id } } }", variables: { c } }), ["validation_error"]);
});

// Bodies nested far deeper than any real document: refused before anything walks them recursively.
const deepArray = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;
add("POST /api-keys: a body nested 100,000 levels deep, with an Idempotency-Key -> 422 validation_error", async () => {
  const raw = `{"name":"deep","scopes":${deepArray(100_000)}}`;
  expectValidation(await call({ method: "POST", path: "/api/v1/api-keys", cred: "dashSandbox", raw, headers: { "idempotency-key": `deep-${randomUUID()}` } }), "body");
});
add("POST /connectors: a body 65 levels deep -> 422 validation_error; 64 levels is only the route's own 422", async () => {
  expectValidation(await call({ method: "POST", path: "/api/v1/connectors", cred: "key", raw: `{"kind":${deepArray(64)},"provider":"test"}` }), "body");
  expectValidation(await call({ method: "POST", path: "/api/v1/connectors", cred: "key", raw: `{"kind":${deepArray(63)},"provider":"test"}` }), "kind");
});

// ---- run -----------------------------------------------------------------------------------------------

describe("hostile input", () => {
  test.each(cases)("$name", async ({ run }) => run());
});

describe("after the table", () => {
  test("the service is still healthy and still answers", async () => {
    expectStatus(await call({ method: "GET", path: "/readyz" }), [200]);
    expectStatus(await call({ method: "GET", path: "/healthz" }), [200]);
    expectStatus(await call({ method: "GET", path: "/api/v1/whoami", cred: "key" }), [200]);
    expectStatus(await call({ method: "GET", path: "/api/v1/connectors", cred: "key" }), [200]);
  });

  test("nothing hostile was stored: the tables hold exactly the bootstrap rows plus what accepted cases created", async () => {
    const p = t.deps.prisma;
    const rows: Record<Model, { id: string; name?: string }[]> = {
      apiKey: await p.apiKey.findMany({ select: { id: true, name: true } }),
      environment: await p.environment.findMany({ select: { id: true, name: true } }),
      connector: await p.connector.findMany({ select: { id: true } }),
    };
    const sortById = (xs: { id: string; name?: string }[]) =>
      [...xs].sort((a, b) => a.id.localeCompare(b.id)).map((r) => ({ id: r.id, ...(r.name !== undefined ? { name: r.name } : {}) }));
    const models = ["apiKey", "environment", "connector"] as const;
    // counts and the exact new rows: an unexpected row shows up in the diff with its stored name
    expect({
      counts: Object.fromEntries(models.map((m) => [m, rows[m].length])),
      rows: Object.fromEntries(models.map((m) => [m, sortById(rows[m].filter((r) => !before[m].has(r.id)))])),
    }).toEqual({
      counts: Object.fromEntries(models.map((m) => [m, before[m].size + created[m].length])),
      rows: Object.fromEntries(models.map((m) => [m, sortById(created[m])])),
    });
    expect(({} as any).polluted).toBeUndefined();
  });
});
