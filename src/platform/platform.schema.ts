// GraphQL types and fields for the platform: viewer, API keys, environments, connectors. Resolvers call the
// same services as REST; mutations re-read with the GraphQL selection.
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { parsePage } from "../shared/pagination";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys.service";
import { CONNECTOR_KINDS, CONNECTOR_PROVIDERS, createConnector, deactivateConnector, getConnector, listConnectors } from "./connectors.service";
import { archiveEnvironment, createEnvironment, listEnvironments } from "./environments.service";
import { whoami } from "./whoami.service";

type Viewer = ReturnType<typeof whoami>;
type EnvKind = "production" | "non_production";
type ProviderEnv = "production" | "sandbox";

export const EnvironmentKindEnum = describedEnum<EnvKind>("EnvironmentKind", "Whether an environment handles real money", {
  production: "Real buyers and real money",
  non_production: "Testing: sandbox processors, test tokens, the test processor's resolve and charge routes",
});
export const ProviderEnvironmentEnum = describedEnum<ProviderEnv>("ProviderEnvironment", "Which environment of the payment processor an environment talks to", {
  production: "The processor's live environment",
  sandbox: "The processor's test environment",
});
const EnvironmentStatusEnum = describedEnum<"active" | "archived">("EnvironmentStatus", "Whether an environment is in use", {
  active: "In use",
  archived: "Archived: its keys no longer work",
});
const CredentialTypeEnum = describedEnum<Viewer["type"]>("CredentialType", "What kind of credential is calling", {
  api_key: "An API key (X-API-Key header)",
  clerk_jwt: "A dashboard member's session (Authorization: Bearer)",
  extension_session: "An installed extension's iframe session token (Authorization: Bearer, an RS256 JWT): the install's scopes, application and environment",
  oauth: "An OAuth access token an app obtained with a member's consent (Authorization: Bearer)",
});
const ApiKeyTypeEnum = describedEnum<"secret" | "publishable">("ApiKeyType", "Where a key may be used", {
  secret: "sk_…: server side only; scopes decide what it may do",
  publishable: "pk_…: safe in a browser; limited to the scopes a storefront page needs",
});
export const WorkspaceRoleEnum = describedEnum<"owner" | "workspace_admin">("WorkspaceRole", "A member's role over the whole workspace", {
  owner: "Everything, including billing and ownership",
  workspace_admin: "Everything but ownership",
});
const ConnectorKind = describedEnum<(typeof CONNECTOR_KINDS)[number]>("ConnectorKind", "What a connector takes payments for", {
  card: "Card payments (method card)",
  invoice_terms: "Invoices on Net-N terms (method net30)",
});
const ConnectorProvider = describedEnum<(typeof CONNECTOR_PROVIDERS)[number]>("ConnectorProvider", "Who processes a connector's payments", {
  test: "The built-in deterministic test processor (non-production)",
});
const ConnectorStatusEnum = describedEnum<"active" | "inactive">("ConnectorStatus", "Whether a connector takes payments", {
  active: "Takes payments",
  inactive: "Deactivated",
});

