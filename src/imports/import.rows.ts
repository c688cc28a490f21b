// The data rows of an uploaded import file, one at a time, whatever its format. CSV and TSV are streamed from
// storage through csv-parse (never the whole file in memory); Excel files are read by import.excel.ts within the
// Excel limits. Row numbers are spreadsheet rows: the header is row 1, the first data row is row 2, and a record
// whose quoted field spans several lines is still one row, so an error report points at what the merchant sees.
import { parse } from "csv-parse";
import type { Import } from "../generated/prisma/client";
import type { Config } from "../config";
import { DomainError } from "../shared/errors";
import { storageFor } from "../shared/storage";
import type { Dialect } from "./import.inspect";
import { readExcelRows } from "./import.excel";

export interface SourceRow {
  /** 2 for the first data row (the header is row 1) */
  rowNumber: number;
  cells: string[];
}

const missingFile = () => new DomainError("file_not_uploaded", "The import's file is missing from storage");

/** Every data row after the header, in file order, from `fromRow` (a spreadsheet row number) on. */
export async function* openRows(config: Config, imp: Pick<Import, "fileKey" | "fileFormat" | "dialect" | "sheetName">, fromRow = 2): AsyncGenerator<SourceRow> {
  const storage = storageFor(config);
  if (imp.fileFormat === "xlsx" || imp.fileFormat === "xls") {
    const buf = await storage.get(imp.fileKey);
    if (!buf) throw missingFile();
    const { rows } = await readExcelRows(buf, imp.fileFormat, imp.sheetName ?? undefined);
    for (let i = Math.max(1, fromRow - 1); i < rows.length; i++) {
      const cells = rows[i]!;
      // an empty row inside the sheet is skipped like an empty CSV line; the numbers stay the sheet's
      if (cells.every((c) => c === "")) continue;
      yield { rowNumber: i + 1, cells };
    }
    return;
  }
  const dialect = (imp.dialect as Dialect | null) ?? { delimiter: imp.fileFormat === "tsv" ? "\t" : ",", quote: '"', bom: false, encoding: "utf-8" };
  const stream = await storage.getStream(imp.fileKey);
  if (!stream) throw missingFile();
  const parser = stream.pipe(
    parse({ delimiter: dialect.delimiter, quote: dialect.quote || '"', bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true }),
  );
  let rowNumber = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      rowNumber++;
      if (rowNumber === 1 || rowNumber < fromRow) continue;
      yield { rowNumber, cells: record };
    }
  } finally {
    parser.destroy();
    stream.destroy();
  }
}
