// The one place an Order row is created: INSERT … SELECT with a typed row (db/insert-select.ts), on the statement's
// QueryCreator, so a caller composes it with the rest of its statement (checkout's claim, lines, payment and outbox).
import type { QueryCreator } from "kysely";
import { type Computed, type InsertSelect, insertSelect } from "../db/insert-select";

/** `INSERT INTO "Order" … SELECT …`: the caller chains onConflict / returning. */
export function placeOrderRow<S extends Computed<"Order">>(qc: QueryCreator<any>, spec: InsertSelect<"Order", S>) {
  return insertSelect(qc, "Order", spec);
}
