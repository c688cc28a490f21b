// Partner referrals: a partner workspace opens client trials, lists them newest first, hands one over (claim-billing
// mails a code; revoke-handoff withdraws it), and the client accepts; afterwards client_owns_workspace and
// handoff_not_revocable. Who may call, tenancy and bad input, over REST and GraphQL.
import { mintKey } from "../src/platform/api-keys.service";
import { ensureWorkspace, mintDashboardToken } from "../src/platform/bootstrap.service";
import { makeCtx } from "../src/shared/context";
import { startWithDemo } from "./helpers/app";
import { client } from "./helpers/http";

let ctx: Awaited<ReturnType<typeof startWithDemo>>;
let api: ReturnType<typeof client>;
beforeAll(async () => {
  ctx = await startWithDemo({ worker: false });
  api = ctx.api;
});
afterAll(() => ctx.t.close());

let n = 0;
async function partner(isPartner = true) {
  const slug = `partner-${++n}-${Date.now()}`;
  const c = makeCtx(ctx.t.deps);
  const w = await ensureWorkspace(c, { slug, name: `Partner ${n}`, ownerEmail: `owner@${slug}.test`, appSlug: "store", appName: "Store", live: true, isPartner });
  const k = mintKey("secret", w.sandbox);
  await ctx.t.db.prisma.apiKey.create({ data: { workspaceId: w.ws.id, applicationId: w.app.id, environmentId: w.sandbox.id, name: "k", type: "secret", scopes: ["*"], keyHash: k.keyHash, keyPrefix: k.keyPrefix } });
  const member = async (role: "workspace_admin" | null) => {
    const user = await ctx.t.db.prisma.user.create({ data: { email: `m${++n}@${slug}.test` } });
    const m = await ctx.t.db.prisma.member.create({ data: { workspaceId: w.ws.id, userId: user.id, workspaceRole: role, applicationRoles: role ? [] : [{ applicationId: w.app.id, role: "admin" }] } });
    return mintDashboardToken(c, m.id);
  };
  return { ...w, owner: await mintDashboardToken(c, w.owner.id), key: k.rawKey, member };
}

async function gql(query: string, token: string | null, variables: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${ctx.t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: { extensions?: { code?: string; status?: number } }[] };
  return { data: body.data, code: body.errors?.[0]?.extensions?.code, status: body.errors?.[0]?.extensions?.status };
}

/** The handoff code mailed for a referral's workspace, newest first. */
async function mailedCodes(workspaceId: string) {
  const app = await ctx.t.db.prisma.application.findFirstOrThrow({ where: { workspaceId } });
  const mails = await ctx.t.db.prisma.email.findMany({ where: { applicationId: app.id, template: "client.partner_handoff" }, orderBy: { createdAt: "desc" } });
  return mails.map((m) => ({ to: m.toAddresses, code: (m.vars as any).handoffToken as string }));
}

test("a partner opens client trials; the list is newest first; the trial workspace is trialing with its own environments", async () => {
  const p = await partner();
  const a = await api("POST", "partner/trials", { token: p.owner, body: { clientEmail: "Client.A@example.com", workspaceName: "Client A" } });
  expect(a.status).toBe(201);
  expect(a.body.data).toMatchObject({ referralId: expect.any(String), workspaceId: expect.any(String), workspaceName: "Client A", clientEmail: "client.a@example.com", handoffState: "not_started" });
  const b = await api("POST", "partner/trials", { token: p.owner, body: { clientEmail: "b@example.com", workspaceName: "Client B" } });
  const list = await api("GET", "partner/me/referrals", { token: p.owner });
  expect(list.body.data.map((r: any) => r.referralId)).toEqual([b.body.data.referralId, a.body.data.referralId]);
  expect(list.body.meta.pagination).toEqual({ cursor: null, hasMore: false });
  const page1 = await api("GET", "partner/me/referrals?limit=1", { token: p.owner });
  expect(page1.body.data.map((r: any) => r.referralId)).toEqual([b.body.data.referralId]);
  const page2 = await api("GET", `partner/me/referrals?limit=1&cursor=${page1.body.meta.pagination.cursor}`, { token: p.owner });
  expect(page2.body.data.map((r: any) => r.referralId)).toEqual([a.body.data.referralId]);
  const ws = await ctx.t.db.prisma.workspace.findUniqueOrThrow({ where: { id: a.body.data.workspaceId }, include: { environments: true, members: { include: { user: true } } } });
  expect(ws.live).toBe(false);
  expect(ws.trialEndsAt!.getTime() - Date.now()).toBeGreaterThan(13 * 86_400_000);
  expect(ws.environments.map((e) => e.slug).sort()).toEqual(["production", "sandbox"]);
  expect(ws.members.map((m) => m.workspaceRole)).toEqual(["owner"]);
  // GraphQL: the same list
  const g = await gql("{ partnerReferrals { nodes { referralId handoffState } } }", p.owner);
  expect(g.data.partnerReferrals.nodes.map((r: any) => r.referralId)).toEqual([b.body.data.referralId, a.body.data.referralId]);
});

