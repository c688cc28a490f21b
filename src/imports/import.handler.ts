// What an entity (customers, orders) plugs into the import runner. The runner reads the file, groups rows,
// batches, checkpoints and counts; a handler turns one batch of row groups into checks (validate) or writes
// (commit), with a fixed number of statements per batch rather than per row.
import type { Tx } from "../shared/context";

export interface RowError {
  rowNumber: number;
  /** the file's header of the offending column; null when the row as a whole is wrong */
  columnName: string | null;
  code: string;
  message: string;
}

/** A data row seen through the mapping: values by target field ("customer.email"), trimmed, "" as undefined. */
export interface MappedRow {
  rowNumber: number;
  get(field: string): string | undefined;
  /** the header mapped to `field`, for error reports */
  column(field: string): string | null;
}

export interface ImportSettings {
  importId: string;
  applicationId: string;
  environmentId: string;
  provider: "shopify" | "woocommerce" | null;
  dateOrder: "dmy" | "mdy";
  emptyPaymentPolicy: "paid" | "unpaid" | "unknown" | null;
  /** lower-cased values meaning "no customer" */
  guestSentinels: Set<string>;
  createMissingCustomers: boolean;
  /** the application's currency: money cells without a currency column are in it */
  currency: string;
  now: Date;
}

/** A record an import wrote, so undo can remove exactly what it created. */
export interface RecordRow {
  entityType: "customer" | "order" | "payment" | "fulfillment";
  entityId: string;
  action: "created" | "updated";
  rowNumber: number;
}

/** Non-failure notes of errorSummary (total_mismatches, rows_appended, orders_rewritten). */
export type Notes = Record<string, { count: number; sample: (string | number)[] }>;

export interface BatchOutcome {
  /** row counts: a merged row of a multi-row record counts as skipped */
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  errors: RowError[];
  records: RecordRow[];
  notes: Notes;
}

export interface ImportHandler {
  /** rows with the same non-null key that follow each other form one record (an order's lines) */
  groupKey(row: MappedRow): string | null;
  /**
   * One batch, inside the batch's transaction together with the checkpoint (a commit) or the counters (a dry run),
   * so a crash replays the whole batch or none of it. `write` false is the dry run: read what exists, check, count,
   * write nothing but its planned keys (import.planned.ts). A handler keeps nothing in memory between batches:
   * what earlier batches did is in the database, so the worker's memory does not grow with the file.
   */
  runBatch(db: Tx, s: ImportSettings, groups: MappedRow[][], write: boolean): Promise<BatchOutcome>;
}

export function emptyOutcome(): BatchOutcome {
  return { created: 0, updated: 0, skipped: 0, failed: 0, errors: [], records: [], notes: {} };
}

export function addNote(notes: Notes, key: string, sample: string | number) {
  const n = (notes[key] ??= { count: 0, sample: [] });
  n.count++;
  if (n.sample.length < 10) n.sample.push(sample);
}
