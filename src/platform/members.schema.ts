// GraphQL types and fields for workspace invitations and members: the same services as REST (members.rest.ts),
// the same error codes in extensions.code.
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { cursorOf } from "../shared/pagination";
import { INVITATION_STATUSES } from "./invitation.machine";
import { acceptInvite, createInvite, type InviteView, listInvites, resendInvite, revokeInvite } from "./invitations.service";
import { getMyMembership, listMembers, type MemberView, removeMember, updateMember } from "./members.service";
import { WorkspaceRoleEnum } from "./platform.schema";
import { APPLICATION_ACCESS, APPLICATION_ROLES, type ApplicationRole, type EnvironmentGrants, GRANT_TYPES } from "./team.grants";

export const InvitationStatusEnum = describedEnum<(typeof INVITATION_STATUSES)[number]>("InvitationStatus", "Where an invitation stands", {
  pending: "Sent; the link works until expiresAt",
  accepted: "The invitee joined; the link is spent",
  revoked: "Withdrawn; the link stopped working at once",
  expired: "Not accepted within 7 days",
});
const ApplicationRoleNameEnum = describedEnum<(typeof APPLICATION_ROLES)[number]>("ApplicationRoleName", "A member's role on one application", {
  admin: "Everything in the application, and inviting people to it",
  developer: "Keys, connectors, extensions, quotes and settings",
  finance: "Payments records, comps and reads",
  viewer: "Reads only",
});
const GrantTypeEnum = describedEnum<(typeof GRANT_TYPES)[number]>("EnvironmentGrantType", "Which environments a member may work in", {
  all: "Every environment",
  all_non_production: "Every environment but production",
  production_only: "Production only",
  selected: "The environments listed in environmentIds",
});
const ApplicationAccessEnum = describedEnum<(typeof APPLICATION_ACCESS)[number]>("ApplicationAccess", "Which applications a member's roles open", {
  all: "Every application: a workspace role (owner or workspace_admin)",
  listed: "The applications in applicationRoles",
  none: "No application yet: invited without roles, the member reaches no application data until an updateMember gives a role",
});
const GrantableWorkspaceRoleEnum = describedEnum<"workspace_admin">("GrantableWorkspaceRole", "A workspace role that can be given (ownership cannot)", {
  workspace_admin: "Everything but billing and ownership",
});

const ApplicationRoleRef = builder.objectRef<ApplicationRole>("ApplicationRoleAssignment").implement({
  description: "A role on one application",
  fields: (t) => ({
    applicationId: t.exposeID("applicationId", { description: "The application" }),
    role: t.field({ type: ApplicationRoleNameEnum, description: "The role on it", resolve: (r) => r.role }),
  }),
});
const GrantsRef = builder.objectRef<EnvironmentGrants>("EnvironmentGrants").implement({
  description: "The environments a member may work in (owners: all)",
  fields: (t) => ({
    grantType: t.field({ type: GrantTypeEnum, description: "all, all_non_production, production_only or selected", resolve: (g) => g.grantType }),
    environmentIds: t.idList({ description: "For selected: the environments; empty otherwise", resolve: (g) => g.environmentIds ?? [] }),
  }),
});

export const InvitationRef = builder.objectRef<InviteView>("Invitation").implement({
  description: "An invitation to join the workspace (the token itself is only in the invitation email)",
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspaceId", { description: "The workspace" }),
    email: t.exposeString("email", { description: "Who is invited; the accepting account's email must equal it exactly" }),
    status: t.field({ type: InvitationStatusEnum, description: "pending, accepted, revoked or expired", resolve: (i) => i.status }),
    workspaceRole: t.field({ type: GrantableWorkspaceRoleEnum, nullable: true, description: "workspace_admin, or null", resolve: (i) => i.workspaceRole }),
    applicationRoles: t.field({ type: [ApplicationRoleRef], description: "Roles on applications the member will get", resolve: (i) => i.applicationRoles }),
    environmentGrants: t.field({ type: GrantsRef, description: "Environments the member will get", resolve: (i) => i.environmentGrants }),
    applicationAccess: t.field({ type: ApplicationAccessEnum, description: "What the roles will open: all, listed, or none (no application access until updateMember gives a role)", resolve: (i) => i.applicationAccess }),
    expiresAt: t.field({ type: "DateTime", description: "When the link stops working (7 days after sending)", resolve: (i) => i.expiresAt }),
    invitedByMemberId: t.exposeID("invitedByMemberId", { nullable: true, description: "Who sent it" }),
    acceptedAt: t.field({ type: "DateTime", nullable: true, description: "When it was accepted", resolve: (i) => i.acceptedAt }),
    acceptedMemberId: t.exposeID("acceptedMemberId", { nullable: true, description: "The membership it created" }),
    revokedAt: t.field({ type: "DateTime", nullable: true, description: "When it was revoked", resolve: (i) => i.revokedAt }),
    createdAt: t.field({ type: "DateTime", description: "When it was created", resolve: (i) => i.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "Last change (resend, revoke, accept, expiry)", resolve: (i) => i.updatedAt }),
  }),
});

