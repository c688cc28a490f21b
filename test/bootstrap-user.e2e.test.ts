// `npm run bootstrap -- --user <email>` as an invitee uses it: a session for a user who is no member yet, which
// accepts the invitation the running service emailed, then works in the workspace.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { killAll, portOf, runCli, startService } from "./helpers/spawn";

const dataDir = mkdtempSync(path.join(tmpdir(), "q2c-bootstrap-user-"));
afterAll(() => {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
});
const env = { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "", LOG_LEVEL: "error", DASHBOARD_URL: "https://dashboard.example.test" };
const lastJson = (out: string) => JSON.parse(out.trim().split("\n").pop()!);

test("bootstrap --user mints a member's session, or an invitee's that can accept an invitation and then works", async () => {
  const demo = runCli("src/cli/bootstrap.ts", ["--json"], env);
  expect(demo.status).toBe(0);
  const { workspaceId } = lastJson(demo.stdout);
  const owner = runCli("src/cli/bootstrap.ts", ["--user", "owner@example.com", "--json"], env);
  expect(lastJson(owner.stdout)).toMatchObject({ email: "owner@example.com", workspaceId, memberId: expect.any(String), dashboardToken: expect.stringMatching(/^dst_/) });
  const invitee = runCli("src/cli/bootstrap.ts", ["--user", "sam@example.com", "--json"], env);
  const sam = lastJson(invitee.stdout);
  expect(sam).toMatchObject({ email: "sam@example.com", workspaceId: null, memberId: null });
  const bad = runCli("src/cli/bootstrap.ts", ["--user"], env);
  expect(bad.status).toBe(1);

  const svc = await startService(env);
  const base = `http://127.0.0.1:${portOf(svc)}/api/v1`;
  const call = async (method: string, p: string, token: string, body?: unknown) => {
    const r = await fetch(`${base}/${p}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    return { status: r.status, body: (await r.json()) as any };
  };
  const ownerToken = lastJson(owner.stdout).dashboardToken;
  const inv = await call("POST", `workspaces/${workspaceId}/invites`, ownerToken, { email: "sam@example.com", workspaceRole: "workspace_admin" });
  expect(inv.status).toBe(201);
  // the service's mail job renders the email; read the link from the outbox
  let text: string | null = null;
  for (let i = 0; i < 60 && !text; i++) {
    const out = await call("GET", "emails?template=member.invitation", ownerToken);
    text = out.body.data?.[0]?.text ?? null;
    if (!text) await new Promise((r) => setTimeout(r, 500));
  }
  const token = /https:\/\/dashboard\.example\.test\/invites\/(inv_[A-Za-z0-9]+)/.exec(text ?? "")?.[1];
  expect(token).toBeDefined();
  expect((await call("GET", "whoami", sam.dashboardToken)).status).toBe(403);
  const acc = await call("POST", "invites/accept", sam.dashboardToken, { token });
  expect(acc.status).toBe(200);
  const me = await call("GET", `workspaces/${workspaceId}/members/me`, sam.dashboardToken);
  expect(me.body.data).toMatchObject({ email: "sam@example.com", workspaceRole: "workspace_admin" });
  expect(await svc.stop()).toBe(0);
}, 300_000);
