// Workspace invitations: create, list, resend (rotates the token), revoke (the token dies at once), accept, and the
// expiry job. The token is opaque (`inv_` + 40 base62), reaches the invitee only in the invitation email (a link to
// {DASHBOARD_URL}/invites/{token}), and only its sha256 is stored; it is cleared when the invitation is accepted
// or revoked, and replaced on resend, so an old link answers 404.
import { z } from "zod";
import type { Invitation, Prisma } from "../generated/prisma/client";
import { queueEmail } from "../mail/mail.service";
import { type Ctx, type Deps, isUniqueViolation, makeCtx, withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { DomainError, errors, parseInput } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { isPinned, requireDashboard, requirePermission } from "../shared/guards";
import { INVITATION_STATUSES, inviteNotPending, moveInvitation } from "./invitation.machine";
import { invalidatePrincipals } from "../shared/principal-cache";
import {
  type ApplicationRole,
  applicationAccess,
  applicationRolesInput,
  assertMayGrant,
  checkApplications,
  defaultGrants,
  effectiveGrants,
  environmentGrantsInput,
  resolveGrants,
  workspaceRoleInput,
} from "./team.grants";
import { formatDay } from "../shared/dates";
import { isUuid } from "../shared/ids";

/** Invitation lifetime: 7 days from creation, and again from each resend. */
const INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

/** `email` is the only required field (platform.md part 4): without roles the member joins with no application access. */
export const createInviteInput = z.strictObject({
  email: z.string().trim().min(3).max(320).pipe(z.email({ message: "must be an email address" })),
  workspaceRole: workspaceRoleInput.optional(),
  applicationRoles: applicationRolesInput.optional(),
  environmentGrants: environmentGrantsInput.optional(),
});

export const inviteFilters = { status: z.enum(INVITATION_STATUSES).optional() };
export const acceptInviteInput = z.strictObject({ token: z.string().min(1).max(200) });

export function inviteView(i: Invitation) {
  return {
    id: i.id,
    workspaceId: i.workspaceId,
    email: i.email,
    status: i.status as (typeof INVITATION_STATUSES)[number],
    workspaceRole: i.workspaceRole as "workspace_admin" | null,
    applicationRoles: i.applicationRoles as ApplicationRole[],
    environmentGrants: effectiveGrants(i.workspaceRole, i.environmentGrants),
    applicationAccess: applicationAccess(i.workspaceRole, i.applicationRoles as ApplicationRole[]),
    expiresAt: i.expiresAt.toISOString(),
    invitedByMemberId: i.invitedByMemberId,
    acceptedAt: i.acceptedAt?.toISOString() ?? null,
    acceptedMemberId: i.acceptedMemberId,
    revokedAt: i.revokedAt?.toISOString() ?? null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
export type InviteView = ReturnType<typeof inviteView>;

const mintToken = () => {
  const token = `inv_${randomToken(40)}`;
  return { token, hash: sha256Hex(token) };
};

const day = (d: Date) => formatDay(d);

/** The invitation email, in the outbox of the application and environment the invitation was made from. */
async function queueInvitationEmail(tx: Ctx, inv: Invitation, token: string) {
  if (!inv.mailApplicationId || !inv.mailEnvironmentId) return;
  const [ws, inviter] = await Promise.all([
    tx.db.workspace.findUniqueOrThrow({ where: { id: inv.workspaceId }, select: { name: true } }),
    tx.principal?.member?.email ?? null,
  ]);
  queueEmail(tx, { applicationId: inv.mailApplicationId, environmentId: inv.mailEnvironmentId }, {
    template: "member.invitation",
    to: [inv.email],
    vars: {
      merchantName: ws.name,
      workspaceName: ws.name,
      inviterEmail: inviter ?? ws.name,
      inviteeEmail: inv.email,
      inviteUrl: `${tx.deps.config.DASHBOARD_URL}/invites/${token}`,
      expiresAt: day(inv.expiresAt),
    },
    cause: `invite:${inv.id}:${inv.sendCount}`,
  });
}

async function loadInvite(ctx: Ctx, workspaceId: string, id: string) {
  const inv = isUuid(id) ? await ctx.db.invitation.findFirst({ where: { id, workspaceId } }) : null;
  if (!inv) throw errors.notFound("Invitation");
  return inv;
}

async function activeMemberByEmail(ctx: Ctx, workspaceId: string, email: string) {
  return ctx.db.member.findFirst({ where: { workspaceId, removedAt: null, user: { email } }, select: { id: true } });
}

const alreadyMember = (email: string) => new DomainError("already_member", `${email} is already a member of this workspace`);

/** POST /workspaces/{workspaceId}/invites */
export async function createInvite(ctx: Ctx, workspaceId: string, body: unknown): Promise<InviteView> {
  const p = requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:invite");
  const input = parseInput(createInviteInput, body);
  assertMayGrant(p.member, input);
  const applicationRoles = input.applicationRoles ?? [];
  await checkApplications(ctx, workspaceId, applicationRoles);
  const grants = input.environmentGrants ? await resolveGrants(ctx, workspaceId, input.environmentGrants) : defaultGrants(p.member);
  return withTx(ctx, async (tx) => {
    if (await activeMemberByEmail(tx, workspaceId, input.email)) throw alreadyMember(input.email);
    const pending = await tx.db.invitation.findFirst({ where: { workspaceId, email: input.email, status: "pending" }, select: { id: true } });
    if (pending) {
      throw new DomainError("invite_already_pending", `${input.email} already has a pending invitation: resend it or revoke it first`, { inviteId: pending.id });
    }
    const mailApplicationId =
      p.application?.id ?? (await tx.db.application.findFirst({ where: { workspaceId }, orderBy: { createdAt: "asc" }, select: { id: true } }))?.id ?? null;
    const { token, hash } = mintToken();
    const inv = await tx.db.invitation.create({
      data: {
        workspaceId,
        email: input.email,
        workspaceRole: input.workspaceRole ?? null,
        applicationRoles,
        environmentGrants: grants,
        tokenHash: hash,
        expiresAt: new Date(tx.clock.now().getTime() + INVITE_TTL_MS),
        invitedByMemberId: p.member.id,
        mailApplicationId,
        mailEnvironmentId: mailApplicationId ? p.environment.id : null,
        createdAt: tx.clock.now(),
        updatedAt: tx.clock.now(),
      },
    });
    await queueInvitationEmail(tx, inv, token);
    return inviteView(inv);
  });
}

/** GET /workspaces/{workspaceId}/invites: newest first, optionally one status; `total` counts every match. */
export async function listInvites(ctx: Ctx, workspaceId: string, query: unknown) {
  requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:invite");
  const page = parseListQuery(inviteFilters, query);
  const where: Prisma.InvitationWhereInput = { workspaceId, ...(page.status ? { status: page.status } : {}) };
  const ks = keyset(page);
  const [rows, total] = await Promise.all([
    ctx.db.invitation.findMany({ where: { ...where, ...ks.where }, orderBy: ks.orderBy, take: ks.take }),
    ctx.db.invitation.count({ where }),
  ]);
  const result = toPage(rows, page);
  return { items: result.items.map(inviteView), total, pagination: result.pagination };
}

/** An invitation you could not have made you cannot resend or revoke either (its roles; grants aside). */
async function inviteToManage(ctx: Ctx, workspaceId: string, id: string) {
  const p = requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:invite");
  const inv = await loadInvite(ctx, workspaceId, id);
  assertMayGrant(p.member, { workspaceRole: inv.workspaceRole, applicationRoles: inv.applicationRoles as ApplicationRole[] });
  return inv;
}

/** POST /workspaces/{workspaceId}/invites/{id}/resend: a new token (the old link dies) and a new 7-day expiry. */
export async function resendInvite(ctx: Ctx, workspaceId: string, id: string): Promise<InviteView> {
  const found = await inviteToManage(ctx, workspaceId, id);
  if (found.status !== "pending") throw inviteNotPending(found.status);
  return withTx(ctx, async (tx) => {
    const { token, hash } = mintToken();
    const now = tx.clock.now();
    const { count } = await tx.db.invitation.updateMany({
      where: { id, status: "pending" },
      data: { tokenHash: hash, expiresAt: new Date(now.getTime() + INVITE_TTL_MS), sendCount: { increment: 1 }, updatedAt: now },
    });
    const inv = await tx.db.invitation.findUniqueOrThrow({ where: { id } });
    if (count !== 1) throw inviteNotPending(inv.status);
    await queueInvitationEmail(tx, inv, token);
    return inviteView(inv);
  });
}

/** POST /workspaces/{workspaceId}/invites/{id}/revoke: the token stops working at once. */
export async function revokeInvite(ctx: Ctx, workspaceId: string, id: string): Promise<InviteView> {
  const found = await inviteToManage(ctx, workspaceId, id);
  return withTx(ctx, async (tx) => inviteView(await moveInvitation(tx, found, "revoked", { tokenHash: null, revokedAt: tx.clock.now() })));
}

/**
 * POST /invites/accept: a dashboard session of the invited user (account email equal to the invitation's, exactly)
 * becomes a member with the invitation's roles and grants. A session of a user who was no member anywhere is bound
 * to the new membership, so the same token then works in the workspace.
 */
export async function acceptInvite(ctx: Ctx, body: unknown): Promise<{ workspaceId: string; memberId: string }> {
  if (ctx.principal && isPinned(ctx.principal)) throw errors.applicationKeyWorkspaceRoute();
  const user = ctx.sessionUser;
  if (!user) throw errors.unauthorized("Accept an invitation with the invited user's dashboard session ('Authorization: Bearer …')");
  const { token } = parseInput(acceptInviteInput, body);
  const inv = await ctx.db.invitation.findUnique({ where: { tokenHash: sha256Hex(token) } });
  if (!inv || (inv.status !== "pending" && inv.status !== "expired")) throw errors.notFound("Invitation");
  if (inv.status === "expired" || inv.expiresAt.getTime() <= ctx.clock.now().getTime()) {
    throw new DomainError("invite_expired", "This invitation has expired: ask for a new one (an admin can resend it)", { expiresAt: inv.expiresAt.toISOString() });
  }
  if (inv.email !== user.email) {
    throw new DomainError("invite_email_mismatch", "This invitation is for another email address: sign in as the invited user to accept it");
  }
  try {
    return await withTx(ctx, async (tx) => {
      const existing = await tx.db.member.findUnique({ where: { workspaceId_userId: { workspaceId: inv.workspaceId, userId: user.id } } });
      if (existing && !existing.removedAt) throw alreadyMember(inv.email);
      const now = tx.clock.now();
      const data = { workspaceRole: inv.workspaceRole, applicationRoles: inv.applicationRoles as Prisma.InputJsonValue, environmentGrants: inv.environmentGrants as Prisma.InputJsonValue, updatedAt: now };
      // A removed member who is invited again gets their old row back (history keeps pointing at it).
      const member = existing
        ? await tx.db.member.update({ where: { id: existing.id }, data: { ...data, removedAt: null } })
        : await tx.db.member.create({ data: { ...data, workspaceId: inv.workspaceId, userId: user.id, createdAt: now } });
      await moveInvitation(tx, inv, "accepted", { tokenHash: null, acceptedAt: now, acceptedMemberId: member.id });
      if (!user.memberId) await tx.db.dashboardSession.updateMany({ where: { id: user.sessionId, memberId: null }, data: { memberId: member.id } });
      if (existing) await invalidatePrincipals(tx, { memberId: member.id });
      return { workspaceId: inv.workspaceId, memberId: member.id };
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw alreadyMember(inv.email);
    throw e;
  }
}

/**
 * The invite-expiry job: pending invitations past expiresAt become expired. One conditional UPDATE (status still
 * pending), so a run racing an accept or a revoke changes nothing they changed, and running twice is harmless. The
 * token hash stays, so the link answers 400 invite_expired rather than 404.
 */
export async function runInviteExpiry(deps: Deps): Promise<{ expired: number }> {
  const ctx = makeCtx(deps);
  const now = ctx.clock.now();
  const { count } = await ctx.db.invitation.updateMany({ where: { status: "pending", expiresAt: { lte: now } }, data: { status: "expired", expiredAt: now, updatedAt: now } });
  return { expired: count };
}

/**
 * What the hosted accept page shows for an invitation link: the workspace, the invited email, the roles and
 * whether it can still be accepted. The token is the only credential (per-IP limited like other link pages);
 * unknown tokens are 404 not_found.
 */
export async function invitationPreview(ctx: Ctx, token: string) {
  if (ctx.ip) await ctx.deps.limits.consume("quoteLinkIp", ctx.ip);
  const inv = /^inv_[A-Za-z0-9_-]{10,200}$/.test(token) ? await ctx.db.invitation.findUnique({ where: { tokenHash: sha256Hex(token) } }) : null;
  if (!inv) throw errors.notFound("Invitation");
  const ws = await ctx.db.workspace.findUniqueOrThrow({ where: { id: inv.workspaceId }, select: { name: true } });
  const appIds = (inv.applicationRoles as ApplicationRole[]).map((r) => r.applicationId);
  const apps = appIds.length ? await ctx.db.application.findMany({ where: { id: { in: appIds }, workspaceId: inv.workspaceId }, select: { id: true, name: true } }) : [];
  const expired = inv.status === "expired" || (inv.status === "pending" && inv.expiresAt.getTime() <= ctx.clock.now().getTime());
  return {
    workspaceName: ws.name,
    email: inv.email,
    status: expired ? ("expired" as const) : (inv.status as (typeof INVITATION_STATUSES)[number]),
    workspaceRole: inv.workspaceRole,
    applicationRoles: (inv.applicationRoles as ApplicationRole[]).map((r) => ({ application: apps.find((a) => a.id === r.applicationId)?.name ?? r.applicationId, role: r.role })),
    expiresAt: inv.expiresAt.toISOString(),
  };
}
