// What a dry run would have created, remembered in the database (ImportPlannedKey) rather than in the worker: a dry
// run writes no customer or order, yet a later batch must know that an earlier one "created" a person (the same
// email again is an update) or an order (its rows further down append lines). Held in memory, that knowledge grew
// with every row of the file; here it costs one lookup and one upsert per batch, and the worker's memory stays flat.
// The commit needs none of it: what it created is in the customer and order tables.
import { sql } from "kysely";
import type { DbHandle } from "../shared/context";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import type { Sql } from "../db/sql";

export interface PlannedKey {
  /** customers: the id the key names; orders: the order's currency */
  ref: string;
  /** customers: that customer's externalId, when it has one */
  ext: string | null;
}

/** The planned entries of `keys` ("e:<email>", "x:<externalId>", "o:<order number>") of this import's dry run. */
export async function plannedKeys(db: DbHandle, importId: string, keys: string[]): Promise<Map<string, PlannedKey>> {
  if (!keys.length) return new Map();
  const rows = await sqlInPrisma(db)
    .selectFrom("ImportPlannedKey")
    .select(["key", "ref", "ext"])
    .where("importId", "=", importId)
    .where("key", "=", sql<string>`ANY(${keys}::text[])`)
    .execute();
  return new Map(rows.map((r) => [r.key, { ref: r.ref, ext: r.ext }]));
}

/** Records (or re-points) keys the batch planned, in one statement; a key given twice keeps its last entry. */
export async function planKeys(db: DbHandle, importId: string, entries: Map<string, PlannedKey>) {
  if (!entries.size) return;
  // one row per key: a Map already keeps a key's last entry, so ON CONFLICT never meets a key twice in one statement
  const rows = [...entries].map(([key, v]) => ({ importId, key, ref: v.ref, ext: v.ext }));
  await sqlInPrisma(db)
    .insertInto("ImportPlannedKey")
    .values(rows)
    .onConflict((oc) => oc.columns(["importId", "key"]).doUpdateSet((eb) => ({ ref: eb.ref("excluded.ref"), ext: eb.ref("excluded.ext") })))
    .execute();
}

/** Empties the dry run's memory: when it starts over, ends or fails. */
export async function forgetPlanned(db: Sql, importId: string) {
  await db.deleteFrom("ImportPlannedKey").where("importId", "=", importId).execute();
}
