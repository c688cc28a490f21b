// OpenAPI paths of workspace invitations and members (src/platform/members.rest.ts), registered by document.ts.
import { z } from "zod";
import { INVITATION_STATUSES } from "../platform/invitation.machine";
import { acceptInviteInput, createInviteInput, inviteFilters } from "../platform/invitations.service";
import { updateMemberInput } from "../platform/members.service";
import { APPLICATION_ACCESS, APPLICATION_ROLES, GRANT_TYPES } from "../platform/team.grants";
import { pageQuery } from "../shared/pagination";
import { PageMeta } from "./schemas";
import type { Register } from "./operation";

const ts = z.iso.datetime();
const Roles = z.array(z.object({ applicationId: z.string(), role: z.enum(APPLICATION_ROLES) }));
const Grants = z.object({ grantType: z.enum(GRANT_TYPES), environmentIds: z.array(z.string()).optional() }).meta({ id: "EnvironmentGrants" });
const Access = z.enum(APPLICATION_ACCESS).meta({
  id: "ApplicationAccess",
  description: "What the roles open: all (a workspace role), listed (the applications in applicationRoles), or none (no application access until a PATCH of the member gives a role)",
});
const Invitation = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    email: z.string(),
    status: z.enum(INVITATION_STATUSES),
    workspaceRole: z.enum(["workspace_admin"]).nullable(),
    applicationRoles: Roles,
    environmentGrants: Grants,
    applicationAccess: Access,
    expiresAt: ts,
    invitedByMemberId: z.string().nullable(),
    acceptedAt: ts.nullable(),
    acceptedMemberId: z.string().nullable(),
    revokedAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Invitation" });
const Member = z
  .object({
    memberId: z.string(),
    userId: z.string(),
    email: z.string(),
    workspaceRole: z.enum(["owner", "workspace_admin"]).nullable(),
    applicationRoles: Roles,
    environmentGrants: Grants,
    applicationAccess: Access,
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "WorkspaceMember" });
const listOf = (item: z.ZodType, id: string) => z.object({ items: z.array(item), total: z.number().int() }).meta({ id });

type Reg = Register;

export function registerMembers(r: Reg) {
  const tag = "team";
  const ws = { workspaceId: "Workspace" };
  const inv = { workspaceId: "Workspace", id: "Invitation" };
  const mem = { workspaceId: "Workspace", memberId: "Member" };
  r("post", "/workspaces/{workspaceId}/invites", { tag, summary: "Invite someone by email, the only required field (without roles the member has no application access until a PATCH gives some; workspace:invite; workspace_admin needs workspace:invite-admin; 403 environment_grants_forbidden, 400 invalid_environment_grants, 409 already_member)", params: ws, body: createInviteInput, ok: [201, Invitation] });
  r("get", "/workspaces/{workspaceId}/invites", { tag, summary: "Invitations, newest first, with the total (workspace:invite)", params: ws, query: pageQuery.extend(inviteFilters), ok: [200, listOf(Invitation, "InvitationList")], meta: PageMeta });
  r("post", "/workspaces/{workspaceId}/invites/{id}/resend", { tag, summary: "New link (the old one dies) and a new 7-day expiry (409 invite_not_pending)", params: inv, ok: [200, Invitation] });
  r("post", "/workspaces/{workspaceId}/invites/{id}/revoke", { tag, summary: "Withdraw a pending invitation; its link dies at once (409 invite_not_pending)", params: inv, ok: [204, null] });
  r("post", "/invites/accept", { tag, summary: "Join with the emailed token, as the invited user's dashboard session (400 invite_expired, invite_email_mismatch; 409 already_member)", body: acceptInviteInput, ok: [200, z.object({ workspaceId: z.string(), memberId: z.string() }).meta({ id: "AcceptedInvitation" })] });
  r("get", "/workspaces/{workspaceId}/members", { tag, summary: "Members, newest first, with the total (workspace:edit-member or workspace:remove-member)", params: ws, query: pageQuery, ok: [200, listOf(Member, "WorkspaceMemberList")], meta: PageMeta });
  r("get", "/workspaces/{workspaceId}/members/me", { tag, summary: "The calling member's roles and grants", params: ws, ok: [200, Member] });
  r("patch", "/workspaces/{workspaceId}/members/{memberId}", { tag, summary: "Change workspaceRole (workspace_admin or null), applicationRoles, environmentGrants (workspace:edit-member; the owner is never demoted)", params: mem, body: updateMemberInput, ok: [200, Member] });
  r("delete", "/workspaces/{workspaceId}/members/{memberId}", { tag, summary: "Remove a member (workspace:remove-member; never the owner); their sessions die at once", params: mem, ok: [204, null] });
}
