// Subscription statuses as data; every status write goes through moveSubscription (compare-and-set on the current
// status, a SubscriptionStatusHistory row in the same statement).
import { type Expression, type ExpressionBuilder, sql, type SqlBool, type Updateable } from "kysely";
import { Prisma, type Subscription } from "../generated/prisma/client";
import type { DB } from "../db/sql";
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

/** Every column of a subscription row, named (no `*`: src/db/prepared.ts). */
export const SUBSCRIPTION_COLUMNS = Object.values(Prisma.SubscriptionScalarFieldEnum) as (keyof DB["Subscription"] & string)[];

/** A subscription row as Kysely reads it, as the Prisma type (the same values: db/sql-values.ts; json typed unknown). */
export const asSubscription = (row: { [K in keyof DB["Subscription"]]: unknown }) => row as Subscription;

/** A further condition of a subscription's compare-and-set (the renewal's lease held). */
export type SubscriptionWhere = (eb: ExpressionBuilder<DB, "Subscription">) => Expression<SqlBool>;

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
  extraWhere?: SubscriptionWhere,
): Promise<Subscription> {
  if (to !== s.status && !canMoveSubscription(s.status, to)) {
    throw new DomainError("invalid_state", `A ${s.status} subscription cannot become ${to}`, { from: s.status, to });
  }
  const now = ctx.clock.now();
  // json values (metadata) as jsonb; the rest as they are
  const set = Object.fromEntries(
    Object.entries({ ...data, status: to, updatedAt: now }).map(([column, v]) => [column, v !== null && typeof v === "object" && !(v instanceof Date) ? sql`${JSON.stringify(v)}::jsonb` : (v ?? null)]),
  ) as Updateable<DB["Subscription"]>;
  const moved = to !== s.status;
  const row = await ctx.sql
    .with("s", (db) =>
      db
        .updateTable("Subscription")
        .set(set)
        .where("id", "=", s.id)
        .where("status", "=", s.status)
        .$if(extraWhere !== undefined, (q) => q.where(extraWhere!))
        .returning(SUBSCRIPTION_COLUMNS),
    )
    .with("h", (db) =>
      db
        .insertInto("SubscriptionStatusHistory")
        .columns(["id", "subscriptionId", "fromStatus", "toStatus", "actorType", "actorId", "reason", "createdAt"])
        .expression((eb) =>
          eb
            .selectFrom("s")
            .select((eb) => [
              sql<string>`gen_random_uuid()`.as("id"),
              "s.id",
              eb.val(s.status).as("fromStatus"),
              eb.val(to).as("toStatus"),
              eb.val(actor.actorType).as("actorType"),
              eb.val(actor.actorId ?? null).as("actorId"),
              eb.val(reason).as("reason"),
              eb.val(now).as("createdAt"),
            ])
            .where(sql<SqlBool>`${moved}`),
        ),
    )
    .selectFrom("s")
    .select(SUBSCRIPTION_COLUMNS.map((c) => `s.${c}` as const))
    .executeTakeFirst();
  if (!row) throw new DomainError("conflict", "The subscription changed while this request ran; retry");
  return asSubscription(row);
}
