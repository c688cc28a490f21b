// Workspace invitations end to end over REST: the invitation email from the outbox, the accept by the invited user's
// session, every error code (and the invitation error codes over GraphQL), resend rotation, revoke, the expiry job,
// cross-tenant 404s and bad input.
import { findJob } from "../jobs/registry";
import type { BootstrapLike, TestApp } from "./helpers/app";
import { startWithDemo } from "./helpers/app";
import { codeOf, gqlClient, type GqlResult } from "./helpers/gql";
import type { client } from "./helpers/http";
import { inviteLinkFromOutbox, memberWith, userSession } from "./helpers/team";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { randomToken, sha256Hex } from "../src/shared/crypto";
import { AcceptInviteDocument, CreateInviteDocument, MyMembershipDocument, ResendInviteDocument, RevokeInviteDocument, UpdateMemberDocument } from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;
let clock: FixedClock;

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo({ clock: "fixed" }));
  clock = t.deps.clock as FixedClock;
  other = await t.otherWorkspace("inv-other");
});
afterAll(() => t?.close());

const DAY = 24 * 3600 * 1000;
const owner = () => ({ token: demo.dashboardToken });
const ws = () => `workspaces/${demo.workspaceId}`;
const fresh = (p = "inv") => `${p}-${randomToken(8).toLowerCase()}@example.com`;
const dev = () => [{ applicationId: demo.applicationId, role: "developer" }];

async function invite(body: Record<string, unknown>, cred: { token?: string; key?: string } = owner()) {
  return api("POST", `${ws()}/invites`, { ...cred, body });
}
async function invited(email = fresh(), body: Record<string, unknown> = { applicationRoles: dev() }) {
  const r = await invite({ email, ...body });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; email: string; expiresAt: string };
}
async function accept(token: string, cred: { token?: string; key?: string }) {
  return api("POST", "invites/accept", { ...cred, body: { token } });
}

test("the whole flow: invite, the email's link, accept with the invitee's session, the member has the roles and grants", async () => {
  const email = fresh("flow");
  const grants = { grantType: "selected", environmentIds: [demo.environments.sandbox.id] };
  const r = await invite({ email, applicationRoles: [{ applicationId: demo.applicationId, role: "finance" }], environmentGrants: grants });
  expect(r.status).toBe(201);
  expect(r.body.data).toMatchObject({ email, status: "pending", workspaceRole: null, environmentGrants: grants });
  expect(Date.parse(r.body.data.expiresAt) - clock.now().getTime()).toBe(7 * DAY);

  const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  expect(link?.mail).toMatchObject({ template: "member.invitation", audience: "invitee", to: [email], subject: "owner@example.com invited you to Demo" });
  expect(link!.url).toBe(`${t.deps.config.DASHBOARD_URL}/invites/${link!.token}`);
  expect(link!.token).toMatch(/^inv_[A-Za-z0-9]{40}$/);
  expect(link!.mail.html).toContain(link!.url);
  // only the hash is stored on the invitation
  const row = await t.deps.prisma.invitation.findUniqueOrThrow({ where: { id: r.body.data.id } });
  expect(row.tokenHash).toBe(sha256Hex(link!.token!));
  expect(JSON.stringify(row)).not.toContain(link!.token);

  // the invitee: a session minted for a user who is no member anywhere; it can do nothing but accept
  const s = await userSession(t, email);
  expect(s).toMatchObject({ memberId: null, workspaceId: null });
  const who = await api("GET", "whoami", { token: s.dashboardToken });
  expect([who.status, who.body.error.code]).toEqual([403, "forbidden"]);

  const ok = await accept(link!.token!, { token: s.dashboardToken });
  expect(ok.status).toBe(200);
  expect(ok.body.data).toEqual({ workspaceId: demo.workspaceId, memberId: expect.any(String) });
  // the same session now works in the workspace
  const me = await api("GET", `${ws()}/members/me`, { token: s.dashboardToken });
  expect(me.status).toBe(200);
  expect(me.body.data).toMatchObject({ memberId: ok.body.data.memberId, email, workspaceRole: null, applicationRoles: [{ applicationId: demo.applicationId, role: "finance" }], environmentGrants: grants });
  const list = await api("GET", `${ws()}/members`, owner());
  expect(list.body.data.items.find((m: any) => m.memberId === ok.body.data.memberId)).toMatchObject({ email, applicationRoles: [{ role: "finance" }] });
  const accepted = await api("GET", `${ws()}/invites?status=accepted`, owner());
  expect(accepted.body.data.items.find((i: any) => i.id === r.body.data.id)).toMatchObject({ status: "accepted", acceptedMemberId: ok.body.data.memberId });
  // the token is spent
  expect((await accept(link!.token!, { token: s.dashboardToken })).status).toBe(404);
});

