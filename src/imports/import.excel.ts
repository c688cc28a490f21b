// Excel files (.xlsx, .xls) as rows of strings (import.excel.parse.ts says how cells become text).
//
// Parsing a workbook costs seconds of CPU and a few hundred MB for a big sheet, and `npm start` runs the API and the
// job worker in one process, so each file is parsed in a worker thread with its own heap limit: the event loop
// keeps serving requests, and a workbook that expands past the limit (a zip bomb) kills only its worker.
//
// The worker runs import.excel.parse.ts through tsx's require hook (tsx/cjs/api), loaded inside the worker itself:
// a worker is a fresh Node context, and under Jest (which compiles TypeScript in-process with swc, inside its VM
// modules) it has no TypeScript loader at all. Loading tsx in the worker makes one path that runs the same under
// `tsx` (dev, `npm start`) and under Jest; the worker source is an eval'd string so there is no .js file to ship.
import { Worker } from "node:worker_threads";
import path from "node:path";
import { DomainError, errors } from "../shared/errors";
import type { ExcelParseRequest, ExcelParseResult } from "./import.excel.parse";

interface ExcelRows {
  /** every sheet name, in workbook order */
  sheets: string[];
  /** the sheet read (the first unless one was named) */
  sheet: string;
  /** header row first; every cell a string (dates as YYYY-MM-DD) */
  rows: string[][];
}

/** Data rows (after the header) an Excel import may hold. */
export const EXCEL_MAX_ROWS = 65_536;
/** Heap of one parse worker: a 10 MB .xlsx of 65,536 rows needs about 250 MB. */
const WORKER_HEAP_MB = 1024;
/** A parse taking longer is stopped (the largest allowed files take a few seconds). */
const WORKER_TIMEOUT_MS = 120_000;

// The parser module beside this one: TypeScript loaded through tsx's API under `npm start` (and Jest), plain
// JavaScript once compiled (`npm run build`).
const COMPILED = __filename.endsWith(".js");
const PARSE_MODULE = path.join(__dirname, COMPILED ? "import.excel.parse.js" : "import.excel.parse.ts");
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const load = workerData.tsxApi ? require(workerData.tsxApi).require : (m) => require(m);
const { parseExcel } = load(workerData.parseModule, workerData.parseModule);
parentPort.postMessage(parseExcel(workerData.request));
`;

function parseInWorker(request: ExcelParseRequest): Promise<ExcelParseResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { tsxApi: COMPILED ? null : require.resolve("tsx/cjs/api"), parseModule: PARSE_MODULE, request },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(() => {
      done(() => reject(errors.validation([{ path: ["file"], message: "took too long to read; export the sheet as CSV" }])));
      void worker.terminate();
    }, WORKER_TIMEOUT_MS);
    worker.once("message", (m: ExcelParseResult) => {
      done(() => resolve(m));
      void worker.terminate();
    });
    worker.once("error", (e: Error & { code?: string }) => {
      if (e.code === "ERR_WORKER_OUT_OF_MEMORY") done(() => reject(errors.validation([{ path: ["file"], message: "needs too much memory to read; split it or export the sheet as CSV" }])));
      else done(() => reject(e));
    });
    worker.once("exit", (code) => done(() => reject(new Error(`the Excel parse worker stopped (exit code ${code}) without an answer`))));
  });
}

/**
 * The rows of one sheet (the first unless `sheetName` names another). 422 validation_error naming `sheetName`
 * (listing the sheets) for an unknown sheet, naming `file` past 65,536 data rows or for a file that is not a workbook.
 */
export async function readExcelRows(buf: Buffer, format: "xlsx" | "xls", sheetName?: string): Promise<ExcelRows> {
  const result = await parseInWorker({ buf: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), format, ...(sheetName !== undefined ? { sheetName } : {}), maxRows: EXCEL_MAX_ROWS });
  if ("refused" in result) {
    const r = result.refused;
    throw new DomainError("validation_error", `${r.field} ${r.message}`, {
      issues: [{ path: [r.field], message: r.message }],
      ...(r.sheets ? { sheets: r.sheets } : {}),
    });
  }
  return result.ok;
}
