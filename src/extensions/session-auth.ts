// An extension session token (sessions.service.ts) sent as `Authorization: Bearer` resolves to a Principal pinned to
// the install's application and environment with the installed version's scopes. The signature and expiry are
// checked with the session keys; then one query reads every row the token names, so the token stops working the
// moment its install is uninstalled or suspended, its dashboard session is revoked, or the member loses the
// application or the environment.
import { z } from "zod";
import { memberCanUseEnvironment, memberHasPermission } from "../shared/permissions";
import type { Principal } from "../shared/principal";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { verifySessionToken } from "./session-keys";
import { credentialTenant, memberColumns, memberInfoOf, tenantOfRow } from "../platform/credential-rows";
import { extensionScopes, manifestOf, originOf, roleOf, SESSION_TOKEN_USE } from "./session-claims";


// Only the claims this service relies on; any other claim is ignored.
const claimsSchema = z.object({
  token_use: z.literal(SESSION_TOKEN_USE),
  sub: z.uuid(),
  aud: z.string(),
  exp: z.number(),
  sid: z.uuid(),
  installationId: z.string().min(1).max(100),
  extensionId: z.string().min(1).max(100),
  workspace: z.object({ id: z.uuid() }),
  application: z.object({ id: z.uuid() }),
  environment: z.object({ environmentId: z.uuid() }),
  scopes: z.array(z.string()),
});

const refused = () => errors.unauthorized("Invalid or expired extension session token");

export async function authenticateExtensionSession(ctx: Ctx, token: string): Promise<Principal> {
  let payload: unknown;
  try {
    payload = await verifySessionToken(ctx, token);
  } catch {
    throw refused();
  }
  const parsed = claimsSchema.safeParse(payload);
  if (!parsed.success) throw refused();
  const c = parsed.data;
  if (c.aud !== c.extensionId) throw refused();
  // One round trip for every row the token leans on (an extension calls on each bridge request).
  const row = await credentialTenant(ctx.sql)
    .innerJoin("Installation as i", (j) => j.onRef("i.workspaceId", "=", "w.id").onRef("i.applicationId", "=", "a.id").onRef("i.environmentId", "=", "e.id"))
    .innerJoin("Extension as x", "x.id", "i.extensionId")
    .leftJoin("ExtensionVersion as v", "v.id", "i.versionId")
    .innerJoin("DashboardSession as s", (j) => j.on("s.id", "=", c.sid))
    .innerJoin("Member as m", "m.id", "s.memberId")
    .innerJoin("User as u", "u.id", "m.userId")
    .select(["i.status", "i.extensionId", "i.versionId"])
    .select(["x.name as extName", "x.scopes as extScopes", "x.iframeUrl as extIframeUrl", "v.version", "v.manifest"])
    .select(["s.revokedAt as sRevokedAt", "s.expiresAt as sExpiresAt"])
    .select(memberColumns)
    .where("i.id", "=", c.installationId)
    .executeTakeFirst();
  const now = ctx.clock.now();
  if (
    !row ||
    row.status !== "active" ||
    row.extensionId !== c.extensionId ||
    row.wsId !== c.workspace.id ||
    row.appId !== c.application.id ||
    row.envId !== c.environment.environmentId ||
    row.envStatus !== "active" ||
    row.sRevokedAt ||
    (row.sExpiresAt && row.sExpiresAt <= now) ||
    row.removedAt ||
    row.mWorkspaceId !== row.wsId ||
    row.userId !== c.sub
  ) {
    throw refused();
  }
  const member = memberInfoOf(row);
  const tenant = tenantOfRow(row);
  if (!memberHasPermission(member, "application:read", row.appId) || !memberCanUseEnvironment(member, tenant.environment)) throw refused();
  const manifest = manifestOf(row.versionId ? { manifest: row.manifest } : null, { scopes: row.extScopes, iframeUrl: row.extIframeUrl });
  // The scopes the token was minted with, and still held by the installed version (an upgrade may have dropped some).
  const current = new Set(extensionScopes(manifest.scopes));
  const scopes = extensionScopes(c.scopes).filter((s) => current.has(s));
  return {
    type: "extension_session",
    credentialId: `extension_session:${c.installationId}:${row.memberId}`,
    ...tenant,
    environmentExplicit: true,
    scopes,
    apiKey: null,
    member: null,
    extension: {
      installationId: c.installationId,
      extensionId: row.extensionId,
      extensionName: row.extName,
      versionId: row.versionId,
      version: row.version,
      user: { id: row.userId, email: row.email },
      memberId: row.memberId,
      role: roleOf(member, row.appId) ?? "viewer",
      iframeOrigin: originOf(manifest.iframeUrl),
      expiresAt: new Date(c.exp * 1000),
    },
  };
}

/** Whether an extension session principal still holds (for long-lived sockets): not expired, install still active. */
export async function extensionSessionIsLive(ctx: Ctx, p: Principal): Promise<boolean> {
  if (!p.extension || p.extension.expiresAt <= ctx.clock.now()) return false;
  const inst = await ctx.db.installation.findUnique({ where: { id: p.extension.installationId }, select: { status: true } });
  return inst?.status === "active";
}