const WorkspaceRef = builder.objectRef<Viewer["workspace"]>("ViewerWorkspace").implement({
  description: "The workspace (the merchant's company account) the credential belongs to",
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name", { description: "Display name" }), slug: t.exposeString("slug", { description: "URL-safe name" }) }),
});
const ApplicationRef = builder.objectRef<NonNullable<Viewer["application"]>>("ViewerApplication").implement({
  description: "The application (one storefront or product) the credential is pinned to",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Send it as applicationId where one is asked for, or omit it: it is the default" }),
    name: t.exposeString("name", { description: "Display name, shown on the hosted checkout page" }),
    slug: t.exposeString("slug", { description: "URL-safe name" }),
    currency: t.exposeString("currency", { description: "The currency of its carts and orders (ISO 4217)" }),
  }),
});
const EnvironmentRefInfo = builder.objectRef<Viewer["environment"]>("ViewerEnvironment").implement({
  description: "The environment the credential works in",
  fields: (t) => ({
    id: t.exposeID("id"),
    slug: t.exposeString("slug", { description: "URL-safe name, e.g. sandbox" }),
    kind: t.field({ type: EnvironmentKindEnum, description: "production or non_production", resolve: (e) => e.kind }),
    providerEnvironment: t.field({ type: ProviderEnvironmentEnum, description: "The processor environment used", resolve: (e) => e.providerEnvironment }),
  }),
});
const ViewerApiKey = builder.objectRef<NonNullable<Viewer["apiKey"]>>("ViewerApiKey").implement({
  description: "The calling API key (never the key itself)",
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name", { description: "The name given at creation" }), keyPrefix: t.exposeString("keyPrefix", { description: "The key's first characters, to recognise it" }) }),
});
const ViewerOAuth = builder.objectRef<NonNullable<Viewer["oauth"]>>("ViewerOAuth").implement({
  description: "The OAuth app behind an access token: the client it was issued to and the grant (consent) it belongs to",
  fields: (t) => ({
    grantId: t.exposeID("grantId", { description: "The authorized app's id (revoke it with revokeAuthorizedApp)" }),
    clientId: t.exposeString("clientId", { description: "The OAuth client id (from dynamic registration)" }),
    clientName: t.exposeString("clientName", { nullable: true, description: "The client_name the client registered, if any" }),
  }),
});
type MemberV = { id: string; email: string; workspaceRole: "owner" | "workspace_admin" | null };
const ViewerMember = builder.objectRef<MemberV>("ViewerMember").implement({
  description: "The dashboard member behind a session credential",
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email", { description: "The member's sign-in email" }),
    workspaceRole: t.field({ type: WorkspaceRoleEnum, nullable: true, description: "Workspace-wide role; null when the member has only application roles", resolve: (m) => m.workspaceRole }),
  }),
});

export const ExtensionUserRoleEnum = describedEnum<"owner" | "workspace_admin" | "admin" | "developer" | "finance" | "viewer">(
  "ExtensionUserRole",
  "The role of the user who opened an extension: their workspace role, else their role on the install's application",
  {
    owner: "Workspace owner",
    workspace_admin: "Workspace admin",
    admin: "Application admin",
    developer: "Application developer",
    finance: "Application finance",
    viewer: "Application viewer (read only)",
  },
);
type ExtensionV = { installationId: string; extensionId: string; version: string | null; user: { id: string; email: string }; role: string; expiresAt: string };
const ViewerExtensionUser = builder.objectRef<ExtensionV["user"]>("ViewerExtensionUser").implement({
  description: "The dashboard user who opened the extension",
  fields: (t) => ({ id: t.exposeID("id"), email: t.exposeString("email", { description: "Their sign-in email" }) }),
});
const ViewerExtension = builder.objectRef<ExtensionV>("ViewerExtension").implement({
  description: "The installed extension behind an extension session token",
  fields: (t) => ({
    installationId: t.exposeID("installationId", { description: "The install (inst_…) the token acts for" }),
    extensionId: t.exposeID("extensionId", { description: "The extension (ext_…)" }),
    version: t.exposeString("version", { nullable: true, description: "The installed version; null for an install made before versions" }),
    user: t.field({ type: ViewerExtensionUser, description: "Who opened it", resolve: (e) => e.user }),
    role: t.field({ type: ExtensionUserRoleEnum, description: "That user's role", resolve: (e) => e.role as "viewer" }),
    expiresAt: t.field({ type: "DateTime", description: "When the token stops working", resolve: (e) => new Date(e.expiresAt) }),
  }),
});