describe("email is the only required field (platform.md part 4)", () => {
  test("REST: an invitation without roles is valid; its member has no application access until a PATCH gives some, and the reads say so", async () => {
    const email = fresh("noroles");
    const r = await invite({ email });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ email, status: "pending", workspaceRole: null, applicationRoles: [], applicationAccess: "none" });
    expect((await invite({ email: fresh("emptyroles"), applicationRoles: [] })).body.data).toMatchObject({ applicationRoles: [], applicationAccess: "none" });
    // the other invitations read what they give
    expect((await invite({ email: fresh(), applicationRoles: dev() })).body.data.applicationAccess).toBe("listed");
    expect((await invite({ email: fresh(), workspaceRole: "workspace_admin" })).body.data.applicationAccess).toBe("all");
    const pending = await api("GET", `${ws()}/invites?status=pending`, owner());
    expect(pending.body.data.items.find((i: any) => i.id === r.body.data.id)).toMatchObject({ applicationAccess: "none" });

    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    const ok = await accept(link!.token!, { token: s.dashboardToken });
    expect(ok.status).toBe(200);
    const me = await api("GET", `${ws()}/members/me`, { token: s.dashboardToken });
    expect(me.body.data).toMatchObject({ email, workspaceRole: null, applicationRoles: [], applicationAccess: "none" });
    // a member without roles reaches no application data
    const orders = await api("GET", "orders", { token: s.dashboardToken });
    expect([orders.status, orders.body.error.code]).toEqual([403, "permission_denied"]);
    // until the owner gives a role
    const patched = await api("PATCH", `${ws()}/members/${ok.body.data.memberId}`, { ...owner(), body: { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }], applicationAccess: "listed" });
    expect((await api("GET", "orders", { token: s.dashboardToken })).status).toBe(200);
    expect((await api("GET", `${ws()}/members/me`, owner())).body.data.applicationAccess).toBe("all");
  });

  test("GraphQL: createInvite with only an email, and the member's applicationAccess before and after updateMember", async () => {
    const gql = gqlClient(t.url);
    const email = fresh("gnoroles");
    const r = await gql(CreateInviteDocument, { workspaceId: demo.workspaceId, email }, owner());
    expect(r.errors).toBeNull();
    expect(r.data!.createInvite).toMatchObject({ email, status: "pending", workspaceRole: null, applicationRoles: [], applicationAccess: "none" });
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    const acc = await gql(AcceptInviteDocument, { token: link!.token! }, { token: s.dashboardToken });
    expect(acc.errors).toBeNull();
    const me = await gql(MyMembershipDocument, { workspaceId: demo.workspaceId }, { token: s.dashboardToken });
    expect(me.data!.myMembership).toMatchObject({ applicationRoles: [], applicationAccess: "none" });
    const up = await gql(UpdateMemberDocument, { workspaceId: demo.workspaceId, memberId: acc.data!.acceptInvite.memberId, applicationRoles: [{ applicationId: demo.applicationId, role: "developer" }] }, owner());
    expect(up.errors).toBeNull();
    expect(up.data!.updateMember.applicationAccess).toBe("listed");
  });
});

