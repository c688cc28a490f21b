// The OAuth 2.1 authorization server: oidc-provider (OpenID-certified) configured for public clients with PKCE S256,
// open dynamic client registration (RFC 7591), RFC 8414 metadata, JWT access tokens (RFC 9068, RS256, 1 hour) with
// the consented scopes, rotating refresh tokens with reuse detection, and token revocation (RFC 7009). The consent
// step is ours (pages/oauth.page.tsx): it picks the application and environment the grant is pinned to.
//
// The provider is built on first use, because the issuer is BASE_URL, which follows the listening port when unset.
// It is a Koa app, mounted by path (not under an Express mount path, which would change the issuer).
import { createHmac } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type Provider from "oidc-provider";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";
import type { Deps } from "../shared/context";
import { OAUTH_SCOPES } from "../shared/scopes";
import { secretKey } from "../shared/secrets";
import { currentOAuthKid, oauthJwks, oauthSigningJwk } from "./keys";
import { markGrantRevoked, prismaAdapter } from "./adapter";
import { oauthResources } from "./resources";
import { DPOP_ALGS } from "./dpop";
import { countTokenFailures, refuseThrottledTokenRequest } from "./token-throttle";
import { securePage } from "../../pages/security";

export const ACCESS_TOKEN_TTL = 3600;
export const AUTHORIZATION_CODE_TTL = 600;
const REFRESH_TOKEN_TTL = 30 * 24 * 3600;
const GRANT_TTL = 365 * 24 * 3600;
/** OpenID scopes the provider knows besides the API scopes (a client may ask for them; they grant nothing). */
const OIDC_SCOPES = ["openid", "offline_access"];

export const OAUTH_PATHS = {
  authorization: "/oauth/authorize",
  pushedAuthorization: "/oauth/par",
  token: "/oauth/token",
  registration: "/oauth/register",
  revocation: "/oauth/revoke",
  jwks: "/oauth/jwks",
  consent: "/oauth/consent",
} as const;

export { oauthResources };

const providers = new WeakMap<Deps, { kid: string; provider: Promise<{ provider: Provider; callback: ReturnType<Provider["callback"]> }> }>();

/**
 * The provider for this process, rebuilt when the signing key changed (`npm run keys:rotate -- --purpose oauth`, seen at the next OAuth request):
 * it keeps nothing in memory but its configuration (its state is in the database), so a rebuild loses nothing.
 */
async function current(deps: Deps) {
  const kid = await currentOAuthKid(deps);
  let entry = providers.get(deps);
  if (!entry || entry.kid !== kid) {
    const built = buildProvider(deps).then((provider) => ({ provider, callback: provider.callback() }));
    entry = { kid, provider: built };
    providers.set(deps, entry);
    built.catch(() => providers.delete(deps));
  }
  return entry.provider;
}

export async function getProvider(deps: Deps): Promise<Provider> {
  return (await current(deps)).provider;
}

