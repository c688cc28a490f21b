// Excel files for bulk imports: .xlsx and .xls (BIFF8) accepted at create with their own size limits, uploaded
// through the signed PUT, inspected (sheets, the chosen sheet's headers and sample, dates as YYYY-MM-DD), the
// sheet switch (clears dryRunAt, back to mapping), an unknown sheet, too many rows, a file that is no workbook,
// the row source (openRows) over an uploaded workbook, GraphQL parity, and the parse staying off the main thread.
import { readFileSync } from "node:fs";
import path from "node:path";
import * as XLSX from "@e965/xlsx";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { EXCEL_MAX_ROWS, readExcelRows } from "../src/imports/import.excel";
import { openRows, type SourceRow } from "../src/imports/import.rows";
import { startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { CreateImportDocument, ImportDocument, InspectImportDocument } from "./generated/graphql";

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const fixture = (name: string) => readFileSync(path.join(__dirname, "fixtures", "imports", name));

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

async function create(fileName: string, fileBytes: number) {
  return api("POST", "imports", { key, body: { entityType: "customer", fileName, fileBytes } });
}

async function put(url: string, bytes: Buffer, contentType = XLSX_TYPE) {
  const res = await fetch(url, { method: "PUT", headers: { "content-type": contentType }, body: new Uint8Array(bytes) });
  return { status: res.status, body: (await res.json()) as any };
}

/** A created import with `bytes` uploaded through its signed URL. */
async function uploaded(bytes: Buffer, fileName: string) {
  const c = await create(fileName, bytes.length);
  expect(c.status).toBe(201);
  const up = await put(c.body.data.uploadUrl, bytes);
  expect([up.status, up.body.data?.bytes]).toEqual([200, bytes.length]);
  return c.body.data.importId as string;
}

/** A one-sheet .xlsx of `rows` (written the way the fixtures are). */
function workbook(rows: (string | number | null)[][], sheet = "Sheet1", bookType: XLSX.BookType = "xlsx"): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows), sheet);
  return XLSX.write(wb, { type: "buffer", bookType, compression: true }) as Buffer;
}

async function allRows(id: string, fromRow?: number): Promise<SourceRow[]> {
  const imp = await t.db.prisma.import.findUniqueOrThrow({ where: { id } });
  const out: SourceRow[] = [];
  for await (const r of openRows(t.deps.config, imp, fromRow)) out.push(r);
  return out;
}

const SHOPIFY_ROW_1 = [
  "7210448301122", "Teodoro", "Villaseñor", "teo.villasenor@example.com", "no", "Villaseñor Ranch", "HC 31 Box 4500", "", "Elko", "NV", "US", "89801",
  "+1 775-555-0144", "+17755550144", "no", "1240.5", "7", "Gate code 4411", "yes", "wholesale, ranch", "1985-06-21",
];

describe("create and upload", () => {
  test(".xlsx and .xls: 201 with the Excel content types, their own size limits (422 naming fileBytes past them)", async () => {
    const x = await create("Customers.XLSX", 5000);
    expect(x.status).toBe(201);
    expect(x.body.data).toMatchObject({ contentType: XLSX_TYPE, expiresIn: 3600 });
    expect(x.body.data.fileKey).toMatch(/source\.xlsx$/);
    const l = await create("old.xls", 5000);
    expect(l.body.data).toMatchObject({ contentType: "application/vnd.ms-excel" });
    const r = await api("GET", `imports/${l.body.data.importId}`, { key });
    expect(r.body.data).toMatchObject({ fileFormat: "xls", status: "created", sheetName: null, dialect: null });

    const MB = 1024 * 1024;
    for (const [fileName, bytes, ok] of [
      ["a.xlsx", 10 * MB, true],
      ["a.xlsx", 10 * MB + 1, false],
      ["a.xls", 25 * MB, true],
      ["a.xls", 25 * MB + 1, false],
      ["a.xlsx", 25 * MB, false],
    ] as const) {
      const c = await create(fileName, bytes);
      if (ok) expect(c.status).toBe(201);
      else {
        expect([c.status, c.body.error.code]).toEqual([422, "validation_error"]);
        expect(c.body.error.details.issues[0].path).toEqual(["fileBytes"]);
        expect(c.body.error.message).toContain(fileName.endsWith("xlsx") ? "10 MB" : "25 MB");
      }
    }
    const bad = await create("a.xlsm", 100);
    expect([bad.status, bad.body.error.details.issues[0].path]).toEqual([422, ["fileName"]]);
  });

  test("the signed upload of an .xlsx stops at 10 MB (413, nothing stored)", async () => {
    const c = (await create("big.xlsx", 1000)).body.data;
    const over = await put(c.uploadUrl, Buffer.alloc(10 * 1024 * 1024 + 1));
    expect([over.status, over.body.error.code]).toEqual([413, "payload_too_large"]);
    expect((await api("GET", `imports/${c.importId}`, { key })).body.data.uploadedBytes).toBeNull();
  });
});