test("an application admin's invitation defaults to all_non_production; owners' to all", async () => {
  const appAdmin = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "admin" }] });
  const a = await invite({ email: fresh(), applicationRoles: dev() }, { token: appAdmin.token });
  expect(a.status).toBe(201);
  expect(a.body.data.environmentGrants).toEqual({ grantType: "all_non_production" });
  const o = await invite({ email: fresh(), applicationRoles: dev() });
  expect(o.body.data.environmentGrants).toEqual({ grantType: "all" });
});

describe("error codes", () => {
  test("403 permission_denied: no workspace:invite, or workspace_admin without workspace:invite-admin", async () => {
    for (const role of ["developer", "finance", "viewer"]) {
      const m = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role }] });
      const r = await invite({ email: fresh(), applicationRoles: dev() }, { token: m.token });
      expect([role, r.status, r.body.error.code]).toEqual([role, 403, "permission_denied"]);
    }
    const appAdmin = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "admin" }] });
    const r = await invite({ email: fresh(), workspaceRole: "workspace_admin" }, { token: appAdmin.token });
    expect([r.status, r.body.error.code]).toEqual([403, "permission_denied"]);
    // an application admin grants roles only on their own applications
    const app2 = await t.deps.prisma.application.create({ data: { workspaceId: demo.workspaceId, slug: `second-${randomToken(4).toLowerCase()}`, name: "Second" } });
    const foreign = await invite({ email: fresh(), applicationRoles: [{ applicationId: app2.id, role: "viewer" }] }, { token: appAdmin.token, headers: { "x-service-application-id": demo.applicationId } } as any);
    expect([foreign.status, foreign.body.error.code]).toEqual([403, "permission_denied"]);
    // the owner may
    const byOwner = await invite({ email: fresh(), applicationRoles: [{ applicationId: app2.id, role: "viewer" }] }, { token: demo.dashboardToken, headers: { "x-service-application-id": demo.applicationId } } as any);
    expect(byOwner.status).toBe(201);
  });

  test("403 environment_grants_forbidden: an application admin setting environmentGrants", async () => {
    const appAdmin = await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "admin" }] });
    const r = await invite({ email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "all_non_production" } }, { token: appAdmin.token });
    expect([r.status, r.body.error.code]).toEqual([403, "environment_grants_forbidden"]);
  });

  test("400 invalid_environment_grants: selected without ids, ids with another type, foreign or only archived ids", async () => {
    const env = await api("POST", `${ws()}/environments`, { ...owner(), body: { slug: `gone-${randomToken(4).toLowerCase()}`, name: "Gone" } });
    await api("DELETE", `${ws()}/environments/${env.body.data.id}`, owner());
    for (const grants of [
      { grantType: "selected" },
      { grantType: "selected", environmentIds: [] },
      { grantType: "all", environmentIds: [demo.environments.sandbox.id] },
      { grantType: "production_only", environmentIds: [demo.environments.production.id] },
      { grantType: "selected", environmentIds: [other.environments.sandbox.id] },
      { grantType: "selected", environmentIds: [env.body.data.id] },
    ]) {
      const r = await invite({ email: fresh(), applicationRoles: dev(), environmentGrants: grants });
      expect([JSON.stringify(grants), r.status, r.body.error.code]).toEqual([JSON.stringify(grants), 400, "invalid_environment_grants"]);
    }
    // an archived id beside an active one is fine
    const mixed = await invite({ email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "selected", environmentIds: [env.body.data.id, demo.environments.sandbox.id] } });
    expect(mixed.status).toBe(201);
  });

  test("409 already_member on invite and on accept; 409 invite_already_pending", async () => {
    const r = await invite({ email: "owner@example.com", applicationRoles: dev() });
    expect([r.status, r.body.error.code]).toEqual([409, "already_member"]);
    const email = fresh();
    await invited(email);
    const again = await invite({ email, applicationRoles: dev() });
    expect([again.status, again.body.error.code, again.body.error.details.inviteId]).toEqual([409, "invite_already_pending", expect.any(String)]);
    // the invitee became a member some other way before accepting
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    const user = await t.deps.prisma.user.findUniqueOrThrow({ where: { email } });
    await t.deps.prisma.member.create({ data: { workspaceId: demo.workspaceId, userId: user.id, applicationRoles: [] } });
    const acc = await accept(link!.token!, { token: s.dashboardToken });
    expect([acc.status, acc.body.error.code]).toEqual([409, "already_member"]);
  });

  test("400 invite_email_mismatch: the accepting account's email must equal the invitation's exactly", async () => {
    const email = fresh("exact");
    await invited(email);
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    for (const wrong of [fresh("someone"), email.toUpperCase()]) {
      const s = await userSession(t, wrong);
      const r = await accept(link!.token!, { token: s.dashboardToken });
      expect([wrong, r.status, r.body.error.code]).toEqual([wrong, 400, "invite_email_mismatch"]);
    }
    // a member of this workspace accepting someone else's invitation: same
    const r = await accept(link!.token!, owner());
    expect([r.status, r.body.error.code]).toEqual([400, "invite_email_mismatch"]);
  });

  test("400 invite_expired after 7 days, before and after the expiry job; the job moves it to expired", async () => {
    const email = fresh("late");
    const inv = await invited(email);
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    clock.advance(7 * DAY);
    const r = await accept(link!.token!, { token: s.dashboardToken });
    expect([r.status, r.body.error.code]).toEqual([400, "invite_expired"]);
    expect((await t.deps.prisma.invitation.findUniqueOrThrow({ where: { id: inv.id } })).status).toBe("pending");
    const summary = await findJob("invite-expiry")!.run({ deps: t.deps, deliveries: t.deliveries });
    expect(summary).toMatch(/^expired [1-9]\d* invitation\(s\)$/);
    expect(await findJob("invite-expiry")!.run({ deps: t.deps, deliveries: t.deliveries })).toBe("expired 0 invitation(s)");
    const listed = await api("GET", `${ws()}/invites?status=expired`, owner());
    expect(listed.body.data.items.map((i: any) => i.id)).toContain(inv.id);
    const again = await accept(link!.token!, { token: s.dashboardToken });
    expect([again.status, again.body.error.code]).toEqual([400, "invite_expired"]);
    const resend = await api("POST", `${ws()}/invites/${inv.id}/resend`, owner());
    expect([resend.status, resend.body.error.code]).toEqual([409, "invite_not_pending"]);
  });

  test("accept: 401 without a credential, 403 application_key_workspace_route for a key, 404 for an unknown token, 422 for bad bodies", async () => {
    expect((await accept("inv_whatever", {})).status).toBe(401);
    const k = await accept("inv_whatever", { key: demo.apiKey });
    expect([k.status, k.body.error.code]).toEqual([403, "application_key_workspace_route"]);
    const s = await userSession(t, fresh());
    const u = await accept(`inv_${randomToken(40)}`, { token: s.dashboardToken });
    expect([u.status, u.body.error.code]).toEqual([404, "not_found"]);
    for (const body of [{}, { token: "" }, { token: 5 }, { token: "x".repeat(201) }, { token: "inv_x", extra: 1 }]) {
      const r = await api("POST", "invites/accept", { token: s.dashboardToken, body });
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([JSON.stringify(body), 422, "validation_error"]);
    }
    const raw = await api("POST", "invites/accept", { token: s.dashboardToken, raw: "{nope", validate: false });
    expect([raw.status, raw.body.error.code]).toEqual([400, "invalid_json"]);
  });
});