test("handoff: claim-billing mails a code, revoke kills it, the client accepts and owns the workspace; then client_owns_workspace and handoff_not_revocable", async () => {
  const p = await partner();
  const r = (await api("POST", "partner/trials", { token: p.owner, body: { clientEmail: "owner@client.test", workspaceName: "Client" } })).body.data;
  const id = r.referralId;
  // revoking before anything started changes nothing
  expect((await api("POST", `partner/trials/${id}/revoke-handoff`, { token: p.owner })).body.data.handoffState).toBe("not_started");
  const claim1 = await api("POST", `partner/trials/${id}/claim-billing`, { token: p.owner });
  expect(claim1.body.data).toMatchObject({ handoffState: "invited", invitedAt: expect.any(String), handoffExpiresAt: expect.any(String) });
  const [first] = await mailedCodes(r.workspaceId);
  expect(first.to).toEqual(["owner@client.test"]);
  expect(first.code).toMatch(/^hof_/);
  // claiming again re-sends: the first code dies
  await api("POST", `partner/trials/${id}/claim-billing`, { token: p.owner });
  const [second] = await mailedCodes(r.workspaceId);
  expect(second.code).not.toBe(first.code);
  expect((await api("POST", "partner/handoffs/accept", { body: { token: first.code } })).body.error.code).toBe("not_found");
  // revoke: the pending code dies
  expect((await api("POST", `partner/trials/${id}/revoke-handoff`, { token: p.owner })).body.data.handoffState).toBe("not_started");
  expect((await api("POST", "partner/handoffs/accept", { body: { token: second.code } })).status).toBe(404);
  await api("POST", `partner/trials/${id}/claim-billing`, { token: p.owner });
  const [third] = await mailedCodes(r.workspaceId);
  const accepted = await api("POST", "partner/handoffs/accept", { body: { token: third.code } });
  expect(accepted.status).toBe(200);
  expect(accepted.body.data).toMatchObject({ referralId: id, workspaceId: r.workspaceId, dashboardToken: expect.stringMatching(/^dst_/) });
  expect((await api("POST", "partner/handoffs/accept", { body: { token: third.code } })).status).toBe(404); // used
  // the client owns the workspace: its session reads and pays the workspace's billing; the partner's owner is an admin now
  const client = accepted.body.data.dashboardToken;
  expect((await api("GET", "billing", { token: client })).body.data).toMatchObject({ workspaceId: r.workspaceId, state: "trialing" });
  expect((await api("POST", "billing/subscribe", { token: client, body: { plan: "starter", paymentToken: "tok_visa" } })).body.data.state).toBe("live");
  const members = await ctx.t.db.prisma.member.findMany({ where: { workspaceId: r.workspaceId }, include: { user: true } });
  expect(Object.fromEntries(members.map((m) => [m.user.email, m.workspaceRole]))).toEqual({ "owner@client.test": "owner", [`owner@${p.ws.slug}.test`]: "workspace_admin" });
  expect((await api("GET", "partner/me/referrals", { token: p.owner })).body.data[0]).toMatchObject({ referralId: id, handoffState: "claimed", claimedAt: expect.any(String) });
  const late = await api("POST", `partner/trials/${id}/claim-billing`, { token: p.owner });
  expect([late.status, late.body.error.code]).toEqual([409, "client_owns_workspace"]);
  const noRevoke = await api("POST", `partner/trials/${id}/revoke-handoff`, { token: p.owner });
  expect([noRevoke.status, noRevoke.body.error.code]).toEqual([409, "handoff_not_revocable"]);
  // the same codes over GraphQL
  const gLate = await gql("mutation($id: ID!) { claimPartnerBilling(referralId: $id) { handoffState } }", p.owner, { id });
  expect([gLate.status, gLate.code]).toEqual([409, "client_owns_workspace"]);
  const gNoRevoke = await gql("mutation($id: ID!) { revokePartnerHandoff(referralId: $id) { handoffState } }", p.owner, { id });
  expect([gNoRevoke.status, gNoRevoke.code]).toEqual([409, "handoff_not_revocable"]);
});

