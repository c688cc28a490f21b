// Bulk imports over GraphQL: the same services as REST, the same codes in extensions.code.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { TypedDocumentNode } from "@graphql-typed-document-node/core";
import { print } from "graphql";
import { createClient } from "graphql-ws";
import WebSocket from "ws";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import {
  CommitImportDocument,
  CreateImportDocument,
  ImportDocument,
  ImportErrorsDocument,
  ImportProgressDocument,
  ImportResultDocument,
  InspectImportDocument,
  SaveImportMappingDocument,
  UndoImportDocument,
  ValidateImportDocument,
} from "./generated/graphql";
import { runWorker, workerAlive } from "./helpers/imports";

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

/** An uploaded, inspected and mapped customer import, through GraphQL only: two good rows and one bad email. */
async function mappedImport() {
  const bytes = Buffer.from("Email,Name\ngql-a@example.com,A\nnot-an-email,B\ngql-c@example.com,C\n");
  const c = await gql(CreateImportDocument, { entityType: "customer", fileName: "gql.csv", fileBytes: bytes.length }, { key });
  expect((await fetch(c.data!.createImport.uploadUrl, { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
  const id = c.data!.createImport.importId;
  expect((await gql(InspectImportDocument, { id }, { key })).errors).toBeNull();
  const m = await gql(SaveImportMappingDocument, { id, columns: [{ header: "Email", field: "customer.email" }, { header: "Name", field: "customer.name" }], dateOrder: "mdy" }, { key });
  expect(m.errors).toBeNull();
  return id;
}

/** importProgress over graphql-ws with `apiKey`: the first message, or the error. */
function progressClient(apiKey: string) {
  return createClient({ url: `${t.url.replace("http", "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { "x-api-key": apiKey }, retryAttempts: 0, lazy: true });
}

describe("the passes", () => {
  beforeAll(async () => {
    await workerAlive(t);
  });

  test("validateImport, importErrors, commitImport and undoImport each to success, with importProgress streaming the dry run", async () => {
    const id = await mappedImport();
    const ws = progressClient(key);
    const it = ws.iterate({ query: print(ImportProgressDocument), variables: { id } });
    expect((await it.next()).value).toEqual({ data: { importProgress: { id, status: "mapping", rowsProcessed: 0, progress: { rowsTotal: null, rowsProcessed: 0, percent: null } } } });

    const v = await gql(ValidateImportDocument, { id }, { key });
    expect(v.errors).toBeNull();
    expect(v.data!.validateImport).toMatchObject({ id, status: "validating", lastPassMode: "validate", dryRunAt: null });
    const seen: string[] = [];
    const reading = (async () => {
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        const p = (r.value as any).data.importProgress;
        seen.push(`${p.status} ${p.rowsProcessed} ${p.progress.percent}`);
        if (p.status === "validated") return;
      }
    })();
    await runWorker(t);
    await reading;
    await ws.dispose();
    expect(seen.at(-1)).toBe("validated 3 100");

    const dry = await gql(ImportDocument, { id }, { key });
    expect(dry.data!.import).toMatchObject({ status: "validated", rowsTotal: 3, rowsCreated: 2, rowsFailed: 1 });
    expect(dry.data!.import.dryRunAt).not.toBeNull();
    const e = await gql(ImportErrorsDocument, { id }, { key });
    expect(e.errors).toBeNull();
    expect(e.data!.importErrors).toMatchObject({ importId: id, rowsFailed: 1, rowsIncluded: 1, truncated: false, filename: "gql-errors.csv" });
    expect(e.data!.importErrors.errors).toEqual([{ rowNumber: 3, columnName: "Email", code: "invalid_email", message: '"not-an-email" is not an email address' }]);
    expect(e.data!.importErrors.csv.split("\r\n")[0]).toBe("rowNumber,columnName,code,message");

    const c = await gql(CommitImportDocument, { id }, { key });
    expect(c.errors).toBeNull();
    expect(c.data!.commitImport).toMatchObject({ id, status: "committing", lastPassMode: "commit" });
    await runWorker(t);
    const done = await gql(ImportDocument, { id }, { key });
    expect(done.data!.import).toMatchObject({ status: "completed", rowsCreated: 2, rowsFailed: 1 });
    expect(done.data!.import.committedAt).not.toBeNull();
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: { in: ["gql-a@example.com", "gql-c@example.com"] } } })).toBe(2);

    const u = await gql(UndoImportDocument, { id }, { key });
    expect(u.errors).toBeNull();
    expect(u.data!.undoImport).toMatchObject({ id, status: "undoing" });
    await runWorker(t);
    const undone = await gql(ImportResultDocument, { id }, { key });
    expect(undone.data!.import).toMatchObject({ status: "undone", undoResult: { kept: 0, deleted: [{ key: "customer", count: 2 }], keptReasons: [] } });
    expect(await t.deps.prisma.customer.count({ where: { applicationId: demo.applicationId, email: { in: ["gql-a@example.com", "gql-c@example.com"] } } })).toBe(0);
  });

  test("the pass mutations, importErrors and importProgress refuse other workspaces (not_found), other environments (environment_mismatch) and missing scopes", async () => {
    const id = await mappedImport();
    const api = client(t.url);
    const other = await t.otherWorkspace("gql-imports-passes-other");
    const prod = (await mintKeyVia(api, demo, ["imports:read", "imports:write"], demo.environments.production.id)).rawKey;
    const reader = (await mintKeyVia(api, demo, ["imports:read"])).rawKey;
    const noRead = (await mintKeyVia(api, demo, ["customers:read"])).rawKey;
    const verbs: TypedDocumentNode<unknown, { id: string }>[] = [ValidateImportDocument, CommitImportDocument, UndoImportDocument];
    for (const doc of verbs) {
      const name = (doc.definitions[0] as any).name.value;
      expect([name, codeOf(await gql(doc, { id }, { key: other.apiKey }))]).toEqual([name, "not_found"]);
      expect([name, codeOf(await gql(doc, { id }, { key: prod }))]).toEqual([name, "environment_mismatch"]);
      expect([name, codeOf(await gql(doc, { id }, { key: reader }))]).toEqual([name, "insufficient_scopes"]);
      expect([name, codeOf(await gql(doc, { id: "not-a-uuid" }, { key }))]).toEqual([name, "not_found"]);
    }
    // none of those moved it
    expect((await gql(ImportDocument, { id }, { key })).data!.import).toMatchObject({ status: "mapping", lastPassMode: null });

    expect(codeOf(await gql(ImportErrorsDocument, { id }, { key: other.apiKey }))).toBe("not_found");
    expect(codeOf(await gql(ImportErrorsDocument, { id }, { key: prod }))).toBe("environment_mismatch");
    expect(codeOf(await gql(ImportErrorsDocument, { id }, { key: noRead }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(ImportErrorsDocument, { id }, { key }))).toBe("no_errors");

    for (const [k, code] of [[other.apiKey, "not_found"], [prod, "environment_mismatch"], [noRead, "insufficient_scopes"]] as const) {
      const ws = progressClient(k);
      const r = await ws.iterate({ query: print(ImportProgressDocument), variables: { id } }).next();
      expect([code, (r.value as any).errors?.[0]?.extensions?.code]).toEqual([code, code]);
      await ws.dispose();
    }
  });
});