describe("the same error codes over GraphQL, with extensions.status", () => {
  const gqlErr = (r: GqlResult<unknown>) => [r.errors?.[0]?.extensions?.status, codeOf(r)];

  test("409 already_member: inviting a member, and accepting once a member", async () => {
    const gql = gqlClient(t.url);
    const r = await gql(CreateInviteDocument, { workspaceId: demo.workspaceId, email: "owner@example.com", applicationRoles: [{ applicationId: demo.applicationId, role: "developer" }] }, owner());
    expect(gqlErr(r)).toEqual([409, "already_member"]);
    const email = fresh("gmember");
    await invited(email);
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    const user = await t.deps.prisma.user.findUniqueOrThrow({ where: { email } });
    await t.deps.prisma.member.create({ data: { workspaceId: demo.workspaceId, userId: user.id, applicationRoles: [] } });
    expect(gqlErr(await gql(AcceptInviteDocument, { token: link!.token! }, { token: s.dashboardToken }))).toEqual([409, "already_member"]);
  });

  test("409 invite_not_pending: resend or revoke of a revoked invitation", async () => {
    const gql = gqlClient(t.url);
    const inv = await invited();
    expect((await gql(RevokeInviteDocument, { workspaceId: demo.workspaceId, id: inv.id }, owner())).errors).toBeNull();
    expect(gqlErr(await gql(ResendInviteDocument, { workspaceId: demo.workspaceId, id: inv.id }, owner()))).toEqual([409, "invite_not_pending"]);
    expect(gqlErr(await gql(RevokeInviteDocument, { workspaceId: demo.workspaceId, id: inv.id }, owner()))).toEqual([409, "invite_not_pending"]);
  });

  test("400 invite_expired: accepting after 7 days", async () => {
    const gql = gqlClient(t.url);
    const email = fresh("glate");
    await invited(email);
    const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
    const s = await userSession(t, email);
    clock.advance(7 * DAY);
    expect(gqlErr(await gql(AcceptInviteDocument, { token: link!.token! }, { token: s.dashboardToken }))).toEqual([400, "invite_expired"]);
  });
});

