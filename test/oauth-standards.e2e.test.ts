// The authorization server against the standards an outside client reads it by: pushed authorization requests
// (RFC 9126) served where the metadata says, dynamic registration refusing a plain-http redirect that is not
// loopback (RFC 7591 invalid_redirect_uri, OAuth 2.1 / RFC 8252), the consent sign-in for the owner of a workspace
// that is not live (sandbox is never gated), the authorize error page's security headers, and the token endpoint's
// throttle on bad codes and bad client credentials (per address and per client, 429 with Retry-After).
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { authorizationUrl, browse, consent, CookieJar, discover, exchange, follow, insecure, oauth, REDIRECT_URI, register } from "./helpers/oauth";
import { ensureWorkspace, mintDashboardToken } from "../src/platform/bootstrap.service";
import { makeCtx } from "../src/shared/context";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
});
afterAll(() => t?.close());

describe("pushed authorization requests (RFC 9126)", () => {
  test("the advertised endpoint takes a pushed request; the authorization continues with its request_uri to a code and tokens", async () => {
    const as = await discover(t.url);
    expect(as.pushed_authorization_request_endpoint).toBe(`${t.url}/oauth/par`);
    const c = await register(as);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const params = {
      client_id: c.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      scope: "quotes:read",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    };
    const pushed = await oauth.processPushedAuthorizationResponse(as, c, await oauth.pushedAuthorizationRequest(as, c, oauth.None(), params, insecure));
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(pushed.expires_in).toBe(60);
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", c.client_id);
    url.searchParams.set("request_uri", pushed.request_uri);
    const r = await consent(t.url, { url, verifier, state, redirectUri: REDIRECT_URI }, demo.dashboardToken, { environmentId: demo.environments.sandbox.id });
    expect(r.redirect?.searchParams.get("code")).toBeTruthy();
    const tokens = await exchange(as, c, { url, verifier, state, redirectUri: REDIRECT_URI }, r.redirect!);
    const who = await api("GET", "whoami", { token: tokens.access_token });
    expect([who.status, who.body.data.type, who.body.data.scopes]).toEqual([200, "oauth", ["quotes:read"]]);
    // a pushed request is used once
    const again = await follow(new CookieJar(), t.url, await browse(new CookieJar(), url.href));
    expect(again.redirect?.searchParams.get("error")).toBe("invalid_request_uri");
    expect(again.redirect?.searchParams.get("code")).toBeNull();
  });

  test("a pushed request is checked like any other: no PKCE is invalid_request", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const res = await oauth.pushedAuthorizationRequest(as, c, oauth.None(), { client_id: c.client_id, redirect_uri: REDIRECT_URI, response_type: "code", scope: "quotes:read" }, insecure);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_request");
  });
});

describe("dynamic registration (RFC 7591)", () => {
  test.each([["http://evil.example/callback"], ["http://192.168.1.10/cb"], ["http://127.0.0.1.evil.example/cb"]])("a plain-http redirect URI that is not loopback (%s) is invalid_redirect_uri", async (uri) => {
    const as = await discover(t.url);
    const res = await oauth.dynamicClientRegistrationRequest(as, { redirect_uris: [REDIRECT_URI, uri], token_endpoint_auth_method: "none" }, insecure);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; error_description?: string };
    expect(body.error).toBe("invalid_redirect_uri");
    expect(body.error_description).toContain(uri);
  });

  test("https, and http on a loopback host (127.0.0.1, [::1], localhost), are accepted", async () => {
    const as = await discover(t.url);
    const c = await register(as, { redirect_uris: ["https://app.example/cb", "http://127.0.0.1:9000/cb", "http://[::1]:9000/cb", "http://localhost:9000/cb"] });
    expect(c.redirect_uris).toHaveLength(4);
  });
});

