// The rows a credential resolves through, read in the one query that authenticates it (API key, OAuth access
// token, extension session): the workspace `w` with its billing facts, the application `a` and environment `e` of
// that workspace, and, for a credential a member holds, the member `m` and their user `u`. Each credential joins
// its own row onto credentialTenant, pinning `w`, `a` and `e`; the mappings below turn the columns into a Principal's
// parts. Dashboard sessions read the same facts through Prisma relations and share the mappings.
import type { ExpressionBuilder } from "kysely";
import type { DB, Sql } from "../db/sql";
import type { EnvironmentKind, MemberInfo, Principal, PrincipalEnvironment } from "../shared/principal";
import { billingColumns, billingOfRow, type BillingRow } from "./workspace-billing";

/** SELECT … FROM the workspace, its subscription, an application and an environment of it, with their columns. */
export function credentialTenant(sql: Sql) {
  return sql
    .selectFrom("Workspace as w")
    .leftJoin("PlatformSubscription as bps", "bps.workspaceId", "w.id")
    .innerJoin("Application as a", "a.workspaceId", "w.id")
    .innerJoin("Environment as e", "e.workspaceId", "w.id")
    .select(["w.id as wsId", "w.name as wsName", "w.slug as wsSlug"])
    .select(billingColumns)
    .select(["a.id as appId", "a.name as appName", "a.slug as appSlug", "a.currency as appCurrency"])
    .select(["e.id as envId", "e.slug as envSlug", "e.kind as envKind", "e.providerEnvironment as envProvider", "e.status as envStatus"]);
}

type TenantRow = BillingRow & {
  wsId: string;
  wsName: string;
  wsSlug: string;
  appId: string;
  appName: string;
  appSlug: string;
  appCurrency: string;
  envId: string;
  envSlug: string;
  envKind: string;
  envProvider: string;
};

/** The workspace, billing, application and environment of a row read with credentialTenant. */
export function tenantOfRow(r: TenantRow): Pick<Principal, "workspace" | "billing" | "application" | "environment"> {
  return {
    workspace: { id: r.wsId, name: r.wsName, slug: r.wsSlug },
    billing: billingOfRow(r),
    application: { id: r.appId, name: r.appName, slug: r.appSlug, currency: r.appCurrency },
    environment: envInfo({ id: r.envId, slug: r.envSlug, kind: r.envKind, providerEnvironment: r.envProvider }),
  };
}

export function envInfo(e: { id: string; slug: string; kind: string; providerEnvironment: string }): PrincipalEnvironment {
  return { id: e.id, slug: e.slug, kind: e.kind as EnvironmentKind, providerEnvironment: e.providerEnvironment as "production" | "sandbox" };
}

/** Select list: the member as MemberInfo takes it, and whether they were removed. Needs the member as `m`, its user as `u`. */
export function memberColumns(eb: ExpressionBuilder<DB & { m: DB["Member"]; u: DB["User"] }, "m" | "u">) {
  return [
    eb.ref("m.id").as("memberId"),
    eb.ref("m.workspaceId").as("mWorkspaceId"),
    eb.ref("m.workspaceRole").as("workspaceRole"),
    eb.ref("m.applicationRoles").as("applicationRoles"),
    eb.ref("m.environmentGrants").as("environmentGrants"),
    eb.ref("m.removedAt").as("removedAt"),
    eb.ref("u.id").as("userId"),
    eb.ref("u.email").as("email"),
  ] as const;
}

/** A member's roles and grants as guards read them (no application roles: none; no grants: every environment). */
export function memberInfoOf(m: { memberId: string; userId: string; email: string; workspaceRole: string | null; applicationRoles: unknown; environmentGrants: unknown }): MemberInfo {
  return {
    id: m.memberId,
    userId: m.userId,
    email: m.email,
    workspaceRole: m.workspaceRole as MemberInfo["workspaceRole"],
    applicationRoles: (m.applicationRoles ?? []) as MemberInfo["applicationRoles"],
    environmentGrants: (m.environmentGrants ?? { grantType: "all" }) as MemberInfo["environmentGrants"],
  };
}
