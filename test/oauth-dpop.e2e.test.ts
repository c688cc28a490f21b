// DPoP (RFC 9449) end to end, with a real client library (oauth4webapi) for the token requests and the proofs it
// makes, and hand-made proofs (jose) for what a client must not get away with: a token bound to a key (cnf.jkt) is
// accepted on REST, GraphQL and /mcp (the official MCP SDK client) only as `Authorization: DPoP` with a proof of
// that key for this request, and is refused as a plain Bearer token; an unbound token is refused with the DPoP scheme.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createHash, randomUUID } from "node:crypto";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, calculateJwkThumbprint } from "jose";
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { authorizationUrl, consent, discover, insecure, oauth, obtainTokens, register } from "./helpers/oauth";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
});
afterAll(() => t?.close());

type Keys = CryptoKeyPair;

/** Tokens bound to `keys`: the code exchange carries a DPoP proof made by oauth4webapi. */
async function boundTokens(keys: Keys, scope: string, authorize: Record<string, string> = {}) {
  const as = await discover(t.url);
  const c = await register(as);
  const started = await authorizationUrl(as, c.client_id, scope, authorize);
  const r = await consent(t.url, started, demo.dashboardToken, { environmentId: demo.environments.sandbox.id });
  const handle = oauth.DPoP({}, keys);
  const params = oauth.validateAuthResponse(as, c, r.redirect!, started.state);
  const res = await oauth.authorizationCodeGrantRequest(as, c, oauth.None(), params, started.redirectUri, started.verifier, { DPoP: handle, ...insecure });
  const tokens = await oauth.processAuthorizationCodeResponse(as, c, res);
  return { as, client: c, handle, tokens };
}

/** A proof made by hand, so each claim can be wrong on purpose. */
async function proof(keys: Keys, method: string, url: string, token: string, over: { iat?: number; jti?: string; ath?: string; typ?: string; htu?: string } = {}) {
  const jwk = await exportJWK(keys.publicKey);
  return new SignJWT({ htm: method, htu: over.htu ?? url, jti: over.jti ?? randomUUID(), ath: over.ath ?? createHash("sha256").update(token).digest("base64url") })
    .setProtectedHeader({ alg: "ES256", typ: over.typ ?? "dpop+jwt", jwk })
    .setIssuedAt(over.iat ?? Math.floor(Date.now() / 1000))
    .sign(keys.privateKey);
}

const whoami = async (token: string, headers: Record<string, string>) => fetch(`${t.url}/api/v1/whoami`, { headers: { authorization: `DPoP ${token}`, ...headers } });