describe("the consent page", () => {
  test("the owner of a workspace that is not live signs in and grants its sandbox (sandbox is never gated)", async () => {
    const ctx = makeCtx(t.deps);
    const w = await ensureWorkspace(ctx, { slug: "oauth-not-live", name: "Not live", ownerEmail: "owner@oauth-not-live.test", appSlug: "store", appName: "Store", live: false });
    const owner = await mintDashboardToken(ctx, w.owner.id);
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read quotes:write");
    const r = await consent(t.url, started, owner, { environmentId: w.sandbox.id });
    expect(r.redirect?.searchParams.get("code")).toBeTruthy();
    const tokens = await exchange(as, c, started, r.redirect!);
    const who = await api("GET", "whoami", { token: tokens.access_token });
    expect([who.status, who.body.data.environment.id, who.body.data.workspace.id]).toEqual([200, w.sandbox.id, w.ws.id]);
    expect((await api("POST", "quotes", { token: tokens.access_token, body: { customerEmail: "b@example.com" } })).status).toBe(201);
  });

  test("the authorize error page carries the same security headers as the consent page", async () => {
    const as = await discover(t.url);
    const c = await register(as);
    const started = await authorizationUrl(as, c.client_id, "quotes:read");
    const jar = new CookieJar();
    const consentUrl = new URL((await browse(jar, started.url.href)).headers.get("location")!, t.url).href;
    const page = await browse(jar, consentUrl);
    expect(page.status).toBe(200);
    const unknown = new URL(started.url);
    unknown.searchParams.set("client_id", "no-such-client");
    const error = await fetch(unknown, { redirect: "manual" });
    expect(error.status).toBe(400);
    expect(await error.text()).toContain("invalid_client");
    // the consent page's form-action also allows the client's redirect origin (where its form's POST ends)
    const csp = (h: Headers) => (h.get("content-security-policy") ?? "").replace(/'nonce-[^']+'/g, "'nonce'").replace(/form-action [^;]*/, "form-action");
    expect(error.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(error.headers.get("content-security-policy")).toContain("form-action 'self';");
    expect(csp(error.headers)).toBe(csp(page.headers));
    for (const name of ["x-content-type-options", "referrer-policy", "cache-control", "cross-origin-opener-policy", "cross-origin-resource-policy", "x-frame-options", "strict-transport-security"]) {
      expect([name, error.headers.get(name)]).toEqual([name, page.headers.get(name)]);
    }
  });
});

describe("the token endpoint's throttle", () => {
  const bad = (base: string, clientId: string) =>
    fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code: "guessed-code-guessed-code", redirect_uri: REDIRECT_URI, code_verifier: "x".repeat(43) }).toString(),
    });

  test("bad codes: past the address's limit, 429 with Retry-After, before the code is looked at", async () => {
    const strict = await startWithDemo({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: "3/5m", RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT: "100/5m" } });
    try {
      const as = await discover(strict.t.url);
      const clients = [await register(as), await register(as)];
      // a good code, obtained first (the consent page's sign-in is under the same address limit)
      const started = await authorizationUrl(as, clients[0].client_id, "quotes:read");
      const r = await consent(strict.t.url, started, strict.demo.dashboardToken);
      const statuses: number[] = [];
      let last: Response | null = null;
      for (let i = 0; i < 5; i++) {
        last = await bad(strict.t.url, clients[i % 2].client_id); // two clients: the address's bucket is what runs out
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 3)).toEqual([400, 400, 400]);
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await last!.json()) as { error: string }).error).toBe("rate_limited");
      // a good exchange from the same address is refused too until the window ends
      const res = await oauth.authorizationCodeGrantRequest(as, clients[0], oauth.None(), oauth.validateAuthResponse(as, clients[0], r.redirect!, started.state), REDIRECT_URI, started.verifier, insecure);
      expect(res.status).toBe(429);
    } finally {
      await strict.t.close();
    }
  });

  test("bad client credentials and bad codes per client: past the client's limit, 429 for that client only", async () => {
    const strict = await startWithDemo({ env: { RATE_LIMIT_AUTH_FAILURES_PER_IP: "100/5m", RATE_LIMIT_OAUTH_FAILURES_PER_CLIENT: "2/5m" } });
    try {
      const as = await discover(strict.t.url);
      const [a, b] = [await register(as), await register(as)];
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await bad(strict.t.url, a.client_id)).status);
      expect(statuses).toEqual([400, 400, 429]);
      expect((await bad(strict.t.url, b.client_id)).status).toBe(400);
      // an unknown client id is a bad client credential: counted against that client id
      const unknown: number[] = [];
      for (let i = 0; i < 3; i++) unknown.push((await bad(strict.t.url, "no-such-client")).status);
      expect(unknown.slice(0, 2).every((s) => s === 400 || s === 401)).toBe(true);
      expect(unknown[2]).toBe(429);
      const refused = await bad(strict.t.url, a.client_id);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await strict.t.close();
    }
  });
});
