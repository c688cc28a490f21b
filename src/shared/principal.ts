// Who is calling: resolved once per request (HTTP or WebSocket) from X-API-Key or a dashboard bearer token.

export type EnvironmentKind = "production" | "non_production";

export interface PrincipalEnvironment {
  id: string;
  slug: string;
  kind: EnvironmentKind;
  providerEnvironment: "production" | "sandbox";
}

export interface MemberInfo {
  id: string;
  userId: string;
  email: string;
  workspaceRole: "owner" | "workspace_admin" | null;
  applicationRoles: { applicationId: string; role: "admin" | "developer" | "finance" | "viewer" }[];
  environmentGrants: { grantType: "all" | "all_non_production" | "production_only" | "selected"; environmentIds?: string[] };
}

/** What the live gate (src/billing/live-gate.ts) needs to know about the workspace; cached with the principal. */
export interface WorkspaceBilling {
  /** an active platform subscription (or a comped workspace) */
  live: boolean;
  /** a subscription cancelled at period end is live until then (ISO); null otherwise */
  liveUntil: string | null;
  /** a trial workspace: production works until then (ISO) */
  trialEndsAt: string | null;
  hasPaymentMethod: boolean;
  /** the platform subscription's status; null when the workspace never subscribed */
  subscriptionStatus: string | null;
}

export interface Principal {
  /**
   * whoami `type`: "api_key", "clerk_jwt" for a dashboard session, "extension_session" for an extension's bridge
   * token (RS256 JWT, extensions/sessions.service.ts), "oauth" for an OAuth access token
   */
  type: "api_key" | "clerk_jwt" | "extension_session" | "oauth";
  /** stable id of the credential (api key id or dashboard session id): idempotency keys are per credential */
  credentialId: string;
  workspace: { id: string; name: string; slug: string };
  billing: WorkspaceBilling;
  application: { id: string; name: string; slug: string; currency: string } | null;
  environment: PrincipalEnvironment;
  /** set when the environment was named explicitly (X-Service-Environment-Id) or pinned by a key */
  environmentExplicit: boolean;
  scopes: string[];
  /** installationId: the extension install this key acts for (installation API keys), else null */
  apiKey: { id: string; name: string; keyPrefix: string; type: "secret" | "publishable"; installationId?: string | null } | null;
  /** the member behind a dashboard session, or the member who authorized an OAuth app (their roles still apply) */
  member: MemberInfo | null;
  /** set for an extension session token: the install it acts for and the member who opened it */
  extension?: ExtensionSessionInfo;
  /** set for an OAuth access token: the grant it belongs to and the client it was issued to */
  oauth?: { grantId: string; clientId: string; clientName: string | null; /** the token's exp, epoch seconds */ expiresAt: number };
}

interface ExtensionSessionInfo {
  installationId: string;
  extensionId: string;
  extensionName: string;
  versionId: string | null;
  version: string | null;
  user: { id: string; email: string };
  memberId: string;
  role: string;
  /** the origin of the installed version's iframeUrl: the only browser origin that may read this token's answers */
  iframeOrigin: string | null;
  expiresAt: Date;
}

/** The tenant every merchant row is filtered by. */
export interface Tenant {
  workspaceId: string;
  applicationId: string;
  environmentId: string;
}

/** An extension's Basic client credentials (extc_…): the publisher's extension, on its four self routes only. */
export interface ExtensionClient {
  extensionId: string;
  workspaceId: string;
  clientId: string;
}
