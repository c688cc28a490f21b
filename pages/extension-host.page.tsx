/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The demo dashboard page that hosts an installed extension: {base_url}/dashboard/extensions/{installationId}.
//
// How it gets a dashboard session: a short sign-in form takes a dashboard session token (dst_…, as `npm run bootstrap`
// prints) and keeps it in an HttpOnly, SameSite=Strict cookie scoped to /dashboard, so no script on the page (nor the
// extension) can read it. The page mounts the iframe with /extension-host.js; the host module answers the iframe's
// `ready` and `refresh` with POST /dashboard/extensions/{id}/session, which mints the session token with the same
// service as POST /api/v1/installations/{id}/session, for the cookie's session. That POST is refused unless it is a
// same-origin JSON request (the cookie is also SameSite=Strict), so another site cannot mint tokens with it.
import express, { type Request, type Response, Router } from "express";
import { authenticateRequest } from "../src/platform/auth.service";
import { errorBody } from "../src/rest/http";
import { installationFrameView, mintExtensionSession } from "../src/extensions/sessions.service";
import { type Ctx, type Deps, makeCtx } from "../src/shared/context";
import { DomainError, errors } from "../src/shared/errors";
import { html, Shell } from "./components/shell";
import { frameableOrigins, securePage } from "./security";
import { refusalHeaders } from "../src/shared/rate-limit";

const COOKIE = "q2c_dashboard_session";
const COOKIE_PATH = "/dashboard";
const COOKIE_MAX_AGE_MS = 8 * 3600 * 1000;
const PAGE = /^\/dashboard\/extensions\/[A-Za-z0-9_-]{1,100}$/;

const CSS = (brand: string) => `
  :root { --brand: ${brand}; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; border-bottom: 1px solid #e4e7eb; }
  main { max-width: 1100px; margin: 0 auto; padding: 1rem; }
  h1 { font-size: 1.5rem; margin: .25rem 0; }
  .bar { display: flex; flex-wrap: wrap; align-items: flex-start; justify-content: space-between; gap: .75rem; }
  .bar form { margin: 0; }
  .muted { color: #52606d; font-size: .95rem; margin: .25rem 0; } code { white-space: nowrap; }
  .pill { display: inline-block; padding: .1rem .5rem; border-radius: 999px; background: #e4e7eb; font-size: .85rem; }
  .pill.prod { background: #fde8e8; color: #8a041a; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  .extension-frame { display: block; width: 100%; border: 1px solid #cbd2d9; border-radius: 8px; background: #fff; }
  .extension-toasts { position: fixed; right: 1rem; bottom: 1rem; left: 1rem; display: flex; flex-direction: column; align-items: flex-end; gap: .5rem; pointer-events: none; z-index: 10; }
  .extension-toast { margin: 0; max-width: 28rem; padding: .6rem .9rem; border-radius: 6px; background: #1f2933; color: #fff; box-shadow: 0 2px 8px rgba(0,0,0,.2); }
  .extension-toast-success { background: #0e5a2c; } .extension-toast-warning { background: #8d5d00; } .extension-toast-error { background: #ab091e; }
  .notice { border-left: 4px solid var(--brand); background: #fff; padding: .75rem; margin: .75rem 0; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 1rem 0; }
  label { display: block; margin: .5rem 0 .2rem; font-weight: 500; }
  input[type=password] { width: 100%; max-width: 28rem; padding: .55rem; border: 1px solid #9aa5b1; border-radius: 6px; font: inherit; }
  input:focus, button:focus, a:focus, iframe:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  button { display: inline-block; background: var(--brand); color: #fff; border: 0; padding: .6rem 1rem; border-radius: 6px; font-size: 1rem; cursor: pointer; margin-top: .75rem; }
  button.secondary { background: #fff; color: #1f2933; border: 1px solid #9aa5b1; margin-top: 0; }
  .skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 20; }
  @media (max-width: 520px) { main { padding: .5rem; } h1 { font-size: 1.25rem; } }
`;

// Reads the data attributes the server rendered (escaped by preact); no value is ever spliced into script text.
const MOUNT = `
import { mountExtension } from "/extension-host.js";
const el = document.getElementById("extension");
const status = document.getElementById("host-status");
const say = (text) => { status.textContent = text; };
mountExtension({
  container: el,
  installationId: el.dataset.installationId,
  iframeUrl: el.dataset.iframeUrl,
  sessionUrl: el.dataset.sessionUrl,
  title: el.dataset.title,
  onNavigate: (route) => say("The extension asked to open " + route + " (this demo dashboard has no such page)."),
  onDestroy: () => say("The extension closed itself."),
  onError: (e) => say("Could not open a session for the extension: " + e.message),
});
`;