test("resend rotates the token (the old link dies) and sets a new 7-day expiry; revoke kills the token at once", async () => {
  const email = fresh("again");
  const inv = await invited(email);
  const first = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  clock.advance(3 * DAY);
  const r = await api("POST", `${ws()}/invites/${inv.id}/resend`, owner());
  expect(r.status).toBe(200);
  expect(Date.parse(r.body.data.expiresAt)).toBe(clock.now().getTime() + 7 * DAY);
  const second = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  expect(second!.count).toBe(2);
  expect(second!.token).not.toBe(first!.token);
  const s = await userSession(t, email);
  expect((await accept(first!.token!, { token: s.dashboardToken })).status).toBe(404);

  const rev = await api("POST", `${ws()}/invites/${inv.id}/revoke`, owner());
  expect(rev.status).toBe(204);
  const dead = await accept(second!.token!, { token: s.dashboardToken });
  expect([dead.status, dead.body.error.code]).toEqual([404, "not_found"]);
  for (const verb of ["resend", "revoke"]) {
    const x = await api("POST", `${ws()}/invites/${inv.id}/${verb}`, owner());
    expect([verb, x.status, x.body.error.code]).toEqual([verb, 409, "invite_not_pending"]);
  }
  const listed = await api("GET", `${ws()}/invites?status=revoked`, owner());
  expect(listed.body.data.items.find((i: any) => i.id === inv.id)).toMatchObject({ status: "revoked", revokedAt: expect.any(String) });
});

test("list: filter by status, items and total, cursor pages", async () => {
  for (let i = 0; i < 3; i++) await invited();
  const all = await api("GET", `${ws()}/invites?status=pending&limit=2`, owner());
  expect(all.status).toBe(200);
  expect(all.body.data.items).toHaveLength(2);
  expect(all.body.data.total).toBeGreaterThanOrEqual(3);
  expect(all.body.meta.pagination.hasMore).toBe(true);
  expect(all.body.data.items.every((i: any) => i.status === "pending")).toBe(true);
  const next = await api("GET", `${ws()}/invites?status=pending&limit=2&cursor=${all.body.meta.pagination.cursor}`, owner());
  expect(next.body.data.items[0].id).not.toBe(all.body.data.items[0].id);
  for (const q of ["status=nope", "limit=0", "limit=101", "cursor=zzz", "other=1"]) {
    const r = await api("GET", `${ws()}/invites?${q}`, owner());
    expect([q, r.status, r.body.error.code]).toEqual([q, 422, "validation_error"]);
  }
});

