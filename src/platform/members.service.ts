// Workspace members: list, the caller's own membership, role and grant edits, removal. A change takes effect on
// the member's very next request: sessions read the member row on every request, removal revokes the member's
// sessions, and the principal cache is told (invalidatePrincipals) in the same transaction.
import { z } from "zod";
import type { Member, Prisma } from "../generated/prisma/client";
import { type Ctx, withTx } from "../shared/context";
import { errors, parseInput } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { requireDashboard, requirePermission } from "../shared/guards";
import { memberHasPermission } from "../shared/permissions";
import { invalidatePrincipals } from "../shared/principal-cache";
import { type ApplicationRole, applicationAccess, applicationRolesInput, assertMayGrant, checkApplications, effectiveGrants, environmentGrantsInput, resolveGrants, workspaceRoleInput } from "./team.grants";
import { isUuid } from "../shared/ids";

export const updateMemberInput = z
  .strictObject({
    workspaceRole: workspaceRoleInput.optional(),
    applicationRoles: applicationRolesInput.optional(),
    environmentGrants: environmentGrantsInput.optional(),
  })
  .refine((i) => Object.keys(i).length > 0, { message: "send at least one of workspaceRole, applicationRoles, environmentGrants" });

function memberView(m: Member & { user: { email: string } }) {
  return {
    memberId: m.id,
    userId: m.userId,
    email: m.user.email,
    workspaceRole: m.workspaceRole as "owner" | "workspace_admin" | null,
    applicationRoles: m.applicationRoles as ApplicationRole[],
    environmentGrants: effectiveGrants(m.workspaceRole, m.environmentGrants),
    applicationAccess: applicationAccess(m.workspaceRole, m.applicationRoles as ApplicationRole[]),
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
  };
}
export type MemberView = ReturnType<typeof memberView>;

async function loadMember(ctx: Ctx, workspaceId: string, memberId: string) {
  const m = isUuid(memberId)
    ? await ctx.db.member.findFirst({ where: { id: memberId, workspaceId, removedAt: null }, include: { user: { select: { email: true } } } })
    : null;
  if (!m) throw errors.notFound("Member");
  return m;
}

/** GET /workspaces/{workspaceId}/members (workspace:edit-member or workspace:remove-member): newest first. */
export async function listMembers(ctx: Ctx, workspaceId: string, query: unknown) {
  const p = requireDashboard(ctx, workspaceId);
  if (!memberHasPermission(p.member, "workspace:edit-member") && !memberHasPermission(p.member, "workspace:remove-member")) {
    throw errors.permissionDenied("Your role does not allow listing members (workspace:edit-member or workspace:remove-member)");
  }
  const page = parseListQuery({}, query);
  const where: Prisma.MemberWhereInput = { workspaceId, removedAt: null };
  const ks = keyset(page);
  const [rows, total] = await Promise.all([
    ctx.db.member.findMany({ where: { ...where, ...ks.where }, orderBy: ks.orderBy, take: ks.take, include: { user: { select: { email: true } } } }),
    ctx.db.member.count({ where }),
  ]);
  const result = toPage(rows, page);
  return { items: result.items.map(memberView), total, pagination: result.pagination };
}

/** GET /workspaces/{workspaceId}/members/me: any member, read fresh. */
export async function getMyMembership(ctx: Ctx, workspaceId: string): Promise<MemberView> {
  const p = requireDashboard(ctx, workspaceId);
  return memberView(await loadMember(ctx, workspaceId, p.member.id));
}

/**
 * PATCH /workspaces/{workspaceId}/members/{memberId} (workspace:edit-member). The owner's workspaceRole cannot be
 * changed (an owner is never demoted); granting workspace_admin needs workspace:invite-admin.
 */
export async function updateMember(ctx: Ctx, workspaceId: string, memberId: string, body: unknown): Promise<MemberView> {
  const p = requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:edit-member");
  const input = parseInput(updateMemberInput, body);
  const target = await loadMember(ctx, workspaceId, memberId);
  if (target.workspaceRole === "owner" && input.workspaceRole !== undefined) {
    throw errors.permissionDenied("The workspace owner cannot be demoted: the owner's workspaceRole does not change");
  }
  assertMayGrant(p.member, input);
  if (input.applicationRoles) await checkApplications(ctx, workspaceId, input.applicationRoles);
  const grants = input.environmentGrants ? await resolveGrants(ctx, workspaceId, input.environmentGrants) : undefined;
  return withTx(ctx, async (tx) => {
    const data: Prisma.MemberUpdateManyMutationInput = { updatedAt: tx.clock.now() };
    if (input.workspaceRole !== undefined) data.workspaceRole = input.workspaceRole;
    if (input.applicationRoles) data.applicationRoles = input.applicationRoles;
    if (grants) data.environmentGrants = grants;
    const { count } = await tx.db.member.updateMany({ where: { id: target.id, workspaceId, removedAt: null }, data });
    if (count !== 1) throw errors.notFound("Member");
    await invalidatePrincipals(tx, { memberId: target.id });
    return memberView(await loadMember(tx, workspaceId, target.id));
  });
}

/** DELETE /workspaces/{workspaceId}/members/{memberId} (workspace:remove-member): never the owner; sessions die at once. */
export async function removeMember(ctx: Ctx, workspaceId: string, memberId: string): Promise<MemberView> {
  requireDashboard(ctx, workspaceId);
  requirePermission(ctx, "workspace:remove-member");
  const target = await loadMember(ctx, workspaceId, memberId);
  if (target.workspaceRole === "owner") throw errors.permissionDenied("The workspace owner cannot be removed");
  return withTx(ctx, async (tx) => {
    const now = tx.clock.now();
    const { count } = await tx.db.member.updateMany({ where: { id: target.id, workspaceId, removedAt: null }, data: { removedAt: now, updatedAt: now } });
    if (count !== 1) throw errors.notFound("Member");
    await tx.db.dashboardSession.updateMany({ where: { memberId: target.id, revokedAt: null }, data: { revokedAt: now } });
    await invalidatePrincipals(tx, { memberId: target.id });
    return memberView({ ...target, removedAt: now, updatedAt: now });
  });
}
