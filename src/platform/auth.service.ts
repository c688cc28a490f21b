// Resolves a credential into a Principal (the guards that check it are in shared/guards.ts).
import type { Ctx } from "../shared/context";
import { constantTimeEqual, sha256Hex } from "../shared/crypto";
import { DomainError, errors } from "../shared/errors";
import type { LimitState } from "../shared/rate-limit";
import { memberCanUseEnvironment } from "../shared/permissions";
import type { ExtensionClient, Principal } from "../shared/principal";
import { liveGate } from "./live-gate";
import { credentialTenant, envInfo, memberInfoOf, tenantOfRow } from "./credential-rows";
import { workspaceBilling } from "./workspace-billing";
import { SIGNING_KID_PREFIX } from "./signing-keys";
import { isUuid } from "../shared/ids";

/** A compact JWS: three base64url parts, the header a JSON object (`eyJ` is `{"`). Dashboard tokens are `dst_…`. */
const JWT_SHAPE = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeJwt = (token: string) => token.length <= 8192 && JWT_SHAPE.test(token);

/** What a resource knows of a request to check a proof against: the header, the method and the URLs it answers at. */
export interface DpopRequest {
  proof: string | null | undefined;
  method: string;
  /** normalized (origin + path): the URL the request reached, and the same path under BASE_URL */
  urls: string[];
}

/** How a token was presented: its Authorization scheme, and the request a DPoP proof must match (none over graphql-ws). */
export interface Presentation {
  scheme: "bearer" | "dpop";
  dpop?: DpopRequest;
}

/** The protected resources an OAuth access token is issued for: the API, or /mcp. */
export type OAuthResource = "api" | "mcp";

/**
 * The credential kinds whose tokens a module above platform verifies with its own keys: OAuth access tokens
 * (oauth/access-tokens.ts) and extension session tokens (extensions/session-auth.ts). They register here at
 * start-up (the composition root, src/app.ts), so platform names neither.
 */
export interface TokenCredentialKinds {
  accessToken(ctx: Ctx, token: string, resource: OAuthResource | undefined, presented: Presentation): Promise<Principal>;
  extensionSession(ctx: Ctx, token: string): Promise<Principal>;
  extensionSessionIsLive(ctx: Ctx, p: Principal): Promise<boolean>;
}

let tokenKinds: TokenCredentialKinds | null = null;

export function registerTokenCredentialKinds(kinds: TokenCredentialKinds) {
  tokenKinds = kinds;
}

function registered(): TokenCredentialKinds {
  if (!tokenKinds) throw new Error("No token credential kinds: the composition root (src/app.ts) registers them at start-up (registerTokenCredentialKinds)");
  return tokenKinds;
}

export interface CredentialInput {
  apiKey?: string | null;
  authorization?: string | null;
  applicationId?: string | null;
  environmentId?: string | null;
  /** the route accepts Basic extension client credentials (the four extension self routes); elsewhere they are 403 */
  basicAllowed?: boolean;
  /** the protected resource an OAuth access token must have been issued for: the API (default) or /mcp */
  oauthResource?: OAuthResource;
  /** the request's DPoP header, method and URLs, for a DPoP-bound access token (absent over graphql-ws) */
  dpop?: DpopRequest;
}