export const MemberRef = builder.objectRef<MemberView>("WorkspaceMember").implement({
  description: "A member of the workspace with their roles and environment grants",
  fields: (t) => ({
    memberId: t.exposeID("memberId", { description: "The membership's id" }),
    userId: t.exposeID("userId", { description: "The user behind it" }),
    email: t.exposeString("email", { description: "The member's sign-in email" }),
    workspaceRole: t.field({ type: WorkspaceRoleEnum, nullable: true, description: "owner, workspace_admin, or null (application roles only)", resolve: (m) => m.workspaceRole }),
    applicationRoles: t.field({ type: [ApplicationRoleRef], description: "Roles on applications", resolve: (m) => m.applicationRoles }),
    environmentGrants: t.field({ type: GrantsRef, description: "Environments the member may use (owners: all)", resolve: (m) => m.environmentGrants }),
    applicationAccess: t.field({ type: ApplicationAccessEnum, description: "What the roles open: all, listed, or none (no application access until updateMember gives a role)", resolve: (m) => m.applicationAccess }),
    createdAt: t.field({ type: "DateTime", description: "When they joined", resolve: (m) => m.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "Last change of roles or grants", resolve: (m) => m.updatedAt }),
  }),
});

const AcceptedInvitation = builder.objectRef<{ workspaceId: string; memberId: string }>("AcceptedInvitation").implement({
  description: "The membership an accepted invitation created",
  fields: (t) => ({
    workspaceId: t.exposeID("workspaceId", { description: "The workspace joined" }),
    memberId: t.exposeID("memberId", { description: "The new membership" }),
  }),
});

export const InvitationPage = pageOf("InvitationPage", InvitationRef, "invitations");
const MemberPage = pageOf("WorkspaceMemberPage", MemberRef, "members", (m: { memberId: string; createdAt: string }) => cursorOf({ createdAt: m.createdAt, id: m.memberId }));

const ApplicationRoleInput = builder.inputType("ApplicationRoleInput", {
  description: "A role on one application",
  fields: (t) => ({
    applicationId: t.id({ required: true, description: "One of the workspace's applications" }),
    role: t.field({ type: ApplicationRoleNameEnum, required: true, description: "The role" }),
  }),
});
const EnvironmentGrantsInput = builder.inputType("EnvironmentGrantsInput", {
  description: "Which environments a member may work in (set only by the owner and workspace admins)",
  fields: (t) => ({
    grantType: t.field({ type: GrantTypeEnum, required: true, description: "all, all_non_production, production_only or selected" }),
    environmentIds: t.idList({ description: "Only with selected: at least one active environment of the workspace" }),
  }),
});

const workspaceArg = (t: any) => t.arg.id({ required: true, description: "The workspace" });
/** GraphQL input objects as the REST body: absent stays absent, a null list inside a grant is left out. */
const grantsBody = (g: { grantType: string; environmentIds?: (string | number)[] | null } | null | undefined) =>
  g == null ? g : { grantType: g.grantType, ...(g.environmentIds != null ? { environmentIds: g.environmentIds.map(String) } : {}) };
const rolesBody = (r: { applicationId: string | number; role: string }[] | null | undefined) => (r == null ? r : r.map((x) => ({ applicationId: String(x.applicationId), role: x.role })));
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

