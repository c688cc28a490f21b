// Subscription statuses as data; every status write goes through moveSubscription (compare-and-set on the current
// status, a SubscriptionStatusHistory row in the same statement).
import { Prisma, type Subscription } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import type { ActorRef } from "../shared/actor";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

export const SUBSCRIPTION_STATUSES = ["active", "trialing", "past_due", "paused", "cancelled", "unpaid"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

const SUBSCRIPTION_TRANSITIONS: Record<SubscriptionStatus, SubscriptionStatus[]> = {
  trialing: ["active", "past_due", "cancelled", "paused"],
  active: ["past_due", "cancelled", "paused"],
  past_due: ["active", "unpaid", "cancelled"],
  paused: ["active", "cancelled"],
  unpaid: ["active", "cancelled"],
  cancelled: [],
};

function canMoveSubscription(from: string, to: SubscriptionStatus) {
  return (SUBSCRIPTION_TRANSITIONS[from as SubscriptionStatus] ?? []).includes(to);
}

/**
 * Writes `data` (and, when `to` differs from the current status, the new status with its history row) with a
 * compare-and-set on the status the caller read, in one statement. Returns the updated row; 409 conflict when the row
 * moved under us.
 */
export async function moveSubscription(
  ctx: Ctx,
  s: Pick<Subscription, "id" | "status">,
  to: SubscriptionStatus,
  data: Partial<Subscription> = {},
  actor: Pick<ActorRef, "actorType" | "actorId"> = { actorType: "system", actorId: null },
  reason: string | null = null,
  extraWhere: Prisma.Sql = Prisma.empty,
): Promise<Subscription> {
  if (to !== s.status && !canMoveSubscription(s.status, to)) {
    throw new DomainError("invalid_state", `A ${s.status} subscription cannot become ${to}`, { from: s.status, to });
  }
  const sets = Object.entries({ ...data, status: to, updatedAt: ctx.clock.now() }).map(([column, v]) => {
    if (!/^[A-Za-z]+$/.test(column)) throw new Error(`moveSubscription: not a column name: ${column}`);
    const value = v !== null && typeof v === "object" && !(v instanceof Date) ? Prisma.sql`${JSON.stringify(v)}::jsonb` : Prisma.sql`${v ?? null}`;
    return Prisma.sql`${Prisma.raw(`"${column}"`)} = ${value}`;
  });
  const moved = to !== s.status;
  const [row] = await ctx.db.$queryRaw<Subscription[]>`
    WITH s AS (
      UPDATE "Subscription" SET ${Prisma.join(sets)} WHERE id = ${s.id}::uuid AND status = ${s.status} ${extraWhere} RETURNING ${columns(Prisma.SubscriptionScalarFieldEnum)}
    ), h AS (
      INSERT INTO "SubscriptionStatusHistory" (id, "subscriptionId", "fromStatus", "toStatus", "actorType", "actorId", reason, "createdAt")
      SELECT gen_random_uuid(), s.id, ${s.status}, ${to}, ${actor.actorType}, ${actor.actorId ?? null}, ${reason}, ${ctx.clock.now()} FROM s WHERE ${moved}
    )
    SELECT ${columns(Prisma.SubscriptionScalarFieldEnum)} FROM s`;
  if (!row) throw new DomainError("conflict", "The subscription changed while this request ran; retry");
  return row;
}
