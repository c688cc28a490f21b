// The workspace's own billing with the platform: its subscription (subscribe, cancel at period end, resume) and the
// cards it pays with (the sweep that renews and ends periods is platform-billing.service.ts). A workspace is live
// while it has an active subscription; every change that moves the live gate invalidates the workspace's cached
// principals in the same transaction, so every process sees it at once.
import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { type EventTenant, recordEvent } from "../events/events.service";
import type { PlatformCharge, PlatformPaymentMethod, PlatformSubscription } from "../generated/prisma/client";
import { requirePermission, requireScope } from "../shared/guards";
import { invalidatePrincipals } from "../shared/principal-cache";
import { processorFor, TEST_TOKENS, testVaultReference } from "../payments/processor";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { chargeView, type PaymentMethodView, paymentMethodView, subscriptionView } from "./billing.view";
import { billingState, type BillingState } from "../platform/live-gate";

/** The platform's plans: a monthly charge in USD minor units. */
const PLANS = {
  starter: { name: "Starter", amount: 2900 },
  growth: { name: "Growth", amount: 9900 },
  scale: { name: "Scale", amount: 29900 },
} as const;
export type PlanId = keyof typeof PLANS;
export const PLAN_IDS = Object.keys(PLANS) as PlanId[];
const CURRENCY = "USD";

// ---- who may call --------------------------------------------------------------------------------------

/**
 * Billing reads: a key with billing:read, or a dashboard member with a workspace role. Writes: a key with
 * billing:write, or the workspace owner (403 permission_denied for anyone else).
 */
function billingWorkspace(ctx: Ctx, write: boolean): string {
  const p = requireScope(ctx, write ? "billing:write" : "billing:read");
  if (p.member) requirePermission(ctx, write ? "workspace:billing:write" : "workspace:billing:read");
  return p.workspace.id;
}

/** Where the workspace stands: `state` is what its production credentials get (live, trialing, or the 402 code). */
export interface BillingOverview {
  workspaceId: string;
  live: boolean;
  state: BillingState;
  trialEndsAt: string | null;
  subscription: ReturnType<typeof subscriptionView> | null;
  defaultPaymentMethodId: string | null;
  backupPaymentMethodId: string | null;
}

async function overview(ctx: Ctx, workspaceId: string): Promise<BillingOverview> {
  const ws = await ctx.db.workspace.findUniqueOrThrow({
    where: { id: workspaceId },
    include: { platformSubscription: true, platformPaymentMethods: { where: { deletedAt: null }, orderBy: [{ isDefault: "desc" }, { createdAt: "asc" }] } },
  });
  const sub = ws.platformSubscription;
  const state = billingState(
    {
      live: ws.live,
      liveUntil: sub?.cancelAtPeriodEnd ? sub.currentPeriodEnd.toISOString() : null,
      trialEndsAt: ws.trialEndsAt?.toISOString() ?? null,
      hasPaymentMethod: ws.platformPaymentMethods.length > 0,
      subscriptionStatus: sub?.status ?? null,
    },
    ctx.clock.now(),
  );
  return {
    workspaceId: ws.id,
    live: state === "live",
    state,
    trialEndsAt: ws.trialEndsAt?.toISOString() ?? null,
    subscription: sub ? subscriptionView(sub) : null,
    defaultPaymentMethodId: ws.platformPaymentMethods.find((m) => m.isDefault)?.id ?? null,
    backupPaymentMethodId: ws.platformPaymentMethods.find((m) => m.isBackup)?.id ?? null,
  };
}

export async function getBilling(ctx: Ctx): Promise<BillingOverview> {
  return overview(ctx, billingWorkspace(ctx, false));
}

// ---- events --------------------------------------------------------------------------------------------

/** Workspace events are recorded in the workspace's production environment, on its first application. */
export async function workspaceEventTenant(ctx: Ctx, workspaceId: string): Promise<EventTenant> {
  // one after the other: callers pass a transaction, whose connection takes one statement at a time
  const app = await ctx.db.application.findFirst({ where: { workspaceId }, orderBy: { createdAt: "asc" }, select: { id: true } });
  const env = await ctx.db.environment.findFirst({ where: { workspaceId, kind: "production", isSystem: true }, select: { id: true } });
  if (!app || !env) throw new Error(`workspace ${workspaceId} has no application or production environment`);
  return { workspaceId, applicationId: app.id, environmentId: env.id, environmentKind: "production" };
}

