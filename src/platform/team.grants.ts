// Roles and environment grants as invitations and member edits take them: their input shapes, the checks
// against the workspace (known applications, known and active environments), and who may hand out what.
//
// Who may grant what (dashboard members only; keys never reach these routes):
// - `workspace_admin` needs workspace:invite-admin (owners and workspace admins);
// - environmentGrants may be set only by owners and workspace admins (403 environment_grants_forbidden);
// - an application admin (workspace:invite through their admin role) grants roles only on applications they
//   administer, and their invitations get `all_non_production`.
import { z } from "zod";
import type { Ctx } from "../shared/context";
import { DomainError, errors } from "../shared/errors";
import { memberHasPermission } from "../shared/permissions";
import type { MemberInfo } from "../shared/principal";

export const APPLICATION_ROLES = ["admin", "developer", "finance", "viewer"] as const;
export const GRANT_TYPES = ["all", "all_non_production", "production_only", "selected"] as const;

export type ApplicationRole = { applicationId: string; role: (typeof APPLICATION_ROLES)[number] };
export type EnvironmentGrants = { grantType: (typeof GRANT_TYPES)[number]; environmentIds?: string[] };

export const applicationRolesInput = z
  .array(z.strictObject({ applicationId: z.uuid(), role: z.enum(APPLICATION_ROLES) }))
  .max(100)
  .superRefine((roles, c) => {
    const seen = new Set<string>();
    roles.forEach((r, i) => {
      if (seen.has(r.applicationId)) c.addIssue({ code: "custom", path: [i, "applicationId"], message: "one role per application: this application is listed twice" });
      seen.add(r.applicationId);
    });
  });

/** The shape only; the pairing rules (ids only with `selected`) are 400 invalid_environment_grants in resolveGrants. */
export const environmentGrantsInput = z.strictObject({
  grantType: z.enum(GRANT_TYPES),
  environmentIds: z.array(z.uuid()).max(100).optional(),
});

export const workspaceRoleInput = z.enum(["workspace_admin"]).nullable();

const invalidGrants = (message: string, details?: Record<string, unknown>) => new DomainError("invalid_environment_grants", message, details);

/** Checks the grants against the workspace: `selected` needs ids, all known here and at least one active. */
export async function resolveGrants(ctx: Ctx, workspaceId: string, g: z.output<typeof environmentGrantsInput>): Promise<EnvironmentGrants> {
  const ids = [...new Set(g.environmentIds ?? [])];
  if (g.grantType !== "selected") {
    if (ids.length) throw invalidGrants(`environmentIds go only with grantType "selected", not "${g.grantType}"`);
    return { grantType: g.grantType };
  }
  if (!ids.length) throw invalidGrants('grantType "selected" needs at least one id in environmentIds');
  const envs = await ctx.db.environment.findMany({ where: { workspaceId, id: { in: ids } }, select: { id: true, status: true } });
  const unknown = ids.filter((id) => !envs.some((e) => e.id === id));
  if (unknown.length) throw invalidGrants("environmentIds names environments this workspace does not have", { environmentIds: unknown });
  if (!envs.some((e) => e.status === "active")) throw invalidGrants("environmentIds needs at least one active environment");
  return { grantType: "selected", environmentIds: ids };
}

/** Every applicationId must be one of the workspace's applications (422 naming the entry otherwise). */
export async function checkApplications(ctx: Ctx, workspaceId: string, roles: ApplicationRole[], field = "applicationRoles") {
  if (!roles.length) return;
  const apps = await ctx.db.application.findMany({ where: { workspaceId, id: { in: roles.map((r) => r.applicationId) } }, select: { id: true } });
  const issues = roles.flatMap((r, i) => (apps.some((a) => a.id === r.applicationId) ? [] : [{ path: [field, i, "applicationId"], message: "no such application in this workspace" }]));
  if (issues.length) throw errors.validation(issues);
}

const isWorkspaceManager = (m: MemberInfo) => m.workspaceRole === "owner" || m.workspaceRole === "workspace_admin";

/** Who may hand out these roles and grants (403 permission_denied / environment_grants_forbidden). */
export function assertMayGrant(actor: MemberInfo, what: { workspaceRole?: string | null; applicationRoles?: ApplicationRole[]; environmentGrants?: unknown }) {
  if (what.workspaceRole === "workspace_admin" && !memberHasPermission(actor, "workspace:invite-admin")) {
    throw errors.permissionDenied("Only the owner and workspace admins may grant workspace_admin (workspace:invite-admin)");
  }
  if (what.environmentGrants !== undefined && !isWorkspaceManager(actor)) {
    throw new DomainError("environment_grants_forbidden", "Only the owner and workspace admins may set environmentGrants");
  }
  if (!isWorkspaceManager(actor)) {
    const foreign = (what.applicationRoles ?? []).filter((r) => !actor.applicationRoles.some((a) => a.applicationId === r.applicationId && a.role === "admin"));
    if (foreign.length) {
      throw new DomainError("permission_denied", "Application admins grant roles only on the applications they administer", { applicationIds: foreign.map((r) => r.applicationId) });
    }
  }
}

/** The grants a new invitation gets when none were sent: `all_non_production` from an application admin. */
export function defaultGrants(actor: MemberInfo): EnvironmentGrants {
  return isWorkspaceManager(actor) ? { grantType: "all" } : { grantType: "all_non_production" };
}

/** What a member's (or an invitation's) grants read as: owners resolve to all. */
export function effectiveGrants(workspaceRole: string | null, stored: unknown): EnvironmentGrants {
  if (workspaceRole === "owner") return { grantType: "all" };
  const g = (stored ?? { grantType: "all" }) as EnvironmentGrants;
  return g.grantType === "selected" ? { grantType: "selected", environmentIds: g.environmentIds ?? [] } : { grantType: g.grantType };
}

export const APPLICATION_ACCESS = ["all", "listed", "none"] as const;
type ApplicationAccess = (typeof APPLICATION_ACCESS)[number];

/**
 * What a member's (or an invitation's) roles open: every application (owner, workspace_admin), the applications in
 * applicationRoles, or none: a member invited without roles reaches no application data (403 permission_denied)
 * until a PATCH of the member gives a role.
 */
export function applicationAccess(workspaceRole: string | null, roles: ApplicationRole[]): ApplicationAccess {
  if (workspaceRole === "owner" || workspaceRole === "workspace_admin") return "all";
  return roles.length > 0 ? "listed" : "none";
}
