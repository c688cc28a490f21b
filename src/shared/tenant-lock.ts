// The row lock a command takes on a tenant's order or quote before it checks its rules and writes.
import type { Ctx } from "./context";

/**
 * SELECT id FROM the table WHERE id and the tenant match … FOR UPDATE, for the caller to run (and to add NOWAIT to):
 * another tenant's id finds nothing, so it reads as unknown, and two commands on one row run one after the other in
 * any process.
 */
export function lockTenantRow(tx: Ctx, table: "Order" | "Quote", t: { applicationId: string; environmentId: string }, id: string) {
  return tx.sql
    .selectFrom(table)
    .select("id")
    .where("id", "=", id)
    .where("applicationId", "=", t.applicationId)
    .where("environmentId", "=", t.environmentId)
    .forUpdate();
}