describe("bad input names the field (422 validation_error)", () => {
  test.each([
    ["email missing", { applicationRoles: "dev" }, "email"],
    ["email malformed", { email: "not-an-email", applicationRoles: "dev" }, "email"],
    ["workspaceRole owner", { email: "x@example.com", workspaceRole: "owner" }, "workspaceRole"],
    ["applicationRoles not a list", { email: "x@example.com", applicationRoles: { applicationId: "x", role: "viewer" } }, "applicationRoles"],
    ["unknown application", { email: "x@example.com", applicationRoles: [{ applicationId: "00000000-0000-4000-8000-000000000000", role: "viewer" }] }, "applicationRoles.0.applicationId"],
    ["application listed twice", { email: "x@example.com", applicationRoles: "twice" }, "applicationRoles.1.applicationId"],
    ["unknown role", { email: "x@example.com", applicationRoles: "badrole" }, "applicationRoles.0.role"],
    ["unknown grant type", { email: "x@example.com", applicationRoles: "dev", environmentGrants: { grantType: "some" } }, "environmentGrants.grantType"],
    ["environment id not a uuid", { email: "x@example.com", applicationRoles: "dev", environmentGrants: { grantType: "selected", environmentIds: ["x"] } }, "environmentGrants.environmentIds.0"],
    ["unknown field", { email: "x@example.com", applicationRoles: "dev", role: "admin" }, "role"],
  ])("%s", async (_n, body: any, path) => {
    const roles = { dev: dev(), twice: [...dev(), ...dev()], badrole: [{ applicationId: demo.applicationId, role: "boss" }] } as Record<string, unknown>;
    const r = await invite({ ...body, ...(typeof body.applicationRoles === "string" ? { applicationRoles: roles[body.applicationRoles] } : {}) });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("validation_error");
    expect(r.body.error.details.issues.map((i: any) => i.path.join("."))).toContain(path);
  });
});

test("cross-tenant: another workspace's invitations answer 404, and its routes 404 for this workspace's owner", async () => {
  const inv = await invited();
  for (const [m, p] of [
    ["GET", `${ws()}/invites`],
    ["POST", `${ws()}/invites`],
    ["POST", `${ws()}/invites/${inv.id}/resend`],
    ["POST", `${ws()}/invites/${inv.id}/revoke`],
  ] as const) {
    const r = await api(m, p, { token: other.dashboardToken, body: m === "POST" ? { email: fresh(), applicationRoles: dev() } : undefined });
    expect([p, r.status]).toEqual([p, 404]);
  }
  // this invitation's id under the other workspace's own path: unknown there
  for (const verb of ["resend", "revoke"]) {
    const r = await api("POST", `workspaces/${other.workspaceId}/invites/${inv.id}/${verb}`, { token: other.dashboardToken });
    expect([verb, r.status, r.body.error.code]).toEqual([verb, 404, "not_found"]);
  }
  for (const id of ["not-a-uuid", "00000000-0000-4000-8000-000000000000"]) {
    const r = await api("POST", `${ws()}/invites/${id}/resend`, owner());
    expect([id, r.status]).toEqual([id, 404]);
  }
  const list = await api("GET", `workspaces/${other.workspaceId}/invites`, { token: other.dashboardToken });
  expect(list.body.data.items.map((i: any) => i.id)).not.toContain(inv.id);
});

test("a removed member invited again gets their membership back on accept", async () => {
  const email = fresh("back");
  const m = await memberWith(t, demo.workspaceId, { email, applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] });
  expect((await api("DELETE", `${ws()}/members/${m.memberId}`, owner())).status).toBe(204);
  await invited(email, { applicationRoles: [{ applicationId: demo.applicationId, role: "developer" }] });
  const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email);
  const s = await userSession(t, email);
  const r = await accept(link!.token!, { token: s.dashboardToken });
  expect(r.status).toBe(200);
  expect(r.body.data.memberId).toBe(m.memberId);
  const me = await api("GET", `${ws()}/members/me`, { token: s.dashboardToken });
  expect(me.body.data.applicationRoles).toEqual([{ applicationId: demo.applicationId, role: "developer" }]);
  // the session from before the removal stays dead
  expect((await api("GET", "whoami", { token: m.token })).status).toBe(401);
});
