// Dashboard permissions follow the member's roles (platform.md part 2). Keys are gated by scope alone.
import type { MemberInfo, PrincipalEnvironment } from "./principal";

export type Permission =
  | "workspace:environments:write"
  | "workspace:invite"
  | "workspace:invite-admin"
  | "workspace:edit-member"
  | "workspace:remove-member"
  | "workspace:billing:read"
  | "workspace:billing:write"
  | "workspace:partners"
  | "application:api_keys:write"
  | "application:connectors:write"
  | "application:extensions:write"
  | "application:payments:record"
  | "application:orders:comp"
  | "application:quotes:write"
  | "application:settings:write"
  | "application:scripts:write"
  | "application:read";

const APP_ROLE_PERMISSIONS: Record<string, Permission[]> = {
  admin: [
    "application:api_keys:write",
    "application:connectors:write",
    "application:extensions:write",
    "application:payments:record",
    "application:orders:comp",
    "application:quotes:write",
    "application:settings:write",
    "application:scripts:write",
    "application:read",
  ],
  developer: ["application:api_keys:write", "application:connectors:write", "application:extensions:write", "application:quotes:write", "application:settings:write", "application:scripts:write", "application:read"],
  finance: ["application:payments:record", "application:orders:comp", "application:read"],
  viewer: ["application:read"],
};

/** Workspace permissions an application role carries: an application admin invites people to their applications. */
const APP_ROLE_WORKSPACE_PERMISSIONS: Record<string, Permission[]> = {
  admin: ["workspace:invite"],
};

export function memberHasPermission(member: MemberInfo, permission: Permission, applicationId?: string | null): boolean {
  if (member.workspaceRole === "owner") return true;
  if (member.workspaceRole === "workspace_admin") return permission !== "workspace:billing:write";
  if (!permission.startsWith("application:")) return member.applicationRoles.some((r) => APP_ROLE_WORKSPACE_PERMISSIONS[r.role]?.includes(permission));
  if (!applicationId) return false;
  return member.applicationRoles.some((r) => r.applicationId === applicationId && APP_ROLE_PERMISSIONS[r.role]?.includes(permission));
}

/** Owners resolve to all environments; everyone else by their grant. */
export function memberCanUseEnvironment(member: MemberInfo, env: PrincipalEnvironment & { id: string }): boolean {
  if (member.workspaceRole === "owner") return true;
  const g = member.environmentGrants;
  switch (g.grantType) {
    case "all":
      return true;
    case "all_non_production":
      return env.kind !== "production";
    case "production_only":
      return env.kind === "production";
    case "selected":
      return (g.environmentIds ?? []).includes(env.id);
    default:
      return false;
  }
}
