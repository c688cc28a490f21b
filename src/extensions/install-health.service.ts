// The health of extension installs' endpoints, on top of the webhook delivery worker:
// - extension.ping probes: at each install (installations.service.ts), 2 minutes after each deploy (process start) and
//   every 6 hours (the extension-ping job); a non-2xx answer is reported at most once per endpoint per day
//   (WebhookEndpoint.pingFailureReportedAt), except the expected 401 to the install-time ping's first attempt.
// - automatic suspension: EXTENSION_SUSPEND_AFTER_DEAD_LETTERS (default 3) consecutive dead-lettered deliveries to an
//   install's endpoint (none succeeded in between, none before its last suspension) suspend the install
//   (suspendedReason delivery_failures).
// - alerts: the 401/403 streak alert of any endpoint, a failed probe and a suspension are WebhookAlert rows (the one
//   alert path); for an install's endpoint each also emails the application's admins and the extension's publisher.
import type { Prisma } from "../generated/prisma/client";
import { queueEmail } from "../mail/mail.service";
import { type Ctx, type Deps, makeCtx, withTx } from "../shared/context";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { sendToEndpoint } from "../webhooks/endpoints.service";
import type { DeliveryOutcome } from "../webhooks/delivery.worker";
import { installTenant } from "./installations.service";

type Tx = Prisma.TransactionClient;
const DAY_MS = 86_400_000;
export const PING_JOB = "extension-ping";
export const PING_AFTER_DEPLOY_MS = 2 * 60_000;
const SUSPENDED_ALERT = "install_suspended";

/** One extension.ping to every active install's endpoint; returns how many were sent. */
export async function probeInstallations(deps: Deps, reason: "deploy" | "schedule" | "test" = "schedule") {
  const ctx = makeCtx(deps);
  const installs = await ctx.db.installation.findMany({ where: { status: "active", webhookEndpointId: { not: null } }, take: 10_000 });
  let sent = 0;
  for (const inst of installs) {
    const ep = await ctx.db.webhookEndpoint.findUnique({ where: { id: inst.webhookEndpointId! } });
    if (!ep || !ep.isActive || ep.deletedAt) continue;
    const env = await ctx.db.environment.findUniqueOrThrow({ where: { id: inst.environmentId }, select: { kind: true } });
    await withTx(ctx, (tx) => sendToEndpoint(tx, installTenant(inst, env), ep.id, "extension.ping", { installationId: inst.id, extensionId: inst.extensionId, endpointId: ep.id, reason }));
    sent++;
  }
  return sent;
}

/**
 * The deploy probe: once, PING_AFTER_DEPLOY_MS after the process started (unref'd: it never holds the process open).
 * `probe` is there for tests that check the timing without sending anything.
 */
export function scheduleDeployProbe(deps: Deps, delayMs = PING_AFTER_DEPLOY_MS, probe: typeof probeInstallations = probeInstallations) {
  const timer = setTimeout(() => void probe(deps, "deploy").catch((e) => console.error("[extensions] deploy probe failed", e)), delayMs);
  timer.unref();
  return () => clearTimeout(timer);
}

/**
 * The install-time ping reaches an extension that may not have fetched its signing secret yet: a 401 to its first
 * attempt is expected (delivery rule 6), not a failed probe. Its retry is judged like any probe.
 */
function expectedInstallPing401(o: DeliveryOutcome) {
  return o.eventType === "extension.ping" && o.attempt === 1 && o.statusCode === 401 && (o.eventData as { reason?: unknown } | null)?.reason === "install";
}

/** Called by the delivery worker inside its bookkeeping transaction, after the outcomes are recorded. */
export async function afterDeliveryOutcomes(deps: Deps, tx: Tx, outcomes: DeliveryOutcome[]) {
  const ids = [...new Set(outcomes.map((o) => o.endpointId))];
  if (!ids.length) return;
  const managed = await tx.webhookEndpoint.findMany({ where: { id: { in: ids }, installationId: { not: null } } });
  if (!managed.length) return;
  const now = deps.clock.now();
  for (const ep of managed.sort((a, b) => a.id.localeCompare(b.id))) {
    const mine = outcomes.filter((o) => o.endpointId === ep.id);
    // a non-2xx probe answer: reported at most once per endpoint per day
    const failedPing = mine.find((o) => o.eventType === "extension.ping" && !o.ok && o.error !== "endpoint_inactive" && !expectedInstallPing401(o));
    if (failedPing) {
      const since = new Date(now.getTime() - DAY_MS);
      const claimed = await tx.webhookEndpoint.updateMany({
        where: { id: ep.id, OR: [{ pingFailureReportedAt: null }, { pingFailureReportedAt: { lte: since } }] },
        data: { pingFailureReportedAt: now },
      });
      if (claimed.count === 1) {
        const what = failedPing.statusCode !== null ? `HTTP ${failedPing.statusCode}` : (failedPing.error ?? "no answer");
        await raiseInstallAlert(deps, tx, ep.id, "ping_failed", failedPing.statusCode !== null ? [failedPing.statusCode] : [], `its extension.ping probe was answered ${what}.`);
      }
    }
    if (mine.some((o) => o.dead && o.error !== "endpoint_inactive")) await maybeSuspend(deps, tx, ep.id, ep.installationId!);
  }
}