describe("inspect", () => {
  test("Shopify .xlsx: sheets, the first sheet's headers and sample (date as YYYY-MM-DD), template and suggestions", async () => {
    const id = await uploaded(fixture("shopify-customers.xlsx"), "customers_export.xlsx");
    const r = await api("POST", `imports/${id}/inspect`, { key });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({ status: "mapping", fileFormat: "xlsx", dialect: null, sheets: ["customers_export", "Wholesale terms"], sheetName: "customers_export", matchedTemplate: "shopify" });
    expect(d.headers).toHaveLength(21);
    expect(d.headers.slice(0, 5)).toEqual(["Customer ID", "First Name", "Last Name", "Email", "Accepts Email Marketing"]);
    expect(d.headers[20]).toBe("Birth date (customer.metafields.facts.birth_date)");
    expect(d.sample).toHaveLength(3);
    expect(d.sample[0]).toEqual(SHOPIFY_ROW_1);
    expect(d.sample[1][15]).toBe("0.3"); // 0.1 + 0.2 as Excel shows it (15 significant digits)
    expect(d.sample[1][20]).toBe("1990-12-10");
    expect(d.sample[2][20]).toBe(""); // an empty cell
    const field = (h: string) => d.suggestions.find((s: any) => s.header === h)?.field;
    expect([field("Customer ID"), field("Email"), field("First Name"), field("Default Address Company"), field("Default Address Phone"), field("Tags")]).toEqual([
      "customer.externalId",
      "customer.email",
      "customer.firstName",
      "customer.company",
      "customer.phone",
      null,
    ]);
    const read = (await api("GET", `imports/${id}`, { key })).body.data;
    expect(read).toMatchObject({ status: "mapping", sheetName: "customers_export", dialect: null, headers: d.headers });
  });

  test("WooCommerce .xls (BIFF8): headers, date-times as ISO, template", async () => {
    const id = await uploaded(fixture("woocommerce-customers.xls"), "customers.xls");
    const d = (await api("POST", `imports/${id}/inspect`, { key })).body.data;
    expect(d).toMatchObject({ fileFormat: "xls", dialect: null, sheets: ["Customers"], sheetName: "Customers", matchedTemplate: "woocommerce" });
    expect(d.headers.slice(0, 6)).toEqual(["customer_id", "first_name", "last_name", "user_login", "email", "date_registered"]);
    expect(d.sample.map((row: string[]) => [row[0], row[4], row[5], row[26], row[27]])).toEqual([
      ["1001", "ada@example.com", "2016-03-02T11:16:53", "310.25", "3"],
      ["1002", "grace@example.com", "2018-12-09", "0", "0"],
    ]);
  });

  test("sheetName switches the sheet: saved, dryRunAt cleared, back to mapping; kept when inspecting again", async () => {
    const id = await uploaded(fixture("shopify-customers.xlsx"), "c.xlsx");
    await api("POST", `imports/${id}/inspect`, { key });
    await t.db.prisma.import.update({ where: { id }, data: { status: "validated", dryRunAt: new Date() } });
    // the same sheet again: nothing about the dry run changes
    let r = await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "customers_export" } });
    expect(r.body.data.status).toBe("validated");
    expect((await api("GET", `imports/${id}`, { key })).body.data.dryRunAt).not.toBeNull();

    r = await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "Wholesale terms" } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "mapping", sheetName: "Wholesale terms", headers: ["Email", "Company", "Net terms days", "Since"], matchedTemplate: null });
    expect(r.body.data.sample).toEqual([
      ["teo.villasenor@example.com", "Villaseñor Ranch", "30", "2019-04-01"],
      ["ada@example.com", "Analytical Engines Ltd", "45", "2021-11-15"],
    ]);
    expect(r.body.data.suggestions.map((s: any) => s.field)).toEqual(["customer.email", "customer.company", "customer.netTermsDays", null]);
    expect((await api("GET", `imports/${id}`, { key })).body.data).toMatchObject({ status: "mapping", dryRunAt: null, sheetName: "Wholesale terms" });
    // no sheetName: the chosen sheet stays
    r = await api("POST", `imports/${id}/inspect`, { key });
    expect(r.body.data.sheetName).toBe("Wholesale terms");
    // the mapping is checked against the chosen sheet's headers
    const m = await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: { Email: "customer.email", "Net terms days": "customer.netTermsDays" }, dateOrder: "dmy" } });
    expect(m.status).toBe(200);
    expect((await api("PATCH", `imports/${id}/mapping`, { key, body: { columns: { "First Name": "customer.firstName" }, dateOrder: "dmy" } })).status).toBe(422);
  });

  test("the sheet cannot change once a commit started or finished (409 invalid_import_state)", async () => {
    const id = await uploaded(fixture("shopify-customers.xlsx"), "c.xlsx");
    await api("POST", `imports/${id}/inspect`, { key });
    for (const data of [{ status: "completed" }, { status: "failed", lastPassMode: "commit" }, { status: "committing" }]) {
      await t.db.prisma.import.update({ where: { id }, data });
      const r = await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "Wholesale terms" } });
      expect([r.status, r.body.error.code]).toEqual([409, "invalid_import_state"]);
    }
    expect((await t.db.prisma.import.findUniqueOrThrow({ where: { id } })).sheetName).toBe("customers_export");
  });

  test("an unknown sheet is 422 naming sheetName and listing the sheets; nothing changes", async () => {
    const id = await uploaded(fixture("shopify-customers.xlsx"), "c.xlsx");
    await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "Wholesale terms" } });
    const r = await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "Orders" } });
    expect([r.status, r.body.error.code]).toEqual([422, "validation_error"]);
    expect(r.body.error.details.issues[0].path).toEqual(["sheetName"]);
    expect(r.body.error.message).toContain('"customers_export", "Wholesale terms"');
    expect(r.body.error.details.sheets).toEqual(["customers_export", "Wholesale terms"]);
    expect((await api("GET", `imports/${id}`, { key })).body.data.sheetName).toBe("Wholesale terms");
    for (const body of [{ sheetName: "" }, { sheetName: 3 }, { sheetName: "x".repeat(201) }]) {
      const bad = await api("POST", `imports/${id}/inspect`, { key, body, validate: false });
      expect([bad.status, bad.body.error.details.issues[0].path[0]]).toEqual([422, "sheetName"]);
    }
  });

  test("more than 65,536 data rows is 422 naming file; exactly 65,536 is read, and the rows are numbered 2..65537", async () => {
    const rows = (n: number) => [["Email"], ...Array.from({ length: n }, (_, i) => [`u${i}@example.com`])];
    const over = await uploaded(workbook(rows(EXCEL_MAX_ROWS + 1)), "over.xlsx");
    const r = await api("POST", `imports/${over}/inspect`, { key });
    expect([r.status, r.body.error.code]).toEqual([422, "validation_error"]);
    expect(r.body.error.details.issues[0].path).toEqual(["file"]);
    expect(r.body.error.message).toContain("65,536");
    expect((await api("GET", `imports/${over}`, { key })).body.data.status).toBe("created");

    const full = await uploaded(workbook(rows(EXCEL_MAX_ROWS)), "full.xlsx");
    expect((await api("POST", `imports/${full}/inspect`, { key })).status).toBe(200);
    const all = await allRows(full);
    expect(all).toHaveLength(EXCEL_MAX_ROWS);
    expect(all.at(-1)).toEqual({ rowNumber: EXCEL_MAX_ROWS + 1, cells: [`u${EXCEL_MAX_ROWS - 1}@example.com`] });
  });

  test("a file that is not a workbook is 422 naming file; 404 before the upload", async () => {
    const c = (await create("fake.xlsx", 100)).body.data;
    expect((await api("POST", `imports/${c.importId}/inspect`, { key })).body.error.code).toBe("file_not_uploaded");
    expect((await put(c.uploadUrl, Buffer.from("Email\na@b.c\n"))).status).toBe(200);
    const r = await api("POST", `imports/${c.importId}/inspect`, { key });
    expect([r.status, r.body.error.code, r.body.error.details.issues[0].path]).toEqual([422, "validation_error", ["file"]]);
    // a zip that is not a workbook
    const d = (await create("zip.xlsx", 100)).body.data;
    await put(d.uploadUrl, Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200)]));
    const z = await api("POST", `imports/${d.importId}/inspect`, { key });
    expect([z.status, z.body.error.details.issues[0].path]).toEqual([422, ["file"]]);
  });
});

