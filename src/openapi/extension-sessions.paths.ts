// OpenAPI path of extension sessions (src/extensions/sessions.rest.ts), registered by document.ts.
import { z } from "zod";
import type { Register } from "./operation";

const ts = z.iso.datetime();
const ExtensionSessionContext = z
  .object({
    user: z.object({ id: z.string(), email: z.string() }),
    workspace: z.object({ id: z.string(), slug: z.string() }),
    application: z.object({ id: z.string(), slug: z.string() }),
    environment: z.object({
      environmentId: z.string(),
      environmentSlug: z.string(),
      environmentKind: z.enum(["production", "non_production"]),
      providerEnvironment: z.enum(["production", "sandbox"]),
    }),
    installationId: z.string(),
    extensionId: z.string(),
    versionId: z.string().nullable(),
    version: z.string().nullable(),
    role: z.enum(["owner", "workspace_admin", "admin", "developer", "finance", "viewer"]),
    scopes: z.array(z.string()).meta({ description: "The installed version's scopes: all the token may do" }),
  })
  .meta({ id: "ExtensionSessionContext", description: "What the bridge hands the iframe; the token carries the same claims. Never configuration, configSchema, keys or secrets" });
const ExtensionSession = z
  .object({
    token: z.string().nullable().meta({ description: "RS256 JWT; send as Authorization: Bearer (the bridge does). null in an Idempotency-Key replay: it is never stored" }),
    tokenType: z.literal("Bearer"),
    expiresAt: ts,
    expiresIn: z.number().int().meta({ description: "Lifetime in seconds (600)" }),
    context: ExtensionSessionContext,
  })
  .meta({ id: "ExtensionSession" });

type Reg = Register;

export function registerExtensionSessions(r: Reg) {
  r("post", "/installations/{id}/session", {
    tag: "extensions",
    summary:
      "Dashboard session only: a 10-minute session token for an active install's iframe, pinned to its application and environment with the installed version's scopes (404 not_found: unknown, foreign, suspended or uninstalled install, or an application the member has no role on; 403 permission_denied: outside the member's environment grants; API keys 403 application_key_workspace_route)",
    params: { id: "The installation's (inst_…)" },
    ok: [201, ExtensionSession],
  });
}
