// Extension session tokens: what the dashboard hands an installed extension's iframe through the bridge. A member's
// dashboard session mints one for one active installation (POST /installations/{id}/session); the token is an RS256
// JWT (session-keys.ts) living EXTENSION_SESSION_TTL_SECONDS (10 minutes), pinned to the install's application and
// environment, carrying the installed version's scopes and the context the iframe shows. Never configuration,
// configSchema, API keys or signing secrets: the token is readable by the extension and by anything it hands it to.
//
// Sent back as `Authorization: Bearer`, a token is checked on every request against the rows it names (session-auth.ts),
// so uninstalling or suspending the install, signing out, or losing access ends it at once.
import { z } from "zod";
import { requireDashboard } from "../shared/guards";
import { memberCanUseEnvironment, memberHasPermission } from "../shared/permissions";
import type { EnvironmentKind } from "../shared/principal";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { revealOnce } from "../shared/secrets";
import { signSessionToken } from "./session-keys";
import { type ExtensionSession, type ExtensionSessionContext, extensionScopes, manifestOf, originOf, roleOf, SESSION_TOKEN_USE } from "./session-claims";

const installationIdParam = z.string().min(1).max(100);

/**
 * An active install the calling member may open: in their workspace, on an application they have a role on (else
 * 404, like an unknown id) and in an environment their grants include (else 403 permission_denied).
 */
async function openableInstall(ctx: Ctx, installationId: string) {
  const p = requireDashboard(ctx);
  const id = installationIdParam.safeParse(installationId);
  if (!id.success) throw errors.notFound("Installation");
  const inst = await ctx.db.installation.findFirst({
    where: { id: id.data, workspaceId: p.workspace.id, status: "active" },
    include: { extension: true, version: true },
  });
  // Another workspace's install, an install on an application the member has no role on, a suspended or
  // uninstalled one: all answer like an unknown id.
  if (!inst || !memberHasPermission(p.member, "application:read", inst.applicationId)) throw errors.notFound("Installation");
  const role = roleOf(p.member, inst.applicationId);
  const [application, env] = await Promise.all([
    ctx.db.application.findFirst({ where: { id: inst.applicationId, workspaceId: p.workspace.id } }),
    ctx.db.environment.findFirst({ where: { id: inst.environmentId, workspaceId: p.workspace.id, status: "active" } }),
  ]);
  if (!application || !env || !role) throw errors.notFound("Installation");
  const environment = { id: env.id, slug: env.slug, kind: env.kind as EnvironmentKind, providerEnvironment: env.providerEnvironment as "production" | "sandbox" };
  if (!memberCanUseEnvironment(p.member, environment)) throw errors.permissionDenied("Your environment grants do not include this installation's environment");
  return { p, inst, application, environment, role, manifest: manifestOf(inst.version, inst.extension) };
}

/** POST /installations/{id}/session: a dashboard member opens an active install's iframe. */
export async function mintExtensionSession(ctx: Ctx, installationId: string): Promise<ExtensionSession> {
  const { p, inst, application, environment, role, manifest } = await openableInstall(ctx, installationId);
  const context: ExtensionSessionContext = {
    user: { id: p.member.userId, email: p.member.email },
    workspace: { id: p.workspace.id, slug: p.workspace.slug },
    application: { id: application.id, slug: application.slug },
    environment: { environmentId: environment.id, environmentSlug: environment.slug, environmentKind: environment.kind, providerEnvironment: environment.providerEnvironment },
    installationId: inst.id,
    extensionId: inst.extensionId,
    versionId: inst.versionId,
    version: inst.version?.version ?? null,
    role,
    scopes: extensionScopes(manifest.scopes),
  };
  const ttlSeconds = ctx.deps.config.EXTENSION_SESSION_TTL_SECONDS;
  // Built field by field from the context above: nothing of the install's config, configSchema, keys or secrets.
  const { token, expiresAt } = await signSessionToken(
    ctx,
    { token_use: SESSION_TOKEN_USE, sid: ctx.sessionUser!.sessionId, ...context },
    { audience: inst.extensionId, subject: p.member.userId, ttlSeconds },
  );
  return { token: revealOnce(token), tokenType: "Bearer", expiresAt: expiresAt.toISOString(), expiresIn: ttlSeconds, context };
}

/** What the demo dashboard page shows around an install's iframe (same access rules as the session mint). */
export async function installationFrameView(ctx: Ctx, installationId: string) {
  const { p, inst, application, environment, manifest } = await openableInstall(ctx, installationId);
  return {
    installationId: inst.id,
    extensionName: inst.extension.name,
    version: inst.version?.version ?? null,
    iframeUrl: manifest.iframeUrl,
    iframeOrigin: originOf(manifest.iframeUrl),
    workspace: { name: p.workspace.name },
    application: { name: application.name, slug: application.slug },
    environment: { slug: environment.slug, kind: environment.kind },
    user: { email: p.member.email },
  };
}
