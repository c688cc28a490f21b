// Partner referrals: a partner workspace opens a trial workspace for a client, then hands it over. handoffState:
// `not_started` (the partner runs the trial), `invited` (claim-billing mailed the client a handoff code), `claimed`
// (the client accepted: it owns the workspace and its billing; the partner's members stay as workspace admins).
// Partner routes are dashboard-only (keys: 403 application_key_workspace_route), for owners and workspace admins
// of a partner workspace; another partner's referral reads as 404.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { PartnerReferral, Workspace } from "../generated/prisma/client";
import { queueEmail } from "../mail/mail.service";
import { requireDashboard, requirePermission } from "../shared/guards";
import { ensureWorkspace, mintDashboardToken } from "../platform/bootstrap.service";
import { type Ctx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { revealOnce } from "../shared/secrets";
import { DomainError, errors, parseInput } from "../shared/errors";
import { keyset, type PageQuery, toPage } from "../shared/pagination";
import { isUuid } from "../shared/ids";

/** How long a client trial lasts. */
const TRIAL_DAYS = 14;
/** How long a mailed handoff code stays valid. */
const HANDOFF_TTL_DAYS = 7;
const DAY_MS = 86_400_000;

export type HandoffState = "not_started" | "invited" | "claimed";
export const HANDOFF_STATES: HandoffState[] = ["not_started", "invited", "claimed"];

type ReferralRow = PartnerReferral & { clientWorkspace: Workspace };

export function referralView(r: ReferralRow) {
  return {
    referralId: r.id,
    workspaceId: r.clientWorkspaceId,
    workspaceName: r.clientWorkspace.name,
    clientEmail: r.clientEmail,
    handoffState: r.handoffState as HandoffState,
    trialEndsAt: r.clientWorkspace.trialEndsAt?.toISOString() ?? null,
    invitedAt: r.invitedAt?.toISOString() ?? null,
    handoffExpiresAt: r.handoffState === "invited" ? (r.handoffExpiresAt?.toISOString() ?? null) : null,
    claimedAt: r.claimedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}
export type ReferralView = ReturnType<typeof referralView>;

/** The calling partner workspace (dashboard owner or workspace admin of a workspace flagged as partner). */
async function requirePartner(ctx: Ctx) {
  const p = requireDashboard(ctx);
  requirePermission(ctx, "workspace:partners");
  const ws = await ctx.db.workspace.findUnique({ where: { id: p.workspace.id }, select: { id: true, name: true, isPartner: true } });
  if (!ws?.isPartner) throw errors.permissionDenied("This workspace is not a partner workspace");
  return { workspace: ws, member: p.member };
}

export const createTrialInput = z.strictObject({
  clientEmail: z.email().max(254).meta({ description: "The client who will own the workspace after the handoff" }),
  workspaceName: z.string().trim().min(1).max(100).meta({ description: "The client workspace's name" }),
});

function slugFor(name: string) {
  const base = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "workspace";
  return `${base}-${randomToken(6).toLowerCase()}`;
}

/**
 * Opens a client trial: a new workspace (production, sandbox, one application) on a TRIAL_DAYS trial, whose owner is
 * the calling partner member until the handoff. Production credentials work during the trial; after it they answer
 * 402 trial_expired unless a card is on file and the workspace subscribes.
 */
export async function createTrial(ctx: Ctx, body: unknown): Promise<ReferralView> {
  const partner = await requirePartner(ctx);
  const input = parseInput(createTrialInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const now = tx.clock.now();
    const w = await ensureWorkspace(tx, {
      slug: slugFor(input.workspaceName),
      name: input.workspaceName,
      ownerEmail: partner.member.email,
      appSlug: "store",
      appName: input.workspaceName,
      trialEndsAt: new Date(now.getTime() + TRIAL_DAYS * DAY_MS),
    });
    const r = await tx.db.partnerReferral.create({
      data: { partnerWorkspaceId: partner.workspace.id, clientWorkspaceId: w.ws.id, clientEmail: input.clientEmail.toLowerCase(), createdByMemberId: partner.member.id, createdAt: now },
      include: { clientWorkspace: true },
    });
    return referralView(r);
  });
}

export async function listReferrals(ctx: Ctx, page: PageQuery) {
  const partner = await requirePartner(ctx);
  const ks = keyset(page);
  const rows = await ctx.db.partnerReferral.findMany({
    where: { partnerWorkspaceId: partner.workspace.id, ...ks.where },
    orderBy: ks.orderBy,
    take: ks.take,
    include: { clientWorkspace: true },
  });
  return toPage(rows, page);
}

async function referralOf(tx: Ctx, partnerWorkspaceId: string, id: string): Promise<ReferralRow> {
  const r = isUuid(id)
    ? await tx.db.partnerReferral.findFirst({ where: { id, partnerWorkspaceId }, include: { clientWorkspace: true } })
    : null;
  if (!r) throw errors.notFound("Referral");
  return r;
}

/** Locks the referral row: claim-billing, revoke and accept of one referral run one at a time. */
async function lockReferral(tx: Ctx, id: string) {
  await tx.sql.selectFrom("PartnerReferral").select("id").where("id", "=", id).forUpdate().execute();
}

/**
 * Starts (or restarts) the handoff of the workspace and its billing to the client: mails the client a new handoff
 * code (the previous one dies). 409 client_owns_workspace once the client accepted.
 */
export async function claimBilling(ctx: Ctx, referralId: string): Promise<ReferralView> {
  const partner = await requirePartner(ctx);
  return withTx(ctx, async (tx) => {
    const found = await referralOf(tx, partner.workspace.id, referralId);
    await lockReferral(tx, found.id);
    const r = await referralOf(tx, partner.workspace.id, referralId);
    if (r.handoffState === "claimed") throw new DomainError("client_owns_workspace", "The client accepted the handoff: the workspace and its billing are theirs", { handoffState: r.handoffState });
    const now = tx.clock.now();
    const token = `hof_${randomToken(40)}`;
    const expiresAt = new Date(now.getTime() + HANDOFF_TTL_DAYS * DAY_MS);
    const updated = await tx.db.partnerReferral.update({
      where: { id: r.id },
      data: { handoffState: "invited", handoffTokenHash: sha256Hex(token), handoffExpiresAt: expiresAt, invitedAt: now },
      include: { clientWorkspace: true },
    });
    // one after the other: a transaction's connection takes one statement at a time
    const app = await tx.db.application.findFirst({ where: { workspaceId: r.clientWorkspaceId }, orderBy: { createdAt: "asc" }, select: { id: true } });
    const env = await tx.db.environment.findFirst({ where: { workspaceId: r.clientWorkspaceId, kind: "production", isSystem: true }, select: { id: true } });
    queueEmail(tx, { applicationId: app!.id, environmentId: env!.id }, {
      template: "client.partner_handoff",
      to: [r.clientEmail],
      vars: { merchantName: partner.workspace.name, workspaceName: r.clientWorkspace.name, handoffToken: token, expiresAt: expiresAt.toISOString().slice(0, 10) },
      cause: `handoff:${r.id}:${randomUUID()}`,
    });
    return referralView(updated);
  });
}

/** Withdraws a pending handoff (the mailed code dies). 409 handoff_not_revocable once the client accepted. */
export async function revokeHandoff(ctx: Ctx, referralId: string): Promise<ReferralView> {
  const partner = await requirePartner(ctx);
  return withTx(ctx, async (tx) => {
    const found = await referralOf(tx, partner.workspace.id, referralId);
    await lockReferral(tx, found.id);
    const r = await referralOf(tx, partner.workspace.id, referralId);
    if (r.handoffState === "claimed") throw new DomainError("handoff_not_revocable", "The client already accepted the handoff", { handoffState: r.handoffState });
    if (r.handoffState === "not_started") return referralView(r);
    const updated = await tx.db.partnerReferral.update({
      where: { id: r.id },
      data: { handoffState: "not_started", handoffTokenHash: null, handoffExpiresAt: null },
      include: { clientWorkspace: true },
    });
    return referralView(updated);
  });
}

export const acceptHandoffInput = z.strictObject({ token: z.string().min(1).max(200).meta({ description: "The handoff code from the email (hof_…)" }) });

/**
 * The client accepts with the mailed code (the code is the authority; no credential needed): the client becomes the
 * workspace's owner, the partner's owners become workspace admins, and a dashboard session for the client is
 * returned once. An unknown, revoked, used or expired code: 404 not_found.
 */
export async function acceptHandoff(ctx: Ctx, body: unknown) {
  const input = parseInput(acceptHandoffInput, body ?? {});
  return withTx(ctx, async (tx) => {
    const hash = sha256Hex(input.token);
    const found = /^hof_[A-Za-z0-9]{10,80}$/.test(input.token) ? await tx.db.partnerReferral.findUnique({ where: { handoffTokenHash: hash } }) : null;
    if (!found) throw errors.notFound("Handoff");
    await lockReferral(tx, found.id);
    const r = await tx.db.partnerReferral.findUnique({ where: { id: found.id } });
    const now = tx.clock.now();
    if (!r || r.handoffTokenHash !== hash || r.handoffState !== "invited" || !r.handoffExpiresAt || r.handoffExpiresAt <= now) throw errors.notFound("Handoff");
    const user = (await tx.db.user.findUnique({ where: { email: r.clientEmail } })) ?? (await tx.db.user.create({ data: { email: r.clientEmail } }));
    await tx.db.member.updateMany({ where: { workspaceId: r.clientWorkspaceId, workspaceRole: "owner", userId: { not: user.id } }, data: { workspaceRole: "workspace_admin" } });
    const member = await tx.db.member.upsert({
      where: { workspaceId_userId: { workspaceId: r.clientWorkspaceId, userId: user.id } },
      create: { workspaceId: r.clientWorkspaceId, userId: user.id, workspaceRole: "owner", environmentGrants: { grantType: "all" } },
      update: { workspaceRole: "owner", environmentGrants: { grantType: "all" } },
    });
    await tx.db.partnerReferral.update({ where: { id: r.id }, data: { handoffState: "claimed", claimedAt: now, handoffTokenHash: null } });
    const dashboardToken = await mintDashboardToken(tx, member.id);
    return { referralId: r.id, workspaceId: r.clientWorkspaceId, memberId: member.id, dashboardToken: revealOnce(dashboardToken) };
  });
}
