// Drives our authorization server with a real OAuth client library (oauth4webapi: discovery, RFC 7591 registration,
// PKCE, code exchange, refresh, revocation), and plays the browser's part (login + consent forms) with fetch and a
// small cookie jar.
import * as oauth from "oauth4webapi";

export const REDIRECT_URI = "http://127.0.0.1:8976/callback"; // never listened on: the redirect is read, not followed

export class CookieJar {
  private readonly jar = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(c)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
  header() {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** fetch with the jar, never following redirects. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
  jar.take(res);
  return res;
}

/** Follows redirects (with the jar) until the client's redirect_uri (returned, not fetched) or a page. */
export async function follow(jar: CookieJar, base: string, res: Response): Promise<{ redirect: URL | null; res: Response }> {
  for (let hops = 0; hops < 8 && res.status >= 300 && res.status < 400; hops++) {
    const next = new URL(res.headers.get("location")!, base);
    if (next.href.startsWith(REDIRECT_URI)) return { redirect: next, res };
    res = await browse(jar, next.href);
  }
  return { redirect: null, res };
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export async function discover(base: string) {
  const issuer = new URL(base);
  const res = await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure });
  return oauth.processDiscoveryResponse(issuer, res);
}

export async function register(as: oauth.AuthorizationServer, metadata: Partial<oauth.OmitSymbolProperties<oauth.Client>> = {}) {
  const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none", client_name: "Test Agent", ...metadata }, insecure);
  return oauth.processDynamicClientRegistrationResponse(res);
}

export interface Started {
  url: URL;
  verifier: string;
  state: string;
  redirectUri: string;
}

export async function authorizationUrl(as: oauth.AuthorizationServer, clientId: string, scope: string, extra: Record<string, string> = {}): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", clientId);
  url.searchParams.set("redirect_uri", REDIRECT_URI);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", scope);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  for (const [k, v] of Object.entries(extra)) url.searchParams.set(k, v);
  return { url, verifier, state, redirectUri: url.searchParams.get("redirect_uri")! };
}

const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? null;
export const optionValues = (html: string, select: string) => {
  const m = new RegExp(`<select id="${select}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  return [...(m?.[1] ?? "").matchAll(/<option value="([^"]+)"/g)].map((x) => x[1]);
};

/**
 * The browser's part: open the authorize URL, sign in with the dashboard token, approve (or deny) with the chosen
 * application and environment. Returns the final redirect to the client (its URL) and the consent page HTML.
 */
export async function consent(
  base: string,
  started: Started,
  dashboardToken: string,
  choose: { applicationId?: string; environmentId?: string; decision?: "approve" | "deny" } = {},
  jar = new CookieJar(),
) {
  let res = await browse(jar, started.url.href);
  if (res.status !== 303 && res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const consentUrl = new URL(res.headers.get("location")!, base).href;
  res = await browse(jar, consentUrl);
  let page = await res.text();
  if (page.includes('name="token"')) {
    res = await browse(jar, `${consentUrl}/login`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: dashboardToken }).toString() });
    if (res.status !== 303) throw new Error(`login answered ${res.status}`);
    res = await browse(jar, consentUrl);
    page = await res.text();
  }
  if (res.status !== 200) {
    const f = await follow(jar, base, res);
    return { redirect: f.redirect, page, status: f.res.status, jar };
  }
  const form = new URLSearchParams({
    csrf: field(page, "csrf") ?? "",
    applicationId: choose.applicationId ?? optionValues(page, "applicationId")[0],
    environmentId: choose.environmentId ?? optionValues(page, "environmentId")[0],
    decision: choose.decision ?? "approve",
  });
  res = await browse(jar, consentUrl, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() });
  // the provider resumes the authorization, then redirects to the client
  const f = await follow(jar, base, res);
  return { redirect: f.redirect, page: f.redirect ? page : await f.res.text(), status: f.res.status, jar };
}

export async function exchange(as: oauth.AuthorizationServer, client: oauth.Client, started: Started, redirect: URL) {
  const params = oauth.validateAuthResponse(as, client, redirect, started.state);
  const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, started.redirectUri, started.verifier, insecure);
  return oauth.processAuthorizationCodeResponse(as, client, res);
}

export async function refresh(as: oauth.AuthorizationServer, client: oauth.Client, refreshToken: string) {
  const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure);
  return oauth.processRefreshTokenResponse(as, client, res);
}

/** One call: register, authorize with consent, exchange. `authorize`: extra authorization parameters (`resource`). */
export async function obtainTokens(base: string, dashboardToken: string, scope: string, choose: Parameters<typeof consent>[3] = {}, authorize: Record<string, string> = {}) {
  const as = await discover(base);
  const client = await register(as);
  const started = await authorizationUrl(as, client.client_id, scope, authorize);
  const c = await consent(base, started, dashboardToken, choose);
  if (!c.redirect) throw new Error(`no redirect to the client: ${c.status} ${/<p class="alert" id="error">([^<]*)/.exec(c.page)?.[1] ?? c.page.slice(0, 300)}`);
  const tokens = await exchange(as, client, started, c.redirect);
  return { as, client, tokens };
}

/** Tokens for the tool endpoint: the authorization asks for the resource {base}/mcp (RFC 8707), as MCP clients must. */
export const obtainMcpTokens = (base: string, dashboardToken: string, scope: string, choose: Parameters<typeof consent>[3] = {}) =>
  obtainTokens(base, dashboardToken, scope, choose, { resource: `${base}/mcp` });

export { oauth };