describe("openRows over an uploaded workbook", () => {
  test("rows from 2 with every cell a string, from a given row, from the chosen sheet", async () => {
    const id = await uploaded(fixture("shopify-customers.xlsx"), "c.xlsx");
    await api("POST", `imports/${id}/inspect`, { key });
    const rows = await allRows(id);
    expect(rows.map((r) => r.rowNumber)).toEqual([2, 3, 4]);
    expect(rows[0]!.cells).toEqual(SHOPIFY_ROW_1);
    expect(rows.every((r) => r.cells.length === 21 && r.cells.every((c) => typeof c === "string"))).toBe(true);
    expect((await allRows(id, 4)).map((r) => [r.rowNumber, r.cells[3]])).toEqual([[4, "grace@example.com"]]);
    await api("POST", `imports/${id}/inspect`, { key, body: { sheetName: "Wholesale terms" } });
    expect((await allRows(id)).map((r) => [r.rowNumber, r.cells[0], r.cells[3]])).toEqual([
      [2, "teo.villasenor@example.com", "2019-04-01"],
      [3, "ada@example.com", "2021-11-15"],
    ]);
  });

  test("an empty row inside the sheet is skipped but the numbers stay the sheet's; .xls the same", async () => {
    const data = [["Email", "Amount"], ["a@example.com", 1e-7], [null, null], ["b@example.com", 123456789012], ["c@example.com", -0.5]];
    for (const [bookType, name] of [["xlsx", "gap.xlsx"], ["biff8", "gap.xls"]] as const) {
      const id = await uploaded(workbook(data, "Sheet1", bookType), name);
      const rows = await allRows(id);
      expect(rows).toEqual([
        { rowNumber: 2, cells: ["a@example.com", "0.0000001"] },
        { rowNumber: 4, cells: ["b@example.com", "123456789012"] },
        { rowNumber: 5, cells: ["c@example.com", "-0.5"] },
      ]);
    }
  });
});