describe("DPoP-bound access tokens", () => {
  test("metadata: the authorization server and both resources advertise the same proof algorithms", async () => {
    const as = await discover(t.url);
    expect(as.dpop_signing_alg_values_supported).toEqual(["ES256", "Ed25519", "EdDSA"]);
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      expect((await api("GET", path)).body.dpop_signing_alg_values_supported).toEqual(as.dpop_signing_alg_values_supported);
    }
  });

  test("a bound token works with its proof on REST and GraphQL, and is refused as a Bearer token", async () => {
    const keys = await generateKeyPair("ES256");
    const { as, client: c, handle, tokens } = await boundTokens(keys, "quotes:read quotes:write");
    expect(tokens.token_type.toLowerCase()).toBe("dpop");
    const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey), "sha256");
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    const at = tokens.access_token;

    // the client library's own proofs
    const rest = await oauth.protectedResourceRequest(at, "GET", new URL(`${t.url}/api/v1/whoami`), undefined, undefined, { DPoP: handle, ...insecure });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as any).data).toMatchObject({ type: "oauth", environment: { id: demo.environments.sandbox.id } });
    const created = await oauth.protectedResourceRequest(
      at,
      "POST",
      new URL(`${t.url}/api/v1/quotes?expand=none`),
      new Headers({ "content-type": "application/json" }),
      JSON.stringify({ customerEmail: "dpop@example.com" }),
      { DPoP: handle, ...insecure },
    );
    expect(created.status).toBe(201);
    const gql = await oauth.protectedResourceRequest(at, "POST", new URL(`${t.url}/graphql`), new Headers({ "content-type": "application/json" }), JSON.stringify({ query: "{ viewer { type } }" }), {
      DPoP: handle,
      ...insecure,
    });
    expect(await gql.json()).toMatchObject({ data: { viewer: { type: "oauth" } } });

    // as a plain Bearer token: refused on REST and GraphQL
    const bearer = await api("GET", "whoami", { token: at });
    expect([bearer.status, bearer.body.error.code]).toEqual([401, "unauthorized"]);
    expect(bearer.body.error.message).toContain("DPoP");
    const gqlBearer = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${at}` }, body: JSON.stringify({ query: "{ viewer { type } }" }) });
    expect(((await gqlBearer.json()) as any).errors[0].extensions.code).toBe("unauthorized");

    // a refresh with the same key keeps the binding
    const refreshed = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, oauth.None(), tokens.refresh_token!, { DPoP: handle, ...insecure }));
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
    expect((await api("GET", "whoami", { token: refreshed.access_token })).status).toBe(401);
  });

  test("a proof must be this request's: method, URL, token hash, fresh, signed by the bound key, used once", async () => {
    const keys = await generateKeyPair("ES256");
    const other = await generateKeyPair("ES256");
    const { tokens } = await boundTokens(keys, "quotes:read");
    const at = tokens.access_token;
    const url = `${t.url}/api/v1/whoami`;
    const good = await proof(keys, "GET", url, at);
    const cases: [string, Record<string, string>][] = [
      ["no proof", {}],
      ["wrong method", { dpop: await proof(keys, "POST", url, at) }],
      ["wrong URL", { dpop: await proof(keys, "GET", `${t.url}/api/v1/quotes`, at) }],
      ["wrong token hash", { dpop: await proof(keys, "GET", url, at, { ath: createHash("sha256").update("another").digest("base64url") }) }],
      ["too old", { dpop: await proof(keys, "GET", url, at, { iat: Math.floor(Date.now() / 1000) - 900 }) }],
      ["from the future", { dpop: await proof(keys, "GET", url, at, { iat: Math.floor(Date.now() / 1000) + 900 }) }],
      ["another key", { dpop: await proof(other, "GET", url, at) }],
      ["not a dpop+jwt", { dpop: await proof(keys, "GET", url, at, { typ: "JWT" }) }],
      ["garbage", { dpop: "a.b.c" }],
    ];
    for (const [label, headers] of cases) {
      const r = await whoami(at, headers);
      expect([label, r.status, ((await r.json()) as any).error?.code]).toEqual([label, 401, "unauthorized"]);
    }
    // the query string is not part of htu
    expect((await fetch(`${url}?x=1`, { headers: { authorization: `DPoP ${at}`, dpop: await proof(keys, "GET", url, at) } })).status).toBe(200);
    // the good proof works once; replayed, it is refused
    expect((await whoami(at, { dpop: good })).status).toBe(200);
    const replay = await whoami(at, { dpop: good });
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as any).error.message).toMatch(/already used/);
  });

  test("an unbound token is refused with the DPoP scheme, and accepted as Bearer", async () => {
    const { tokens } = await obtainTokens(t.url, demo.dashboardToken, "quotes:read");
    expect(decodeJwt(tokens.access_token).cnf).toBeUndefined();
    const keys = await generateKeyPair("ES256");
    const r = await whoami(tokens.access_token, { dpop: await proof(keys, "GET", `${t.url}/api/v1/whoami`, tokens.access_token) });
    expect(r.status).toBe(401);
    expect((await api("GET", "whoami", { token: tokens.access_token })).status).toBe(200);
  });

  test("/mcp: the SDK client connects with a proof per request; the bound token as a Bearer token gets 401", async () => {
    const keys = await generateKeyPair("ES256");
    const { tokens } = await boundTokens(keys, "quotes:read", { resource: `${t.url}/mcp` });
    const at = tokens.access_token;
    expect(decodeJwt(at).aud).toBe(`${t.url}/mcp`);
    // a fetch that signs a fresh proof for each request the transport makes
    const dpopFetch = async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : input);
      const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
      const headers = new Headers(init?.headers);
      headers.set("authorization", `DPoP ${at}`);
      headers.set("dpop", await proof(keys, method, `${url.origin}${url.pathname}`, at));
      return fetch(input, { ...init, headers });
    };
    const c = new Client({ name: "dpop-agent", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { fetch: dpopFetch }));
    try {
      const listed = await c.callTool({ name: "list_quotes", arguments: {} });
      expect(listed.isError).toBeFalsy();
    } finally {
      await c.close();
    }
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const asBearer = await fetch(`${t.url}/mcp`, { method: "POST", headers: { ...headers, authorization: `Bearer ${at}` }, body });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    const noProof = await fetch(`${t.url}/mcp`, { method: "POST", headers: { ...headers, authorization: `DPoP ${at}` }, body });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get("www-authenticate")).toMatch(/^DPoP error="invalid_token".*algs="ES256 Ed25519 EdDSA"/);
  });
});