/**
 * Suspends the install when its endpoint's last N finished deliveries all dead-lettered. A run of dead letters
 * suspends once: after a reactivation (toggle or reinstall) only dead letters since the last suspension count, so a
 * reactivated install is not suspended again by its first failure.
 */
async function maybeSuspend(deps: Deps, tx: Tx, endpointId: string, installationId: string) {
  const n = deps.config.EXTENSION_SUSPEND_AFTER_DEAD_LETTERS;
  // The delivery worker's lanes record outcomes in concurrent transactions: without a lock each would count only
  // its own dead letters plus those already committed, and three finishing together could each see fewer than N
  // (the install never suspended). Locking the endpoint row serializes them; the count below, a new statement
  // under READ COMMITTED, then sees every dead letter committed before the lock was granted.
  await sqlInPrisma(tx).selectFrom("WebhookEndpoint").select("id").where("id", "=", endpointId).forUpdate().execute();
  const lastOk = await tx.webhookDelivery.findFirst({ where: { endpointId, status: "succeeded" }, orderBy: { succeededAt: "desc" }, select: { succeededAt: true } });
  const lastSuspension = await tx.webhookAlert.findFirst({ where: { endpointId, kind: SUSPENDED_ALERT }, orderBy: { createdAt: "desc" }, select: { createdAt: true } });
  const since = [lastOk?.succeededAt, lastSuspension?.createdAt].filter((d): d is Date => Boolean(d)).sort((a, b) => b.getTime() - a.getTime())[0];
  const dead = await tx.webhookDelivery.count({
    where: { endpointId, status: "dead_letter", NOT: { lastError: "endpoint_inactive" }, ...(since ? { lastAttemptAt: { gt: since } } : {}) },
  });
  if (dead < n) return;
  const now = deps.clock.now();
  const res = await tx.installation.updateMany({ where: { id: installationId, status: "active" }, data: { status: "suspended", suspendedAt: now, suspendedReason: "delivery_failures" } });
  if (res.count === 0) return;
  await tx.webhookEndpoint.update({ where: { id: endpointId }, data: { isActive: false } });
  await raiseInstallAlert(deps, tx, endpointId, SUSPENDED_ALERT, [], `${dead} deliveries in a row were dead-lettered, so the install was suspended. Fix the endpoint, then reactivate it (POST /extensions/{id}/suspend) or reinstall.`);
}

/** An alert on an endpoint (the alert path), plus an email to application admins and the publisher for installs. */
async function raiseInstallAlert(deps: Deps, tx: Tx, endpointId: string, kind: string, statusCodes: number[], message: string) {
  await tx.webhookAlert.create({ data: { endpointId, kind, statusCodes, createdAt: deps.clock.now() } });
  await notifyInstallAlert(deps, tx, endpointId, message);
}

/**
 * Emails the application's admins and the extension's publisher about an install's endpoint (nothing for workspace
 * endpoints: their alert row is what their owner reads). Queued in the caller's transaction through the mail outbox.
 */
export async function notifyInstallAlert(deps: Deps, tx: Tx, endpointId: string, message: string) {
  const ep = await tx.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { installationId: true } });
  if (!ep?.installationId) return;
  const inst = await tx.installation.findUnique({ where: { id: ep.installationId }, include: { extension: true } });
  if (!inst) return;
  const app = await tx.application.findUniqueOrThrow({ where: { id: inst.applicationId }, select: { name: true } });
  const members = await tx.member.findMany({ where: { workspaceId: inst.workspaceId, removedAt: null }, include: { user: { select: { email: true } } } });
  const admins = members
    .filter((m) => m.workspaceRole === "owner" || m.workspaceRole === "workspace_admin" || ((m.applicationRoles ?? []) as { applicationId: string; role: string }[]).some((r) => r.applicationId === inst.applicationId && r.role === "admin"))
    .map((m) => m.user.email);
  const creator = inst.extension.createdByMember ? await tx.member.findUnique({ where: { id: inst.extension.createdByMember }, include: { user: { select: { email: true } } } }) : null;
  const publisher =
    creator && !creator.removedAt
      ? [creator.user.email]
      : (await tx.member.findMany({ where: { workspaceId: inst.extension.workspaceId, removedAt: null, workspaceRole: "owner" }, include: { user: { select: { email: true } } } })).map((m) => m.user.email);
  const ctx: Ctx = { ...makeCtx(deps), db: tx, sql: sqlInPrisma(tx), beforeCommit: [], afterCommit: [] };
  const vars = { merchantName: app.name, extensionName: inst.extension.name, message };
  const cause = `extension-alert:${endpointId}:${deps.clock.now().toISOString()}`;
  // two emails: the merchant's team and the publisher belong to different workspaces and never see each other's addresses
  queueEmail(ctx, inst, { template: "member.extension_endpoint_alert", to: [...new Set(admins)], vars, cause: `${cause}:admins` });
  queueEmail(ctx, inst, { template: "member.extension_endpoint_alert", to: [...new Set(publisher)], vars, cause: `${cause}:publisher` });
  for (const h of ctx.beforeCommit!) await h(ctx);
}
