// The guards every route, GraphQL field and tool uses: who is calling (a Principal, resolved by
// platform/auth.service.ts), and whether their scopes, roles and tenant allow this.
import type { Ctx } from "./context";
import { errors } from "./errors";
import { memberHasPermission, type Permission } from "./permissions";
import type { MemberInfo, Principal, Tenant } from "./principal";
import { hasScope } from "./scopes";

export function requirePrincipal(ctx: Ctx): Principal {
  if (!ctx.principal && ctx.sessionUser) {
    throw errors.forbidden("This dashboard session's user is not a member of any workspace yet: it can only accept an invitation (POST /invites/accept)");
  }
  if (!ctx.principal) throw errors.unauthorized("Send an API key in X-API-Key or a dashboard session as 'Authorization: Bearer …'");
  return ctx.principal;
}

/** Secret keys and dashboard sessions only: publishable keys are for the browser-safe compute routes. */
export function requireSecretOrDashboard(ctx: Ctx): Principal {
  const p = requirePrincipal(ctx);
  if (p.apiKey?.type === "publishable") throw errors.forbidden("Publishable keys can only call the shipping and tax estimate routes");
  return p;
}

/**
 * A credential held to its own scopes and to the one application + environment it was issued for: an API key, an
 * OAuth access token (which also carries its approving member, whose roles apply on top) or an extension session.
 * Only a dashboard session chooses its application by header and is bounded by role permissions instead of scopes.
 * Guards test this, never `p.apiKey` or `p.member`, to tell the two apart.
 */
export function isPinned(p: Principal): boolean {
  return p.type !== "clerk_jwt";
}

/** Workspace-level routes are for dashboard sessions; any API key gets 403 application_key_workspace_route. */
export function requireDashboard(ctx: Ctx, workspaceId?: string): Principal & { member: MemberInfo } {
  const p = requirePrincipal(ctx);
  if (p.type !== "clerk_jwt" || !p.member) throw errors.applicationKeyWorkspaceRoute();
  if (workspaceId !== undefined && workspaceId !== p.workspace.id) throw errors.notFound("Workspace");
  return p as Principal & { member: MemberInfo };
}

/** Scope check; dashboard sessions carry every scope (their limits are role permissions). */
export function requireScope(ctx: Ctx, scope: string): Principal {
  const p = requireSecretOrDashboard(ctx);
  if (!hasScope(p.scopes, scope)) throw errors.insufficientScopes([scope]);
  return p;
}

export function requirePermission(ctx: Ctx, permission: Permission): void {
  const p = requirePrincipal(ctx);
  if (!p.member) return; // keys: scope alone
  if (!memberHasPermission(p.member, permission, p.application?.id)) {
    throw errors.permissionDenied(`Your role does not allow ${permission}`);
  }
}

/** The application + environment every merchant row is filtered by. */
export function requireTenant(ctx: Ctx): Tenant {
  const p = requirePrincipal(ctx);
  if (!p.application) {
    throw errors.validation([{ path: ["headers", "x-service-application-id"], message: "Required: this workspace has several applications" }]);
  }
  // A member reaches an application's data only with a workspace role or a role on that application.
  if (p.member && !memberHasPermission(p.member, "application:read", p.application.id)) {
    throw errors.permissionDenied("You have no role on this application");
  }
  return { workspaceId: p.workspace.id, applicationId: p.application.id, environmentId: p.environment.id };
}