/** null when no credential was sent; throws 401 unauthorized when one was sent but is not valid. */
export async function authenticate(ctx: Ctx, input: CredentialInput): Promise<Principal | null> {
  const apiKey = input.apiKey?.trim();
  const auth = input.authorization?.trim();
  if (apiKey) return authenticateApiKey(ctx, apiKey);
  if (auth) {
    if (/^Basic(\s|$)/i.test(auth)) {
      ctx.extensionClient = await authenticateExtensionClient(ctx, auth);
      if (!input.basicAllowed) {
        throw errors.forbidden(
          "Extension client credentials reach only GET /extensions/me/installations, GET /installations/{id}/webhook-secret, POST /installations/{id}/api-key and POST /installations/{id}/rotate-webhook-secret",
        );
      }
      return null;
    }
    const dpop = /^DPoP\s+(\S+)$/i.exec(auth);
    if (dpop) {
      // the DPoP scheme is for OAuth access tokens bound to a key (RFC 9449) only
      if (!looksLikeJwt(dpop[1]) || !jwtKid(dpop[1]).startsWith(SIGNING_KID_PREFIX.oauth)) throw errors.unauthorized("'Authorization: DPoP' takes a DPoP-bound OAuth access token only");
      return registered().accessToken(ctx, dpop[1], input.oauthResource, { scheme: "dpop", dpop: input.dpop });
    }
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) {
      throw errors.unauthorized("Authorization must be 'Bearer <dashboard session token>', 'Bearer <OAuth access token>', 'DPoP <DPoP-bound OAuth access token>' or 'Bearer <extension session token>'");
    }
    if (/^(sk|pk)_/.test(m[1])) {
      throw errors.unauthorized("This is an API key, not a dashboard session: send it as the X-API-Key header (X-API-Key: sk_…), not as Authorization: Bearer");
    }
    // OAuth access tokens and extension session tokens are RS256 JWTs (dashboard tokens are opaque dst_…); the key
    // that signed one says which it is (kid oauth-… or extensions-…), and each path verifies it with its own keys.
    if (looksLikeJwt(m[1])) {
      return jwtKid(m[1]).startsWith(SIGNING_KID_PREFIX.oauth) ? registered().accessToken(ctx, m[1], input.oauthResource, { scheme: "bearer", dpop: input.dpop }) : registered().extensionSession(ctx, m[1]);
    }
    return authenticateDashboard(ctx, m[1], input);
  }
  return null;
}

/**
 * authenticate() under the rate limits, for REST, GraphQL and graphql-ws alike. An address whose failed
 * attempts passed RATE_LIMIT_AUTH_FAILURES_PER_IP gets 429 before its credential is even looked at (guessing
 * keys stops), and a good credential spends one point of its own bucket (RATE_LIMIT_PER_CREDENTIAL).
 */
export async function authenticateRequest(
  ctx: Ctx,
  input: CredentialInput,
  opts: { deferGate?: boolean } = {},
): Promise<{ principal: Principal | null; limit: LimitState | null; gate: DomainError | null }> {
  const { limits } = ctx.deps;
  if (!input.apiKey?.trim() && !input.authorization?.trim()) return { principal: null, limit: null, gate: null };
  if (ctx.ip) limits.blocked("authFailureIp", ctx.ip);
  let principal: Principal | null;
  try {
    principal = await authenticate(ctx, input);
  } catch (e) {
    if (ctx.ip && e instanceof DomainError && e.status === 401) await limits.consume("authFailureIp", ctx.ip);
    throw e;
  }
  const bucket = principal?.credentialId ?? (ctx.sessionUser ? `session:${ctx.sessionUser.sessionId}` : ctx.extensionClient ? `extc:${ctx.extensionClient.clientId}` : null);
  const limit = bucket ? await limits.consume("credential", bucket) : null;
  // The live gate: production credentials of a workspace that is not live (or whose trial ended) answer 402 on
  // every route. Computed here, once, for REST, GraphQL and graphql-ws; `deferGate` hands it to the caller instead,
  // which enforces it except on the workspace's own routes (GATE_EXEMPT in billing/live-gate.ts).
  const gate = principal ? liveGate(principal, ctx.clock.now()) : null;
  if (gate && !opts.deferGate) throw gate;
  return { principal, limit, gate };
}