const ViewerRef = builder.objectRef<Viewer>("Viewer").implement({
  description: "The calling credential (REST: GET /whoami)",
  fields: (t) => ({
    type: t.field({ type: CredentialTypeEnum, description: "API key, dashboard session, extension session or OAuth access token", resolve: (v) => v.type }),
    scopes: t.exposeStringList("scopes", { description: "What it may do, e.g. carts:write; * is every scope" }),
    workspace: t.field({ type: WorkspaceRef, description: "Its workspace", resolve: (v) => v.workspace }),
    application: t.field({ type: ApplicationRef, nullable: true, description: "Its application; null for a session in a workspace with several and no X-Service-Application-Id", resolve: (v) => v.application }),
    environment: t.field({ type: EnvironmentRefInfo, description: "Its environment", resolve: (v) => v.environment }),
    apiKey: t.field({ type: ViewerApiKey, nullable: true, description: "The key, for API key credentials", resolve: (v) => v.apiKey }),
    oauth: t.field({ type: ViewerOAuth, nullable: true, description: "The app and grant, for OAuth access tokens", resolve: (v) => ("oauth" in v ? v.oauth : null) }),
    member: t.field({ type: ViewerMember, nullable: true, description: "The member, for dashboard sessions and the member who authorized an OAuth app", resolve: (v) => ("member" in v ? (v.member as MemberV) : null) }),
    extension: t.field({ type: ViewerExtension, nullable: true, description: "The install and user, for extension session tokens", resolve: (v) => ("extension" in v ? (v.extension as ExtensionV) : null) }),
  }),
});

const ApiKey = builder.prismaObject("ApiKey", {
  description: "An API key (the secret itself is shown only when it is created)",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "What it is for" }),
    type: t.field({ type: ApiKeyTypeEnum, description: "secret or publishable", resolve: (k) => k.type as "secret" | "publishable" }),
    scopes: t.exposeStringList("scopes", { description: "What it may do, e.g. carts:write" }),
    keyPrefix: t.exposeString("keyPrefix", { description: "The key's first characters, to recognise it" }),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const Environment = builder.prismaObject("Environment", {
  description: "An isolated copy of the workspace's data and keys: production, sandbox, or one you add",
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspaceId"),
    slug: t.exposeString("slug", { description: "URL-safe name, unique in the workspace" }),
    name: t.exposeString("name", { description: "Display name" }),
    kind: t.field({ type: EnvironmentKindEnum, description: "production or non_production", resolve: (e) => e.kind as EnvKind }),
    providerEnvironment: t.field({ type: ProviderEnvironmentEnum, description: "The processor environment used", resolve: (e) => e.providerEnvironment as ProviderEnv }),
    status: t.field({ type: EnvironmentStatusEnum, description: "active or archived", resolve: (e) => e.status as "active" | "archived" }),
    isSystem: t.exposeBoolean("isSystem", { description: "Production and sandbox are built in and cannot be archived" }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    archivedAt: t.expose("archivedAt", { type: "DateTime", nullable: true, description: "When it was archived" }),
  }),
});

