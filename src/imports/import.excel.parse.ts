// The Excel parse itself, kept free of the app's modules so it can run in a worker thread (import.excel.ts starts
// one per file). A workbook becomes rows of strings, the same shape a CSV file gives:
// - the sheet's used range is read from its first row (the header) to its last non-empty row; an empty row inside
//   the range stays (all "") so row numbers match the spreadsheet, and trailing empty columns are dropped;
// - text as is; numbers as plain decimals (Excel's 15 significant digits, no exponent for ordinary values);
//   TRUE / FALSE; an error cell as Excel shows it (#N/A);
// - a number whose format is a date becomes YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS when it has a time of day, read
//   from the serial number itself (no time zone: Excel dates have none), honouring the 1904 date system.
import * as XLSX from "@e965/xlsx";

interface ParsedExcel {
  sheets: string[];
  sheet: string;
  rows: string[][];
}

/** Why a workbook was refused: the caller turns it into a 422 naming `field`. */
interface ExcelRefusal {
  field: "file" | "sheetName";
  message: string;
  sheets?: string[];
}

export type ExcelParseResult = { ok: ParsedExcel } | { refused: ExcelRefusal };

export interface ExcelParseRequest {
  buf: Uint8Array;
  format: "xlsx" | "xls";
  sheetName?: string;
  /** data rows allowed (after the header) */
  maxRows: number;
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** A number cell as text: 15 significant digits like Excel, without an exponent between 1e-9 and 1e21. */
function numberText(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e21) return v.toFixed(0);
  const n = Number(v.toPrecision(15));
  const s = String(n);
  if (!s.includes("e") || Math.abs(n) >= 1e21 || Math.abs(n) < 1e-9) return s;
  // 1e-7 -> "0.0000001": toFixed with enough places, then drop trailing zeros
  return n.toFixed(Math.min(100, 15 + Math.ceil(-Math.log10(Math.abs(n))))).replace(/\.?0+$/, "");
}

/** A date-formatted serial number as YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS, or HH:MM:SS for a time alone. */
function dateText(serial: number, date1904: boolean): string {
  const p = XLSX.SSF.parse_date_code(serial, { date1904 }) as { y: number; m: number; d: number; H: number; M: number; S: number } | null;
  if (!p) return numberText(serial);
  const time = `${pad2(p.H)}:${pad2(p.M)}:${pad2(p.S)}`;
  if (serial >= 0 && serial < 1) return time; // a time of day without a date
  const date = `${String(p.y).padStart(4, "0")}-${pad2(p.m)}-${pad2(p.d)}`;
  return p.H || p.M || p.S ? `${date}T${time}` : date;
}

function cellText(cell: XLSX.CellObject | null | undefined, date1904: boolean): string {
  if (!cell || cell.v === undefined || cell.v === null) return "";
  switch (cell.t) {
    case "s":
      return String(cell.v);
    case "n": {
      const v = cell.v as number;
      return typeof cell.z === "string" && XLSX.SSF.is_date(cell.z) ? dateText(v, date1904) : numberText(v);
    }
    case "b":
      return cell.v ? "TRUE" : "FALSE";
    case "d": {
      // only with cellDates (not used): keep the calendar date as written
      const d = cell.v as Date;
      return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
    }
    case "e":
      return cell.w ?? "#ERROR";
    default:
      return cell.w ?? String(cell.v);
  }
}

function unreadable(format: string, e: unknown): ExcelRefusal {
  const why = e instanceof Error ? e.message.slice(0, 200) : "";
  return { field: "file", message: `is not a readable .${format} workbook${why ? ` (${why})` : ""}` };
}

export function parseExcel(req: ExcelParseRequest): ExcelParseResult {
  const buf = Buffer.from(req.buf.buffer, req.buf.byteOffset, req.buf.byteLength);
  // the reader would take any text for a CSV sheet: only a zip (.xlsx) or an OLE2 compound file (.xls) is a workbook
  const zip = buf.length >= 4 && buf.readUInt32BE(0) === 0x504b0304;
  const ole = buf.length >= 8 && buf.readUInt32BE(0) === 0xd0cf11e0 && buf.readUInt32BE(4) === 0xa1b11ae1;
  if (!zip && !ole) return { refused: { field: "file", message: `is not an Excel workbook (.xlsx or .xls); a CSV or HTML export must be named .csv` } };
  let names: string[];
  try {
    names = XLSX.read(buf, { type: "buffer", bookSheets: true }).SheetNames;
  } catch (e) {
    return { refused: unreadable(req.format, e) };
  }
  if (!names.length) return { refused: { field: "file", message: "has no sheets" } };
  const sheet = req.sheetName ?? names[0]!;
  if (!names.includes(sheet)) {
    return { refused: { field: "sheetName", message: `"${sheet}" is not a sheet of this workbook; its sheets are ${names.map((n) => `"${n}"`).join(", ")}`, sheets: names } };
  }
  let wb: XLSX.WorkBook;
  try {
    // header + maxRows + 1 tells "too many" apart; a few more absorb empty rows and the reader's row counting
    wb = XLSX.read(buf, { type: "buffer", dense: true, cellNF: true, cellDates: false, cellHTML: false, sheets: sheet, sheetRows: req.maxRows + 8 });
  } catch (e) {
    return { refused: unreadable(req.format, e) };
  }
  const ws = wb.Sheets[sheet];
  const date1904 = Boolean(wb.Workbook?.WBProps?.date1904);
  if (!ws || !ws["!ref"]) return { ok: { sheets: names, sheet, rows: [] } };
  const range = XLSX.utils.decode_range(ws["!ref"]);
  const data = (ws["!data"] ?? []) as (XLSX.CellObject[] | null | undefined)[];
  const rows: string[][] = [];
  let lastUsedRow = -1;
  let width = 0;
  for (let r = range.s.r; r <= range.e.r; r++) {
    const src = data[r];
    const row: string[] = [];
    let used = 0;
    if (src) {
      for (let c = range.s.c; c <= range.e.c; c++) {
        const text = cellText(src[c], date1904);
        row.push(text);
        if (text !== "") used = c - range.s.c + 1;
      }
    }
    rows.push(row);
    if (used) {
      lastUsedRow = rows.length - 1;
      width = Math.max(width, used);
    }
  }
  rows.length = lastUsedRow + 1; // trailing empty rows are formatting, not data
  if (rows.length - 1 > req.maxRows) {
    return { refused: { field: "file", message: `has more than ${req.maxRows.toLocaleString("en-US")} data rows in sheet "${sheet}" (the limit of an Excel import); split it or export it as CSV` } };
  }
  for (const row of rows) {
    if (row.length > width) row.length = width;
    while (row.length < width) row.push("");
  }
  return { ok: { sheets: names, sheet, rows } };
}
