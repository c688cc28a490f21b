// Dialect sniffing and the sample of an uploaded CSV/TSV: only the first 1 MB is read. Each delimiter among
// , ; tab | is tried on the first rows; the score is (share of rows at the modal column count) x log2(columns),
// so a delimiter that splits every row into the same number of columns (two or more) wins; ties keep list order.
import type { Readable } from "node:stream";
import { parse } from "csv-parse";

export const INSPECT_BYTES = 1024 * 1024;
export const SAMPLE_ROWS = 20;
const DELIMITERS = [",", ";", "\t", "|"] as const;
const SNIFF_ROWS = 50;

export type Dialect = {
  delimiter: string;
  quote: string;
  bom: boolean;
  encoding: "utf-8";
};

/** At most `limit` bytes of a stream (the stream is destroyed once they are read). */
export async function readHead(stream: Readable, limit = INSPECT_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    n += chunk.length;
    if (n >= limit) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, limit);
}

/** Records of `text` with `delimiter`, at most `max`; a record cut by the 1 MB boundary (unclosed quote) ends the list. */
async function parseRecords(text: string, delimiter: string, max: number): Promise<string[][]> {
  const out: string[][] = [];
  const parser = parse({ delimiter, quote: '"', relax_column_count: true, relax_quotes: true, skip_empty_lines: true, to: max });
  parser.end(text);
  try {
    for await (const rec of parser as AsyncIterable<string[]>) {
      out.push(rec);
      if (out.length >= max) break;
    }
  } catch {
    // the head stops mid-record or the delimiter does not fit: keep the records that parsed
  } finally {
    parser.destroy();
  }
  return out;
}

function score(records: string[][]): number {
  if (!records.length) return 0;
  const counts = new Map<number, number>();
  for (const r of records) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
  let modal = 0;
  let at = 0;
  for (const [cols, n] of counts) if (n > at || (n === at && cols > modal)) [modal, at] = [cols, n];
  return modal < 2 ? 0 : (at / records.length) * Math.log2(modal);
}

export interface Inspection {
  dialect: Dialect;
  headers: string[];
  sample: string[][];
}

/** The dialect, unique headers and up to 20 sample rows of a file's first bytes. */
export async function inspectHead(head: Buffer, truncated: boolean): Promise<Inspection> {
  const bom = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  let text = head.subarray(bom ? 3 : 0).toString("utf8");
  // the 1 MB cut can split a character or a line: drop the partial last line
  if (truncated) {
    const nl = text.lastIndexOf("\n");
    if (nl > 0) text = text.slice(0, nl + 1);
  }
  let best: { delimiter: string; s: number } = { delimiter: ",", s: 0 };
  for (const d of DELIMITERS) {
    const s = score(await parseRecords(text, d, SNIFF_ROWS));
    if (s > best.s) best = { delimiter: d, s };
  }
  const records = await parseRecords(text, best.delimiter, SAMPLE_ROWS + 1);
  const headers = uniqueHeaders(records[0] ?? []);
  const sample = records.slice(1).map((r) => headers.map((_h, i) => r[i] ?? ""));
  return { dialect: { delimiter: best.delimiter, quote: '"', bom, encoding: "utf-8" }, headers, sample };
}

/** Trimmed headers; an empty one becomes column_N and a repeated one gets " (2)", " (3)"… so a mapping can name each. */
export function uniqueHeaders(raw: string[]): string[] {
  const seen = new Map<string, number>();
  return raw.map((h, i) => {
    let name = h.trim() || `column_${i + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name} (${n})`;
    return name;
  });
}