type View = Awaited<ReturnType<typeof installationFrameView>>;
const NEUTRAL = { name: "Dashboard", logoUrl: null, brandColor: null };

function HostPage(p: { nonce: string; v: View }) {
  const { v } = p;
  const prod = v.environment.kind === "production";
  return (
    <Shell css={CSS} nonce={p.nonce} title={`${v.extensionName} · ${v.application.name}`} brand={{ name: `${v.workspace.name} · ${v.application.name}`, logoUrl: null, brandColor: null }} script={MOUNT} scriptType="module">
      <a class="skip" href="#extension">Skip to the extension</a>
      <div class="bar">
        <div>
          <h1>{v.extensionName}</h1>
          <p class="muted">
            {v.version ? `Version ${v.version} · ` : ""}
            {v.application.slug} · <span class={prod ? "pill prod" : "pill"}>{v.environment.slug}</span>
          </p>
          <p class="muted">Signed in as {v.user.email}</p>
        </div>
        <form method="post" action="/dashboard/sign-out">
          <input type="hidden" name="next" value={`/dashboard/extensions/${v.installationId}`} />
          <button type="submit" class="secondary">Sign out</button>
        </form>
      </div>
      <p id="host-status" role="status" aria-live="polite" class="muted"></p>
      {v.iframeUrl && v.iframeOrigin ? (
        <section
          id="extension"
          tabIndex={-1}
          aria-label={`${v.extensionName} (extension)`}
          data-installation-id={v.installationId}
          data-iframe-url={v.iframeUrl}
          data-session-url={`/dashboard/extensions/${v.installationId}/session`}
          data-title={`${v.extensionName} (extension)`}
        >
          <noscript>
            <p class="alert">This extension runs in a frame that needs JavaScript.</p>
          </noscript>
        </section>
      ) : (
        <p class="notice">This extension has no iframe page: it works through webhooks and the API only.</p>
      )}
    </Shell>
  );
}

function SignInPage(p: { nonce: string; next: string; error?: string | null }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title="Sign in · Dashboard" brand={NEUTRAL}>
      <section class="card" aria-labelledby="signin-h">
        <h1 id="signin-h">Sign in to open this extension</h1>
        <div role="alert">{p.error ? <p class="alert" id="error">{p.error}</p> : null}</div>
        <form method="post" action="/dashboard/sign-in">
          <input type="hidden" name="next" value={p.next} />
          <label for="token">Dashboard session token</label>
          <input type="password" id="token" name="token" required autocomplete="off" spellcheck={false} aria-describedby="token-help" />
          <p class="muted" id="token-help">
            The dst_… token <code>npm run bootstrap -- --json</code> prints. It is kept in an HttpOnly cookie for this dashboard only, for 8 hours or until you sign out.
          </p>
          <button type="submit">Sign in</button>
        </form>
      </section>
    </Shell>
  );
}

function MessagePage(p: { nonce: string; title: string; text: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title={p.title} brand={NEUTRAL}>
      <h1>{p.title}</h1>
      <p>{p.text}</p>
    </Shell>
  );
}

function cookieOf(req: Request): string | null {
  for (const part of (req.get("cookie") ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === COOKIE) {
      const v = part.slice(i + 1).trim();
      return /^[A-Za-z0-9_-]{1,200}$/.test(v) ? v : null;
    }
  }
  return null;
}

const cookieOptions = (req: Request) => ({ httpOnly: true, sameSite: "strict" as const, path: COOKIE_PATH, secure: req.secure });

/** The dashboard principal of the cookie's session (null: no cookie); throws a 401/429 DomainError for a bad one. */
async function dashboardCtx(deps: Deps, req: Request): Promise<Ctx | null> {
  const token = cookieOf(req);
  if (!token) return null;
  const ctx = makeCtx(deps, null, req.ip);
  const { principal } = await authenticateRequest(ctx, { authorization: `Bearer ${token}` });
  if (!principal || principal.type !== "clerk_jwt") throw errors.unauthorized("This session cannot open extensions");
  ctx.principal = principal;
  return ctx;
}

const safeNext = (v: unknown) => (typeof v === "string" && PAGE.test(v) ? v : null);

