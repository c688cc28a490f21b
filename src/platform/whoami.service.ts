import type { Ctx } from "../shared/context";
import { requirePrincipal } from "./auth.service";

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
    ...(p.member ? { member: { id: p.member.id, email: p.member.email, workspaceRole: p.member.workspaceRole } } : {}),
  };
}
