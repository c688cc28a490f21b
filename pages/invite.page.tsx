/** @jsxRuntime automatic */
/** @jsxImportSource preact */
// The hosted accept page of an invitation, {dashboard_url}/invites/{token} (DASHBOARD_URL defaults to this server):
// the link in the invitation email. It shows the workspace, the invited email and the roles, and accepts with the
// invitee's dashboard session, entered in a password field and sent once with the form (never stored by the page;
// a self-hosted install mints one with `npm run bootstrap -- --user <email>`). A plain form POST back to the page,
// no JavaScript. Thin: invitations.service does the work.
import express, { Router, type Request, type Response } from "express";
import { authenticateRequest } from "../src/platform/auth.service";
import { acceptInvite, invitationPreview } from "../src/platform/invitations.service";
import { type Deps, makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { limitHeaders } from "../src/shared/rate-limit";
import { refusedState } from "../src/rest/http";
import { html, Shell } from "./components/shell";
import { securePage } from "./security";
import { formatDay } from "../src/shared/dates";

const CSS = (brand: string) => `
  :root { --brand: ${brand}; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2933; background: #f5f7fa; line-height: 1.45; }
  main { max-width: 640px; margin: 0 auto; padding: 1rem; }
  header { display: flex; align-items: center; gap: .75rem; border-top: 4px solid var(--brand); background: #fff; padding: .75rem 1rem; }
  .card { background: #fff; border: 1px solid #e4e7eb; border-radius: 8px; padding: 1rem; margin: 1rem 0; }
  h1 { font-size: 1.5rem; margin: .25rem 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; } dt { color: #52606d; } dd { margin: 0; font-weight: 500; overflow-wrap: anywhere; }
  label { display: block; margin: .75rem 0 .2rem; font-weight: 500; }
  input[type=password] { width: 100%; padding: .55rem; border: 1px solid #9aa5b1; border-radius: 6px; font: inherit; }
  input:focus, button:focus { outline: 3px solid #2563eb; outline-offset: 2px; }
  button { margin-top: .75rem; background: var(--brand); color: #fff; border: 0; padding: .6rem 1rem; border-radius: 6px; font-size: 1rem; cursor: pointer; }
  .muted { color: #52606d; font-size: .9rem; } code { background: #e4e7eb; padding: 0 .25rem; border-radius: 3px; }
  .alert { border-left: 4px solid #ab091e; background: #fde8e8; padding: .75rem; margin: 1rem 0; }
  .notice { border-left: 4px solid #0e5a2c; background: #eef6f0; padding: .75rem; margin: 1rem 0; }
  @media (max-width: 520px) { main { padding: .5rem; } .card { padding: .75rem; } }
`;

type Preview = Awaited<ReturnType<typeof invitationPreview>>;
const NEUTRAL = { name: "Workspace invitation", logoUrl: null, brandColor: null };
const ROLE: Record<string, string> = { admin: "Admin", developer: "Developer", finance: "Finance", viewer: "Viewer" };
const day = (iso: string) => formatDay(iso);

function InvitePage(p: { nonce: string; token: string; v: Preview; error?: string | null; joined?: boolean }) {
  const { v } = p;
  const roles = [v.workspaceRole === "workspace_admin" ? "Workspace admin" : null, ...v.applicationRoles.map((r) => `${ROLE[r.role] ?? r.role} of ${r.application}`)].filter(Boolean).join(", ");
  const closed: Record<string, string> = {
    expired: "This invitation has expired. Ask a workspace admin to send it again.",
    accepted: "This invitation was already accepted.",
    revoked: "This invitation was withdrawn.",
  };
  return (
    <Shell css={CSS} nonce={p.nonce} title={`Join ${v.workspaceName}`} brand={NEUTRAL}>
      <h1>Join {v.workspaceName}</h1>
      <div role="alert" aria-live="assertive">{p.error ? <p class="alert" id="error">{p.error}</p> : null}</div>
      <div role="status" aria-live="polite">
        {p.joined ? <p class="notice" id="joined">You joined {v.workspaceName}. You can close this page and use your dashboard session.</p> : null}
      </div>
      <section class="card" aria-label="The invitation">
        <dl>
          <dt>Invited email</dt>
          <dd id="email">{v.email}</dd>
          <dt>Access</dt>
          <dd id="roles">{roles || "No application access yet: a workspace admin gives you roles after you join"}</dd>
          <dt>Valid until</dt>
          <dd>{day(v.expiresAt)}</dd>
        </dl>
      </section>
      {p.joined ? null : v.status !== "pending" ? (
        <p class="notice" id="closed">{closed[v.status] ?? "This invitation can no longer be accepted."}</p>
      ) : (
        <form method="post" action={`/invites/${p.token}`} class="card">
          <p class="muted">
            Sign in as <strong>{v.email}</strong> to accept. Paste your dashboard session token (a self-hosted install mints one with{" "}
            <code>npm run bootstrap -- --user {v.email}</code>).
          </p>
          <label for="session">Dashboard session token</label>
          <input type="password" id="session" name="session" required autocomplete="off" />
          <button type="submit" id="accept">Accept the invitation</button>
        </form>
      )}
    </Shell>
  );
}

function Simple(p: { nonce: string; title: string; text: string }) {
  return (
    <Shell css={CSS} nonce={p.nonce} title={p.title} brand={NEUTRAL}>
      <h1>{p.title}</h1>
      <p>{p.text}</p>
    </Shell>
  );
}

function errorText(e: DomainError): string {
  switch (e.code) {
    case "invite_email_mismatch":
      return "This session belongs to someone else: sign in as the invited email to accept.";
    case "already_member":
      return "You are already a member of this workspace.";
    case "invite_expired":
      return "This invitation has expired. Ask a workspace admin to send it again.";
    case "unauthorized":
      return "That session token is not valid (or has expired). Check it and try again.";
    default:
      return e.message;
  }
}

export function invitePages(deps: Deps) {
  const r = Router();
  const form = express.urlencoded({ extended: false, limit: "8kb", parameterLimit: 5 });

  async function render(req: Request, res: Response, status: number, extra: { error?: string | null; joined?: boolean } = {}, known?: Preview) {
    const token = String(req.params.token);
    const nonce = await securePage(req, res);
    res.set("Referrer-Policy", "no-referrer"); // the token is in the path
    let v: Preview;
    try {
      v = known ?? (await invitationPreview(makeCtx(deps, null, req.ip), token));
    } catch (e) {
      if (e instanceof DomainError && e.code === "rate_limited") {
        res.set(limitHeaders(refusedState(e), true));
        return void res.status(429).type("html").send(html(<Simple nonce={nonce} title="Too many attempts" text="Please wait a few minutes and open your link again." />));
      }
      if (e instanceof DomainError && e.status === 404) {
        return void res.status(404).type("html").send(html(<Simple nonce={nonce} title="Invitation not found" text="This link is not valid. It may have been replaced by a newer invitation." />));
      }
      throw e;
    }
    res.status(status).type("html").send(html(<InvitePage nonce={nonce} token={token} v={v} {...extra} />));
  }

  r.get("/invites/:token", (req, res) => render(req, res, 200));
  r.post("/invites/:token", form, async (req, res) => {
    const token = String(req.params.token);
    const session = typeof req.body?.session === "string" ? req.body.session.trim() : "";
    if (!session) return render(req, res, 422, { error: "Paste your dashboard session token." });
    const ctx = makeCtx(deps, null, req.ip);
    try {
      // read before accepting: an accepted invitation's token is consumed, so the page cannot look it up after
      const before = await invitationPreview(ctx, token);
      const auth = await authenticateRequest(ctx, { authorization: `Bearer ${session}` }, { deferGate: true });
      ctx.principal = auth.principal;
      await acceptInvite(ctx, { token });
      return render(req, res, 200, { joined: true }, before);
    } catch (e) {
      if (e instanceof DomainError && e.status < 500 && e.code !== "rate_limited") return render(req, res, e.status === 401 ? 401 : e.status, { error: errorText(e) });
      throw e;
    }
  });
  return r;
}
