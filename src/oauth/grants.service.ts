// Authorized apps: the grants a member gave OAuth clients (one per consent, pinned to an application and an
// environment), the consent choices the page offers, and the member's own list and revoke.
import type { Ctx, Deps } from "../shared/context";
import { withTx } from "../shared/context";
import { errors } from "../shared/errors";
import { OAUTH_SCOPES } from "../shared/scopes";
import { requireDashboard } from "../shared/guards";
import { memberCanUseEnvironment, memberHasPermission } from "../shared/permissions";
import type { EnvironmentKind, MemberInfo } from "../shared/principal";

const OIDC_ONLY = new Set(["openid", "offline_access"]);

/** The API scopes a request asks for, and those it may not have (unknown, staff, human-only or publishable-only). */
export function splitRequestedScopes(scope: string | undefined) {
  const asked = [...new Set((scope ?? "").split(" ").filter(Boolean))];
  const api = asked.filter((s) => !OIDC_ONLY.has(s));
  return { oidc: asked.filter((s) => OIDC_ONLY.has(s)), api, refused: api.filter((s) => !OAUTH_SCOPES.includes(s)) };
}

/** Plain words for a scope on the consent page: `order_holds:write` -> "Create and change order holds". */
export function describeScope(scope: string) {
  const [resource, access] = scope.split(":");
  const what = resource.replace(/_/g, " ");
  if (access === "read") return `View ${what}`;
  if (access === "write") return `Create and change ${what}`;
  return `${access[0].toUpperCase()}${access.slice(1)} ${what}`;
}

/** The applications and environments a member may pin a grant to. */
export async function consentChoices(ctx: Ctx, member: MemberInfo, workspaceId: string) {
  const [apps, envs] = await Promise.all([
    ctx.db.application.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" }, select: { id: true, name: true, slug: true } }),
    ctx.db.environment.findMany({ where: { workspaceId, status: "active" }, orderBy: [{ kind: "asc" }, { createdAt: "asc" }] }),
  ]);
  return {
    applications: apps.filter((a) => memberHasPermission(member, "application:read", a.id)),
    // non-production first: the safer default
    environments: envs
      .map((e) => ({ id: e.id, slug: e.slug, name: e.name, kind: e.kind as EnvironmentKind, providerEnvironment: e.providerEnvironment as "production" | "sandbox" }))
      .filter((e) => memberCanUseEnvironment(member, e))
      .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "non_production" ? -1 : 1)),
  };
}

/** Records the grant the consent page created, after checking the member may use the chosen application and environment. */
export async function recordGrant(
  ctx: Ctx,
  input: { grantId: string; clientId: string; clientName: string | null; member: MemberInfo; workspaceId: string; applicationId: string; environmentId: string; scopes: string[] },
) {
  const choices = await consentChoices(ctx, input.member, input.workspaceId);
  if (!choices.applications.some((a) => a.id === input.applicationId)) throw errors.validation([{ path: ["applicationId"], message: "Choose an application you have a role on" }]);
  if (!choices.environments.some((e) => e.id === input.environmentId)) throw errors.validation([{ path: ["environmentId"], message: "Choose an environment your grants include" }]);
  await ctx.db.oAuthGrant.create({
    data: {
      id: input.grantId,
      clientId: input.clientId,
      clientName: input.clientName,
      workspaceId: input.workspaceId,
      memberId: input.member.id,
      applicationId: input.applicationId,
      environmentId: input.environmentId,
      scopes: input.scopes,
      createdAt: ctx.clock.now(),
    },
  });
}

type GrantWithNames = Awaited<ReturnType<typeof loadGrants>>[number];

async function loadGrants(ctx: Ctx, where: { memberId: string; id?: string; revokedAt?: null }) {
  const grants = await ctx.db.oAuthGrant.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
  const [apps, envs] = await Promise.all([
    ctx.db.application.findMany({ where: { id: { in: [...new Set(grants.map((g) => g.applicationId))] } }, select: { id: true, name: true, slug: true } }),
    ctx.db.environment.findMany({ where: { id: { in: [...new Set(grants.map((g) => g.environmentId))] } }, select: { id: true, name: true, slug: true, kind: true } }),
  ]);
  return grants.map((g) => ({ ...g, application: apps.find((a) => a.id === g.applicationId)!, environment: envs.find((e) => e.id === g.environmentId)! }));
}

/** What an authorized app looks like to its member (REST and GraphQL). */
function authorizedAppView(g: GrantWithNames) {
  return {
    id: g.id,
    clientId: g.clientId,
    clientName: g.clientName,
    application: { id: g.application.id, name: g.application.name, slug: g.application.slug },
    environment: { id: g.environment.id, name: g.environment.name, slug: g.environment.slug, kind: g.environment.kind as EnvironmentKind },
    scopes: g.scopes,
    createdAt: g.createdAt.toISOString(),
    revokedAt: g.revokedAt?.toISOString() ?? null,
  };
}

export type AuthorizedAppView = ReturnType<typeof authorizedAppView>;

/** GET /oauth/grants: the apps the session's member authorized and has not revoked, newest first. */
export async function listAuthorizedApps(ctx: Ctx): Promise<AuthorizedAppView[]> {
  const p = requireDashboard(ctx);
  return (await loadGrants(ctx, { memberId: p.member.id, revokedAt: null })).map(authorizedAppView);
}

/**
 * DELETE /oauth/grants/{id}: revokes the grant; its access tokens are refused from the next request on (every
 * request reads the grant), its refresh tokens are deleted. Another member's grant, or one already revoked, is 404.
 */
export async function revokeAuthorizedApp(ctx: Ctx, id: string): Promise<AuthorizedAppView> {
  const p = requireDashboard(ctx);
  if (typeof id !== "string" || id.length > 200) throw errors.notFound("Authorized app");
  return withTx(ctx, async (tx) => {
    const now = tx.clock.now();
    const { count } = await tx.db.oAuthGrant.updateMany({ where: { id, memberId: p.member.id, revokedAt: null }, data: { revokedAt: now, revokedReason: "user" } });
    if (count === 0) throw errors.notFound("Authorized app");
    await tx.db.oAuthRecord.deleteMany({ where: { OR: [{ grantId: id }, { kind: "Grant", id }] } });
    const [g] = await loadGrants(tx, { memberId: p.member.id, id });
    return authorizedAppView(g);
  });
}

/**
 * The hourly oauth-cleanup job: deletes the authorization server's rows (codes, refresh tokens, interactions,
 * sessions, grants) an hour after they expired. Spent refresh tokens stay until then, so a replay within their
 * lifetime is still recognised as reuse. Authorized-app rows (OAuthGrant) are kept as history.
 */
export async function purgeExpiredOAuthRecords(deps: Deps) {
  const before = new Date(deps.clock.now().getTime() - 3600_000);
  const { count } = await deps.prisma.oAuthRecord.deleteMany({ where: { expiresAt: { lt: before } } });
  return { deleted: count };
}