async function authenticateApiKey(ctx: Ctx, raw: string): Promise<Principal> {
  if (raw.length > 200 || !/^(sk|pk)_[a-z0-9-]+_[A-Za-z0-9]+$/.test(raw)) throw errors.unauthorized("Malformed API key");
  const hash = sha256Hex(raw);
  // No round trip at all when this process has the key cached (principal-cache.ts: dropped everywhere on revoke).
  const cache = ctx.deps.principals;
  const cached = cache?.get(hash, Date.now());
  if (cached) return cached;
  const generation = cache?.mark() ?? 0;
  // One round trip: this runs on every keyed request (Prisma's include would issue one query per table).
  const key = await credentialTenant(ctx.sql)
    .innerJoin("ApiKey as k", (j) => j.onRef("k.workspaceId", "=", "w.id").onRef("k.applicationId", "=", "a.id").onRef("k.environmentId", "=", "e.id"))
    .select(["k.id", "k.name", "k.keyPrefix", "k.type", "k.scopes", "k.keyHash", "k.revokedAt", "k.expiresAt", "k.installationId"])
    .where("k.keyHash", "=", hash)
    .executeTakeFirst();
  // A replaced installation key works until its grace period ends (expiresAt), then never again.
  const expired = key?.expiresAt && new Date(key.expiresAt) <= ctx.clock.now();
  if (!key || !constantTimeEqual(key.keyHash, hash) || key.revokedAt || expired || key.envStatus !== "active") {
    throw errors.unauthorized("Invalid, revoked or expired API key");
  }
  const principal: Principal = {
    type: "api_key",
    credentialId: `key:${key.id}`,
    ...tenantOfRow(key),
    environmentExplicit: true,
    scopes: key.scopes,
    apiKey: { id: key.id, name: key.name, keyPrefix: key.keyPrefix, type: key.type as "secret" | "publishable", installationId: key.installationId },
    member: null,
  };
  // A key with an end date is looked up every time, so it stops at its expiresAt in every process, on any clock.
  if (!key.expiresAt) cache?.set(hash, principal, Date.now(), generation);
  return principal;
}

/**
 * A member's session resolves to a Principal. The session of a user who is no member yet (minted by
 * `npm run bootstrap -- --user <email>`) resolves to no principal: it only sets ctx.sessionUser, which the
 * invitation accept reads; every other route answers it 403 (requirePrincipal).
 */
async function authenticateDashboard(ctx: Ctx, token: string, input: CredentialInput): Promise<Principal | null> {
  if (token.length > 200) throw errors.unauthorized("Invalid dashboard session");
  const hash = sha256Hex(token);
  const session = await ctx.db.dashboardSession.findUnique({
    where: { tokenHash: hash },
    include: {
      user: true,
      member: {
        include: {
          user: true,
          workspace: {
            include: {
              applications: { orderBy: { createdAt: "asc" } },
              platformSubscription: { select: { status: true, cancelAtPeriodEnd: true, currentPeriodEnd: true } },
              platformPaymentMethods: { where: { deletedAt: null }, select: { id: true }, take: 1 },
            },
          },
        },
      },
    },
  });
  const now = ctx.clock.now();
  if (!session || session.revokedAt || (session.expiresAt && session.expiresAt <= now) || session.member?.removedAt) {
    throw errors.unauthorized("Invalid or expired dashboard session");
  }
  const { member } = session;
  if (!member) {
    if (!session.user) throw errors.unauthorized("Invalid or expired dashboard session");
    ctx.sessionUser = { id: session.user.id, email: session.user.email, sessionId: session.id, memberId: null };
    return null;
  }
  ctx.sessionUser = { id: member.user.id, email: member.user.email, sessionId: session.id, memberId: member.id };
  const ws = member.workspace;
  const info = memberInfoOf({ ...member, memberId: member.id, email: member.user.email });

  let application = null;
  if (input.applicationId) {
    if (!isUuid(input.applicationId)) throw errors.notFound("Application");
    application = ws.applications.find((a) => a.id === input.applicationId) ?? null;
    if (!application) throw errors.notFound("Application");
    const allowed =
      info.workspaceRole !== null || info.applicationRoles.some((r) => r.applicationId === application!.id);
    if (!allowed) throw errors.notFound("Application");
  } else if (ws.applications.length === 1) {
    application = ws.applications[0];
  }

  let envRow;
  if (input.environmentId) {
    if (!isUuid(input.environmentId)) throw new DomainError("environment_not_found", "Environment not found");
    envRow = await ctx.db.environment.findFirst({ where: { id: input.environmentId, workspaceId: ws.id, status: "active" } });
    if (!envRow) throw new DomainError("environment_not_found", "Environment not found");
  } else {
    // Without X-Service-Environment-Id a dashboard session works in the workspace's production environment,
    // or in its sandbox when the member's grants leave production out.
    const system = await ctx.db.environment.findMany({ where: { workspaceId: ws.id, isSystem: true }, orderBy: { kind: "desc" } });
    envRow = system.find((e) => memberCanUseEnvironment(info, envInfo(e))) ?? system.find((e) => e.kind === "production")!;
  }
  const environment = envInfo(envRow);
  if (!memberCanUseEnvironment(info, environment)) {
    throw errors.permissionDenied("Your environment grants do not include this environment");
  }
  return {
    type: "clerk_jwt",
    credentialId: `session:${session.id}`,
    workspace: { id: ws.id, name: ws.name, slug: ws.slug },
    billing: workspaceBilling({ live: ws.live, trialEndsAt: ws.trialEndsAt, hasPaymentMethod: ws.platformPaymentMethods.length > 0, subscription: ws.platformSubscription }),
    application: application && { id: application.id, name: application.name, slug: application.slug, currency: application.currency },
    environment,
    environmentExplicit: Boolean(input.environmentId),
    scopes: ["*"],
    apiKey: null,
    member: info,
  };
}

