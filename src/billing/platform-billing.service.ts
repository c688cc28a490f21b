// The platform-billing job's sweep (jobs/platform-billing.ts): trials that end, and subscription periods that end or
// renew.
import { recordEvent } from "../events/events.service";
import type { Workspace } from "../generated/prisma/client";
import { invalidatePrincipals } from "../shared/principal-cache";
import { type Ctx, withTx } from "../shared/context";
import { addMonth, chargePlan, liveMethods, lockWorkspace, type PlanId, workspaceEventTenant } from "./billing.service";
import { chargeView } from "./billing.view";

/**
 * A renewal's charge: the default card, and when that declines (or there is no default) the backup card, recording
 * workspace.payment_method.backup_used with the backup's charge whether it succeeds or declines. The default stays the
 * default either way: the next renewal tries it first again.
 */
async function chargeRenewal(tx: Ctx, workspaceId: string, plan: PlanId): Promise<{ ok: boolean; backupUsed: boolean }> {
  const tenant = await workspaceEventTenant(tx, workspaceId);
  const cards = await tx.db.platformPaymentMethod.findMany({ where: { ...liveMethods(workspaceId), OR: [{ isDefault: true }, { isBackup: true }] } });
  const pm = cards.find((c) => c.isDefault) ?? null;
  const first = await chargePlan(tx, tenant, workspaceId, plan, pm);
  const backup = cards.find((c) => c.isBackup && !c.isDefault);
  if (first.ok || !backup) return { ok: first.ok, backupUsed: false };
  const second = await chargePlan(tx, tenant, workspaceId, plan, backup);
  await recordEvent(tx, tenant, "workspace.payment_method.backup_used", {
    workspaceId,
    paymentMethodId: backup.id,
    failedPaymentMethodId: pm?.id ?? null,
    failedChargeId: first.charge.id,
    charge: chargeView(second.charge),
  });
  return { ok: second.ok, backupUsed: true };
}

/**
 * One pass: trials that ended without a subscription record workspace.trial_expired (once); subscriptions past their
 * period end are ended (cancelled at period end) or renewed on the default card, or on the backup card when the default
 * declines (`backupUsed` counts those, renewed or not); a decline leaves them past_due and the workspace not live.
 * Each workspace in its own transaction under its row lock; safe to run twice.
 */
export async function runPlatformBilling(ctx: Ctx): Promise<{ trialsExpired: number; ended: number; renewed: number; failed: number; backupUsed: number }> {
  const now = ctx.clock.now();
  const counts = { trialsExpired: 0, ended: 0, renewed: 0, failed: 0, backupUsed: 0 };
  const trials = await ctx.db.workspace.findMany({ where: { trialEndsAt: { lte: now }, trialExpiredAt: null, live: false }, select: { id: true }, take: 500 });
  for (const { id } of trials) {
    const done = await withTx(ctx, async (tx) => {
      await lockWorkspace(tx, id);
      const ws: Workspace | null = await tx.db.workspace.findFirst({ where: { id, trialEndsAt: { lte: now }, trialExpiredAt: null, live: false } });
      if (!ws) return false;
      await tx.db.workspace.update({ where: { id }, data: { trialExpiredAt: now } });
      const hasPaymentMethod = (await tx.db.platformPaymentMethod.count({ where: liveMethods(id) })) > 0;
      await recordEvent(tx, await workspaceEventTenant(tx, id), "workspace.trial_expired", { workspaceId: id, trialEndsAt: ws.trialEndsAt!.toISOString(), hasPaymentMethod });
      return true;
    });
    if (done) counts.trialsExpired++;
  }
  const due = await ctx.db.platformSubscription.findMany({ where: { status: "active", currentPeriodEnd: { lte: now } }, select: { workspaceId: true }, take: 500 });
  for (const { workspaceId } of due) {
    const r = await withTx(ctx, async (tx) => {
      await lockWorkspace(tx, workspaceId);
      const sub = await tx.db.platformSubscription.findFirst({ where: { workspaceId, status: "active", currentPeriodEnd: { lte: now } } });
      if (!sub) return null;
      await invalidatePrincipals(tx, { workspaceId });
      if (sub.cancelAtPeriodEnd) {
        await tx.db.platformSubscription.update({ where: { id: sub.id }, data: { status: "cancelled" } });
        await tx.db.workspace.update({ where: { id: workspaceId }, data: { live: false } });
        return { outcome: "ended" as const, backupUsed: false };
      }
      const { ok, backupUsed } = await chargeRenewal(tx, workspaceId, sub.plan as PlanId);
      if (ok) {
        await tx.db.platformSubscription.update({ where: { id: sub.id }, data: { currentPeriodStart: sub.currentPeriodEnd, currentPeriodEnd: addMonth(sub.currentPeriodEnd) } });
        return { outcome: "renewed" as const, backupUsed };
      }
      await tx.db.platformSubscription.update({ where: { id: sub.id }, data: { status: "past_due" } });
      await tx.db.workspace.update({ where: { id: workspaceId }, data: { live: false } });
      return { outcome: "failed" as const, backupUsed };
    });
    if (!r) continue;
    counts[r.outcome]++;
    if (r.backupUsed) counts.backupUsed++;
  }
  return counts;
}
