// What an extension session token says, shared by the code that mints it (sessions.service.ts) and the code that
// accepts it (session-auth.ts): the claim shapes and the few rules both apply.
import type { EnvironmentKind, MemberInfo } from "../shared/principal";
import { NON_EXTENSION_PREFIXES } from "../shared/scopes";
import type { OneTimeSecret } from "../shared/secrets";

/** the `token_use` claim that tells a session token from any other token the service signs */
export const SESSION_TOKEN_USE = "extension_session";

export interface ExtensionSessionContext {
  user: { id: string; email: string };
  workspace: { id: string; slug: string };
  application: { id: string; slug: string };
  environment: { environmentId: string; environmentSlug: string; environmentKind: EnvironmentKind; providerEnvironment: "production" | "sandbox" };
  installationId: string;
  extensionId: string;
  versionId: string | null;
  version: string | null;
  role: string;
  scopes: string[];
}

export interface ExtensionSession {
  /** a bearer credential: kept out of stored Idempotency-Key answers like any secret */
  token: OneTimeSecret;
  tokenType: "Bearer";
  expiresAt: string;
  expiresIn: number;
  context: ExtensionSessionContext;
}

/** The fields of a manifest this module reads, from the installed version (or the extension for a legacy install). */
interface ManifestView {
  scopes: string[];
  iframeUrl: string | null;
}

export function manifestOf(version: { manifest: unknown } | null, extension: { scopes: string[]; iframeUrl: string | null }): ManifestView {
  const m = (version?.manifest ?? null) as { scopes?: unknown; iframeUrl?: unknown } | null;
  if (!m) return { scopes: extension.scopes, iframeUrl: extension.iframeUrl };
  return {
    scopes: Array.isArray(m.scopes) ? m.scopes.filter((s): s is string => typeof s === "string") : [],
    iframeUrl: typeof m.iframeUrl === "string" ? m.iframeUrl : null,
  };
}

/** Scopes an extension may ever hold: never `*`, human or staff scopes, whatever a stored manifest says. */
export function extensionScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes)].filter((s) => s !== "*" && !NON_EXTENSION_PREFIXES.some((p) => s.startsWith(p)));
}

/** The origin of an iframe URL (http/https only), or null. */
export function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.origin : null;
  } catch {
    return null;
  }
}

/** The member's role as the token reports it: the workspace role, else the role on the install's application. */
export function roleOf(member: Pick<MemberInfo, "workspaceRole" | "applicationRoles">, applicationId: string): string | null {
  return member.workspaceRole ?? member.applicationRoles.find((r) => r.applicationId === applicationId)?.role ?? null;
}
