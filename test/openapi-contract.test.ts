// The published contract (issue 34 items 20-22): every operation has a stable operationId (the GraphQL field over
// the same service), a description, a declared tag and its error responses with their codes; no untyped schema where
// the shape is known; patterns in the JSON Schema dialect; the import upload and the OAuth access tokens described;
// and a client generated with openapi-typescript has no `unknown` field.
import Ajv2020 from "ajv/dist/2020";
import { OAUTH_SCOPES } from "../src/shared/scopes";
import { errorCatalogue } from "../src/openapi/error-codes";
import { openApiDocument } from "../src/openapi/document";
import { TAGS } from "../src/openapi/tags";
import { GRAPHQL_FOR } from "../src/rest/graphql-counterparts";
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startWithDemo, type TestApp } from "./helpers/app";

const doc = openApiDocument() as any;
const METHODS = ["get", "post", "put", "patch", "delete"];
const operations = Object.entries(doc.paths).flatMap(([p, item]: [string, any]) => METHODS.filter((m) => item[m]).map((m) => ({ key: `${m.toUpperCase()} ${p}`, op: item[m] })));
const statusOf = new Map<string, number>(errorCatalogue().map((e) => [e.code, e.status]));
const codesOf = (op: any, status: number): string[] => Object.keys(op.responses[String(status)]?.content?.["application/json"]?.examples ?? {});

