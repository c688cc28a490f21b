// The demo workspace (decisions.md part 2). Idempotent: creates what is missing, then mints a fresh
// dashboard token and sandbox key (earlier ones stay valid).
import type { Config } from "../config";
import type { Ctx } from "../shared/context";
import { withTx } from "../shared/context";
import { randomToken, sha256Hex } from "../shared/crypto";
import { mintKey } from "./api-keys.service";

export interface BootstrapResult {
  workspaceId: string;
  applicationId: string;
  environments: { production: { id: string }; sandbox: { id: string } };
  dashboardToken: string;
  apiKey: string;
  baseUrl: string;
  checkoutUrl: string;
}

/**
 * Creates a workspace with its two system environments; used by bootstrap, partner trials and tests. A new workspace
 * is not live (production credentials answer 402 until it subscribes) unless `live` says so (the demo is comped).
 */
export async function ensureWorkspace(
  ctx: Ctx,
  input: { slug: string; name: string; ownerEmail: string; appSlug: string; appName: string; currency?: string; live?: boolean; trialEndsAt?: Date; isPartner?: boolean },
) {
  return withTx(ctx, async (tx) => {
    const db = tx.db;
    const ws =
      (await db.workspace.findUnique({ where: { slug: input.slug } })) ??
      (await db.workspace.create({
        data: { slug: input.slug, name: input.name, live: input.live ?? false, trialEndsAt: input.trialEndsAt ?? null, isPartner: input.isPartner ?? false },
      }));
    const production =
      (await db.environment.findUnique({ where: { workspaceId_slug: { workspaceId: ws.id, slug: "production" } } })) ??
      (await db.environment.create({ data: { workspaceId: ws.id, slug: "production", name: "Production", kind: "production", providerEnvironment: "production", isSystem: true } }));
    const sandbox =
      (await db.environment.findUnique({ where: { workspaceId_slug: { workspaceId: ws.id, slug: "sandbox" } } })) ??
      (await db.environment.create({ data: { workspaceId: ws.id, slug: "sandbox", name: "Sandbox", kind: "non_production", providerEnvironment: "sandbox", isSystem: true } }));
    const app =
      (await db.application.findUnique({ where: { workspaceId_slug: { workspaceId: ws.id, slug: input.appSlug } } })) ??
      (await db.application.create({ data: { workspaceId: ws.id, slug: input.appSlug, name: input.appName, currency: input.currency ?? "USD" } }));
    const user =
      (await db.user.findUnique({ where: { email: input.ownerEmail } })) ?? (await db.user.create({ data: { email: input.ownerEmail } }));
    const owner =
      (await db.member.findUnique({ where: { workspaceId_userId: { workspaceId: ws.id, userId: user.id } } })) ??
      (await db.member.create({ data: { workspaceId: ws.id, userId: user.id, workspaceRole: "owner", environmentGrants: { grantType: "all" } } }));
    return { ws, app, production, sandbox, owner };
  });
}

export async function mintDashboardToken(ctx: Ctx, memberId: string) {
  const token = `dst_${randomToken(40)}`;
  await ctx.db.dashboardSession.create({ data: { memberId, tokenHash: sha256Hex(token) } });
  return token;
}

interface UserSessionResult {
  userId: string;
  email: string;
  /** the workspace and membership the session works in; null: the user is no member (yet), the session can only accept an invitation */
  workspaceId: string | null;
  memberId: string | null;
  dashboardToken: string;
}

/**
 * `npm run bootstrap -- --user <email> [--workspace <slug>]`: a dashboard session for that user (created when
 * missing). It works in the named workspace, or in the user's only one; a user who is no member (an invitee) gets a
 * session that can accept an invitation, and accepting binds it to the new membership.
 */
export async function mintUserSession(ctx: Ctx, email: string, workspaceSlug?: string): Promise<UserSessionResult> {
  return withTx(ctx, async (tx) => {
    const user = (await tx.db.user.findUnique({ where: { email } })) ?? (await tx.db.user.create({ data: { email } }));
    const memberships = await tx.db.member.findMany({
      where: { userId: user.id, removedAt: null, ...(workspaceSlug ? { workspace: { slug: workspaceSlug } } : {}) },
      select: { id: true, workspaceId: true },
    });
    const member = memberships.length === 1 ? memberships[0] : null;
    const token = `dst_${randomToken(40)}`;
    await tx.db.dashboardSession.create({ data: { memberId: member?.id ?? null, userId: user.id, tokenHash: sha256Hex(token) } });
    return { userId: user.id, email: user.email, workspaceId: member?.workspaceId ?? null, memberId: member?.id ?? null, dashboardToken: token };
  });
}

export async function bootstrapDemo(ctx: Ctx, config: Pick<Config, "BASE_URL" | "CHECKOUT_URL">): Promise<BootstrapResult> {
  const { ws, app, production, sandbox, owner } = await ensureWorkspace(ctx, {
    slug: "demo",
    name: "Demo",
    ownerEmail: "owner@example.com",
    appSlug: "demo-store",
    appName: "Demo Store",
    currency: "USD",
    // The demo workspace is comped: live from the start, so its production environment works out of the box.
    live: true,
  });
  return withTx(ctx, async (tx) => {
    for (const kind of ["card", "invoice_terms"] as const) {
      const active = await tx.db.connector.findFirst({ where: { applicationId: app.id, environmentId: sandbox.id, kind, status: "active" } });
      if (!active) await tx.db.connector.create({ data: { applicationId: app.id, environmentId: sandbox.id, kind, provider: "test" } });
    }
    const dashboardToken = await mintDashboardToken(tx, owner.id);
    const key = mintKey("secret", sandbox);
    await tx.db.apiKey.create({
      data: { workspaceId: ws.id, applicationId: app.id, environmentId: sandbox.id, name: "Bootstrap sandbox key", type: "secret", scopes: ["*"], keyHash: key.keyHash, keyPrefix: key.keyPrefix, createdByMember: owner.id },
    });
    return {
      workspaceId: ws.id,
      applicationId: app.id,
      environments: { production: { id: production.id }, sandbox: { id: sandbox.id } },
      dashboardToken,
      apiKey: key.rawKey,
      baseUrl: config.BASE_URL,
      checkoutUrl: config.CHECKOUT_URL,
    };
  });
}

/** True when the database holds no workspace yet (npm start bootstraps then). */
export async function isEmpty(ctx: Ctx) {
  return (await ctx.db.workspace.count()) === 0;
}