builder.queryFields((t) => ({
  invites: t.field({
    type: InvitationPage,
    description: "The workspace's invitations, newest first (workspace:invite); REST: GET /workspaces/{workspaceId}/invites",
    authScopes: { dashboard: true },
    args: {
      workspaceId: workspaceArg(t),
      status: t.arg({ type: InvitationStatusEnum, description: "Only this status" }),
      ...pageArgs(t),
    },
    resolve: (_r, a, ctx) => listInvites(ctx, String(a.workspaceId), defined({ status: a.status ?? undefined, limit: (a.first ?? a.limit) ?? undefined, cursor: (a.after ?? a.cursor) ?? undefined })),
  }),
  members: t.field({
    type: MemberPage,
    description: "The workspace's members, newest first (workspace:edit-member or workspace:remove-member)",
    authScopes: { dashboard: true },
    args: { workspaceId: workspaceArg(t), ...pageArgs(t) },
    resolve: (_r, a, ctx) => listMembers(ctx, String(a.workspaceId), defined({ limit: (a.first ?? a.limit) ?? undefined, cursor: (a.after ?? a.cursor) ?? undefined })),
  }),
  myMembership: t.field({
    type: MemberRef,
    description: "The calling member's own roles and grants; REST: GET /workspaces/{workspaceId}/members/me",
    authScopes: { dashboard: true },
    args: { workspaceId: workspaceArg(t) },
    resolve: (_r, a, ctx) => getMyMembership(ctx, String(a.workspaceId)),
  }),
}));

builder.mutationFields((t) => ({
  createInvite: t.field({
    type: InvitationRef,
    description: "Invites someone by email (workspace:invite; workspace_admin needs workspace:invite-admin; environmentGrants only from the owner and workspace admins)",
    authScopes: { dashboard: true },
    args: {
      workspaceId: workspaceArg(t),
      email: t.arg.string({ required: true, description: "Who to invite" }),
      workspaceRole: t.arg({ type: GrantableWorkspaceRoleEnum, description: "workspace_admin, or leave out" }),
      applicationRoles: t.arg({ type: [ApplicationRoleInput], description: "Roles on applications; none (or workspaceRole left out too) invites a member with no application access until updateMember gives a role" }),
      environmentGrants: t.arg({ type: EnvironmentGrantsInput, description: "Environments (default all; all_non_production from an application admin)" }),
    },
    resolve: (_r, a, ctx) =>
      createInvite(ctx, String(a.workspaceId), defined({ email: a.email, workspaceRole: a.workspaceRole, applicationRoles: rolesBody(a.applicationRoles), environmentGrants: grantsBody(a.environmentGrants) })),
  }),
  resendInvite: t.field({
    type: InvitationRef,
    description: "Sends a pending invitation again with a new link (the old one stops working) and a new 7-day expiry",
    authScopes: { dashboard: true },
    args: { workspaceId: workspaceArg(t), id: t.arg.id({ required: true, description: "The invitation" }) },
    resolve: (_r, a, ctx) => resendInvite(ctx, String(a.workspaceId), String(a.id)),
  }),
  revokeInvite: t.field({
    type: InvitationRef,
    description: "Withdraws a pending invitation; its link stops working at once",
    authScopes: { dashboard: true },
    args: { workspaceId: workspaceArg(t), id: t.arg.id({ required: true, description: "The invitation" }) },
    resolve: (_r, a, ctx) => revokeInvite(ctx, String(a.workspaceId), String(a.id)),
  }),
  acceptInvite: t.field({
    type: AcceptedInvitation,
    description: "Joins the workspace with the token from the invitation email; needs the invited user's dashboard session (same email, exactly)",
    args: { token: t.arg.string({ required: true, description: "The inv_ token from the link" }) },
    resolve: (_r, a, ctx) => acceptInvite(ctx, { token: a.token }),
  }),
  updateMember: t.field({
    type: MemberRef,
    description: "Changes a member's workspaceRole, application roles or environment grants (workspace:edit-member); effective on their next request",
    authScopes: { dashboard: true },
    args: {
      workspaceId: workspaceArg(t),
      memberId: t.arg.id({ required: true, description: "The member" }),
      workspaceRole: t.arg({ type: GrantableWorkspaceRoleEnum, description: "workspace_admin, or null to take it away; leave out to keep" }),
      applicationRoles: t.arg({ type: [ApplicationRoleInput], description: "The new roles on applications (replaces them all)" }),
      environmentGrants: t.arg({ type: EnvironmentGrantsInput, description: "The new environment grants" }),
    },
    resolve: (_r, a, ctx) =>
      updateMember(ctx, String(a.workspaceId), String(a.memberId), defined({ workspaceRole: a.workspaceRole, applicationRoles: rolesBody(a.applicationRoles), environmentGrants: grantsBody(a.environmentGrants) })),
  }),
  removeMember: t.field({
    type: MemberRef,
    description: "Removes a member (workspace:remove-member; never the owner); their sessions stop working at once",
    authScopes: { dashboard: true },
    args: { workspaceId: workspaceArg(t), memberId: t.arg.id({ required: true, description: "The member" }) },
    resolve: (_r, a, ctx) => removeMember(ctx, String(a.workspaceId), String(a.memberId)),
  }),
}));
