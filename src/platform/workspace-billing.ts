// The workspace billing facts every credential carries for the live gate, read in the same query that
// authenticates the credential (API key, extension session, OAuth access token): one select list and one join for
// a workspace aliased `w`, and one mapping. Dashboard sessions read the same facts through Prisma relations.
import { Prisma } from "../generated/prisma/client";
import type { WorkspaceBilling } from "../shared/principal";

/** Select list: the columns BillingRow names. Needs the workspace as `w` and BILLING_JOIN. */
export const BILLING_COLUMNS = Prisma.sql`w.live AS "bLive", w."trialEndsAt" AS "bTrialEndsAt",
  EXISTS (SELECT 1 FROM "PlatformPaymentMethod" bpm WHERE bpm."workspaceId" = w.id AND bpm."deletedAt" IS NULL) AS "bHasPaymentMethod",
  bps.status AS "bSubStatus", bps."cancelAtPeriodEnd" AS "bSubCancelAtPeriodEnd", bps."currentPeriodEnd" AS "bSubPeriodEnd"`;
export const BILLING_JOIN = Prisma.sql`LEFT JOIN "PlatformSubscription" bps ON bps."workspaceId" = w.id`;

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

/** The billing facts of a row read with BILLING_COLUMNS. */
export function billingOfRow(r: BillingRow): WorkspaceBilling {
  return workspaceBilling({
    live: r.bLive,
    trialEndsAt: r.bTrialEndsAt,
    hasPaymentMethod: r.bHasPaymentMethod,
    subscription: r.bSubStatus && r.bSubPeriodEnd ? { status: r.bSubStatus, cancelAtPeriodEnd: Boolean(r.bSubCancelAtPeriodEnd), currentPeriodEnd: r.bSubPeriodEnd } : null,
  });
}
