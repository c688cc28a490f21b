// The Pothos builder: plugins and scalars only; domain types live in each domain's *.schema.ts.
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { GraphQLError, Kind } from "graphql";
import type PrismaTypes from "../generated/pothos-prisma-types";
import { getDatamodel } from "../generated/pothos-prisma-types";
import { requireDashboard, requirePrincipal, requireScope, requireSecretOrDashboard } from "../shared/guards";
import type { Ctx } from "../shared/context";

export type GqlContext = Ctx;

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GqlContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
  AuthScopes: {
    authenticated: boolean;
    secret: boolean;
    dashboard: boolean;
    scope: string;
  };
}>({
  defaultFieldNullability: false,
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    // Guards throw DomainErrors with the spec's codes; they surface as extensions.code.
    authScopes: (ctx) => ({
      authenticated: () => Boolean(requirePrincipal(ctx)),
      secret: () => Boolean(requireSecretOrDashboard(ctx)),
      dashboard: () => Boolean(requireDashboard(ctx)),
      scope: (s: string) => Boolean(requireScope(ctx, s)),
    }),
  },
  prisma: {
    client: (ctx) => ctx.deps.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.scalarType("DateTime", {
  description: "ISO 8601 UTC timestamp",
  serialize: (v) => (v instanceof Date ? v.toISOString() : String(v)),
  parseValue: (v) => {
    const d = new Date(String(v));
    if (typeof v !== "string" || Number.isNaN(d.getTime())) throw new GraphQLError("DateTime must be an ISO 8601 string");
    return d;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING || Number.isNaN(new Date(ast.value).getTime())) throw new GraphQLError("DateTime must be an ISO 8601 string");
    return new Date(ast.value);
  },
});

builder.scalarType("JSON", {
  description: "Arbitrary JSON value",
  serialize: (v) => v,
  parseValue: (v) => v,
});

builder.queryType({ description: "Reads. Every field checks the credential's scope and sees only its application and environment" });
builder.mutationType({
  description: "Writes. Send an Idempotency-Key header to make a retry safe: the same key and body replay the first answer",
});

/** A page's end as the services give it, plus (for the Relay fields) the cursor of the page's first item. */
export type PageEnd = { cursor: string | null; hasMore: boolean; startCursor?: string | null; endCursor?: string | null };

export const PageInfo = builder.objectRef<PageEnd>("PageInfo").implement({
  description: "Where a page ends. The Relay fields (hasNextPage, endCursor, ...) and the older cursor/hasMore say the same",
  fields: (t) => ({
    cursor: t.exposeString("cursor", { nullable: true, description: "Pass as `cursor` (or `after`) for the next page; null on the last page" }),
    hasMore: t.exposeBoolean("hasMore", { description: "Whether another page follows" }),
    hasNextPage: t.boolean({ description: "Relay: whether another page follows", resolve: (p) => p.hasMore }),
    hasPreviousPage: t.boolean({ description: "Relay: always false, as pages only go forward (first/after)", resolve: () => false }),
    startCursor: t.string({ nullable: true, description: "Relay: the first edge's cursor", resolve: (p) => p.startCursor ?? null }),
    endCursor: t.string({ nullable: true, description: "Relay: the last edge's cursor; pass as `after` for the next page", resolve: (p) => p.endCursor ?? null }),
  }),
});
