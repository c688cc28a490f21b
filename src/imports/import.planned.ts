// What a dry run would have created, remembered in the database (ImportPlannedKey) rather than in the worker: a dry
// run writes no customer or order, yet a later batch must know that an earlier one "created" a person (the same
// email again is an update) or an order (its rows further down append lines). Held in memory, that knowledge grew
// with every row of the file; here it costs one lookup and one upsert per batch, and the worker's memory stays flat.
// The commit needs none of it: what it created is in the customer and order tables.
import type { DbHandle } from "../shared/context";

export interface PlannedKey {
  /** customers: the id the key names; orders: the order's currency */
  ref: string;
  /** customers: that customer's externalId, when it has one */
  ext: string | null;
}

/** The planned entries of `keys` ("e:<email>", "x:<externalId>", "o:<order number>") of this import's dry run. */
export async function plannedKeys(db: DbHandle, importId: string, keys: string[]): Promise<Map<string, PlannedKey>> {
  if (!keys.length) return new Map();
  const rows = await db.$queryRawUnsafe<{ key: string; ref: string; ext: string | null }[]>(
    `SELECT "key", "ref", "ext" FROM "ImportPlannedKey" WHERE "importId" = $1::uuid AND "key" = ANY($2::text[])`,
    importId,
    keys,
  );
  return new Map(rows.map((r) => [r.key, { ref: r.ref, ext: r.ext }]));
}

/** Records (or re-points) keys the batch planned, in one statement; a key given twice keeps its last entry. */
export async function planKeys(db: DbHandle, importId: string, entries: Map<string, PlannedKey>) {
  if (!entries.size) return;
  const keys = [...entries.keys()];
  const values = [...entries.values()];
  await db.$executeRawUnsafe(
    `INSERT INTO "ImportPlannedKey" ("importId", "key", "ref", "ext")
     SELECT $1::uuid, k, r, e FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, r, e)
     ON CONFLICT ("importId", "key") DO UPDATE SET "ref" = EXCLUDED."ref", "ext" = EXCLUDED."ext"`,
    importId,
    keys,
    values.map((v) => v.ref),
    values.map((v) => v.ext),
  );
}

/** Empties the dry run's memory: when it starts over, ends or fails. */
export async function forgetPlanned(db: DbHandle, importId: string) {
  await db.$executeRaw`DELETE FROM "ImportPlannedKey" WHERE "importId" = ${importId}::uuid`;
}
