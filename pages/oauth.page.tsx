/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The OAuth login and consent page, {base_url}/oauth/consent/{uid}: /oauth/authorize sends the browser here.
//
// Who the user is: their dashboard session. The browser carries it in an HttpOnly, SameSite=Lax cookie scoped to
// /oauth/consent, set by the login step on this page (the user pastes their dashboard session token once; the
// cookie lasts for the browser session, "Sign out" clears it). The consent step shows the client, the scopes it
// asks for, and lets the user pin the grant to one application and one environment they may use; Approve or Deny
// then returns the browser to the client (a code, or access_denied). Plain forms, no JavaScript; every POST carries
// a token bound to the interaction and the session (and the cookie is SameSite=Lax), so another site cannot post it.
import { createHmac } from "node:crypto";
import express, { Router, type Request, type Response } from "express";
import type Provider from "oidc-provider";
import { authenticateRequest } from "../src/platform/auth.service";
import type { Principal } from "../src/shared/principal";
import { type Deps, makeCtx } from "../src/shared/context";
import { constantTimeEqual } from "../src/shared/crypto";
import { DomainError } from "../src/shared/errors";
import { secretKey } from "../src/shared/secrets";
import { consentChoices, describeScope, recordGrant, splitRequestedScopes } from "../src/oauth/grants.service";
import { getProvider, OAUTH_PATHS, oauthResources } from "../src/oauth/provider";
import { html, Shell } from "./components/shell";
import { securePage } from "./security";
import { refusalHeaders } from "../src/shared/rate-limit";

const SESSION_COOKIE = "q2c_oauth_session";

/**
 * Signing in here is not production traffic: the live gate (402 for a session acting in the production environment
 * of a workspace that is not live) does not apply, so the owner of such a workspace can grant its sandbox, which is
 * never gated. A token pinned to production is gated like any production credential when it is used.
 */
const SIGN_IN = { deferGate: true } as const;

const CSS = (brand: string) => `
  :root { --brand: ${brand}; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; }
  main { max-width: 620px; margin: 0 auto; padding: 1rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  h1 { font-size: 1.4rem; margin: .25rem 0 .5rem; } h2 { font-size: 1.05rem; margin: 0 0 .5rem; }
  label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
  input[type=password], select { width: 100%; padding: .55rem; border: 1px solid #9aa5b1; border-radius: 6px; font: inherit; background: #fff; }
  input:focus, select:focus, button:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  ul.scopes { margin: .25rem 0 0; padding-left: 1.2rem; } ul.scopes code { font-size: .85rem; color: #52606d; }
  .buttons { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1rem; }
  button { background: var(--brand); color: #fff; border: 0; padding: .65rem 1.2rem; border-radius: 6px; font-size: 1rem; cursor: pointer; }
  button.secondary { background: #fff; color: #1f2933; border: 1px solid #9aa5b1; }
  button.link { background: none; color: #1d4ed8; padding: 0; text-decoration: underline; font-size: .9rem; }
  .muted { color: #52606d; font-size: .9rem; } .who { display: flex; justify-content: space-between; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 1rem 0; }
  .warn { border-left: 4px solid #b45309; background: #fff7ed; padding: .5rem .75rem; }
  @media (max-width: 520px) { main { padding: .5rem; } .card { padding: .75rem; } .buttons button { flex: 1 1 100%; } }
`;

const BRAND = { name: "Authorize an app", logoUrl: null, brandColor: null };

interface ClientInfo {
  clientId: string;
  name: string | null;
  redirectHost: string;
}