/**
 * Basic extension client credentials (platform rule 4): base64 of `clientId:clientSecret`, one unbroken canonical
 * base64 string; anything else (a wrapped value, a wrong or rotated secret, credentials with no secret) is 401.
 */
async function authenticateExtensionClient(ctx: Ctx, header: string): Promise<ExtensionClient> {
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header);
  const bad = () => errors.unauthorized("Invalid client credentials: send Authorization: Basic base64(clientId:clientSecret), unwrapped");
  if (!m || m[1].length > 400 || Buffer.from(m[1], "base64").toString("base64") !== m[1]) throw bad();
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const clientId = colon > 0 ? decoded.slice(0, colon) : "";
  const secret = colon > 0 ? decoded.slice(colon + 1) : "";
  if (!/^extc_[A-Za-z0-9]{1,64}$/.test(clientId) || !secret) throw bad();
  const ext = await ctx.db.extension.findUnique({ where: { clientId }, select: { id: true, workspaceId: true, clientSecretHash: true } });
  if (!ext?.clientSecretHash || !constantTimeEqual(ext.clientSecretHash, sha256Hex(secret))) throw bad();
  return { extensionId: ext.id, workspaceId: ext.workspaceId, clientId };
}

/** The `kid` of a JWT's header, unverified ("" when absent or unreadable): only to pick the path that verifies it. */
function jwtKid(token: string): string {
  try {
    const kid = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString("utf8"))?.kid;
    return typeof kid === "string" ? kid : "";
  } catch {
    return "";
  }
}

/** Whether the request's credential is still good (not revoked or expired since it was authenticated). */
export async function credentialIsLive(ctx: Ctx): Promise<boolean> {
  const p = ctx.principal;
  if (!p) return false;
  if (p.extension) return registered().extensionSessionIsLive(ctx, p);
  if (p.oauth) {
    // a live subscription ends with its access token (wall-clock, as the token's lifetime is) or its grant
    if (p.oauth.expiresAt * 1000 <= Date.now()) return false;
    const g = await ctx.db.oAuthGrant.findUnique({ where: { id: p.oauth.grantId }, select: { revokedAt: true } });
    return !!g && !g.revokedAt;
  }
  if (p.apiKey) {
    const k = await ctx.db.apiKey.findUnique({ where: { id: p.apiKey.id }, select: { revokedAt: true, expiresAt: true } });
    return !!k && !k.revokedAt && (!k.expiresAt || k.expiresAt > ctx.clock.now());
  }
  const s = await ctx.db.dashboardSession.findUnique({ where: { id: p.credentialId.replace(/^session:/, "") }, select: { revokedAt: true, expiresAt: true } });
  return !!s && !s.revokedAt && (!s.expiresAt || s.expiresAt > ctx.clock.now());
}
