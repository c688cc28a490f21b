// Undo of a committed import: deletes only the rows this import created (its ImportRecord rows with action
// "created"), newest dependents first (payments, fulfillments, orders, then customers), 1,000 at a time, each chunk
// in one transaction with the lease renewal. A row something else now depends on is kept and counted in
// undoResult.keptReasons; rows the import only updated stay as they are. When nothing was kept the import ends
// `undone`; a partial undo returns it to `completed` with undoResult saying what stayed.
import type { Import } from "../generated/prisma/client";
import { recordEvent, tenantOf } from "../events/events.service";
import { type Deps, makeCtx, type Tx, withTx } from "../shared/context";
import type { RecordRow } from "./import.handler";

interface UndoChunk {
  deleted: string[];
  /** reason -> ids kept for it */
  kept: Record<string, string[]>;
}

type UndoStep = (tx: Tx, imp: Import, ids: string[]) => Promise<UndoChunk>;

/** The order entities are undone in: dependents before what they depend on. */
const UNDO_ORDER: RecordRow["entityType"][] = ["payment", "fulfillment", "order", "customer"];
const STEPS: Partial<Record<RecordRow["entityType"], UndoStep>> = {};
export function registerUndoStep(entity: RecordRow["entityType"], step: UndoStep) {
  STEPS[entity] = step;
}

export interface UndoResult {
  deleted: Record<string, number>;
  kept: number;
  keptReasons: Record<string, number>;
}

const CHUNK = 1000;

/** Customers stay while anything outside the import refers to them. */
registerUndoStep("customer", async (tx, imp, ids) => {
  const kept: Record<string, string[]> = {};
  const keep = new Set<string>();
  const where = { customerId: { in: ids } };
  const checks: [string, () => Promise<{ customerId: string | null }[]>][] = [
    ["customer_has_orders", () => tx.order.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
    ["customer_has_carts", () => tx.cart.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
    ["customer_has_checkout_sessions", () => tx.checkoutSession.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
    ["customer_has_quotes", () => tx.quote.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
    ["customer_has_subscriptions", () => tx.subscription.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
    ["customer_has_saved_cards", () => tx.savedCard.findMany({ where, select: { customerId: true }, distinct: ["customerId"] })],
  ];
  for (const [reason, q] of checks) {
    for (const { customerId } of await q()) {
      if (!customerId || keep.has(customerId)) continue;
      keep.add(customerId);
      (kept[reason] ??= []).push(customerId);
    }
  }
  const deleted = ids.filter((id) => !keep.has(id));
  if (deleted.length) {
    await tx.trialRedemption.deleteMany({ where: { customerId: { in: deleted } } });
    await tx.pmToken.deleteMany({ where: { customerId: { in: deleted } } });
    await tx.customer.deleteMany({ where: { id: { in: deleted }, applicationId: imp.applicationId, environmentId: imp.environmentId } });
  }
  return { deleted, kept };
});

export async function runUndo(deps: Deps, imp: Import, owner: string, renew: () => Promise<void>) {
  const prev = (imp.undoResult as UndoResult | null) ?? null;
  // deletions add up over passes (what is deleted is gone from the records); what is kept is counted afresh
  const result: UndoResult = { deleted: { ...(prev?.deleted ?? {}) }, kept: 0, keptReasons: {} };
  for (const entity of UNDO_ORDER) {
    const step = STEPS[entity];
    let after: string | undefined;
    for (;;) {
      const records = await deps.prisma.importRecord.findMany({
        where: { importId: imp.id, entityType: entity, action: "created", ...(after ? { id: { gt: after } } : {}) },
        orderBy: { id: "asc" },
        take: CHUNK,
        select: { id: true, entityId: true },
      });
      if (!records.length) break;
      after = records.at(-1)!.id;
      if (!step) throw new Error(`undo of ${entity} rows is not available`);
      await deps.prisma.$transaction(
        async (tx) => {
          const chunk = await step(tx, imp, records.map((r) => r.entityId));
          if (chunk.deleted.length) {
            await tx.importRecord.deleteMany({ where: { importId: imp.id, entityType: entity, entityId: { in: chunk.deleted } } });
            result.deleted[entity] = (result.deleted[entity] ?? 0) + chunk.deleted.length;
          }
          for (const [reason, kept] of Object.entries(chunk.kept)) {
            result.keptReasons[reason] = (result.keptReasons[reason] ?? 0) + kept.length;
            result.kept += kept.length;
          }
          const n = await tx.import.updateMany({ where: { id: imp.id, leaseOwner: owner, status: "undoing" }, data: { undoResult: { ...result }, updatedAt: deps.clock.now() } });
          if (n.count !== 1) throw new Error("lease lost");
        },
        { timeout: 120_000, maxWait: 30_000 },
      );
      await renew();
      deps.hub.importChanged(imp.id);
    }
  }
  await withTx(makeCtx(deps), async (ctx) => {
    const now = ctx.clock.now();
    const n = await ctx.db.import.updateMany({
      where: { id: imp.id, leaseOwner: owner, status: "undoing" },
      data: { status: result.kept > 0 ? "completed" : "undone", undoResult: { ...result }, lastPassMode: "undo", leaseOwner: null, leaseUntil: null, updatedAt: now },
    });
    if (n.count !== 1) throw new Error("lease lost");
    await recordEvent(ctx, await tenantOf(ctx, imp), "import.completed", { importId: imp.id, mode: "undo", entityType: imp.entityType, undoResult: result });
  });
  deps.hub.importChanged(imp.id);
}
