// The OpenAPI document: valid 3.1, one operation per registered route (both ways), served with its docs UI from
// the package, committed copy current, and the response validator of test/helpers/http.ts able to fail.
import { readFileSync } from "node:fs";
import path from "node:path";
import { validate } from "@readme/openapi-parser";
import { openApiDocument } from "../src/openapi/document";
import { IMPORT_UPLOAD_PATH } from "../src/imports/imports.rest";
import { restRoutes } from "../src/server/rest-routes";
import { startWithDemo, type TestApp } from "./helpers/app";
import { assertDocumented } from "./helpers/openapi";

const doc = openApiDocument() as any;
const METHODS = ["get", "post", "put", "patch", "delete"];
const documented = Object.entries(doc.paths).flatMap(([p, item]: [string, any]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`));
// the router routes, and the signed import upload, which src/app.ts mounts before the JSON body parser
const registered = [...restRoutes(), { method: "put", path: IMPORT_UPLOAD_PATH.slice("/api/v1".length) }].map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`);

test("the document is valid OpenAPI 3.1", async () => {
  expect(doc.openapi).toBe("3.1.0");
  const result = await validate(structuredClone(doc));
  expect(result.valid ? [] : result.errors).toEqual([]);
});

test("every registered route is documented, and every documented operation is a route", () => {
  expect(registered.length).toBeGreaterThanOrEqual(56);
  expect(registered.filter((r) => !documented.includes(r))).toEqual([]);
  expect(documented.filter((d) => !registered.includes(d))).toEqual([]);
  expect(documented.length).toBe(registered.length);
});

test("every operation documents its success, 429 rate_limited and the error body; keyless routes need no credential", () => {
  for (const [p, item] of Object.entries(doc.paths) as [string, any][]) {
    for (const m of METHODS.filter((x) => item[x])) {
      const op = item[m];
      const where = `${m} ${p}`;
      const resolve = (r: any) => (r?.$ref ? doc.components.responses[r.$ref.split("/").pop()] : r);
      expect({ where, has429: Boolean(resolve(op.responses["429"])?.headers?.["Retry-After"]), hasDefault: Boolean(resolve(op.responses.default)?.content) }).toEqual({ where, has429: true, hasDefault: true });
      if (m === "post") expect({ where, idem: op.parameters?.some((x: any) => x.in === "header" && x.name === "Idempotency-Key") }).toEqual({ where, idem: true });
    }
  }
  expect(doc.paths["/checkout-sessions/{id}/complete"].post.security).toEqual([]);
  expect(doc.paths["/carts"].post.security).toEqual([{ apiKey: [] }, { dashboardSession: [] }, { oauth2: [] }]);
  // Request bodies come from the services' zod schemas: strict objects refuse unknown fields.
  const cartBody = doc.paths["/carts"].post.requestBody.content["application/json"].schema;
  expect(cartBody.additionalProperties).toBe(false);
  expect(Object.keys(cartBody.properties)).toContain("applicationId");
  expect(cartBody.required ?? []).not.toContain("applicationId");
});

test("docs/openapi.json is the generated document (npm run openapi:print)", () => {
  const committed = readFileSync(path.resolve(__dirname, "../docs/openapi.json"), "utf8");
  expect(JSON.parse(committed)).toEqual(JSON.parse(JSON.stringify(doc)));
});

describe("the response validator can fail", () => {
  const cart = { id: "8b5e3a52-3b8f-4f7e-9a55-0e0d6a1c2f11" };
  test("a body missing required fields, a wrong type, an undocumented success status, an error body of another shape", () => {
    expect(() => assertDocumented("GET", `/carts/${cart.id}`, 200, { data: cart })).toThrow(/does not match the document/);
    expect(() => assertDocumented("GET", "/whoami", 200, { data: { type: 7 } })).toThrow(/does not match/);
    expect(() => assertDocumented("POST", "/carts", 200, { data: {} })).toThrow(/status 200 is not documented/);
    expect(() => assertDocumented("GET", `/carts/${cart.id}`, 404, { message: "nope" })).toThrow(/does not match/);
    expect(() => assertDocumented("GET", "/no-such-route", 200, {})).toThrow(/does not describe/);
    expect(() => assertDocumented("GET", "/no-such-route", 404, { error: { code: "not_found", message: "x", status: 404 } })).not.toThrow();
  });
});

describe("served", () => {
  let t: TestApp;
  beforeAll(async () => void ({ t } = await startWithDemo()));
  afterAll(() => t?.close());

  test("GET /api/v1/openapi.json answers the document without a credential", async () => {
    const res = await fetch(`${t.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  test("GET /api/v1/docs is a page whose scripts and styles are same-origin files from the package", async () => {
    const res = await fetch(`${t.url}/api/v1/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => !u.startsWith("data:"));
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const u of refs) expect(u.startsWith("/api/v1/docs/")).toBe(true);
    expect(html).not.toMatch(/<script>[^<]/); // no inline script
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    for (const u of refs) {
      const asset = await fetch(`${t.url}${u}`);
      // read to the end: an unread body keeps its socket open (and refed) after the app closes, and the worker
      // that ran this file then has to be force-exited at the end of the run
      const size = (await asset.arrayBuffer()).byteLength;
      expect({ u, status: asset.status, empty: size === 0 }).toEqual({ u, status: 200, empty: false });
    }
    const bundle = await (await fetch(`${t.url}/api/v1/docs/assets/swagger-ui-bundle.js`)).text();
    expect(bundle.length).toBeGreaterThan(500_000);
  });
});