export function extensionHostPages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "4kb", parameterLimit: 5 });

  r.get("/dashboard/extensions/:installationId", async (req: Request, res: Response) => {
    const next = `/dashboard/extensions/${encodeURIComponent(String(req.params.installationId))}`;
    let ctx: Ctx | null;
    try {
      ctx = await dashboardCtx(deps, req);
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      const nonce = await dashboardPage(req, res);
      res.clearCookie(COOKIE, cookieOptions(req));
      res.set(refusalHeaders(e));
      return void res.status(e.status === 429 ? 429 : 200).type("html").send(html(<SignInPage nonce={nonce} next={next} error={e.status === 429 ? "Too many attempts; wait a few minutes." : "Your dashboard session is no longer valid. Sign in again."} />));
    }
    if (!ctx) {
      const nonce = await dashboardPage(req, res);
      return void res.type("html").send(html(<SignInPage nonce={nonce} next={next} />));
    }
    let v: View;
    try {
      v = await installationFrameView(ctx, String(req.params.installationId));
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      const nonce = await dashboardPage(req, res);
      const denied = e.status === 403;
      return void res
        .status(denied ? 403 : 404)
        .type("html")
        .send(html(<MessagePage nonce={nonce} title={denied ? "Not available in your environments" : "Extension not found"} text={denied ? "Your environment grants do not include the environment this extension is installed in." : "No active installation with this id is open to you. It may have been uninstalled or suspended."} />));
    }
    // the only frame the page may hold is the extension's own origin
    const nonce = await dashboardPage(req, res, { frameSources: frameableOrigins([v.iframeOrigin]) });
    res.type("html").send(html(<HostPage nonce={nonce} v={v} />));
  });

  r.post("/dashboard/sign-in", form, async (req: Request, res: Response) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(b.next);
    const token = typeof b.token === "string" ? b.token.trim() : "";
    const fail = async (status: number, error: string) => {
      const nonce = await dashboardPage(req, res);
      res.status(status).type("html").send(html(<SignInPage nonce={nonce} next={next ?? "/dashboard/extensions/"} error={error} />));
    };
    if (!sameOrigin(req)) return fail(403, "Sign in from this dashboard's own page.");
    if (!/^dst_[A-Za-z0-9]{1,196}$/.test(token)) return fail(422, "Enter a dashboard session token (it starts with dst_).");
    const ctx = makeCtx(deps, null, req.ip);
    try {
      const { principal } = await authenticateRequest(ctx, { authorization: `Bearer ${token}` });
      if (!principal) return fail(403, "This user is not a member of a workspace yet.");
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      res.set(refusalHeaders(e));
      return fail(e.status === 429 ? 429 : 401, e.status === 429 ? "Too many attempts; wait a few minutes." : "This token is not a valid dashboard session.");
    }
    res.cookie(COOKIE, token, { ...cookieOptions(req), maxAge: COOKIE_MAX_AGE_MS });
    res.redirect(303, next ?? "/dashboard/extensions/");
  });

  r.post("/dashboard/sign-out", form, (req: Request, res: Response) => {
    res.clearCookie(COOKIE, cookieOptions(req));
    res.redirect(303, safeNext((req.body ?? {}).next) ?? "/dashboard/extensions/");
  });

  // The host module's session source on this demo page: JSON, same origin only, the cookie's dashboard session.
  r.post("/dashboard/extensions/:installationId/session", async (req: Request, res: Response) => {
    res.set("Cache-Control", "no-store");
    try {
      if (!sameOrigin(req) || !/^application\/json\b/i.test(req.get("content-type") ?? "")) throw errors.forbidden("Only this dashboard's own pages may open extension sessions");
      const ctx = await dashboardCtx(deps, req);
      if (!ctx) throw errors.unauthorized("Sign in first");
      res.status(201).json({ data: await mintExtensionSession(ctx, String(req.params.installationId)) });
    } catch (e) {
      if (!(e instanceof DomainError) || e.status >= 500) throw e;
      res.set(refusalHeaders(e));
      res.status(e.status).json(errorBody(e));
    }
  });
  return r;
}

/**
 * A browser POST names its origin (these pages send Referrer-Policy: same-origin, so it is not "null"), and modern
 * browsers also say Sec-Fetch-Site; only this origin is accepted (the cookie is SameSite=Strict as well).
 */
function sameOrigin(req: Request): boolean {
  const origin = req.get("origin");
  if (origin === `${req.protocol}://${req.get("host")}`) return true;
  return (origin === undefined || origin === "null") && req.get("sec-fetch-site") === "same-origin";
}

/** securePage, with a referrer policy that keeps the Origin header of this page's own POSTs. */
async function dashboardPage(req: Request, res: Response, opts: Parameters<typeof securePage>[2] = {}) {
  const nonce = await securePage(req, res, opts);
  res.set("Referrer-Policy", "same-origin");
  return nonce;
}