async function buildProvider(deps: Deps): Promise<Provider> {
  // Loaded on first use: only processes that serve OAuth pay for loading it.
  const { default: Provider, errors: oidcErrors } = await import("oidc-provider");
  const { config, prisma } = deps;
  const issuer = config.BASE_URL.replace(/\/+$/, "");
  const resources = () => oauthResources(config);
  const key = await oauthSigningJwk(deps);
  const cookieKey = createHmac("sha256", secretKey(config)).update("oauth cookies").digest("base64url");

  const configuration: Configuration = {
    adapter: prismaAdapter(prisma, () => new oidcErrors.InvalidGrant("authorization code or refresh token already used")),
    jwks: { keys: [key.jwk as any] },
    cookies: { keys: [cookieKey], long: { signed: true, httpOnly: true, sameSite: "lax" }, short: { signed: true, httpOnly: true, sameSite: "lax" } },
    routes: {
      authorization: OAUTH_PATHS.authorization,
      pushed_authorization_request: OAUTH_PATHS.pushedAuthorization, // RFC 9126 (on by default in the library)
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.registration,
      revocation: OAUTH_PATHS.revocation,
      jwks: OAUTH_PATHS.jwks,
      end_session: "/oauth/session/end",
      userinfo: "/oauth/userinfo",
    },
    // API scopes are listed here too (so registration metadata may name them, and discovery lists them); the consent
    // step grants them both as OpenID scopes and as the resource's scopes, which is what access tokens carry.
    scopes: [...OIDC_SCOPES, ...OAUTH_SCOPES],
    claims: { openid: ["sub"] },
    responseTypes: ["code"],
    clientAuthMethods: ["none"], // public clients only: PKCE is what binds the code to the client
    clientDefaults: { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" },
    pkce: { required: () => true }, // and S256 only: the library refuses "plain"
    // DPoP (RFC 9449, on by default in the library): a client that sends a proof to the token endpoint gets tokens bound
    // to its key (cnf.jkt), which the API and /mcp accept only with a proof of that key (dpop.ts); these algorithms only.
    enabledJWA: { dPoPSigningAlgValues: DPOP_ALGS },
    // Registration refuses a plain-http redirect URI unless its host is loopback (OAuth 2.1, RFC 8252): the check runs
    // on the submitted metadata (the validator sees every listed property), only when a client registers.
    extraClientMetadata: {
      properties: ["redirect_uris"],
      validator: (ctx, key, value) => {
        if (key !== "redirect_uris" || ctx?.oidc?.route !== "registration" || !Array.isArray(value)) return;
        const bad = value.find((uri) => typeof uri === "string" && !redirectUriAllowed(uri));
        if (bad !== undefined) {
          throw new oidcErrors.CustomOIDCProviderError("invalid_redirect_uri", `redirect_uris: ${String(bad).slice(0, 200)} is plain http on a host that is not loopback: use https, or http on 127.0.0.1, [::1] or localhost`);
        }
      },
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true }, // open dynamic registration (RFC 7591)
      revocation: { enabled: true },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources().api,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const canonical = indicator.replace(/\/+$/, "");
          const r = resources();
          if (canonical !== r.api && canonical !== r.mcp) throw new oidcErrors.InvalidTarget(`unknown resource ${indicator.slice(0, 200)}`);
          return { audience: canonical, scope: OAUTH_SCOPES.join(" "), accessTokenFormat: "jwt", accessTokenTTL: ACCESS_TOKEN_TTL, jwt: { sign: { alg: "RS256" } } };
        },
      },
    },
    // Every authorization shows the consent page (application, environment, scopes): only the grant that page just
    // made counts, never a silent reuse of an earlier one.
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL,
      AuthorizationCode: AUTHORIZATION_CODE_TTL,
      RefreshToken: REFRESH_TOKEN_TTL,
      Grant: GRANT_TTL,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      IdToken: 3600,
    },
    findAccount: async (_ctx, sub) => {
      const member = await prisma.member.findFirst({ where: { id: sub, removedAt: null }, select: { id: true } });
      return member ? { accountId: member.id, claims: () => ({ sub: member.id }) } : undefined;
    },
    extraTokenClaims: async (_ctx, token) => {
      if (token.kind !== "AccessToken" || !token.grantId) return undefined;
      const g = await prisma.oAuthGrant.findUnique({ where: { id: token.grantId }, select: { applicationId: true, environmentId: true } });
      return g ? { gid: token.grantId, application_id: g.applicationId, environment_id: g.environmentId } : { gid: token.grantId };
    },
    interactions: { url: (_ctx, interaction) => `${OAUTH_PATHS.consent}/${interaction.uid}` },
    renderError: async (ctx, out) => {
      // the same security headers as every other page (CSP, no referrer, nosniff, no framing, no caching)
      await securePage(ctx.req as unknown as Request, ctx.res as unknown as Response);
      ctx.type = "html";
      ctx.body = errorPage(out);
    },
  };
  const provider = new Provider(issuer, configuration);
  // Behind the operator's TLS terminator the provider must see https (secure cookies, https issuer).
  provider.proxy = true;
  provider.use(countTokenFailures(deps));
  provider.on("grant.revoked", (ctx: KoaContextWithOIDC, grantId: string) => {
    const reason = ctx.oidc?.route === "token" ? "refresh_token_reuse" : ctx.oidc?.route === "revocation" ? "client" : null;
    void markGrantRevoked(prisma, grantId, reason).catch((e) => console.error("[oauth] marking a revoked grant failed", e instanceof Error ? e.message : e));
  });
  // The library logs server errors itself only through events; keep the message, never the request (tokens).
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error("[oauth] server error:", err.message));
  return provider;
}

function errorPage(out: { error: string; error_description?: string }) {
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorization error</title></head><body><main><h1>This authorization request cannot continue</h1><p id="error"><code>${esc(out.error)}</code>${out.error_description ? `: ${esc(out.error_description)}` : ""}</p><p>Return to the application and try again.</p></main></body></html>`;
}

/** Plain http only on a loopback host (OAuth 2.1 section 8.4.2, RFC 8252 section 7.3); other schemes are the library's call. */
function redirectUriAllowed(uri: string) {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return true; // not a URL: the library refuses it with its own message
  }
  return u.protocol !== "http:" || ["127.0.0.1", "[::1]", "localhost"].includes(u.hostname);
}

const PROVIDER_PATH = /^\/oauth\/(authorize|par|token|register|revoke|session\/end)(\/|$)|^\/\.well-known\/(oauth-authorization-server|openid-configuration)$/;

/**
 * Express middleware: the provider's own routes go to its Koa app; the JWKS is served from the key table (so a key
 * rotated in by any process, and a retired key still in use, are listed); everything else falls through.
 */
export function oauthProviderMiddleware(deps: Deps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.path === OAUTH_PATHS.jwks && req.method === "GET") {
      res.set("Cache-Control", "public, max-age=300");
      return void res.json(await oauthJwks(deps, true)); // always current: a key rotated in anywhere is listed at once
    }
    if (!PROVIDER_PATH.test(req.path)) return next();
    if (req.method === "POST" && req.path === OAUTH_PATHS.token && (await refuseThrottledTokenRequest(deps, req, res))) return;
    (await current(deps)).callback(req, res);
  };
}
