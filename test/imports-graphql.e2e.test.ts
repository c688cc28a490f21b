// Bulk imports over GraphQL: the same services as REST, the same codes in extensions.code.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import { CreateImportDocument, ImportDocument, InspectImportDocument, SaveImportMappingDocument } from "./generated/graphql";

let t: TestApp;
let demo: BootstrapResult;
let gql: ReturnType<typeof gqlClient>;
let key: string;

beforeAll(async () => {
  t = (await startTestApp())!;
  demo = await t.bootstrap();
  gql = gqlClient(t.url);
  key = demo.apiKey;
});
afterAll(async () => {
  await t?.close();
});

async function uploadedImport(file: string) {
  const bytes = readFileSync(path.join(__dirname, "fixtures", file));
  const c = await gql(CreateImportDocument, { entityType: "customer", fileName: file, fileBytes: bytes.length }, { key });
  expect(c.errors).toBeNull();
  const up = await fetch(c.data!.createImport.uploadUrl, { method: "PUT", body: new Uint8Array(bytes) });
  expect(up.status).toBe(200);
  return c.data!.createImport.importId;
}

test("create, inspect, map and read the import", async () => {
  const id = await uploadedImport("customers-semicolon.csv");
  const ins = await gql(InspectImportDocument, { id }, { key });
  expect(ins.errors).toBeNull();
  expect(ins.data!.inspectImport).toMatchObject({ status: "mapping", dialect: { delimiter: ";", bom: false }, headers: ["E-mail", "First name", "Last name", "Organisation", "Telephone"] });
  expect(ins.data!.inspectImport.sample[1]!.cells[3]).toBe("Navy; Reserve");
  expect(ins.data!.inspectImport.suggestions[0]).toEqual({ header: "E-mail", field: "customer.email" });
  const m = await gql(SaveImportMappingDocument, { id, columns: [{ header: "E-mail", field: "customer.email" }, { header: "Telephone", field: null }], dateOrder: "mdy" }, { key });
  expect(m.errors).toBeNull();
  expect(m.data!.saveImportMapping).toMatchObject({ status: "mapping", dryRunAt: null, mapping: { columns: [{ header: "E-mail", field: "customer.email" }], dateOrder: "mdy" } });
  const r = await gql(ImportDocument, { id }, { key });
  expect(r.data!.import).toMatchObject({ id, status: "mapping", progress: { rowsTotal: null, rowsProcessed: 0, percent: null } });
});

test("the REST codes: file_not_uploaded, validation_error naming both headers, environment_mismatch, not_found, insufficient_scopes", async () => {
  const c = await gql(CreateImportDocument, { entityType: "customer", fileName: "x.csv", fileBytes: 10 }, { key });
  const fresh = c.data!.createImport.importId;
  expect(codeOf(await gql(InspectImportDocument, { id: fresh }, { key }))).toBe("file_not_uploaded");
  expect(codeOf(await gql(CreateImportDocument, { entityType: "customer", fileName: "x.csv", fileBytes: 600 * 1024 * 1024 }, { key }))).toBe("validation_error");

  const id = await uploadedImport("customers-comma-bom.csv");
  await gql(InspectImportDocument, { id }, { key });
  const dup = await gql(SaveImportMappingDocument, { id, columns: [{ header: "Email", field: "customer.email" }, { header: "Notes", field: "customer.email" }], dateOrder: "dmy" }, { key });
  expect(codeOf(dup)).toBe("validation_error");
  expect(dup.errors![0]!.message).toMatch(/"Email".*"Notes"/);
  const twice = await gql(SaveImportMappingDocument, { id, columns: [{ header: "Email", field: "customer.email" }, { header: "Email", field: "customer.name" }], dateOrder: "dmy" }, { key });
  expect(codeOf(twice)).toBe("validation_error");

  const api = client(t.url);
  const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "gql-imp", name: "B" } });
  const envKey = (await mintKeyVia(api, demo, ["*"], env.body.data.id)).rawKey;
  expect(codeOf(await gql(ImportDocument, { id }, { key: envKey }))).toBe("environment_mismatch");
  const other = await t.otherWorkspace("gql-imports-other");
  expect(codeOf(await gql(ImportDocument, { id }, { key: other.apiKey }))).toBe("not_found");
  const reader = (await mintKeyVia(api, demo, ["imports:read"])).rawKey;
  expect(codeOf(await gql(InspectImportDocument, { id }, { key: reader }))).toBe("insufficient_scopes");
  expect((await gql(ImportDocument, { id }, { key: reader })).errors).toBeNull();
});
