// The workspace billing facts every credential carries for the live gate, read in the same query that
// authenticates the credential (API key, extension session, OAuth access token): one select list and one join for
// a workspace aliased `w`, and one mapping. Dashboard sessions read the same facts through Prisma relations.
import type { ExpressionBuilder, Nullable } from "kysely";
import type { DB } from "../db/sql";
import type { WorkspaceBilling } from "../shared/principal";

/** The tables a credential's query names for the billing facts: its workspace as `w`, its subscription as `bps`. */
export type BillingTables = { w: DB["Workspace"]; bps: Nullable<DB["PlatformSubscription"]> };

/**
 * Select list: the columns BillingRow names. Needs the workspace as `w` and its subscription left-joined as `bps`:
 * `.leftJoin("PlatformSubscription as bps", "bps.workspaceId", "w.id")`.
 */
export function billingColumns(eb: ExpressionBuilder<DB & BillingTables, "w" | "bps">) {
  return [
    eb.ref("w.live").as("bLive"),
    eb.ref("w.trialEndsAt").as("bTrialEndsAt"),
    eb
      .exists(eb.selectFrom("PlatformPaymentMethod as bpm").select("bpm.id").whereRef("bpm.workspaceId", "=", "w.id").where("bpm.deletedAt", "is", null))
      .$castTo<boolean>()
      .as("bHasPaymentMethod"),
    eb.ref("bps.status").as("bSubStatus"),
    eb.ref("bps.cancelAtPeriodEnd").as("bSubCancelAtPeriodEnd"),
    eb.ref("bps.currentPeriodEnd").as("bSubPeriodEnd"),
  ] as const;
}

export interface BillingRow {
  bLive: boolean;
  bTrialEndsAt: Date | null;
  bHasPaymentMethod: boolean;
  bSubStatus: string | null;
  bSubCancelAtPeriodEnd: boolean | null;
  bSubPeriodEnd: Date | null;
}

export function workspaceBilling(w: {
  live: boolean;
  trialEndsAt: Date | null;
  hasPaymentMethod: boolean;
  subscription: { status: string; cancelAtPeriodEnd: boolean; currentPeriodEnd: Date } | null;
}): WorkspaceBilling {
  return {
    live: w.live,
    liveUntil: w.subscription?.cancelAtPeriodEnd ? w.subscription.currentPeriodEnd.toISOString() : null,
    trialEndsAt: w.trialEndsAt?.toISOString() ?? null,
    hasPaymentMethod: w.hasPaymentMethod,
    subscriptionStatus: w.subscription?.status ?? null,
  };
}

/** The billing facts of a row read with billingColumns. */
export function billingOfRow(r: BillingRow): WorkspaceBilling {
  return workspaceBilling({
    live: r.bLive,
    trialEndsAt: r.bTrialEndsAt,
    hasPaymentMethod: r.bHasPaymentMethod,
    subscription: r.bSubStatus && r.bSubPeriodEnd ? { status: r.bSubStatus, cancelAtPeriodEnd: Boolean(r.bSubCancelAtPeriodEnd), currentPeriodEnd: r.bSubPeriodEnd } : null,
  });
}
