// An OAuth access token (RS256 JWT from the authorization server) resolved into a Principal, wherever an API key is
// accepted: REST, GraphQL, graphql-ws (resource "api") and /mcp (resource "mcp"), each only with a token issued for
// it. The signature, issuer, audience and expiry come from the token; the
// tenant (application + environment), the member and whether the grant still stands come from the OAuthGrant row,
// read on every request, so revoking a grant (or removing the member) refuses its tokens at once in every process.
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from "jose";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { memberCanUseEnvironment } from "../shared/permissions";
import type { Principal } from "../shared/principal";
import { oauthJwks } from "./keys";
import { credentialTenant, memberColumns, memberInfoOf, tenantOfRow } from "../platform/credential-rows";
import { oauthResources } from "./resources";
import { verifyDpopProof } from "./dpop";
import type { Presentation } from "../platform/auth.service";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export const looksLikeJwt = (token: string) => token.length <= 4096 && JWT_SHAPE.test(token);

/** The protected resources a token can be issued for (RFC 8707): the API (REST, GraphQL, graphql-ws) or /mcp. */
export type OAuthResource = keyof ReturnType<typeof oauthResources>;

async function verify(ctx: Ctx, token: string, resource: OAuthResource): Promise<JWTPayload> {
  const { config } = ctx.deps;
  const r = oauthResources(config);
  // Token lifetimes are the authorization server's, on wall-clock time (not the request's clock). A token is good
  // only at the resource it was issued for (its aud): one minted for /mcp never opens the API, nor the reverse, as
  // the MCP authorization spec requires of a resource server.
  const opts = { issuer: r.api, audience: r[resource], algorithms: ["RS256"], typ: "at+jwt", requiredClaims: ["exp", "sub", "client_id", "gid"] };
  try {
    return (await jwtVerify(token, createLocalJWKSet(await oauthJwks(ctx.deps)), opts)).payload;
  } catch (e) {
    // A kid this process has not seen yet: another process rotated the key; read the set again once.
    if (e instanceof joseErrors.JWKSNoMatchingKey) return (await jwtVerify(token, createLocalJWKSet(await oauthJwks(ctx.deps, true)), opts)).payload;
    throw e;
  }
}


export async function authenticateAccessToken(ctx: Ctx, token: string, resource: OAuthResource = "api", presented: Presentation = { scheme: "bearer" }): Promise<Principal> {
  let claims: JWTPayload;
  try {
    claims = await verify(ctx, token, resource);
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw errors.unauthorized("The OAuth access token has expired: refresh it");
    if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === "aud") {
      throw errors.unauthorized(`This OAuth access token was issued for another resource: ask the authorization server for resource=${oauthResources(ctx.deps.config)[resource]}`);
    }
    throw errors.unauthorized("Invalid OAuth access token");
  }
  // A token bound to a key (RFC 9449 cnf.jkt) works only with a proof of that key; an unbound one only as Bearer.
  const jkt = (claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (typeof jkt === "string") {
    if (presented.scheme !== "dpop") throw errors.unauthorized("This access token is bound to a DPoP key: send it as 'Authorization: DPoP <token>' with a DPoP proof header (RFC 9449)");
    if (!presented.dpop) throw errors.unauthorized("A DPoP-bound access token needs a proof per HTTP request: it cannot open a WebSocket; use a Bearer token");
    await verifyDpopProof(ctx, presented.dpop, token, jkt);
  } else if (presented.scheme === "dpop") {
    throw errors.unauthorized("This access token is not bound to a DPoP key: send it as 'Authorization: Bearer <token>'");
  }
  const gid = String(claims.gid);
  const g = await credentialTenant(ctx.sql)
    .innerJoin("OAuthGrant as g", (j) => j.onRef("g.workspaceId", "=", "w.id").onRef("g.applicationId", "=", "a.id").onRef("g.environmentId", "=", "e.id"))
    .innerJoin("Member as m", (j) => j.onRef("m.id", "=", "g.memberId").onRef("m.workspaceId", "=", "w.id"))
    .innerJoin("User as u", "u.id", "m.userId")
    .select(["g.id", "g.clientId", "g.clientName", "g.scopes", "g.revokedAt"])
    .select(memberColumns)
    .where("g.id", "=", gid)
    .executeTakeFirst();
  if (!g || g.revokedAt || g.removedAt || g.envStatus !== "active" || g.memberId !== claims.sub || g.clientId !== claims.client_id) {
    throw errors.unauthorized("Invalid or revoked OAuth access token");
  }
  const member = memberInfoOf(g);
  const tenant = tenantOfRow(g);
  const { environment } = tenant;
  // The member's grants may have narrowed since the consent.
  if (!memberCanUseEnvironment(member, environment)) throw errors.permissionDenied("Your environment grants no longer include this app's environment");
  // A token carries the scopes it was issued with (a refresh may narrow them); the grant bounds them.
  const tokenScopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  const scopes = tokenScopes.filter((s) => g.scopes.includes(s));
  return {
    type: "oauth",
    credentialId: `oauth:${g.id}`,
    ...tenant,
    environmentExplicit: true,
    scopes,
    apiKey: null,
    member,
    oauth: { grantId: g.id, clientId: g.clientId, clientName: g.clientName, expiresAt: Number(claims.exp) },
  };
}
