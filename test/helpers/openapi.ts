// Validates REST responses against the OpenAPI document (docs/openapi.json's source): every call the e2e tests make
// through client() is checked, so a view that drifts from the document fails the suite where it is exercised.
// The validators are ajv's standalone code, one module per response schema, generated once per document by
// test/global-setup.ts (writeValidators): a test file loads the few it needs instead of loading the whole document
// into ajv and compiling them again (about a second of CPU per file). A file run without the global setup compiles
// its own.
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ErrorObject, ValidateFunction } from "ajv";

const DOC_ID = "https://quote-to-cash.local/openapi.json";
// built once per run by test/global-setup.ts; a file run without it builds its own (on first use: the global setup
// imports this module for writeValidators)
let loaded: { doc: any; routes: { template: string; re: RegExp }[] } | undefined;
function theDoc() {
  if (!loaded) {
    const doc = (process.env.Q2C_OPENAPI_DOC
      ? JSON.parse(readFileSync(process.env.Q2C_OPENAPI_DOC, "utf8"))
      : (require("../../src/openapi/document") as typeof import("../../src/openapi/document")).openApiDocument()) as any;
    const routes = Object.keys(doc.paths).map((template) => ({
      template,
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
    loaded = { doc, routes };
  }
  return loaded;
}

function docAjv(document: any, opts: { source?: boolean } = {}) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, code: { source: opts.source ?? false } });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOC_ID });
  return ajv;
}
let ajv: Ajv2020 | undefined;

const compiled = new Map<string, ValidateFunction>();
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const fileFor = (ref: string) => `${createHash("sha1").update(ref).digest("hex")}.js`;

/** Where a response of the document is described: its path under the document and the response object. */
function responseAt(document: any, template: string, method: string, key: string) {
  const op = document.paths[template][method];
  // a shared response (components.responses) is named by a $ref
  const ref: string | undefined = op.responses[key].$ref;
  const at = ref ? ref.replace(/^#\//, "").split("/") : ["paths", template, method, "responses", key];
  return { at, response: ref ? document.components.responses[at[2]] : op.responses[key] };
}

/** Every JSON response schema of the document (and the Error schema), as JSON pointers under it. */
function responseSchemaRefs(document: any) {
  const refs = new Set([pointer("components", "schemas", "Error")]);
  for (const [template, ops] of Object.entries<any>(document.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const key of Object.keys(op?.responses ?? {})) {
        const { at, response } = responseAt(document, template, method, key);
        if (response.content?.["application/json"]) refs.add(pointer(...at, "content", "application/json", "schema"));
      }
    }
  }
  return refs;
}

/** Writes one standalone validator module per response schema of `document` into `dir` (test/global-setup.ts). */
export function writeValidators(document: any, dir: string) {
  const gen = docAjv(document, { source: true });
  mkdirSync(dir, { recursive: true });
  for (const ref of responseSchemaRefs(document)) {
    writeFileSync(path.join(dir, fileFor(ref)), standaloneCode(gen, gen.compile({ $ref: `${DOC_ID}#/${ref}` })));
  }
}

/** A generated module, evaluated with this helper's require (it requires ajv-formats' formats). */
function loadValidator(file: string): ValidateFunction {
  const module = { exports: {} as any };
  new Function("require", "module", "exports", readFileSync(file, "utf8"))(require, module, module.exports);
  return module.exports.default ?? module.exports;
}

function validatorFor(ref: string) {
  let v = compiled.get(ref);
  if (!v) {
    const dir = process.env.Q2C_OPENAPI_VALIDATORS;
    if (dir) v = loadValidator(path.join(dir, fileFor(ref)));
    else v = (ajv ??= docAjv(theDoc().doc)).compile({ $ref: `${DOC_ID}#/${ref}` });
    compiled.set(ref, v);
  }
  return v;
}

let plainAjv: Ajv2020 | undefined;
const errorsText = (errors: ErrorObject[] | null | undefined, separator?: string) => (plainAjv ??= new Ajv2020()).errorsText(errors, separator ? { separator } : {});

/** The document's operation for a request, or null for paths it does not describe (unknown routes). */
export function operationFor(method: string, apiPath: string) {
  const { doc, routes } = theDoc();
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
    if (!v(body)) throw new Error(`OpenAPI: ${where}: the error body is not the Error schema: ${errorsText(v.errors)}`);
    return;
  }
  const { template, op } = found;
  const key = op.responses[String(status)] ? String(status) : status >= 400 ? "default" : null;
  if (!key) throw new Error(`OpenAPI: ${where}: status ${status} is not documented for ${method.toUpperCase()} ${template} (documented: ${Object.keys(op.responses).join(", ")})`);
  const { at, response } = responseAt(theDoc().doc, template, method.toLowerCase(), key);
  const content = response.content?.["application/json"];
  if (!content) {
    if (body !== null && body !== "") throw new Error(`OpenAPI: ${where}: the document says no body, got ${JSON.stringify(body).slice(0, 200)}`);
    return;
  }
  const v = validatorFor(pointer(...at, "content", "application/json", "schema"));
  if (!v(body)) {
    throw new Error(`OpenAPI: ${where} does not match the document: ${errorsText(v.errors, "; ")}\nbody: ${JSON.stringify(body).slice(0, 600)}`);
  }
}
