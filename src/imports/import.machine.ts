// Bulk import statuses as data; every status write goes through moveImport (compare-and-set on the status the
// caller read, together with the columns the move sets), so two racing verbs cannot both move one import.
import type { Import, Prisma } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const IMPORT_STATUSES = ["created", "mapping", "validating", "validated", "committing", "completed", "failed", "undoing", "undone"] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Who may move where. Staying in `mapping` is a move too (inspect again, save the mapping again). */
export const IMPORT_TRANSITIONS: Record<ImportStatus, ImportStatus[]> = {
  created: ["mapping"],
  mapping: ["mapping", "validating"],
  validating: ["validated", "failed"],
  // saving the mapping again clears dryRunAt and sends the import back to mapping
  validated: ["mapping", "validating", "committing"],
  committing: ["completed", "failed"],
  completed: ["undoing"],
  // a failed validate goes back to a dry run; a failed commit resumes (needs dryRunAt); a failed undo is retried
  failed: ["mapping", "validating", "committing", "undoing"],
  // a partial undo returns to where it came from, with undoResult saying what was kept
  undoing: ["undone", "completed", "failed"],
  undone: [],
};

export function canMoveImport(from: string, to: ImportStatus) {
  return (IMPORT_TRANSITIONS[from as ImportStatus] ?? []).includes(to);
}

export class ImportStateError extends DomainError {
  constructor(from: string, to: ImportStatus) {
    super("invalid_import_state", `An import in ${from} cannot move to ${to}`, { from, to });
  }
}

/**
 * Moves the import from the status the caller read to `to`, writing `data` in the same conditional UPDATE.
 * 409 invalid_import_state when the table forbids the move; 409 conflict when the import moved under us.
 */
export async function moveImport(ctx: Ctx, imp: Pick<Import, "id" | "status">, to: ImportStatus, data: Prisma.ImportUpdateManyMutationInput = {}): Promise<Import> {
  if (!canMoveImport(imp.status, to)) throw new ImportStateError(imp.status, to);
  const { count } = await ctx.db.import.updateMany({ where: { id: imp.id, status: imp.status }, data: { ...data, status: to, updatedAt: ctx.clock.now() } });
  if (count !== 1) throw new DomainError("conflict", "The import changed while this request ran; retry");
  return ctx.db.import.findUniqueOrThrow({ where: { id: imp.id } });
}