test("GraphQL: create, claim, accept", async () => {
  const p = await partner();
  const created = await gql('mutation { createPartnerTrial(clientEmail: "g@client.test", workspaceName: "G") { referralId workspaceId handoffState } }', p.owner);
  expect(created.data.createPartnerTrial.handoffState).toBe("not_started");
  const id = created.data.createPartnerTrial.referralId;
  expect((await gql("mutation($id: ID!) { claimPartnerBilling(referralId: $id) { handoffState } }", p.owner, { id })).data.claimPartnerBilling.handoffState).toBe("invited");
  const [mail] = await mailedCodes(created.data.createPartnerTrial.workspaceId);
  const bad = await gql('mutation { acceptPartnerHandoff(token: "hof_nope") { workspaceId } }', null);
  expect(bad.code).toBe("not_found");
  const ok = await gql("mutation($t: String!) { acceptPartnerHandoff(token: $t) { workspaceId dashboardToken } }", null, { t: mail.code });
  expect(ok.data.acceptPartnerHandoff).toEqual({ workspaceId: created.data.createPartnerTrial.workspaceId, dashboardToken: expect.stringMatching(/^dst_/) });
});

test("who may call: partner workspaces' owners and admins; keys, other roles and non-partners are refused; another partner's referral is unknown; bad input names the field", async () => {
  const p = await partner();
  const other = await partner();
  const plain = await partner(false);
  const r = (await api("POST", "partner/trials", { token: p.owner, body: { clientEmail: "x@client.test", workspaceName: "X" } })).body.data;
  const admin = await p.member("workspace_admin");
  expect((await api("GET", "partner/me/referrals", { token: admin })).body.data).toHaveLength(1);
  const appAdmin = await p.member(null);
  const routes: [string, string, unknown][] = [
    ["POST", "partner/trials", { clientEmail: "y@client.test", workspaceName: "Y" }],
    ["GET", "partner/me/referrals", undefined],
    ["POST", `partner/trials/${r.referralId}/claim-billing`, undefined],
    ["POST", `partner/trials/${r.referralId}/revoke-handoff`, undefined],
  ];
  for (const [m, path, body] of routes) {
    const byKey = await api(m, path, { key: p.key, body });
    expect([path, byKey.status, byKey.body.error.code]).toEqual([path, 403, "application_key_workspace_route"]);
    const byRole = await api(m, path, { token: appAdmin, body });
    expect([path, byRole.status, byRole.body.error.code]).toEqual([path, 403, "permission_denied"]);
    const byNonPartner = await api(m, path, { token: plain.owner, body });
    expect([path, byNonPartner.status, byNonPartner.body.error.code]).toEqual([path, 403, "permission_denied"]);
    const anon = await api(m, path, { body });
    expect([path, anon.status]).toEqual([path, 401]);
  }
  const gDenied = await gql("{ partnerReferrals { nodes { referralId } } }", plain.owner);
  expect([gDenied.status, gDenied.code]).toEqual([403, "permission_denied"]);
  const gByRole = await gql("mutation($id: ID!) { claimPartnerBilling(referralId: $id) { handoffState } }", appAdmin, { id: r.referralId });
  expect([gByRole.status, gByRole.code]).toEqual([403, "permission_denied"]);
  // another partner: the referral does not exist for it, and its list is its own
  for (const action of ["claim-billing", "revoke-handoff"]) {
    for (const rid of [r.referralId, "00000000-0000-4000-8000-000000000000", "nope"]) {
      const res = await api("POST", `partner/trials/${rid}/${action}`, { token: rid === r.referralId ? other.owner : p.owner });
      expect([action, rid, res.status, res.body.error.code]).toEqual([action, rid, 404, "not_found"]);
    }
  }
  expect((await api("GET", "partner/me/referrals", { token: other.owner })).body.data).toEqual([]);
  // bad input
  const cases: [unknown, string][] = [
    [{ workspaceName: "Z" }, "clientEmail"],
    [{ clientEmail: "not-an-email", workspaceName: "Z" }, "clientEmail"],
    [{ clientEmail: "z@client.test" }, "workspaceName"],
    [{ clientEmail: "z@client.test", workspaceName: "   " }, "workspaceName"],
    [{ clientEmail: "z@client.test", workspaceName: "Z", plan: "x" }, "plan"],
  ];
  for (const [body, field] of cases) {
    const res = await api("POST", "partner/trials", { token: p.owner, body });
    expect([res.status, res.body.error.code, res.body.error.details.issues[0].path]).toEqual([422, "validation_error", [field]]);
  }
  const noToken = await api("POST", "partner/handoffs/accept", { body: {} });
  expect([noToken.status, noToken.body.error.details.issues[0].path]).toEqual([422, ["token"]]);
  expect((await api("GET", "partner/me/referrals?limit=0", { token: p.owner })).status).toBe(422);
});
