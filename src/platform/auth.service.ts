// Resolves a credential into a Principal, and the guards every route and GraphQL field uses.
import { z } from "zod";
import type { Ctx } from "../shared/context";
import { constantTimeEqual, sha256Hex } from "../shared/crypto";
import { DomainError, errors } from "../shared/errors";
import { hasScope } from "../shared/scopes";
import type { LimitState } from "../shared/rate-limit";
import { memberCanUseEnvironment, memberHasPermission, type Permission } from "./permissions";
import type { EnvironmentKind, MemberInfo, Principal, Tenant } from "./principal";

export interface CredentialInput {
  apiKey?: string | null;
  authorization?: string | null;
  applicationId?: string | null;
  environmentId?: string | null;
}

const uuid = z.uuid();

/** null when no credential was sent; throws 401 unauthorized when one was sent but is not valid. */
export async function authenticate(ctx: Ctx, input: CredentialInput): Promise<Principal | null> {
  const apiKey = input.apiKey?.trim();
  const auth = input.authorization?.trim();
  if (apiKey) return authenticateApiKey(ctx, apiKey);
  if (auth) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw errors.unauthorized("Authorization must be 'Bearer <dashboard session token>'");
    if (/^(sk|pk)_/.test(m[1])) {
      throw errors.unauthorized("This is an API key, not a dashboard session: send it as the X-API-Key header (X-API-Key: sk_…), not as Authorization: Bearer");
    }
    return authenticateDashboard(ctx, m[1], input);
  }
  return null;
}

/**
 * authenticate() under the rate limits, for REST, GraphQL and graphql-ws alike. An address whose failed
 * attempts passed RATE_LIMIT_AUTH_FAILURES_PER_IP gets 429 before its credential is even looked at (guessing
 * keys stops), and a good credential spends one point of its own bucket (RATE_LIMIT_PER_CREDENTIAL).
 */
export async function authenticateRequest(ctx: Ctx, input: CredentialInput): Promise<{ principal: Principal | null; limit: LimitState | null }> {
  const { limits } = ctx.deps;
  if (!input.apiKey?.trim() && !input.authorization?.trim()) return { principal: null, limit: null };
  if (ctx.ip) limits.blocked("authFailureIp", ctx.ip);
  let principal: Principal | null;
  try {
    principal = await authenticate(ctx, input);
  } catch (e) {
    if (ctx.ip && e instanceof DomainError && e.status === 401) await limits.consume("authFailureIp", ctx.ip);
    throw e;
  }
  const limit = principal ? await limits.consume("credential", principal.credentialId) : null;
  return { principal, limit };
}

interface KeyRow {
  id: string;
  name: string;
  keyPrefix: string;
  type: string;
  scopes: string[];
  keyHash: string;
  revokedAt: Date | null;
  wsId: string;
  wsName: string;
  wsSlug: string;
  appId: string;
  appName: string;
  appSlug: string;
  appCurrency: string;
  envId: string;
  envSlug: string;
  envKind: string;
  envProvider: string;
  envStatus: string;
}

async function authenticateApiKey(ctx: Ctx, raw: string): Promise<Principal> {
  if (raw.length > 200 || !/^(sk|pk)_[a-z0-9-]+_[A-Za-z0-9]+$/.test(raw)) throw errors.unauthorized("Malformed API key");
  const hash = sha256Hex(raw);
  // No round trip at all when this process has the key cached (principal-cache.ts: dropped everywhere on revoke).
  const cache = ctx.deps.principals;
  const cached = cache?.get(hash, Date.now());
  if (cached) return cached;
  const generation = cache?.mark() ?? 0;
  // One round trip: this runs on every keyed request (Prisma's include would issue one query per table).
  const [key] = await ctx.db.$queryRaw<KeyRow[]>`
    SELECT k.id, k.name, k."keyPrefix", k.type, k.scopes, k."keyHash", k."revokedAt",
           w.id AS "wsId", w.name AS "wsName", w.slug AS "wsSlug",
           a.id AS "appId", a.name AS "appName", a.slug AS "appSlug", a.currency AS "appCurrency",
           e.id AS "envId", e.slug AS "envSlug", e.kind AS "envKind", e."providerEnvironment" AS "envProvider", e.status AS "envStatus"
    FROM "ApiKey" k
    JOIN "Workspace" w ON w.id = k."workspaceId"
    JOIN "Application" a ON a.id = k."applicationId"
    JOIN "Environment" e ON e.id = k."environmentId"
    WHERE k."keyHash" = ${hash}`;
  if (!key || !constantTimeEqual(key.keyHash, hash) || key.revokedAt || key.envStatus !== "active") {
    throw errors.unauthorized("Invalid or revoked API key");
  }
  const principal: Principal = {
    type: "api_key",
    credentialId: `key:${key.id}`,
    workspace: { id: key.wsId, name: key.wsName, slug: key.wsSlug },
    application: { id: key.appId, name: key.appName, slug: key.appSlug, currency: key.appCurrency },
    environment: envInfo({ id: key.envId, slug: key.envSlug, kind: key.envKind, providerEnvironment: key.envProvider }),
    environmentExplicit: true,
    scopes: key.scopes,
    apiKey: { id: key.id, name: key.name, keyPrefix: key.keyPrefix, type: key.type as "secret" | "publishable" },
    member: null,
  };
  cache?.set(hash, principal, Date.now(), generation);
  return principal;
}