/** Serializes billing changes of one workspace (subscribe, card changes, the sweep). */
export async function lockWorkspace(tx: Ctx, workspaceId: string) {
  await tx.sql.selectFrom("Workspace").select("id").where("id", "=", workspaceId).forUpdate().execute();
}

// ---- payment methods -----------------------------------------------------------------------------------

export const addPaymentMethodInput = z.strictObject({
  paymentToken: z.string().min(1).max(200).meta({ description: "A test processor token: tok_visa (charges succeed) or tok_card_declined (charges decline)" }),
  makeDefault: z.boolean().optional().meta({ description: "Make it the default (the first card always is)" }),
});

export const liveMethods = (workspaceId: string) => ({ workspaceId, deletedAt: null });

export async function listPaymentMethods(ctx: Ctx): Promise<PaymentMethodView[]> {
  const workspaceId = billingWorkspace(ctx, false);
  const rows = await ctx.db.platformPaymentMethod.findMany({ where: liveMethods(workspaceId), orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return rows.map(paymentMethodView);
}

/** Vaults a card in the caller's transaction (the workspace row already locked). */
async function vaultCard(tx: Ctx, workspaceId: string, paymentToken: string, makeDefault: boolean, path: (string | number)[]) {
  if (!(paymentToken in TEST_TOKENS) || paymentToken === "tok_3ds_required") {
    throw errors.validation([{ path, message: `Unknown test card token "${paymentToken}": use tok_visa or tok_card_declined` }]);
  }
  const tenant = await workspaceEventTenant(tx, workspaceId);
  const existing = await tx.db.platformPaymentMethod.findMany({ where: liveMethods(workspaceId) });
  const previous = existing.find((m) => m.isDefault) ?? null;
  const isDefault = makeDefault || !previous;
  if (isDefault && previous) await tx.db.platformPaymentMethod.update({ where: { id: previous.id }, data: { isDefault: false } });
  const now = tx.clock.now();
  const pm = await tx.db.platformPaymentMethod.create({
    data: {
      id: `wpm_${randomBytes(12).toString("hex")}`,
      workspaceId,
      cardBrand: "visa",
      cardLastFour: paymentToken === "tok_card_declined" ? "0002" : "4242",
      cardExpMonth: 12,
      cardExpYear: now.getUTCFullYear() + 3,
      isDefault,
      processorReference: testVaultReference(paymentToken),
      createdAt: now,
    },
  });
  await recordEvent(tx, tenant, "workspace.payment_method.added", { workspaceId, paymentMethod: paymentMethodView(pm) });
  if (isDefault && previous) {
    await recordEvent(tx, tenant, "workspace.payment_method.default_changed", { workspaceId, paymentMethodId: pm.id, previousPaymentMethodId: previous.id });
  }
  // A first card turns an ended trial's trial_expired into workspace_not_entitled_for_live.
  if (existing.length === 0) await invalidatePrincipals(tx, { workspaceId });
  return pm;
}

export async function addPaymentMethod(ctx: Ctx, body: unknown): Promise<PaymentMethodView> {
  const workspaceId = billingWorkspace(ctx, true);
  const input = parseInput(addPaymentMethodInput, body ?? {});
  return withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    return paymentMethodView(await vaultCard(tx, workspaceId, input.paymentToken, input.makeDefault ?? false, ["paymentToken"]));
  });
}

async function methodOf(tx: Ctx, workspaceId: string, id: string) {
  const pm = /^wpm_[0-9a-f]{1,64}$/.test(id) ? await tx.db.platformPaymentMethod.findFirst({ where: { id, ...liveMethods(workspaceId) } }) : null;
  if (!pm) throw errors.notFound("Payment method");
  return pm;
}

export async function setDefaultPaymentMethod(ctx: Ctx, id: string): Promise<PaymentMethodView> {
  const workspaceId = billingWorkspace(ctx, true);
  return withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const pm = await methodOf(tx, workspaceId, id);
    if (pm.isDefault) return paymentMethodView(pm);
    const previous = await tx.db.platformPaymentMethod.findFirst({ where: { ...liveMethods(workspaceId), isDefault: true } });
    if (previous) await tx.db.platformPaymentMethod.update({ where: { id: previous.id }, data: { isDefault: false } });
    // A card is never both: the backup made the default leaves the workspace without a backup.
    const updated = await tx.db.platformPaymentMethod.update({ where: { id: pm.id }, data: { isDefault: true, isBackup: false } });
    await recordEvent(tx, await workspaceEventTenant(tx, workspaceId), "workspace.payment_method.default_changed", {
      workspaceId,
      paymentMethodId: pm.id,
      previousPaymentMethodId: previous?.id ?? null,
    });
    return paymentMethodView(updated);
  });
}

