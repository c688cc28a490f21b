import type { Ctx } from "../shared/context";
import { requirePrincipal } from "../shared/guards";

/** GET /whoami: any credential, no scope. */
export function whoami(ctx: Ctx) {
  const p = requirePrincipal(ctx);
  return {
    type: p.type,
    scopes: p.scopes,
    workspace: p.workspace,
    application: p.application,
    environment: p.environment,
    apiKey: p.apiKey && { id: p.apiKey.id, name: p.apiKey.name, keyPrefix: p.apiKey.keyPrefix },
    ...(p.oauth ? { oauth: { grantId: p.oauth.grantId, clientId: p.oauth.clientId, clientName: p.oauth.clientName } } : {}),
    ...(p.member ? { member: { id: p.member.id, email: p.member.email, workspaceRole: p.member.workspaceRole } } : {}),
    ...(p.extension
      ? {
          extension: {
            installationId: p.extension.installationId,
            extensionId: p.extension.extensionId,
            version: p.extension.version,
            user: p.extension.user,
            role: p.extension.role,
            expiresAt: p.extension.expiresAt.toISOString(),
          },
        }
      : {}),
  };
}
