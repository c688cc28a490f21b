// Bulk imports, first slice over REST: create with its signed upload URL, the streamed upload, inspect (dialect,
// BOM, headers, sample, suggestions), the mapping rules, the read with progress; scopes, tenancy, hostile input.
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { Readable } from "node:stream";
import { receiveUpload } from "../src/imports/imports.service";
import { storageFor } from "../src/shared/storage";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import type { FixedClock } from "../src/shared/clock";
import { signToken } from "../src/shared/signed-token";
import { startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { runWorker, workerAlive } from "./helpers/imports";

const fixture = (name: string) => readFileSync(path.join(__dirname, "fixtures", name));

let t: TestApp;
let demo: BootstrapResult;
let api: ReturnType<typeof client>;
let key: string;

beforeAll(async () => {
  t = (await startTestApp({ clock: "fixed" }))!;
  demo = await t.bootstrap();
  api = client(t.url);
  key = demo.apiKey;
});
afterAll(async () => {
  await t?.close();
});

async function create(body: Record<string, unknown> = {}, k = key) {
  return api("POST", "imports", { key: k, body: { entityType: "customer", fileName: "customers.csv", fileBytes: 1000, ...body } });
}

async function put(url: string, bytes: Buffer | string) {
  const res = await fetch(url, { method: "PUT", headers: { "content-type": "text/csv" }, body: typeof bytes === "string" ? bytes : new Uint8Array(bytes) });
  return { status: res.status, body: (await res.json()) as any };
}

/** A created import with `file` uploaded through its signed URL. */
async function uploaded(file: string, fileName = file) {
  const bytes = fixture(file);
  const c = await create({ fileName, fileBytes: bytes.length });
  expect(c.status).toBe(201);
  const up = await put(c.body.data.uploadUrl, bytes);
  expect(up.status).toBe(200);
  expect(up.body.data.bytes).toBe(bytes.length);
  return c.body.data.importId as string;
}

describe("create and upload", () => {
  test("201 with a signed PUT URL valid one hour, the file key and content type; the read starts at created", async () => {
    const c = await create({ fileName: "People.TSV", fileBytes: 2048, provider: "shopify" });
    expect(c.status).toBe(201);
    const d = c.body.data;
    expect(d.uploadUrl).toMatch(new RegExp(`^${t.deps.config.BASE_URL.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/api/v1/imports/${d.importId}/upload\\?token=`));
    expect(d).toMatchObject({ contentType: "text/tab-separated-values", expiresIn: 3600 });
    expect(d.fileKey).toContain(d.importId);
    const r = await api("GET", `imports/${d.importId}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "created", entityType: "customer", provider: "shopify", fileBytes: 2048, uploadedBytes: null, rowsTotal: null, dryRunAt: null, mapping: null });
    expect(r.body.data.progress).toEqual({ rowsTotal: null, rowsProcessed: 0, percent: null });
  });

  test("size limits and bad input are 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ fileBytes: 500 * 1024 * 1024 + 1 }, "fileBytes"],
      [{ fileBytes: 0 }, "fileBytes"],
      [{ fileBytes: 1.5 }, "fileBytes"],
      [{ fileBytes: "10" }, "fileBytes"],
      [{ fileName: "orders.numbers" }, "fileName"],
      [{ fileName: "orders.pdf" }, "fileName"],
      [{ fileName: "../etc/passwd.csv" }, "fileName"],
      [{ fileName: "" }, "fileName"],
      [{ entityType: "product" }, "entityType"],
      [{ provider: "magento" }, "provider"],
      [{ extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expect([r.status, r.body.error.code]).toEqual([422, "validation_error"]);
      expect(JSON.stringify(r.body.error.details.issues)).toContain(field);
    }
    expect((await create({ fileBytes: 500 * 1024 * 1024 })).status).toBe(201);
    const raw = await api("POST", "imports", { key, raw: "{not json", validate: false });
    expect([raw.status, raw.body.error.code]).toEqual([400, "invalid_json"]);
  });

  test("the upload URL refuses an altered or foreign token and a body over the limit never lands", async () => {
    const a = (await create()).body.data;
    const b = (await create()).body.data;
    const token = new URL(a.uploadUrl).searchParams.get("token")!;
    // a's token on b's path, a tampered token, no token
    expect((await put(`${t.url}/api/v1/imports/${b.importId}/upload?token=${token}`, "x")).status).toBe(401);
    expect((await put(a.uploadUrl.slice(0, -2) + "xx", "x")).body.error.code).toBe("invalid_token");
    expect((await put(`${t.url}/api/v1/imports/${a.importId}/upload`, "x")).status).toBe(401);
    expect((await put(`${t.url}/api/v1/imports/not-a-uuid/upload?token=${token}`, "x")).status).toBe(401);
    // the same import's token with a 10-byte limit: 11 bytes are 413 and nothing is stored
    const small = signToken(t.deps.config, "import-upload.v1", { i: a.importId, k: a.fileKey, m: 10 }, new Date(t.deps.clock.now().getTime() + 60_000));
    const over = await put(`${t.url}/api/v1/imports/${a.importId}/upload?token=${small}`, "Email\nab@c.d");
    expect([over.status, over.body.error.code]).toEqual([413, "payload_too_large"]);
    const r = await api("GET", `imports/${a.importId}`, { key });
    expect(r.body.data.uploadedBytes).toBeNull();
    expect((await api("POST", `imports/${a.importId}/inspect`, { key })).body.error.code).toBe("file_not_uploaded");
    expect((await put(`${t.url}/api/v1/imports/${a.importId}/upload?token=${small}`, "Email\na@b")).status).toBe(200);
  });

  test("the upload URL expires after one hour", async () => {
    const c = (await create()).body.data;
    const clock = t.deps.clock as FixedClock;
    clock.advance(3599_000);
    expect((await put(c.uploadUrl, "Email\na@b.c\n")).status).toBe(200);
    clock.advance(2_000);
    const late = await put(c.uploadUrl, "Email\na@b.c\n");
    expect([late.status, late.body.error.code]).toEqual([401, "invalid_token"]);
  });
});

describe("uploading again", () => {
  test("a new file while mapping forgets the old dialect, headers and mapping: validate waits for inspect and a new mapping, then reads the new file", async () => {
    await workerAlive(t);
    const first = "Email,Name\nold1@example.com,Old One\nold2@example.com,Old Two\n";
    const c = (await create({ fileBytes: 1000 })).body.data;
    expect((await put(c.uploadUrl, first)).status).toBe(200);
    await api("POST", `imports/${c.importId}/inspect`, { key });
    const m = await api("PATCH", `imports/${c.importId}/mapping`, { key, body: { columns: { Email: "customer.email", Name: "customer.name" }, dateOrder: "dmy" } });
    expect(m.body.data).toMatchObject({ status: "mapping", dialect: { delimiter: "," }, headers: ["Email", "Name"] });

    // the corrected export: semicolons, other headers, three people
    const second = "E-mail;Full name;Telephone\nnew1@example.com;New One;1\nnew2@example.com;New Two;2\nnew3@example.com;New Three;3\n";
    expect((await put(c.uploadUrl, second)).status).toBe(200);
    const r = (await api("GET", `imports/${c.importId}`, { key })).body.data;
    expect(r).toMatchObject({ status: "mapping", uploadedBytes: second.length, dialect: null, headers: null, sheetName: null, mapping: null, dryRunAt: null });
    const early = await api("POST", `imports/${c.importId}/validate`, { key });
    expect([early.status, early.body.error.code]).toEqual([409, "invalid_import_state"]);

    // a mapping saved before the new inspect still has to name the new file's headers
    await api("PATCH", `imports/${c.importId}/mapping`, { key, body: { columns: { Email: "customer.email" }, dateOrder: "dmy" } });
    const ins = await api("POST", `imports/${c.importId}/inspect`, { key });
    expect(ins.body.data).toMatchObject({ dialect: { delimiter: ";" }, headers: ["E-mail", "Full name", "Telephone"] });
    const stale = await api("POST", `imports/${c.importId}/validate`, { key });
    expect([stale.status, stale.body.error.code, stale.body.error.details.issues[0].path]).toEqual([422, "validation_error", ["columns", "Email"]]);
    const old = await api("PATCH", `imports/${c.importId}/mapping`, { key, body: { columns: { Email: "customer.email" }, dateOrder: "dmy" } });
    expect([old.status, old.body.error.details.issues[0].path]).toEqual([422, ["columns", "Email"]]);
    await api("PATCH", `imports/${c.importId}/mapping`, { key, body: { columns: { "E-mail": "customer.email", "Full name": "customer.name" }, dateOrder: "dmy" } });
    expect((await api("POST", `imports/${c.importId}/validate`, { key })).status).toBe(202);
    await runWorker(t);
    expect((await api("GET", `imports/${c.importId}`, { key })).body.data).toMatchObject({ status: "validated", rowsTotal: 3, rowsCreated: 3, rowsFailed: 0 });
    // past mapping the file can no longer change
    const late = await put(c.uploadUrl, first);
    expect([late.status, late.body.error.code]).toEqual([409, "invalid_import_state"]);
  });
});

describe("an interrupted upload", () => {
  test("is 400 request_aborted and stores nothing: the file uploaded before it and its inspection stay, no partial file is left", async () => {
    const c = (await create({ fileBytes: 100_000 })).body.data;
    const first = "Email,Name\nkept@example.com,Kept\n";
    expect((await put(c.uploadUrl, first)).status).toBe(200);
    await api("POST", `imports/${c.importId}/inspect`, { key });

    // over HTTP: the client declares 50,000 bytes, sends under 2 KB and drops the connection
    const u = new URL(c.uploadUrl);
    const served = new Promise<void>((resolve) => t.app.server.once("request", (_req, res) => res.once("close", () => resolve())));
    await new Promise<void>((resolve) => {
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "PUT", headers: { "content-type": "text/csv", "content-length": "50000" } });
      req.on("error", () => resolve());
      req.write("Email,Name\n" + "partial@example.com,Partial\n".repeat(60), () => setTimeout(() => (req.destroy(), resolve()), 50));
    });
    await served;
    const r = (await api("GET", `imports/${c.importId}`, { key })).body.data;
    expect(r).toMatchObject({ uploadedBytes: first.length, headers: ["Email", "Name"], status: "mapping" });
    const storage = storageFor(t.deps.config);
    expect((await storage.get(c.fileKey))!.toString()).toBe(first);
    const dir = path.dirname(path.resolve(t.deps.config.DATA_DIR, "files", c.fileKey));
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    // the answer the server gives the (gone) client: the stream broke, so 400 request_aborted
    const token = u.searchParams.get("token")!;
    const broken = new Readable({
      read() {
        this.push("Email\n");
        this.destroy(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    });
    await expect(receiveUpload(t.deps, c.importId, token, broken)).rejects.toMatchObject({ code: "request_aborted", status: 400 });
    expect((await storage.get(c.fileKey))!.toString()).toBe(first);
  });
});

describe("inspect", () => {
  test("comma file with a BOM, CRLF and quoted newlines: dialect, headers, sample and suggestions; created -> mapping", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    const r = await api("POST", `imports/${id}/inspect`, { key });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.dialect).toEqual({ delimiter: ",", quote: '"', bom: true, encoding: "utf-8" });
    expect(d.headers).toEqual(["Email", "Full Name", "Company", "Phone", "Notes"]);
    expect(d.sample).toHaveLength(3);
    expect(d.sample[0]).toEqual(["ada@example.com", "Ada Lovelace", "Analytical, Ltd", "+44 20 7946 0001", "first line\r\nsecond line"]);
    expect(d.sample[1][4]).toBe('she said "hi"');
    expect(d.suggestions).toEqual([
      { header: "Email", field: "customer.email" },
      { header: "Full Name", field: "customer.name" },
      { header: "Company", field: "customer.company" },
      { header: "Phone", field: "customer.phone" },
      { header: "Notes", field: null },
    ]);
    expect(d.status).toBe("mapping");
    expect(d.sheets).toBeNull();
    const read = await api("GET", `imports/${id}`, { key });
    expect(read.body.data).toMatchObject({ status: "mapping", headers: d.headers, dialect: d.dialect });
  });

  test("semicolon file: ; found, a quoted ; stays in its cell, no BOM", async () => {
    const id = await uploaded("customers-semicolon.csv");
    const d = (await api("POST", `imports/${id}/inspect`, { key })).body.data;
    expect(d.dialect).toMatchObject({ delimiter: ";", bom: false });
    expect(d.headers).toEqual(["E-mail", "First name", "Last name", "Organisation", "Telephone"]);
    expect(d.sample[1]).toEqual(["grace@example.com", "Grace", "Hopper", "Navy; Reserve", "+1 2"]);
    expect(d.suggestions.map((s: any) => s.field)).toEqual(["customer.email", "customer.firstName", "customer.lastName", "customer.company", "customer.phone"]);
  });

  test("tab file: tab found, WooCommerce export names matched", async () => {
    const id = await uploaded("customers-tab.tsv");
    const d = (await api("POST", `imports/${id}/inspect`, { key })).body.data;
    expect(d.dialect.delimiter).toBe("\t");
    expect(d.matchedTemplate).toBe("woocommerce");
    expect(d.suggestions.map((s: any) => s.field)).toEqual(["customer.externalId", "customer.email", "customer.firstName", "customer.lastName", "customer.company", "customer.phone"]);
  });

  test("pipe delimiter, duplicate and empty headers, and only 20 sample rows from a file past 1 MB", async () => {
    const rows = ["email|name|name|"];
    for (let i = 0, size = 0; size < 1.2 * 1024 * 1024; i++) size += rows[rows.push(`u${i}@example.com|User ${i}|x|${"y".repeat(50)}`) - 1]!.length + 1;
    const body = Buffer.from(rows.join("\n") + "\n");
    const c = (await create({ fileBytes: body.length })).body.data;
    expect((await put(c.uploadUrl, body)).status).toBe(200);
    const d = (await api("POST", `imports/${c.importId}/inspect`, { key })).body.data;
    expect(d.dialect.delimiter).toBe("|");
    expect(d.headers).toEqual(["email", "name", "name (2)", "column_4"]);
    expect(d.sample).toHaveLength(20);
    expect(d.sample[19][0]).toBe("u19@example.com");
  });

  test("404 file_not_uploaded before the upload and for an empty file; sheetName is for Excel only", async () => {
    const c = (await create()).body.data;
    let r = await api("POST", `imports/${c.importId}/inspect`, { key });
    expect([r.status, r.body.error.code]).toEqual([404, "file_not_uploaded"]);
    expect((await put(c.uploadUrl, "")).status).toBe(200);
    r = await api("POST", `imports/${c.importId}/inspect`, { key });
    expect([r.status, r.body.error.code]).toEqual([404, "file_not_uploaded"]);
    r = await api("POST", `imports/${c.importId}/inspect`, { key, body: { sheetName: "Sheet1" } });
    expect([r.status, r.body.error.code]).toEqual([422, "validation_error"]);
    expect((await api("GET", `imports/${c.importId}`, { key })).body.data.status).toBe("created");
  });
});

describe("mapping", () => {
  const mapping = { columns: { Email: "customer.email", "Full Name": "customer.name", Notes: null }, dateOrder: "dmy" };

  test("saves the columns (unmapped dropped), moves to mapping and clears dryRunAt", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    await api("POST", `imports/${id}/inspect`, { key });
    await t.db.prisma.import.update({ where: { id }, data: { status: "validated", dryRunAt: new Date() } });
    const r = await api("PATCH", `imports/${id}/mapping`, { key, body: { ...mapping, guestSentinels: ["guest"], createMissingCustomers: true } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      status: "mapping",
      dryRunAt: null,
      mapping: { columns: { Email: "customer.email", "Full Name": "customer.name" }, dateOrder: "dmy", guestSentinels: ["guest"], createMissingCustomers: true, emptyPaymentPolicy: null },
    });
  });

  test("two columns on one field are rejected naming both headers", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    await api("POST", `imports/${id}/inspect`, { key });
    const r = await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: { Email: "customer.email", Notes: "customer.email" }, dateOrder: "mdy" } });
    expect([r.status, r.body.error.code]).toEqual([422, "validation_error"]);
    expect(r.body.error.message).toContain('"Email"');
    expect(r.body.error.message).toContain('"Notes"');
    expect((await api("GET", `imports/${id}`, { key })).body.data.mapping).toBeNull();
  });

  test("dateOrder required; unknown header, unknown or order field, wrong types are 422 naming the field", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    await api("POST", `imports/${id}/inspect`, { key });
    const bad: [unknown, string][] = [
      [{ columns: { Email: "customer.email" } }, "dateOrder"],
      [{ columns: { Email: "customer.email" }, dateOrder: "ymd" }, "dateOrder"],
      [{ columns: { Nope: "customer.email" }, dateOrder: "dmy" }, "Nope"],
      [{ columns: { Email: "customer.shoeSize" }, dateOrder: "dmy" }, "Email"],
      [{ columns: { Email: "order.total" }, dateOrder: "dmy" }, "Email"],
      [{ columns: { Email: 3 }, dateOrder: "dmy" }, "Email"],
      [{ columns: [], dateOrder: "dmy" }, "columns"],
      [{ columns: {}, dateOrder: "dmy", emptyPaymentPolicy: "maybe" }, "emptyPaymentPolicy"],
      [{ columns: {}, dateOrder: "dmy", createMissingCustomers: "yes" }, "createMissingCustomers"],
    ];
    for (const [body, field] of bad) {
      const r = await api("PATCH", `imports/${id}/mapping`, { key, body });
      expect([r.status, r.body.error.code, body]).toEqual([422, "validation_error", body]);
      expect(JSON.stringify(r.body.error.details.issues)).toContain(field);
    }
  });

  test("an import that is committing or completed keeps its mapping (409 invalid_import_state)", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    await t.db.prisma.import.update({ where: { id }, data: { status: "completed" } });
    const r = await api("PATCH", `imports/${id}/mapping`, { key, body: mapping });
    expect([r.status, r.body.error.code]).toEqual([409, "invalid_import_state"]);
    await t.db.prisma.import.update({ where: { id }, data: { status: "failed", lastPassMode: "commit" } });
    expect((await api("PATCH", `imports/${id}/mapping`, { key, body: mapping })).status).toBe(409);
  });
});

describe("scopes and tenancy", () => {
  test("imports:read reads only; imports:write changes; publishable keys never", async () => {
    const id = await uploaded("customers-semicolon.csv");
    const reader = (await mintKeyVia(api, demo, ["imports:read"])).rawKey;
    const writer = (await mintKeyVia(api, demo, ["imports:write"])).rawKey;
    expect((await api("GET", `imports/${id}`, { key: reader })).status).toBe(200);
    for (const r of [
      await create({}, reader),
      await api("POST", `imports/${id}/inspect`, { key: reader }),
      await api("PATCH", `imports/${id}/mapping`, { key: reader, body: { columns: {}, dateOrder: "dmy" } }),
      await api("GET", `imports/${id}`, { key: writer }),
    ]) {
      expect([r.status, r.body.error.code]).toEqual([403, "insufficient_scopes"]);
    }
    expect((await create({}, writer)).status).toBe(201);
    const pk = await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "pk", scopes: ["publishable", "imports:read"] } });
    expect(pk.status).toBeGreaterThanOrEqual(400);
    expect(pk.status).toBeLessThan(500);
    const pub = (await mintKeyVia(api, demo, ["publishable", "shipping_quotes:write"])).rawKey;
    const r = await api("GET", `imports/${id}`, { key: pub });
    expect(r.status).toBe(403);
    expect((await api("GET", `imports/${id}`, {})).status).toBe(401);
  });

  test("another environment of the application: 403 environment_mismatch; another application: 404", async () => {
    const id = await uploaded("customers-semicolon.csv");
    const env = await api("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "imp-b", name: "B" } });
    expect(env.status).toBe(201);
    const envKey = (await mintKeyVia(api, demo, ["*"], env.body.data.id)).rawKey;
    const other = await t.otherWorkspace("imports-other");
    const m = { columns: {}, dateOrder: "dmy" };
    for (const [k, status, code] of [
      [envKey, 403, "environment_mismatch"],
      [other.apiKey, 404, "not_found"],
    ] as const) {
      for (const r of [
        await api("GET", `imports/${id}`, { key: k }),
        await api("POST", `imports/${id}/inspect`, { key: k }),
        await api("PATCH", `imports/${id}/mapping`, { key: k, body: m }),
      ]) {
        expect([r.status, r.body.error.code]).toEqual([status, code]);
      }
    }
    expect((await api("GET", "imports/00000000-0000-4000-8000-000000000000", { key })).status).toBe(404);
    expect((await api("GET", "imports/not-a-uuid", { key })).status).toBe(404);
    expect((await api("GET", `imports/${id}`, { key })).body.data.mapping).toBeNull();
  });

  test("hostile input is never a 5xx", async () => {
    const id = await uploaded("customers-comma-bom.csv");
    await api("POST", `imports/${id}/inspect`, { key });
    const bodies = [
      { columns: { ["x".repeat(10_000)]: "customer.email" }, dateOrder: "dmy" },
      { columns: { Email: "customer.email\u0000" }, dateOrder: "dmy" },
      { columns: "Email", dateOrder: "dmy" },
      [1, 2, 3],
      "text",
    ];
    for (const body of bodies) {
      const r = await api("PATCH", `imports/${id}/mapping`, { key, body, validate: false });
      expect([r.status, body]).toEqual([r.status >= 400 ? r.status : 400, body]);
      expect(r.status).toBeLessThan(500);
    }
    const proto = await api("PATCH", `imports/${id}/mapping`, { key, raw: '{"columns":{"__proto__":"customer.email","constructor":"customer.name"},"dateOrder":"dmy"}', validate: false });
    expect([proto.status, proto.body.error.code]).toEqual([422, "validation_error"]);
    for (const body of [{ sheetName: 5 }, { other: 1 }, []]) {
      const r = await api("POST", `imports/${id}/inspect`, { key, body, validate: false });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    for (const p of [`imports/${id}%ZZ`, `imports/${"a".repeat(5000)}`]) {
      const r = await api("GET", p, { key, validate: false });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
  });
});