const Connector = builder.prismaObject("Connector", {
  description: "A connection to a payment processor that takes one kind of payment",
  fields: (t) => ({
    id: t.exposeID("id"),
    kind: t.field({ type: ConnectorKind, description: "What it takes payments for", resolve: (c) => c.kind as (typeof CONNECTOR_KINDS)[number] }),
    provider: t.field({ type: ConnectorProvider, description: "Who processes them", resolve: (c) => c.provider as (typeof CONNECTOR_PROVIDERS)[number] }),
    status: t.field({ type: ConnectorStatusEnum, description: "active or inactive", resolve: (c) => c.status as "active" | "inactive" }),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const ApiKeyPage = pageOf("ApiKeyPage", ApiKey, "API keys");
const ConnectorPage = pageOf("ConnectorPage", Connector, "connectors");

const CreatedApiKey = builder.objectRef<{ id: string; rawKey: OneTimeSecret }>("CreatedApiKey").implement({
  description: "The new key; rawKey is shown once and never again",
  fields: (t) => ({
    rawKey: t.string({ nullable: true, description: "The key, shown once; null when an Idempotency-Key replay returns the stored result", resolve: (k, _a, ctx) => revealed(k.rawKey, ctx) }),
    apiKey: t.prismaField({ type: "ApiKey", description: "The key's record", resolve: (query, parent, _a, ctx) => ctx.deps.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: parent.id } }) }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({ type: ViewerRef, description: "Who is calling: workspace, application, environment and scopes", authScopes: { authenticated: true }, resolve: (_r, _a, ctx) => whoami(ctx) }),
  apiKeys: t.field({
    type: ApiKeyPage,
    description: "The environment's API keys, newest first",
    authScopes: { scope: "api_keys:read" },
    args: { ...pageArgs(t) },
    resolve: (_r, args, ctx) => listApiKeys(ctx, parsePage({ limit: (args.first ?? args.limit) ?? undefined, cursor: (args.after ?? args.cursor) ?? undefined })),
  }),
  environments: t.prismaField({
    type: [Environment],
    description: "A workspace's environments (a handful per workspace, so not paged); dashboard sessions only",
    authScopes: { dashboard: true },
    args: { workspaceId: t.arg.id({ required: true, description: "The workspace" }), includeArchived: t.arg.boolean({ description: "Include archived ones (default false)" }) },
    resolve: (_q, _r, args, ctx) => listEnvironments(ctx, String(args.workspaceId), { includeArchived: String(args.includeArchived ?? false) }),
  }),
  connectors: t.field({
    type: ConnectorPage,
    description: "The environment's connectors, newest first",
    authScopes: { scope: "connectors:read" },
    args: { ...pageArgs(t) },
    resolve: (_r, args, ctx) => listConnectors(ctx, parsePage({ limit: (args.first ?? args.limit) ?? undefined, cursor: (args.after ?? args.cursor) ?? undefined })),
  }),
  connector: t.prismaField({
    type: Connector,
    description: "One connector",
    authScopes: { scope: "connectors:read" },
    args: { id: t.arg.id({ required: true, description: "The connector's id" }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await getConnector(ctx, String(args.id));
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description: "Mints a key in the caller's application and environment; the raw key is in the answer once. Secret keys need api_keys:write and can grant only scopes the caller has",
    authScopes: { authenticated: true },
    args: {
      name: t.arg.string({ required: true, description: "What it is for" }),
      scopes: t.arg.stringList({ required: true, description: "What it may do, e.g. [\"carts:write\", \"checkout:write\"]; storefront-only scopes make a publishable pk_ key" }),
    },
    resolve: (_r, args, ctx) => createApiKey(ctx, { name: args.name, scopes: args.scopes }),
  }),
  revokeApiKey: t.boolean({
    description: "Revokes a key at once (every process stops accepting it); true when done",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: "The key's id" }) },
    resolve: async (_r, args, ctx) => {
      await revokeApiKey(ctx, String(args.id));
      return true;
    },
  }),
  createEnvironment: t.prismaField({
    type: Environment,
    description: "Adds a non-production environment; dashboard sessions only",
    authScopes: { dashboard: true },
    args: {
      workspaceId: t.arg.id({ required: true, description: "The workspace" }),
      slug: t.arg.string({ required: true, description: "URL-safe name, unique in the workspace" }),
      name: t.arg.string({ required: true, description: "Display name" }),
    },
    resolve: async (query, _r, args, ctx) => {
      const env = await createEnvironment(ctx, String(args.workspaceId), { slug: args.slug, name: args.name });
      return ctx.deps.prisma.environment.findUniqueOrThrow({ ...query, where: { id: env.id } });
    },
  }),
  archiveEnvironment: t.prismaField({
    type: Environment,
    description: "Archives an environment you added (its keys stop working); dashboard sessions only",
    authScopes: { dashboard: true },
    args: { workspaceId: t.arg.id({ required: true, description: "The workspace" }), environmentId: t.arg.id({ required: true, description: "The environment to archive" }) },
    resolve: async (query, _r, args, ctx) => {
      const env = await archiveEnvironment(ctx, String(args.workspaceId), String(args.environmentId));
      return ctx.deps.prisma.environment.findUniqueOrThrow({ ...query, where: { id: env.id } });
    },
  }),
  createConnector: t.prismaField({
    type: Connector,
    description: "Connects a payment processor for one kind of payment",
    authScopes: { scope: "connectors:write" },
    args: { kind: t.arg({ type: ConnectorKind, required: true, description: "What it takes payments for" }), provider: t.arg({ type: ConnectorProvider, required: true, description: "Who processes them" }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await createConnector(ctx, { kind: args.kind, provider: args.provider });
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
  deactivateConnector: t.prismaField({
    type: Connector,
    description: "Stops a connector taking payments",
    authScopes: { scope: "connectors:write" },
    args: { id: t.arg.id({ required: true, description: "The connector's id" }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await deactivateConnector(ctx, String(args.id));
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
}));
