// GraphQL for the dashboard user's authorized OAuth apps: the same services as REST (oauth.rest.ts).
import { builder } from "../graphql/builder";
import { EnvironmentKindEnum } from "../platform/platform.schema";
import { type AuthorizedAppView, listAuthorizedApps, revokeAuthorizedApp } from "./grants.service";

const AuthorizedAppApplication = builder.objectRef<AuthorizedAppView["application"]>("AuthorizedAppApplication").implement({
  description: "The application an authorized app may reach",
  fields: (t) => ({ id: t.exposeID("id"), name: t.exposeString("name", { description: "Display name" }), slug: t.exposeString("slug", { description: "URL-safe name" }) }),
});
const AuthorizedAppEnvironment = builder.objectRef<AuthorizedAppView["environment"]>("AuthorizedAppEnvironment").implement({
  description: "The environment an authorized app may reach",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "Display name" }),
    slug: t.exposeString("slug", { description: "URL-safe name" }),
    kind: t.field({ type: EnvironmentKindEnum, description: "production or non_production", resolve: (e) => e.kind }),
  }),
});

const AuthorizedApp = builder.objectRef<AuthorizedAppView>("AuthorizedApp").implement({
  description: "An OAuth app the calling member authorized (one consent): its client, the application and environment it is pinned to, and its scopes",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The grant id; its access tokens carry it" }),
    clientId: t.exposeString("clientId", { description: "The OAuth client id (from dynamic registration)" }),
    clientName: t.exposeString("clientName", { nullable: true, description: "The client_name the client registered, if any" }),
    application: t.field({ type: AuthorizedAppApplication, description: "The application it may reach", resolve: (g) => g.application }),
    environment: t.field({ type: AuthorizedAppEnvironment, description: "The environment it may reach", resolve: (g) => g.environment }),
    scopes: t.exposeStringList("scopes", { description: "What it may do, e.g. quotes:read" }),
    createdAt: t.field({ type: "DateTime", description: "When the member approved it", resolve: (g) => g.createdAt }),
    revokedAt: t.field({ type: "DateTime", nullable: true, description: "When it was revoked; its tokens stopped working then", resolve: (g) => g.revokedAt }),
  }),
});

builder.queryFields((t) => ({
  authorizedApps: t.field({
    type: [AuthorizedApp],
    description: "The OAuth apps the calling member authorized and has not revoked, newest first (dashboard session); REST: GET /oauth/grants",
    authScopes: { dashboard: true },
    resolve: (_r, _a, ctx) => listAuthorizedApps(ctx),
  }),
}));

builder.mutationFields((t) => ({
  revokeAuthorizedApp: t.field({
    type: AuthorizedApp,
    description: "Revokes an authorized app: its access and refresh tokens stop working at once (dashboard session); REST: DELETE /oauth/grants/{id}",
    authScopes: { dashboard: true },
    args: { id: t.arg.id({ required: true, description: "The authorized app (grant) id" }) },
    resolve: (_r, a, ctx) => revokeAuthorizedApp(ctx, String(a.id)),
  }),
}));