/**
 * Marks a card as the backup: when a renewal on the default card declines, the platform-billing job charges this one
 * (workspace.payment_method.backup_used). At most one per workspace, replacing the previous backup; never the default
 * card (409 cannot_backup_default). Marking the card that already is the backup changes nothing.
 */
export async function setBackupPaymentMethod(ctx: Ctx, id: string): Promise<PaymentMethodView> {
  const workspaceId = billingWorkspace(ctx, true);
  return withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const pm = await methodOf(tx, workspaceId, id);
    if (pm.isBackup) return paymentMethodView(pm);
    if (pm.isDefault) {
      throw new DomainError("cannot_backup_default", "This card is the default: the backup must be another card (add one, or make another card the default first)", { paymentMethodId: pm.id });
    }
    const previous = await tx.db.platformPaymentMethod.findFirst({ where: { ...liveMethods(workspaceId), isBackup: true } });
    if (previous) await tx.db.platformPaymentMethod.update({ where: { id: previous.id }, data: { isBackup: false } });
    const updated = await tx.db.platformPaymentMethod.update({ where: { id: pm.id }, data: { isBackup: true } });
    await recordEvent(tx, await workspaceEventTenant(tx, workspaceId), "workspace.payment_method.backup_set", {
      workspaceId,
      paymentMethodId: pm.id,
      previousPaymentMethodId: previous?.id ?? null,
    });
    return paymentMethodView(updated);
  });
}

/**
 * Soft delete. The default card cannot go while a subscription renews on it: 409 cannot_remove_default. Removing the
 * backup leaves the workspace without one.
 */
export async function removePaymentMethod(ctx: Ctx, id: string): Promise<void> {
  const workspaceId = billingWorkspace(ctx, true);
  await withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const pm = await methodOf(tx, workspaceId, id);
    if (pm.isDefault) {
      const sub = await tx.db.platformSubscription.findUnique({ where: { workspaceId } });
      if (sub && sub.status !== "cancelled" && !sub.cancelAtPeriodEnd) {
        throw new DomainError("cannot_remove_default", "The default card pays the active subscription: make another card the default first, or cancel");
      }
    }
    await tx.db.platformPaymentMethod.update({ where: { id: pm.id }, data: { deletedAt: tx.clock.now(), isDefault: false, isBackup: false } });
    await recordEvent(tx, await workspaceEventTenant(tx, workspaceId), "workspace.payment_method.removed", { workspaceId, paymentMethodId: pm.id });
    const left = await tx.db.platformPaymentMethod.count({ where: liveMethods(workspaceId) });
    if (left === 0) await invalidatePrincipals(tx, { workspaceId });
  });
}

// ---- subscription --------------------------------------------------------------------------------------

export const subscribeInput = z.strictObject({
  plan: z.enum(PLAN_IDS as [PlanId, ...PlanId[]]).meta({ description: "starter (29.00 USD a month), growth (99.00) or scale (299.00)" }),
  paymentToken: z.string().min(1).max(200).optional().meta({ description: "Pay with a new test card (tok_visa); without it the default card on file pays" }),
});

export function addMonth(d: Date) {
  const n = new Date(d.getTime());
  n.setUTCMonth(n.getUTCMonth() + 1);
  return n;
}

interface ChargeOutcome {
  charge: PlatformCharge;
  ok: boolean;
}

/** Charges the default card for one period of `plan` and records the charge and its event (caller's transaction). */
export async function chargePlan(tx: Ctx, tenant: EventTenant, workspaceId: string, plan: PlanId, pm: PlatformPaymentMethod | null): Promise<ChargeOutcome> {
  const { amount } = PLANS[plan];
  const chargeId = randomUUID();
  const result = pm
    ? await processorFor("test").charge({ amount, currency: CURRENCY, paymentToken: pm.processorReference, reference: chargeId })
    : { outcome: "failed" as const, processorPaymentId: null, errorCode: "no_payment_method" };
  const ok = result.outcome === "captured";
  const charge = await tx.db.platformCharge.create({
    data: {
      id: chargeId,
      workspaceId,
      plan,
      amount,
      currency: CURRENCY,
      status: ok ? "succeeded" : "failed",
      paymentMethodId: pm?.id ?? null,
      processorPaymentId: result.processorPaymentId,
      failureCode: ok ? null : (result.errorCode ?? "card_declined"),
      createdAt: tx.clock.now(),
    },
  });
  if (ok) await recordEvent(tx, tenant, "workspace.platform_charge.succeeded", { workspaceId, charge: chargeView(charge) });
  else await recordEvent(tx, tenant, "workspace.platform_charge.failed", { workspaceId, charge: chargeView(charge) });
  return { charge, ok };
}

