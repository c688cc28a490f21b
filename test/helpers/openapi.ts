// Validates REST responses against the OpenAPI document (docs/openapi.json's source): every call the e2e tests make
// through client() is checked, so a view that drifts from the document fails the suite where it is exercised.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";

const DOC_ID = "https://quote-to-cash.local/openapi.json";
// built once per run by test/global-setup.ts; a file run without it builds its own
const doc = (process.env.Q2C_OPENAPI_DOC
  ? JSON.parse(readFileSync(process.env.Q2C_OPENAPI_DOC, "utf8"))
  : (require("../../src/openapi/document") as typeof import("../../src/openapi/document")).openApiDocument()) as any;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...doc, $id: DOC_ID });

const routes = Object.keys(doc.paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));
const compiled = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

function validatorFor(ref: string) {
  let v = compiled.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: `${DOC_ID}#/${ref}` });
    compiled.set(ref, v);
  }
  return v;
}

/** The document's operation for a request, or null for paths it does not describe (unknown routes). */
export function operationFor(method: string, apiPath: string) {
  const path = apiPath.split("?")[0];
  const hit = routes.find((r) => r.re.test(path) && doc.paths[r.template][method.toLowerCase()]);
  return hit ? { template: hit.template, op: doc.paths[hit.template][method.toLowerCase()] } : null;
}

/** Throws with method, path, status and ajv's errors when the response does not match the document. */
export function assertDocumented(method: string, apiPath: string, status: number, body: unknown) {
  const found = operationFor(method, apiPath);
  const where = `${method} /api/v1${apiPath} -> ${status}`;
  if (!found) {
    if (status < 400) throw new Error(`OpenAPI: ${where}: a successful response from a route the document does not describe`);
    const v = validatorFor(pointer("components", "schemas", "Error"));
    if (!v(body)) throw new Error(`OpenAPI: ${where}: the error body is not the Error schema: ${ajv.errorsText(v.errors)}`);
    return;
  }
  const { template, op } = found;
  const key = op.responses[String(status)] ? String(status) : status >= 400 ? "default" : null;
  if (!key) throw new Error(`OpenAPI: ${where}: status ${status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(op.responses).join(", ")})`);
  // a shared response (components.responses) is named by a $ref
  const ref: string | undefined = op.responses[key].$ref;
  const at = ref ? ref.replace(/^#\//, "").split("/") : ["paths", template, method.toLowerCase(), "responses", key];
  const response = ref ? doc.components.responses[at[2]] : op.responses[key];
  const content = response.content?.["application/json"];
  if (!content) {
    if (body !== null && body !== "") throw new Error(`OpenAPI: ${where}: the document says no body, got ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const v = validatorFor(pointer(...at, "content", "application/json", "schema"));
  if (!v(body)) {
    throw new Error(`OpenAPI: ${where} does not match the document: ${ajv.errorsText(v.errors, { separator: "; " })}\nbody: ${JSON.stringify(body).slice(0, 600)}`);
  }
}