describe("item 20: operationIds, descriptions, tags, error responses", () => {
  test("every operation has a unique camelCase operationId: the GraphQL field name where one exists", () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(ids.filter((id) => typeof id !== "string" || !/^[a-z][A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const mismatched = Object.entries(GRAPHQL_FOR)
      .map(([route, field]) => {
        const [method, path] = route.split(" ");
        const op = doc.paths[path.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
        return op?.operationId === field.split(".")[1] ? null : `${route}: ${op?.operationId} is not ${field}`;
      })
      .filter(Boolean);
    expect(mismatched).toEqual([]);
    expect(doc.paths["/carts"].post.operationId).toBe("createCart");
    expect(doc.paths["/me/payment-methods"].get.operationId).toBe("listMyPaymentMethods");
  });

  test("every operation has a description and one tag, declared with a description at the top level", () => {
    expect(operations.filter((o) => !(o.op.description?.length > 20)).map((o) => o.key)).toEqual([]);
    const declared = new Map((doc.tags ?? []).map((t: any) => [t.name, t.description]));
    expect([...declared.values()].filter((d: any) => !(d?.length > 10))).toEqual([]);
    expect(operations.filter((o) => o.op.tags?.length !== 1 || !declared.has(o.op.tags[0])).map((o) => o.key)).toEqual([]);
    expect(doc.tags.map((t: any) => t.name)).toEqual(TAGS.map((t) => t.name));
    expect(doc.paths["/carts/{id}"].get.description).toContain("GraphQL: `Query.cart`");
  });

  test("error responses: each status lists its codes (the catalogue's status), beside the shared Error and RateLimited responses", () => {
    expect(doc.components.responses.Error.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    for (const { key, op } of operations) {
      expect({ key, default: op.responses.default, 429: op.responses["429"] }).toEqual({ key, default: { $ref: "#/components/responses/Error" }, 429: { $ref: "#/components/responses/RateLimited" } });
      const statuses = Object.keys(op.responses).filter((s) => /^[45]\d\d$/.test(s) && s !== "429");
      expect({ key, has4xx: statuses.some((s) => s.startsWith("4")) }).toEqual({ key, has4xx: true });
      for (const s of statuses) {
        const codes = codesOf(op, Number(s));
        expect({ key, s, codes: codes.length > 0, wrong: codes.filter((c) => statusOf.get(c) !== Number(s)) }).toEqual({ key, s, codes: true, wrong: [] });
        for (const c of codes) expect(op.responses[s].description).toContain(`\`${c}\``);
      }
    }
  });

  test("error codes follow from the declaration: credential, parameters, body, POST, the live gate, and the operation's own", () => {
    const issue = doc.paths["/quotes/{id}/issue"].post;
    expect(codesOf(issue, 401)).toEqual(["unauthorized"]);
    expect(codesOf(issue, 402)).toEqual(["workspace_not_live", "workspace_not_entitled_for_live", "trial_expired"]);
    expect(codesOf(issue, 403)).toContain("insufficient_scopes");
    expect(codesOf(issue, 404)).toEqual(["not_found"]);
    expect(codesOf(issue, 409)).toEqual(expect.arrayContaining(["idempotency_in_progress", "empty_revision", "unpriced_items", "net_terms_not_configured"]));
    expect(codesOf(issue, 422)).toEqual(expect.arrayContaining(["validation_error", "idempotency_key_reused"]));
    // keyless: no credential errors; the live gate exempts billing routes
    const complete = doc.paths["/checkout-sessions/{id}/complete"].post;
    expect(complete.responses["401"]).toBeUndefined();
    expect(doc.paths["/billing/subscribe"].post.responses["402"]).toBeUndefined();
    expect(codesOf(doc.paths["/quotes/{id}/accept"].post, 410)).toEqual(["quote_expired"]);
  });
});

/** Every schema in the document that is `{}` (accepts anything) at a place where a field's shape belongs. */
function untypedSchemas(node: any, at: string, out: string[] = []): string[] {
  if (!node || typeof node !== "object") return out;
  for (const [k, v] of Object.entries(node)) {
    const here = `${at}/${k}`;
    const isSchemaSlot = /\/(properties|patternProperties)$/.test(at) || k === "items" || k === "schema";
    if (isSchemaSlot && v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0) out.push(here);
    untypedSchemas(v, here, out);
  }
  return out;
}

describe("item 21: typed shapes, patterns, the upload route, the oauth2 scheme", () => {
  test("no field's schema is an untyped {} (free-form maps such as metadata are objects)", () => {
    expect(untypedSchemas(doc, "#")).toEqual([]);
    const s = doc.components.schemas;
    expect(s.Cart.properties.shippingAddress).toEqual({ anyOf: [{ $ref: "#/components/schemas/Address" }, { type: "null" }] });
    expect(s.Order.properties.selectedShipping).toEqual({ anyOf: [{ $ref: "#/components/schemas/ShippingRate" }, { type: "null" }] });
    expect(Object.keys(s.Address.properties)).toEqual(["addressLine1", "addressLine2", "city", "stateProvince", "postalCode", "countryCode"]);
    expect(s.Order.required).toEqual(expect.arrayContaining(["source", "cancelledAt", "closedAt"]));
    expect(s.ShippingRate.properties.currency).toEqual(expect.objectContaining({ type: "string" }));
    expect(s.Order.properties.metadata.type).toBe("object");
    const recurring = doc.paths["/checkout/sessions"].post.requestBody.content["application/json"].schema.properties.recurring;
    expect(recurring.required).toEqual(["planReference", "interval", "amount"]);
    // a named schema is never itself nullable (zod's .nullable() of one made the component accept null everywhere)
    expect(Object.entries(s).filter(([, v]: [string, any]) => Array.isArray(v.type) && v.type.includes("null")).map(([k]) => k)).toEqual([]);
  });

  test("the event envelope is typed, and an event of a documented type has that type's data (webhooks too)", () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...doc, $id: "doc" });
    const event = ajv.compile({ $ref: "doc#/components/schemas/Event" });
    const envelope = { id: "3f1c2a9e-0b7d-4c61-9a0e-5d2b8f4e7a10", version: "1", workspaceId: "6857db9d-3858-4a87-9247-bae9607ce643", environmentId: "fddda9b1-4cf8-4c3f-853c-5a8e5ba48dbb", createdAt: "2026-01-01T00:00:00.000Z" };
    expect(event({ ...envelope, type: "order.held", data: { orderId: "o", reason: "fraud check", previousHoldReason: null } })).toBe(true);
    expect(event({ ...envelope, type: "order.held", data: { orderId: "o" } })).toBe(false); // reason is required
    expect(event({ ...envelope, type: "payment.captured", data: { paymentId: "p", capturedAmount: "12", authorizedAmount: 12 } })).toBe(false);
    expect(event({ ...envelope, type: "cart.created", data: { cartId: "c" } })).toBe(true); // undocumented data: any object
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(["order.held", "payment.captured", "quote.converted"]));
    expect(doc.webhooks["order.held"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Event.order.held" });
  });

  test("every pattern is a JSON Schema (ECMA-262 'u') regex without flags; the Net 30 termsHash accepts hex in either case", () => {
    const patterns: string[] = [];
    (function walk(n: any) {
      if (!n || typeof n !== "object") return;
      if (typeof n.pattern === "string") patterns.push(n.pattern);
      Object.values(n).forEach(walk);
    })(doc);
    expect(patterns.length).toBeGreaterThan(10);
    expect(patterns.filter((p) => /[^\\]\/[a-z]+$/.test(p))).toEqual([]);
    for (const p of patterns) expect(() => new RegExp(p, "u")).not.toThrow();
    const complete = doc.paths["/checkout-sessions/{id}/complete"].post.requestBody.content["application/json"].schema;
    const terms = JSON.stringify(complete).match(/"termsHash":\{[^}]*"pattern":"([^"]+)"/)![1];
    const re = new RegExp(terms.replace(/\\\\/g, "\\"), "u");
    expect(re.test("ab".repeat(32))).toBe(true);
    expect(re.test("AB".repeat(32))).toBe(true);
    expect(re.test("zz".repeat(32))).toBe(false);
  });

  test("the signed import upload is documented: keyless, token in the query, the raw file as the body", () => {
    const put = doc.paths["/imports/{id}/upload"].put;
    expect(put.security).toEqual([]);
    expect(put.operationId).toBe("uploadImportFile");
    expect(put.parameters.map((p: any) => `${p.in}:${p.name}`)).toEqual(expect.arrayContaining(["path:id", "query:token"]));
    expect(Object.keys(put.requestBody.content)).toEqual(expect.arrayContaining(["text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"]));
    expect(codesOf(put, 401)).toEqual(["invalid_token"]);
  });
});

describe("item 21: the oauth2 scheme is the server's", () => {
  let t: TestApp;
  beforeAll(async () => void ({ t } = await startWithDemo()));
  afterAll(() => t?.close());

  test("authorization code with the server's endpoints and grantable scopes; accepted wherever a key is", async () => {
    const scheme = doc.components.securitySchemes.oauth2;
    expect(scheme.type).toBe("oauth2");
    const flow = scheme.flows.authorizationCode;
    expect(Object.keys(scheme.flows)).toEqual(["authorizationCode"]);
    expect(scheme.description).toMatch(/PKCE \(S256\)/);
    const meta = await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json();
    expect(new URL(meta.authorization_endpoint).pathname).toBe(flow.authorizationUrl);
    expect(new URL(meta.token_endpoint).pathname).toBe(flow.tokenUrl);
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(Object.keys(flow.scopes).sort()).toEqual([...OAUTH_SCOPES].sort());
    for (const s of Object.keys(flow.scopes)) expect(meta.scopes_supported).toContain(s);
    const keyed = operations.filter((o) => o.op.security?.some((x: any) => "apiKey" in x));
    expect(keyed.filter((o) => !o.op.security.some((x: any) => "oauth2" in x)).map((o) => o.key)).toEqual([]);
  });
});

describe("item 22: a client generated with openapi-typescript", () => {
  // scripts/check-openapi-client.ts runs openapi-typescript (an ES module, hence a child process, as npm run openapi:lint does)
  const check = async (document: object) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "q2c-oat-"));
    writeFileSync(path.join(dir, "doc.json"), JSON.stringify(document));
    const tsx = path.resolve(__dirname, "../node_modules/.bin/tsx");
    const script = path.resolve(__dirname, "../scripts/check-openapi-client.ts");
    try {
      const { stdout } = await promisify(execFile)(tsx, [script, path.join(dir, "doc.json"), "--out", path.join(dir, "client.d.ts")]);
      return { ok: true, out: stdout };
    } catch (e: any) {
      return { ok: false, out: String(e.stderr) };
    }
  };

  test("has no documented field typed unknown (and the check finds one when a schema is left untyped)", async () => {
    const mine = await check(doc);
    expect(mine).toEqual({ ok: true, out: expect.stringContaining("no documented field") });
    const doctored = structuredClone(doc);
    doctored.components.schemas.Cart.properties.shippingAddress = {};
    const bad = await check(doctored);
    expect(bad.ok).toBe(false);
    expect(bad.out).toMatch(/1 documented field\(s\) the type unknown[\s\S]*shippingAddress\??: unknown;/);
  }, 180_000);
});
