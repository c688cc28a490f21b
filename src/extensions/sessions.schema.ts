// GraphQL for extension sessions: the mint (REST POST /installations/{id}/session). Same service as REST.
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { EnvironmentKindEnum, ExtensionUserRoleEnum, ProviderEnvironmentEnum } from "../platform/platform.schema";
import { revealed } from "../shared/secrets";
import type { ExtensionSession, ExtensionSessionContext } from "./session-claims";
import { mintExtensionSession } from "./sessions.service";

type Ctx = ExtensionSessionContext;

const TokenTypeEnum = describedEnum<"Bearer">("ExtensionSessionTokenType", "How a session token is sent", {
  Bearer: "As Authorization: Bearer <token>",
});

const IdRef = builder.objectRef<{ id: string; slug: string }>("ExtensionSessionRef").implement({
  description: "An id and slug (workspace or application) as the bridge context carries them",
  fields: (t) => ({ id: t.exposeID("id"), slug: t.exposeString("slug", { description: "URL-safe name" }) }),
});
const UserRef = builder.objectRef<Ctx["user"]>("ExtensionSessionUser").implement({
  description: "The dashboard user who opened the extension",
  fields: (t) => ({ id: t.exposeID("id"), email: t.exposeString("email", { description: "Their sign-in email" }) }),
});
const EnvRef = builder.objectRef<Ctx["environment"]>("ExtensionSessionEnvironment").implement({
  description: "The install's environment",
  fields: (t) => ({
    environmentId: t.exposeID("environmentId", { description: "The environment's id" }),
    environmentSlug: t.exposeString("environmentSlug", { description: "Its slug, e.g. sandbox" }),
    environmentKind: t.field({ type: EnvironmentKindEnum, description: "production or non_production", resolve: (e) => e.environmentKind }),
    providerEnvironment: t.field({ type: ProviderEnvironmentEnum, description: "The processor environment it uses", resolve: (e) => e.providerEnvironment }),
  }),
});
const ContextRef = builder.objectRef<Ctx>("ExtensionSessionContext").implement({
  description: "What the bridge tells the iframe (the token carries the same claims); never configuration, keys or secrets",
  fields: (t) => ({
    user: t.field({ type: UserRef, description: "Who opened the extension", resolve: (c) => c.user }),
    workspace: t.field({ type: IdRef, description: "The workspace", resolve: (c) => c.workspace }),
    application: t.field({ type: IdRef, description: "The install's application", resolve: (c) => c.application }),
    environment: t.field({ type: EnvRef, description: "The install's environment", resolve: (c) => c.environment }),
    installationId: t.exposeID("installationId", { description: "The install (inst_…)" }),
    extensionId: t.exposeID("extensionId", { description: "The extension (ext_…)" }),
    versionId: t.exposeID("versionId", { nullable: true, description: "The installed version (ver_…); null for an install made before versions" }),
    version: t.exposeString("version", { nullable: true, description: "The installed version's name, e.g. 1.2.0" }),
    role: t.field({ type: ExtensionUserRoleEnum, description: "The user's role", resolve: (c) => c.role as "viewer" }),
    scopes: t.exposeStringList("scopes", { description: "The installed version's scopes: all the token may do" }),
  }),
});
const SessionRef = builder.objectRef<ExtensionSession>("ExtensionSession").implement({
  description: "A session token for an installed extension's iframe (RS256 JWT, verifiable with /.well-known/extension-jwks.json)",
  fields: (t) => ({
    token: t.string({ nullable: true, description: "Send as Authorization: Bearer from the iframe (the bridge does); null in an Idempotency-Key replay", resolve: (s, _a, ctx) => revealed(s.token, ctx) }),
    tokenType: t.field({ type: TokenTypeEnum, description: "Always Bearer", resolve: () => "Bearer" as const }),
    expiresAt: t.field({ type: "DateTime", description: "When the token stops working (10 minutes after it was minted)", resolve: (s) => new Date(s.expiresAt) }),
    expiresIn: t.exposeInt("expiresIn", { description: "Its lifetime in seconds" }),
    context: t.field({ type: ContextRef, description: "The claims, for the iframe to show", resolve: (s) => s.context }),
  }),
});

builder.mutationFields((t) => ({
  createExtensionSession: t.field({
    type: SessionRef,
    description: "A dashboard member opens an active install: a 10-minute session token for its iframe (404 not_found for an unknown, foreign or inactive install; 403 permission_denied outside the member's environment grants)",
    authScopes: { dashboard: true },
    args: { installationId: t.arg.id({ required: true, description: "The install (inst_…)" }) },
    resolve: (_r, a, ctx) => mintExtensionSession(ctx, String(a.installationId)),
  }),
}));