/**
 * Subscribes the workspace to `plan`, charging the first month now: with `paymentToken` the new card is vaulted as
 * the default first, else the default card on file pays. Success makes the workspace live at once (every process).
 * A decline keeps the failed charge (and a card given here) and answers 402 payment_failed.
 */
export async function subscribe(ctx: Ctx, body: unknown): Promise<BillingOverview> {
  const workspaceId = billingWorkspace(ctx, true);
  const input = parseInput(subscribeInput, body ?? {});
  const outcome = await withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const existing = await tx.db.platformSubscription.findUnique({ where: { workspaceId } });
    if (existing?.status === "active") {
      throw new DomainError(
        "invalid_subscription_state",
        existing.cancelAtPeriodEnd ? "The subscription is cancelled at period end: resume it instead (POST /billing/resume)" : "The workspace already has an active subscription",
        { status: existing.status, cancelAtPeriodEnd: existing.cancelAtPeriodEnd },
      );
    }
    const pm = input.paymentToken
      ? await vaultCard(tx, workspaceId, input.paymentToken, true, ["paymentToken"])
      : await tx.db.platformPaymentMethod.findFirst({ where: { ...liveMethods(workspaceId), isDefault: true } });
    if (!pm) throw errors.validation([{ path: ["paymentToken"], message: "Required: the workspace has no card on file" }]);
    const tenant = await workspaceEventTenant(tx, workspaceId);
    const { charge, ok } = await chargePlan(tx, tenant, workspaceId, input.plan, pm);
    if (!ok) return { failed: charge };
    const now = tx.clock.now();
    const period = { plan: input.plan, status: "active", amount: PLANS[input.plan].amount, currency: CURRENCY, interval: "month", currentPeriodStart: now, currentPeriodEnd: addMonth(now), cancelAtPeriodEnd: false, cancelledAt: null };
    await tx.db.platformSubscription.upsert({ where: { workspaceId }, create: { workspaceId, ...period }, update: period });
    await tx.db.workspace.update({ where: { id: workspaceId }, data: { live: true } });
    await invalidatePrincipals(tx, { workspaceId });
    return { failed: null };
  });
  if (outcome.failed) {
    throw new DomainError("payment_failed", "The card was declined: the workspace is not subscribed", {
      reason: outcome.failed.failureCode,
      chargeId: outcome.failed.id,
    });
  }
  return overview(ctx, workspaceId);
}

function stateError(sub: PlatformSubscription | null, message: string) {
  return new DomainError("invalid_subscription_state", message, { status: sub?.status ?? null, cancelAtPeriodEnd: sub?.cancelAtPeriodEnd ?? null });
}

/** Cancels at period end: the workspace stays live until then. */
export async function cancel(ctx: Ctx): Promise<BillingOverview> {
  const workspaceId = billingWorkspace(ctx, true);
  await withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const sub = await tx.db.platformSubscription.findUnique({ where: { workspaceId } });
    if (!sub || sub.status !== "active" || sub.cancelAtPeriodEnd) throw stateError(sub, "Only an active subscription that is not already cancelled can be cancelled");
    await tx.db.platformSubscription.update({ where: { id: sub.id }, data: { cancelAtPeriodEnd: true, cancelledAt: tx.clock.now() } });
    await invalidatePrincipals(tx, { workspaceId });
  });
  return overview(ctx, workspaceId);
}

/** Undoes a cancellation before the period ends. */
export async function resume(ctx: Ctx): Promise<BillingOverview> {
  const workspaceId = billingWorkspace(ctx, true);
  await withTx(ctx, async (tx) => {
    await lockWorkspace(tx, workspaceId);
    const sub = await tx.db.platformSubscription.findUnique({ where: { workspaceId } });
    if (!sub || sub.status !== "active" || !sub.cancelAtPeriodEnd || sub.currentPeriodEnd <= tx.clock.now()) {
      throw stateError(sub, "Only a subscription cancelled at period end, before that end, can be resumed; subscribe again otherwise");
    }
    await tx.db.platformSubscription.update({ where: { id: sub.id }, data: { cancelAtPeriodEnd: false, cancelledAt: null } });
    await invalidatePrincipals(tx, { workspaceId });
  });
  return overview(ctx, workspaceId);
}
