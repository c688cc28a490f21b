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

export interface Principal {
  /** whoami `type`: "api_key", or "clerk_jwt" for a dashboard session (platform.md part 4) */
  type: "api_key" | "clerk_jwt";
  /** stable id of the credential (api key id or dashboard session id): idempotency keys are per credential */
  credentialId: string;
  workspace: { id: string; name: string; slug: string };
  application: { id: string; name: string; slug: string; currency: string } | null;
  environment: PrincipalEnvironment;
  /** set when the environment was named explicitly (X-Service-Environment-Id) or pinned by a key */
  environmentExplicit: boolean;
  scopes: string[];
  apiKey: { id: string; name: string; keyPrefix: string; type: "secret" | "publishable" } | null;
  member: MemberInfo | null;
}

/** The tenant every merchant row is filtered by. */
export interface Tenant {
  workspaceId: string;
  applicationId: string;
  environmentId: string;
}