function LoginPage(p: { nonce: string; uid: string; client: ClientInfo; error?: string | null }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title="Sign in to authorize an app" brand={BRAND}>
      <h1>Sign in to continue</h1>
      <p>
        <strong id="client-name">{p.client.name ?? p.client.clientId}</strong> wants to use your store's API on your behalf. Sign in with your dashboard session to
        review the request.
      </p>
      <div role="alert" aria-live="assertive">{p.error ? <p class="alert" id="error">{p.error}</p> : null}</div>
      <form class="card" method="post" action={`${OAUTH_PATHS.consent}/${p.uid}/login`}>
        <label for="token">Dashboard session token</label>
        <input type="password" id="token" name="token" required autocomplete="off" aria-describedby="token-help" autofocus />
        <p class="muted" id="token-help">
          The token your dashboard session uses (it starts with <code>dst_</code>). It is kept in a secure cookie for this browser session only.
        </p>
        <div class="buttons">
          <button type="submit" id="sign-in">Sign in</button>
        </div>
      </form>
    </Shell>
  );
}

type Choices = Awaited<ReturnType<typeof consentChoices>>;

function ConsentPage(p: { nonce: string; uid: string; client: ClientInfo; principal: Principal; scopes: string[]; choices: Choices; csrf: string; error?: string | null }) {
  const clientName = p.client.name ?? p.client.clientId;
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Authorize ${clientName}`} brand={BRAND}>
      <h1>
        Authorize <span id="client-name">{clientName}</span>?
      </h1>
      <div class="who">
        <p class="muted">
          Signed in as <strong id="who">{p.principal.member?.email}</strong> ({p.principal.workspace.name})
        </p>
        <form method="post" action={`${OAUTH_PATHS.consent}/${p.uid}/logout`}>
          <input type="hidden" name="csrf" value={p.csrf} />
          <button type="submit" class="link" id="sign-out">Not you? Sign out</button>
        </form>
      </div>
      <div role="alert" aria-live="assertive">{p.error ? <p class="alert" id="error">{p.error}</p> : null}</div>
      <form class="card" method="post" action={`${OAUTH_PATHS.consent}/${p.uid}`}>
        <input type="hidden" name="csrf" value={p.csrf} />
        <h2 id="scopes-h">It will be able to</h2>
        <ul class="scopes" aria-labelledby="scopes-h" id="scopes">
          {p.scopes.map((s) => (
            <li>
              {describeScope(s)} <code>{s}</code>
            </li>
          ))}
        </ul>
        <label for="applicationId">Application</label>
        <select id="applicationId" name="applicationId" required>
          {p.choices.applications.map((a) => (
            <option value={a.id}>{a.name}</option>
          ))}
        </select>
        <label for="environmentId">Environment</label>
        <select id="environmentId" name="environmentId" required aria-describedby="env-help">
          {p.choices.environments.map((e) => (
            <option value={e.id}>
              {e.name} ({e.kind === "production" ? "production, live data" : "test data"})
            </option>
          ))}
        </select>
        <p class="muted" id="env-help">
          The app reaches only this application's data in this environment. It returns to <strong>{p.client.redirectHost}</strong>. You can revoke it at any time from
          your authorized apps.
        </p>
        <div class="buttons">
          <button type="submit" name="decision" value="approve" id="approve">Approve</button>
          <button type="submit" name="decision" value="deny" class="secondary" id="deny">Deny</button>
        </div>
      </form>
    </Shell>
  );
}

function Problem(p: { nonce: string; title: string; text: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title={p.title} brand={BRAND}>
      <h1>{p.title}</h1>
      <p id="problem">{p.text}</p>
    </Shell>
  );
}

/**
 * The consent form's POST ends in a redirect to the client's redirect_uri, which CSP form-action also governs: allow
 * that one origin (or custom scheme) besides 'self'. The redirect_uri was already matched against the registration.
 */
function allowRedirectTarget(res: Response, redirectUri: string) {
  let source: string | null;
  try {
    const u = new URL(redirectUri);
    source = u.protocol === "http:" || u.protocol === "https:" ? u.origin : /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) ? u.protocol : null;
  } catch {
    source = null;
  }
  const csp = res.getHeader("content-security-policy");
  if (!source || typeof csp !== "string" || /[\s;,'"]/.test(source)) return;
  res.setHeader("content-security-policy", csp.replace("form-action 'self'", `form-action 'self' ${source}`));
}

const cookieOf = (req: Request, name: string) => {
  for (const part of (req.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
};

export function oauthPages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 10 });
  const csrfFor = (uid: string, sessionKey: string) => createHmac("sha256", secretKey(deps.config)).update(`oauth-consent\0${uid}\0${sessionKey}`).digest("base64url");

  const setSession = (req: Request, res: Response, token: string | null) =>
    res.cookie(SESSION_COOKIE, token ?? "", {
      httpOnly: true,
      sameSite: "lax",
      secure: req.secure,
      path: OAUTH_PATHS.consent,
      ...(token ? {} : { expires: new Date(0) }),
    });

  /** The member behind the session cookie, or null (no cookie, or a session that is no longer valid). */
  async function sessionPrincipal(req: Request): Promise<{ principal: Principal; token: string } | null> {
    const token = cookieOf(req, SESSION_COOKIE);
    if (!token || !/^dst_[A-Za-z0-9]{10,100}$/.test(token)) return null;
    try {
      const { principal } = await authenticateRequest(makeCtx(deps, null, req.ip), { authorization: `Bearer ${token}` }, SIGN_IN);
      return principal?.member && principal.type === "clerk_jwt" ? { principal, token } : null;
    } catch {
      return null;
    }
  }

  /** The interaction (from the provider's cookie) and its client, or a rendered problem page. */
  async function interaction(req: Request, res: Response, nonce: string) {
    const provider = await getProvider(deps);
    let details: Awaited<ReturnType<Provider["interactionDetails"]>>;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      res.status(400).type("html").send(html(<Problem nonce={nonce} title="This sign-in request has expired" text="Go back to the app and start the authorization again." />));
      return null;
    }
    if (details.uid !== req.params.uid) {
      res.status(400).type("html").send(html(<Problem nonce={nonce} title="This sign-in request has expired" text="Go back to the app and start the authorization again." />));
      return null;
    }
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    const redirect = String(details.params.redirect_uri ?? "");
    let redirectHost = redirect;
    try {
      redirectHost = new URL(redirect).host || redirect;
    } catch {
      /* a custom scheme: shown as it is */
    }
    const info: ClientInfo = { clientId, name: (client?.clientName as string | undefined) ?? null, redirectHost };
    allowRedirectTarget(res, redirect);
    return { provider, details, client: info };
  }

  /** Ends the interaction with an OAuth error, which the provider sends back to the client's redirect_uri. */
  const refuse = (provider: Provider, req: Request, res: Response, error: string, description: string) =>
    provider.interactionFinished(req, res, { error, error_description: description }, { mergeWithLastSubmission: false });

  async function render(req: Request, res: Response, status = 200, error: string | null = null) {
    const nonce = await securePage(req, res);
    const it = await interaction(req, res, nonce);
    if (!it) return;
    const scopes = splitRequestedScopes(it.details.params.scope as string | undefined);
    if (scopes.refused.length) return refuse(it.provider, req, res, "invalid_scope", `these scopes cannot be granted: ${scopes.refused.join(" ")}`.slice(0, 300));
    if (!scopes.api.length) return refuse(it.provider, req, res, "invalid_scope", "ask for at least one API scope (e.g. quotes:read)");
    const session = await sessionPrincipal(req);
    if (!session) return void res.status(status === 200 ? 200 : status).type("html").send(html(<LoginPage nonce={nonce} uid={it.details.uid} client={it.client} error={error} />));
    const member = session.principal.member!;
    const choices = await consentChoices(makeCtx(deps), member, session.principal.workspace.id);
    if (!choices.applications.length || !choices.environments.length) {
      return void res.status(403).type("html").send(html(<Problem nonce={nonce} title="Nothing to authorize" text="Your roles give you no application and environment to share with this app." />));
    }
    const csrf = csrfFor(it.details.uid, session.token);
    res
      .status(status)
      .type("html")
      .send(html(<ConsentPage nonce={nonce} uid={it.details.uid} client={it.client} principal={session.principal} scopes={scopes.api} choices={choices} csrf={csrf} error={error} />));
  }

  r.get(`${OAUTH_PATHS.consent}/:uid`, (req, res) => render(req, res));

  r.post(`${OAUTH_PATHS.consent}/:uid/login`, form, async (req: Request, res: Response) => {
    const token = typeof req.body?.token === "string" ? req.body.token.trim() : "";
    let principal: Principal | null = null;
    try {
      // under the same limits as API requests: failed attempts from one address end in 429, so tokens cannot be guessed here
      principal = token ? (await authenticateRequest(makeCtx(deps, null, req.ip), { authorization: `Bearer ${token}` }, SIGN_IN)).principal : null;
    } catch (e) {
      if (e instanceof DomainError && e.code === "rate_limited") {
        res.set(refusalHeaders(e)); // every 429 says when to come back
        return render(req, res, 429, "Too many attempts: wait a minute and try again.");
      }
    }
    if (!principal || principal.type !== "clerk_jwt" || !principal.member) {
      return render(req, res, 401, "That is not a valid dashboard session token of a workspace member.");
    }
    setSession(req, res, token);
    res.redirect(303, `${OAUTH_PATHS.consent}/${encodeURIComponent(String(req.params.uid))}`);
  });

  r.post(`${OAUTH_PATHS.consent}/:uid/logout`, form, async (req: Request, res: Response) => {
    const session = await sessionPrincipal(req);
    const csrf = typeof req.body?.csrf === "string" ? req.body.csrf : "";
    if (session && constantTimeEqual(csrf, csrfFor(String(req.params.uid), session.token))) setSession(req, res, null);
    res.redirect(303, `${OAUTH_PATHS.consent}/${encodeURIComponent(String(req.params.uid))}`);
  });

  r.post(`${OAUTH_PATHS.consent}/:uid`, form, async (req: Request, res: Response) => {
    const nonce = await securePage(req, res);
    const it = await interaction(req, res, nonce);
    if (!it) return;
    const session = await sessionPrincipal(req);
    if (!session) return render(req, res, 401, "Your session ended: sign in again.");
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (typeof b.csrf !== "string" || !constantTimeEqual(b.csrf, csrfFor(it.details.uid, session.token))) {
      return render(req, res, 403, "This form expired: review the request and choose again.");
    }
    if (b.decision === "deny") return refuse(it.provider, req, res, "access_denied", "the user denied the request");
    if (b.decision !== "approve") return render(req, res, 400, "Choose Approve or Deny.");
    const scopes = splitRequestedScopes(it.details.params.scope as string | undefined);
    if (scopes.refused.length || !scopes.api.length) return render(req, res);
    const member = session.principal.member!;
    const requested = it.details.params.resource;
    const resource = (Array.isArray(requested) ? requested[0] : typeof requested === "string" ? requested : oauthResources(deps.config).api) as string;
    const ctx = makeCtx(deps, session.principal, req.ip);
    const choice = { applicationId: String(b.applicationId ?? ""), environmentId: String(b.environmentId ?? "") };
    const choices = await consentChoices(ctx, member, session.principal.workspace.id);
    if (!choices.applications.some((a) => a.id === choice.applicationId) || !choices.environments.some((e) => e.id === choice.environmentId)) {
      return render(req, res, 422, "Choose an application and an environment from the lists.");
    }
    const grant = new it.provider.Grant({ accountId: member.id, clientId: it.client.clientId });
    // API scopes are OpenID scopes for the provider too (they are listed there): granting both keeps its prompt
    // checks satisfied; access tokens carry the resource's scopes.
    grant.addOIDCScope([...scopes.oidc, ...scopes.api]);
    grant.addResourceScope(resource, scopes.api);
    const grantId = await grant.save();
    await recordGrant(ctx, { grantId, clientId: it.client.clientId, clientName: it.client.name, member, workspaceId: session.principal.workspace.id, ...choice, scopes: scopes.api });
    await it.provider.interactionFinished(req, res, { login: { accountId: member.id }, consent: { grantId } }, { mergeWithLastSubmission: false });
  });

  return r;
}
