// GraphQL types and fields for the platform: viewer, API keys, environments, connectors. Resolvers call the
// same services as REST; mutations re-read with the GraphQL selection.
import { builder, PageInfo } from "../graphql/builder";
import { parsePage } from "../shared/pagination";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys.service";
import { CONNECTOR_KINDS, CONNECTOR_PROVIDERS, createConnector, deactivateConnector, getConnector, listConnectors } from "./connectors.service";
import { archiveEnvironment, createEnvironment, listEnvironments } from "./environments.service";
import { whoami } from "./whoami.service";

type Viewer = ReturnType<typeof whoami>;

const WorkspaceRef = builder.objectRef<Viewer["workspace"]>("ViewerWorkspace").implement({
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name"), slug: t.exposeString("slug") }),
});
const ApplicationRef = builder.objectRef<NonNullable<Viewer["application"]>>("ViewerApplication").implement({
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name"), slug: t.exposeString("slug"), currency: t.exposeString("currency") }),
});
const EnvironmentRefInfo = builder.objectRef<Viewer["environment"]>("ViewerEnvironment").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    slug: t.exposeString("slug"),
    kind: t.exposeString("kind"),
    providerEnvironment: t.exposeString("providerEnvironment"),
  }),
});
const ViewerApiKey = builder.objectRef<NonNullable<Viewer["apiKey"]>>("ViewerApiKey").implement({
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name"), keyPrefix: t.exposeString("keyPrefix") }),
});

const ViewerRef = builder.objectRef<Viewer>("Viewer").implement({
  description: "The calling credential (REST: GET /whoami)",
  fields: (t) => ({
    type: t.exposeString("type"),
    scopes: t.exposeStringList("scopes"),
    workspace: t.field({ type: WorkspaceRef, resolve: (v) => v.workspace }),
    application: t.field({ type: ApplicationRef, nullable: true, resolve: (v) => v.application }),
    environment: t.field({ type: EnvironmentRefInfo, resolve: (v) => v.environment }),
    apiKey: t.field({ type: ViewerApiKey, nullable: true, resolve: (v) => v.apiKey }),
  }),
});

const ApiKey = builder.prismaObject("ApiKey", {
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    type: t.exposeString("type"),
    scopes: t.exposeStringList("scopes"),
    keyPrefix: t.exposeString("keyPrefix"),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

const Environment = builder.prismaObject("Environment", {
  fields: (t) => ({
    id: t.exposeID("id"),
    workspaceId: t.exposeID("workspaceId"),
    slug: t.exposeString("slug"),
    name: t.exposeString("name"),
    kind: t.exposeString("kind"),
    providerEnvironment: t.exposeString("providerEnvironment"),
    status: t.exposeString("status"),
    isSystem: t.exposeBoolean("isSystem"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    archivedAt: t.expose("archivedAt", { type: "DateTime", nullable: true }),
  }),
});

const Connector = builder.prismaObject("Connector", {
  fields: (t) => ({
    id: t.exposeID("id"),
    kind: t.exposeString("kind"),
    provider: t.exposeString("provider"),
    status: t.exposeString("status"),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

function pageType<T>(name: string, node: any) {
  return builder.objectRef<{ items: T[]; pagination: { cursor: string | null; hasMore: boolean } }>(name).implement({
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.items as any }),
      pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pagination }),
    }),
  });
}
const ApiKeyPage = pageType("ApiKeyPage", ApiKey);
const ConnectorPage = pageType("ConnectorPage", Connector);

const CreatedApiKey = builder.objectRef<{ id: string; rawKey: OneTimeSecret }>("CreatedApiKey").implement({
  description: "The new key; rawKey is shown once and never again",
  fields: (t) => ({
    rawKey: t.string({ nullable: true, description: "The key, shown once; null when an Idempotency-Key replay returns the stored result", resolve: (k, _a, ctx) => revealed(k.rawKey, ctx) }),
    apiKey: t.prismaField({ type: "ApiKey", resolve: (query, parent, _a, ctx) => ctx.deps.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: parent.id } }) }),
  }),
});

const ConnectorKind = builder.enumType("ConnectorKind", { values: CONNECTOR_KINDS });
const ConnectorProvider = builder.enumType("ConnectorProvider", { values: CONNECTOR_PROVIDERS });

builder.queryFields((t) => ({
  viewer: t.field({ type: ViewerRef, authScopes: { authenticated: true }, resolve: (_r, _a, ctx) => whoami(ctx) }),
  apiKeys: t.field({
    type: ApiKeyPage,
    authScopes: { scope: "api_keys:read" },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) => listApiKeys(ctx, parsePage({ limit: args.limit ?? undefined, cursor: args.cursor ?? undefined })),
  }),
  environments: t.prismaField({
    type: [Environment],
    authScopes: { dashboard: true },
    args: { workspaceId: t.arg.id({ required: true }), includeArchived: t.arg.boolean() },
    resolve: (_q, _r, args, ctx) => listEnvironments(ctx, String(args.workspaceId), { includeArchived: String(args.includeArchived ?? false) }),
  }),
  connectors: t.field({
    type: ConnectorPage,
    authScopes: { scope: "connectors:read" },
    args: { limit: t.arg.int(), cursor: t.arg.string() },
    resolve: (_r, args, ctx) => listConnectors(ctx, parsePage({ limit: args.limit ?? undefined, cursor: args.cursor ?? undefined })),
  }),
  connector: t.prismaField({
    type: Connector,
    authScopes: { scope: "connectors:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await getConnector(ctx, String(args.id));
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    authScopes: { authenticated: true },
    args: { name: t.arg.string({ required: true }), scopes: t.arg.stringList({ required: true }) },
    resolve: (_r, args, ctx) => createApiKey(ctx, { name: args.name, scopes: args.scopes }),
  }),
  revokeApiKey: t.boolean({
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => {
      await revokeApiKey(ctx, String(args.id));
      return true;
    },
  }),
  createEnvironment: t.prismaField({
    type: Environment,
    authScopes: { dashboard: true },
    args: { workspaceId: t.arg.id({ required: true }), slug: t.arg.string({ required: true }), name: t.arg.string({ required: true }) },
    resolve: async (query, _r, args, ctx) => {
      const env = await createEnvironment(ctx, String(args.workspaceId), { slug: args.slug, name: args.name });
      return ctx.deps.prisma.environment.findUniqueOrThrow({ ...query, where: { id: env.id } });
    },
  }),
  archiveEnvironment: t.prismaField({
    type: Environment,
    authScopes: { dashboard: true },
    args: { workspaceId: t.arg.id({ required: true }), environmentId: t.arg.id({ required: true }) },
    resolve: async (query, _r, args, ctx) => {
      const env = await archiveEnvironment(ctx, String(args.workspaceId), String(args.environmentId));
      return ctx.deps.prisma.environment.findUniqueOrThrow({ ...query, where: { id: env.id } });
    },
  }),
  createConnector: t.prismaField({
    type: Connector,
    authScopes: { scope: "connectors:write" },
    args: { kind: t.arg({ type: ConnectorKind, required: true }), provider: t.arg({ type: ConnectorProvider, required: true }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await createConnector(ctx, { kind: args.kind, provider: args.provider });
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
  deactivateConnector: t.prismaField({
    type: Connector,
    authScopes: { scope: "connectors:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _r, args, ctx) => {
      const c = await deactivateConnector(ctx, String(args.id));
      return ctx.deps.prisma.connector.findUniqueOrThrow({ ...query, where: { id: c.id } });
    },
  }),
}));
