// Install callbacks (platform rule 6): after each install, when the extension has client credentials and an
// installCallbackUrl, one notice (identifiers only) is POSTed with X-Service-Install-Token, an RS256 JWT
// (sub = installation id, aud = extension id, iss = "service") verifiable against /.well-known/extension-jwks.json.
// A row per notice (InstallCallback) makes it survive restarts: 3 attempts in all, 4xx is permanent, 5xx and network
// failures are retried (EXTENSION_CALLBACK_RETRY_SCHEDULE). Claims are leases (FOR UPDATE SKIP LOCKED, through the
// work-queue helper, shared/work-queue.ts), so two workers never send one notice at the same time.
import type { Installation } from "../generated/prisma/client";
import { signJwt } from "../platform/signing-keys";
import type { Ctx, Deps } from "../shared/context";
import { nudge } from "../shared/job-workers";
import { type Claimed as ClaimedRow, nextAttempt, WorkQueue } from "../shared/work-queue";
import { assertPublicLiteral, blockedAddressOf, guardedLookup, type Resolver, systemResolver } from "../webhooks/url-policy";
import { Agent, fetch as guardedFetch } from "undici";

export const INSTALL_CALLBACK_JOB = "extension-install-callbacks";
const INSTALL_CALLBACK_ATTEMPTS = 3;
/** Install tokens are short-lived: a receiver verifies them on arrival. */
const TOKEN_TTL_SECONDS = 300;
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;

/** One connection pool per resolver for production callbacks, connecting only to public addresses. */
const agents = new WeakMap<Resolver, Agent>();
function guardedAgent(deps: Deps): Agent {
  const resolve = deps.resolver ?? systemResolver;
  let agent = agents.get(resolve);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(resolve) as any } });
    agents.set(resolve, agent);
  }
  return agent;
}

/** Queues the notice of this install (in the install's transaction); the job sends it after commit. */
export async function queueInstallCallback(tx: Ctx, inst: Installation) {
  await tx.db.installCallback.create({ data: { installationId: inst.id, installSequence: inst.installSequence, nextAttemptAt: tx.clock.now() } });
  tx.afterCommit?.push(() => nudge(INSTALL_CALLBACK_JOB));
}

/** The signed install token of an installation (also what a receiver verifies). */
function installToken(deps: Deps, inst: { id: string; extensionId: string; installSequence: number }) {
  return signJwt(deps, "extensions", { installSequence: inst.installSequence, typ: "extension.install" }, { issuer: "service", subject: inst.id, audience: inst.extensionId, ttlSeconds: TOKEN_TTL_SECONDS });
}

/** The install-callback queue: a claim leases the row until "lockedUntil" and counts the attempt (shared/work-queue.ts). */
const CALLBACKS = new WorkQueue({ table: "InstallCallback", lease: { until: "lockedUntil" }, attempts: "attempts" });
const CLAIMED = ["id", "installationId", "installSequence", "attempts"] as const;
type Claimed = ClaimedRow<"InstallCallback", (typeof CLAIMED)[number]>;

/** One pass: sends every due notice; returns how many were attempted. */
export async function runInstallCallbacks(deps: Deps): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.clock.now();
    const claimed = await CALLBACKS.claim(deps.sql, {
      due: (eb) => eb.and([eb("status", "=", "pending"), eb("nextAttemptAt", "<=", now)]),
      order: "nextAttemptAt",
      limit: 50,
      leaseMs: LEASE_MS,
      now,
      set: { updatedAt: now },
      returning: CLAIMED,
    });
    if (!claimed.length) return total;
    total += claimed.length;
    await Promise.all(claimed.map((c) => sendOne(deps, c)));
  }
}

async function sendOne(deps: Deps, c: Claimed) {
  const { prisma, clock, config } = deps;
  const finish = (data: { status: string; lastStatusCode?: number | null; lastError?: string | null; nextAttemptAt?: Date }) =>
    CALLBACKS.finish(deps.sql, [c.id], { ...data, updatedAt: clock.now() });
  const inst = await prisma.installation.findUnique({ where: { id: c.installationId }, include: { extension: true, version: true } });
  const url = inst?.extension.installCallbackUrl;
  if (!inst || !url || !inst.extension.clientSecretHash) return finish({ status: "failed", lastError: "no install callback configured any more" });
  if (inst.installSequence !== c.installSequence || inst.status !== "active") return finish({ status: "failed", lastError: "superseded: the install changed since" });
  const env = await prisma.environment.findUniqueOrThrow({ where: { id: inst.environmentId }, select: { kind: true } });
  // identifiers only: never the manifest, config, keys or secrets
  const body = JSON.stringify({
    type: "extension.install_callback",
    installationId: inst.id,
    extensionId: inst.extensionId,
    workspaceId: inst.workspaceId,
    applicationId: inst.applicationId,
    environmentId: inst.environmentId,
    environmentKind: env.kind,
    versionId: inst.versionId,
    version: inst.version?.version ?? null,
    installSequence: inst.installSequence,
    installedAt: inst.installedAt.toISOString(),
  });
  let status: number | null = null;
  let error: string | null = null;
  try {
    // Production installs post like production webhooks: never to a private, loopback or link-local address,
    // checked for IP literals here and for every resolved name at connect time (no DNS rebinding).
    const production = env.kind === "production";
    if (production) assertPublicLiteral(url);
    const token = await installToken(deps, inst);
    const send = deps.fetch ?? (production ? (guardedFetch as unknown as typeof fetch) : fetch);
    const res = await send(url, {
      ...(production ? ({ dispatcher: guardedAgent(deps) } as object) : {}),
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "quote-to-cash-extensions/1", "x-service-install-token": token },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.status;
    await res.body?.cancel().catch(() => undefined);
  } catch (e: any) {
    const blocked = blockedAddressOf(e);
    error = (blocked ? `blocked_address: ${blocked.message}` : String(e?.cause?.code ?? e?.message ?? e)).slice(0, 200);
  }
  if (status !== null && status >= 200 && status < 300) return finish({ status: "succeeded", lastStatusCode: status, lastError: null });
  const permanent = status !== null && status >= 300 && status < 500; // 4xx (and redirects, which are not followed) are the receiver's final word
  const next = nextAttempt({ schedule: config.EXTENSION_CALLBACK_RETRY_SCHEDULE, maxAttempts: INSTALL_CALLBACK_ATTEMPTS }, c.attempts, clock.now());
  if (permanent || next.giveUp) return finish({ status: "failed", lastStatusCode: status, lastError: error ?? `HTTP ${status}` });
  return finish({ status: "pending", lastStatusCode: status, lastError: error ?? `HTTP ${status}`, nextAttemptAt: next.at });
}