async function authenticateDashboard(ctx: Ctx, token: string, input: CredentialInput): Promise<Principal> {
  if (token.length > 200) throw errors.unauthorized("Invalid dashboard session");
  const hash = sha256Hex(token);
  const session = await ctx.db.dashboardSession.findUnique({
    where: { tokenHash: hash },
    include: { member: { include: { user: true, workspace: { include: { applications: { orderBy: { createdAt: "asc" } } } } } } },
  });
  const now = ctx.clock.now();
  if (!session || session.revokedAt || (session.expiresAt && session.expiresAt <= now)) {
    throw errors.unauthorized("Invalid or expired dashboard session");
  }
  const { member } = session;
  const ws = member.workspace;
  const info: MemberInfo = {
    id: member.id,
    userId: member.userId,
    email: member.user.email,
    workspaceRole: member.workspaceRole as MemberInfo["workspaceRole"],
    applicationRoles: (member.applicationRoles ?? []) as MemberInfo["applicationRoles"],
    environmentGrants: (member.environmentGrants ?? { grantType: "all" }) as MemberInfo["environmentGrants"],
  };

  let application = null;
  if (input.applicationId) {
    if (!uuid.safeParse(input.applicationId).success) throw errors.notFound("Application");
    application = ws.applications.find((a) => a.id === input.applicationId) ?? null;
    if (!application) throw errors.notFound("Application");
    const allowed =
      info.workspaceRole !== null || info.applicationRoles.some((r) => r.applicationId === application!.id);
    if (!allowed) throw errors.notFound("Application");
  } else if (ws.applications.length === 1) {
    application = ws.applications[0];
  }

  let envRow;
  if (input.environmentId) {
    if (!uuid.safeParse(input.environmentId).success) throw new DomainError("environment_not_found", 404, "Environment not found");
    envRow = await ctx.db.environment.findFirst({ where: { id: input.environmentId, workspaceId: ws.id, status: "active" } });
    if (!envRow) throw new DomainError("environment_not_found", 404, "Environment not found");
  } else {
    // Without X-Service-Environment-Id a dashboard session works in the workspace's production environment,
    // or in its sandbox when the member's grants leave production out.
    const system = await ctx.db.environment.findMany({ where: { workspaceId: ws.id, isSystem: true }, orderBy: { kind: "desc" } });
    envRow = system.find((e) => memberCanUseEnvironment(info, envInfo(e))) ?? system.find((e) => e.kind === "production")!;
  }
  const environment = envInfo(envRow);
  if (!memberCanUseEnvironment(info, environment)) {
    throw errors.permissionDenied("Your environment grants do not include this environment");
  }
  return {
    type: "clerk_jwt",
    credentialId: `session:${session.id}`,
    workspace: { id: ws.id, name: ws.name, slug: ws.slug },
    application: application && { id: application.id, name: application.name, slug: application.slug, currency: application.currency },
    environment,
    environmentExplicit: Boolean(input.environmentId),
    scopes: ["*"],
    apiKey: null,
    member: info,
  };
}

function envInfo(e: { id: string; slug: string; kind: string; providerEnvironment: string }) {
  return { id: e.id, slug: e.slug, kind: e.kind as EnvironmentKind, providerEnvironment: e.providerEnvironment as "production" | "sandbox" };
}

/** Whether the request's credential is still good (not revoked or expired since it was authenticated). */
export async function credentialIsLive(ctx: Ctx): Promise<boolean> {
  const p = ctx.principal;
  if (!p) return false;
  if (p.apiKey) {
    const k = await ctx.db.apiKey.findUnique({ where: { id: p.apiKey.id }, select: { revokedAt: true } });
    return !!k && !k.revokedAt;
  }
  const s = await ctx.db.dashboardSession.findUnique({ where: { id: p.credentialId.replace(/^session:/, "") }, select: { revokedAt: true, expiresAt: true } });
  return !!s && !s.revokedAt && (!s.expiresAt || s.expiresAt > ctx.clock.now());
}

// ---- guards ------------------------------------------------------------------------------------------

export function requirePrincipal(ctx: Ctx): Principal {
  if (!ctx.principal) throw errors.unauthorized("Send an API key in X-API-Key or a dashboard session as 'Authorization: Bearer …'");
  return ctx.principal;
}

/** Secret keys and dashboard sessions only: publishable keys are for the browser-safe compute routes. */
export function requireSecretOrDashboard(ctx: Ctx): Principal {
  const p = requirePrincipal(ctx);
  if (p.apiKey?.type === "publishable") throw errors.forbidden("Publishable keys can only call the shipping and tax estimate routes");
  return p;
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