describe("GraphQL", () => {
  test("createImport, inspectImport with sheetName, the read; an unknown sheet is validation_error", async () => {
    const gql = gqlClient(t.url);
    const bytes = fixture("shopify-customers.xlsx");
    const c = await gql(CreateImportDocument, { entityType: "customer", fileName: "c.xlsx", fileBytes: bytes.length }, { key });
    expect(c.errors).toBeNull();
    expect(c.data!.createImport.contentType).toBe(XLSX_TYPE);
    const id = c.data!.createImport.importId;
    expect((await put(c.data!.createImport.uploadUrl, bytes)).status).toBe(200);
    const ins = await gql(InspectImportDocument, { id, sheetName: "Wholesale terms" }, { key });
    expect(ins.errors).toBeNull();
    expect(ins.data!.inspectImport).toMatchObject({ dialect: null, sheets: ["customers_export", "Wholesale terms"], sheetName: "Wholesale terms", headers: ["Email", "Company", "Net terms days", "Since"] });
    expect(ins.data!.inspectImport.sample[0]!.cells[3]).toBe("2019-04-01");
    expect((await gql(ImportDocument, { id }, { key })).data!.import).toMatchObject({ fileFormat: "xlsx", sheetName: "Wholesale terms", dialect: null });
    expect(codeOf(await gql(InspectImportDocument, { id, sheetName: "Nope" }, { key }))).toBe("validation_error");
    expect(codeOf(await gql(CreateImportDocument, { entityType: "customer", fileName: "c.xls", fileBytes: 25 * 1024 * 1024 + 1 }, { key }))).toBe("validation_error");
  });
});

describe("off the main thread", () => {
  test("the event loop keeps turning while a 65,536-row workbook is parsed", async () => {
    const buf = workbook([["Email", "Name", "Phone"], ...Array.from({ length: EXCEL_MAX_ROWS }, (_, i) => [`u${i}@example.com`, `User ${i}`, `+1 555 ${i}`])]);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    try {
      const r = await readExcelRows(buf, "xlsx");
      expect(r.rows).toHaveLength(EXCEL_MAX_ROWS + 1);
    } finally {
      clearInterval(timer);
    }
    const elapsed = Date.now() - started;
    // parsed in-thread, the loop would be blocked for the whole parse (a tick or two at most)
    expect(ticks).toBeGreaterThan(Math.min(20, elapsed / 10 / 4));
  });
});
