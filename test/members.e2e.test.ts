// Members and the team permissions: one table of roles x routes (team routes and the owner-only billing writes), each
// cell run over REST and over GraphQL (the same status and code), the owner's protections, changes taking effect on
// the member's next request, bad input and cross-tenant 404s.
import type { BootstrapLike, TestApp } from "./helpers/app";
import { startWithDemo } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import type { client } from "./helpers/http";
import { inviteLinkFromOutbox, memberWith, userSession } from "./helpers/team";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { randomToken } from "../src/shared/crypto";
import {
  AcceptInviteDocument,
  AddBillingPaymentMethodDocument,
  CancelBillingDocument,
  CreateInviteDocument,
  MyMembershipDocument,
  RemoveBillingPaymentMethodDocument,
  RemoveMemberDocument,
  ResendInviteDocument,
  ResumeBillingDocument,
  RevokeInviteDocument,
  SetBackupBillingPaymentMethodDocument,
  SetDefaultBillingPaymentMethodDocument,
  SubscribeBillingDocument,
  TeamInvitesDocument,
  TeamMembersDocument,
  UpdateMemberDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
let demo: BootstrapResult;
let other: BootstrapLike;
const actors: Record<string, { token?: string; key?: string }> = {};

beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
  gql = gqlClient(t.url);
  other = await t.otherWorkspace("mem-other");
  const app = (role: string) => ({ applicationRoles: [{ applicationId: demo.applicationId, role }] });
  actors.owner = { token: demo.dashboardToken };
  actors.workspace_admin = { token: (await memberWith(t, demo.workspaceId, { workspaceRole: "workspace_admin" })).token };
  actors.app_admin = { token: (await memberWith(t, demo.workspaceId, app("admin"))).token };
  actors.developer = { token: (await memberWith(t, demo.workspaceId, app("developer"))).token };
  actors.finance = { token: (await memberWith(t, demo.workspaceId, app("finance"))).token };
  actors.viewer = { token: (await memberWith(t, demo.workspaceId, app("viewer"))).token };
  actors.api_key = { key: demo.apiKey };
  const reader = await api("POST", "api-keys", { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: "billing reader", scopes: ["billing:read"] } });
  actors.billing_reader_key = { key: reader.body.data.rawKey };
});
afterAll(() => t?.close());

const ws = () => `workspaces/${demo.workspaceId}`;
const fresh = () => `t-${randomToken(8).toLowerCase()}@example.com`;
const dev = () => [{ applicationId: demo.applicationId, role: "developer" as const }];
const ownerInvite = async () => (await api("POST", `${ws()}/invites`, { token: demo.dashboardToken, body: { email: fresh(), applicationRoles: dev() } })).body.data.id as string;
const target = async () => (await memberWith(t, demo.workspaceId, { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] })).memberId;

/**
 * The demo workspace's platform subscription as a billing write needs it: none (subscribe), active (cancel), or
 * cancelled at period end (resume). Through the billing routes as the owner, except "none": no route ends a
 * subscription before its period end, so the row goes.
 */
async function subscription(want: "none" | "active" | "cancelling") {
  if (want === "none") {
    await t.deps.prisma.platformSubscription.deleteMany({ where: { workspaceId: demo.workspaceId } });
    return;
  }
  const sub = (await api("GET", "billing", actors.owner)).body.data.subscription;
  if (sub?.status !== "active") {
    const r = await api("POST", "billing/subscribe", { ...actors.owner, body: { plan: "starter", paymentToken: "tok_visa" } });
    if (r.status !== 200) throw new Error(`subscribe failed: ${JSON.stringify(r.body)}`);
  } else if (sub.cancelAtPeriodEnd && want === "active") await api("POST", "billing/resume", actors.owner);
  if (want === "cancelling" && !(sub?.status === "active" && sub.cancelAtPeriodEnd)) await api("POST", "billing/cancel", actors.owner);
}
/** A new card of the demo workspace that is neither its default nor its backup. */
async function spareCard(): Promise<string> {
  const add = async () => (await api("POST", "billing/payment-methods", { ...actors.owner, body: { paymentToken: "tok_visa" } })).body.data;
  const c = await add();
  return c.isDefault ? (await add()).id : c.id;
}

type Outcome = number; // the success status; anything else is [status, code]
const OK = (s: number): Outcome => s;
const DENY: [number, string] = [403, "permission_denied"];
const KEY: [number, string] = [403, "application_key_workspace_route"];
const GRANTS: [number, string] = [403, "environment_grants_forbidden"];
const SCOPE: [number, string] = [403, "insufficient_scopes"];

interface Route {
  name: string;
  rest: () => Promise<[string, string, unknown?]>;
  gql: () => Promise<[any, Record<string, unknown>]>;
  expect: Record<string, Outcome | [number, string]>;
}

/** Billing writes are the owner's alone among members; keys by scope (the demo key holds *, the reader billing:read). */
const OWNER_ONLY = { owner: OK(200), workspace_admin: DENY, app_admin: DENY, developer: DENY, finance: DENY, viewer: DENY, api_key: OK(200), billing_reader_key: SCOPE };

const ROUTES: Route[] = [
  {
    name: "list invitations",
    rest: async () => ["GET", `${ws()}/invites`],
    gql: async () => [TeamInvitesDocument, { workspaceId: demo.workspaceId }],
    expect: { owner: OK(200), workspace_admin: OK(200), app_admin: OK(200), developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "invite with an application role",
    rest: async () => ["POST", `${ws()}/invites`, { email: fresh(), applicationRoles: dev() }],
    gql: async () => [CreateInviteDocument, { workspaceId: demo.workspaceId, email: fresh(), applicationRoles: dev() }],
    expect: { owner: OK(201), workspace_admin: OK(201), app_admin: OK(201), developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "invite a workspace admin",
    rest: async () => ["POST", `${ws()}/invites`, { email: fresh(), workspaceRole: "workspace_admin" }],
    gql: async () => [CreateInviteDocument, { workspaceId: demo.workspaceId, email: fresh(), workspaceRole: "workspace_admin" }],
    expect: { owner: OK(201), workspace_admin: OK(201), app_admin: DENY, developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "invite with environment grants",
    rest: async () => ["POST", `${ws()}/invites`, { email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "production_only" } }],
    gql: async () => [CreateInviteDocument, { workspaceId: demo.workspaceId, email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "production_only" } }],
    expect: { owner: OK(201), workspace_admin: OK(201), app_admin: GRANTS, developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "resend an invitation",
    rest: async () => ["POST", `${ws()}/invites/${await ownerInvite()}/resend`],
    gql: async () => [ResendInviteDocument, { workspaceId: demo.workspaceId, id: await ownerInvite() }],
    expect: { owner: OK(200), workspace_admin: OK(200), app_admin: OK(200), developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "revoke an invitation",
    rest: async () => ["POST", `${ws()}/invites/${await ownerInvite()}/revoke`],
    gql: async () => [RevokeInviteDocument, { workspaceId: demo.workspaceId, id: await ownerInvite() }],
    expect: { owner: OK(204), workspace_admin: OK(204), app_admin: OK(204), developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "list members",
    rest: async () => ["GET", `${ws()}/members`],
    gql: async () => [TeamMembersDocument, { workspaceId: demo.workspaceId }],
    expect: { owner: OK(200), workspace_admin: OK(200), app_admin: DENY, developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "my membership",
    rest: async () => ["GET", `${ws()}/members/me`],
    gql: async () => [MyMembershipDocument, { workspaceId: demo.workspaceId }],
    expect: { owner: OK(200), workspace_admin: OK(200), app_admin: OK(200), developer: OK(200), finance: OK(200), viewer: OK(200), api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "change a member's roles",
    rest: async () => ["PATCH", `${ws()}/members/${await target()}`, { applicationRoles: dev() }],
    gql: async () => [UpdateMemberDocument, { workspaceId: demo.workspaceId, memberId: await target(), applicationRoles: dev() }],
    expect: { owner: OK(200), workspace_admin: OK(200), app_admin: DENY, developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "remove a member",
    rest: async () => ["DELETE", `${ws()}/members/${await target()}`],
    gql: async () => [RemoveMemberDocument, { workspaceId: demo.workspaceId, memberId: await target() }],
    expect: { owner: OK(204), workspace_admin: OK(204), app_admin: DENY, developer: DENY, finance: DENY, viewer: DENY, api_key: KEY, billing_reader_key: KEY },
  },
  {
    name: "subscribe the workspace",
    rest: async () => (await subscription("none"), ["POST", "billing/subscribe", { plan: "starter", paymentToken: "tok_visa" }]),
    gql: async () => (await subscription("none"), [SubscribeBillingDocument, { plan: "starter", paymentToken: "tok_visa" }]),
    expect: OWNER_ONLY,
  },
  {
    name: "cancel the subscription",
    rest: async () => (await subscription("active"), ["POST", "billing/cancel"]),
    gql: async () => (await subscription("active"), [CancelBillingDocument, {}]),
    expect: OWNER_ONLY,
  },
  {
    name: "resume the subscription",
    rest: async () => (await subscription("cancelling"), ["POST", "billing/resume"]),
    gql: async () => (await subscription("cancelling"), [ResumeBillingDocument, {}]),
    expect: OWNER_ONLY,
  },
  {
    name: "add a billing card",
    rest: async () => ["POST", "billing/payment-methods", { paymentToken: "tok_visa" }],
    gql: async () => [AddBillingPaymentMethodDocument, { paymentToken: "tok_visa" }],
    expect: { ...OWNER_ONLY, owner: OK(201), api_key: OK(201) },
  },
  {
    name: "make a billing card the default",
    rest: async () => ["POST", `billing/payment-methods/${await spareCard()}/default`],
    gql: async () => [SetDefaultBillingPaymentMethodDocument, { id: await spareCard() }],
    expect: OWNER_ONLY,
  },
  {
    name: "make a billing card the backup",
    rest: async () => ["POST", `billing/payment-methods/${await spareCard()}/backup`],
    gql: async () => [SetBackupBillingPaymentMethodDocument, { id: await spareCard() }],
    expect: OWNER_ONLY,
  },
  {
    name: "remove a billing card",
    rest: async () => ["DELETE", `billing/payment-methods/${await spareCard()}`],
    gql: async () => [RemoveBillingPaymentMethodDocument, { id: await spareCard() }],
    expect: { ...OWNER_ONLY, owner: OK(204), api_key: OK(204) },
  },
];

const CELLS = ROUTES.flatMap((r) => Object.entries(r.expect).map(([actor, want]) => [r.name, actor, want] as const));

describe.each(["REST", "GraphQL"])("%s: roles x routes", (via) => {
  test.each(CELLS)("%s as %s", async (name, actor, want) => {
    const route = ROUTES.find((r) => r.name === name)!;
    const cred = actors[actor];
    if (via === "REST") {
      const [m, p, body] = await route.rest();
      const r = await api(m, p, { ...cred, body });
      if (typeof want === "number") expect([r.status, r.body?.error?.code]).toEqual([want, undefined]);
      else expect([r.status, r.body?.error?.code]).toEqual(want);
    } else {
      const [doc, vars] = await route.gql();
      const r = await gql(doc, vars, cred);
      if (typeof want === "number") expect(r.errors).toBeNull();
      else expect([r.errors?.[0]?.extensions?.status, codeOf(r)]).toEqual(want);
    }
  });
});

describe("the owner", () => {
  test("cannot be demoted or removed, over REST and GraphQL; other edits are allowed", async () => {
    const me = await api("GET", `${ws()}/members/me`, actors.owner);
    const ownerId = me.body.data.memberId;
    expect(me.body.data).toMatchObject({ workspaceRole: "owner", environmentGrants: { grantType: "all" } });
    for (const cred of [actors.owner, actors.workspace_admin]) {
      for (const body of [{ workspaceRole: null }, { workspaceRole: "workspace_admin" }]) {
        const r = await api("PATCH", `${ws()}/members/${ownerId}`, { ...cred, body });
        expect([r.status, r.body.error.code]).toEqual([403, "permission_denied"]);
      }
      const d = await api("DELETE", `${ws()}/members/${ownerId}`, cred);
      expect([d.status, d.body.error.code]).toEqual([403, "permission_denied"]);
    }
    const g = await gql(UpdateMemberDocument, { workspaceId: demo.workspaceId, memberId: ownerId, workspaceRole: null }, actors.workspace_admin);
    expect(codeOf(g)).toBe("permission_denied");
    const gr = await gql(RemoveMemberDocument, { workspaceId: demo.workspaceId, memberId: ownerId }, actors.owner);
    expect(codeOf(gr)).toBe("permission_denied");
    const ok = await api("PATCH", `${ws()}/members/${ownerId}`, { ...actors.owner, body: { applicationRoles: [] } });
    expect([ok.status, ok.body.data.workspaceRole]).toEqual([200, "owner"]);
    // the owner's workspaceRole cannot be given either: owner is not a value PATCH takes
    const m = await target();
    const own = await api("PATCH", `${ws()}/members/${m}`, { ...actors.owner, body: { workspaceRole: "owner" } });
    expect([own.status, own.body.error.code]).toEqual([422, "validation_error"]);
  });
});

describe("changes take effect on the member's next request", () => {
  test("a role change: a developer who mints keys is made a viewer and is refused at once", async () => {
    const m = await memberWith(t, demo.workspaceId, { applicationRoles: dev() });
    const sandbox = { "x-service-environment-id": demo.environments.sandbox.id };
    const mint = () => api("POST", "api-keys", { token: m.token, headers: sandbox, body: { name: "x", scopes: ["orders:read"] } });
    expect((await mint()).status).toBe(201);
    const p = await api("PATCH", `${ws()}/members/${m.memberId}`, { ...actors.workspace_admin, body: { applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] } });
    expect(p.status).toBe(200);
    expect(p.body.data.applicationRoles).toEqual([{ applicationId: demo.applicationId, role: "viewer" }]);
    const r = await mint();
    expect([r.status, r.body.error.code]).toEqual([403, "permission_denied"]);
    // promoted to workspace admin: lists members at once; demoted again (null): refused at once
    expect((await api("PATCH", `${ws()}/members/${m.memberId}`, { ...actors.owner, body: { workspaceRole: "workspace_admin" } })).body.data.workspaceRole).toBe("workspace_admin");
    expect((await api("GET", `${ws()}/members`, { token: m.token })).status).toBe(200);
    expect((await api("PATCH", `${ws()}/members/${m.memberId}`, { ...actors.owner, body: { workspaceRole: null } })).body.data.workspaceRole).toBeNull();
    expect((await api("GET", `${ws()}/members`, { token: m.token })).status).toBe(403);
  });

  test("a grant change: production_only shuts the sandbox at once; selected opens exactly the listed environment", async () => {
    const m = await memberWith(t, demo.workspaceId, { applicationRoles: dev() });
    const whoIn = (envId: string) => api("GET", "whoami", { token: m.token, headers: { "x-service-environment-id": envId } });
    expect((await whoIn(demo.environments.sandbox.id)).status).toBe(200);
    await api("PATCH", `${ws()}/members/${m.memberId}`, { ...actors.owner, body: { environmentGrants: { grantType: "production_only" } } });
    expect((await whoIn(demo.environments.sandbox.id)).body.error.code).toBe("permission_denied");
    expect((await whoIn(demo.environments.production.id)).status).toBe(200);
    const p = await api("PATCH", `${ws()}/members/${m.memberId}`, { ...actors.owner, body: { environmentGrants: { grantType: "selected", environmentIds: [demo.environments.sandbox.id] } } });
    expect(p.body.data.environmentGrants).toEqual({ grantType: "selected", environmentIds: [demo.environments.sandbox.id] });
    expect((await whoIn(demo.environments.sandbox.id)).status).toBe(200);
    expect((await whoIn(demo.environments.production.id)).status).toBe(403);
  });

  test("removal: the member's sessions stop at once, the member leaves the list, the id is 404 after", async () => {
    const m = await memberWith(t, demo.workspaceId, { applicationRoles: dev() });
    expect((await api("GET", "whoami", { token: m.token })).status).toBe(200);
    expect((await api("DELETE", `${ws()}/members/${m.memberId}`, actors.owner)).status).toBe(204);
    expect((await api("GET", "whoami", { token: m.token })).status).toBe(401);
    const list = await api("GET", `${ws()}/members?limit=100`, actors.owner);
    expect(list.body.data.items.map((x: any) => x.memberId)).not.toContain(m.memberId);
    for (const [verb, body] of [["PATCH", { applicationRoles: [] }], ["DELETE", undefined]] as const) {
      const r = await api(verb, `${ws()}/members/${m.memberId}`, { ...actors.owner, body });
      expect([verb, r.status, r.body.error.code]).toEqual([verb, 404, "not_found"]);
    }
  });
});

test("list members: items, total, cursor pages; every member listed once", async () => {
  const first = await api("GET", `${ws()}/members?limit=2`, actors.owner);
  expect(first.status).toBe(200);
  expect(first.body.data.items).toHaveLength(2);
  expect(first.body.meta.pagination.hasMore).toBe(true);
  const seen = [...first.body.data.items];
  let cursor = first.body.meta.pagination.cursor;
  while (cursor) {
    const n = await api("GET", `${ws()}/members?limit=2&cursor=${cursor}`, actors.owner);
    seen.push(...n.body.data.items);
    cursor = n.body.meta.pagination.cursor;
  }
  expect(seen).toHaveLength(first.body.data.total);
  expect(new Set(seen.map((m) => m.memberId)).size).toBe(seen.length);
  const g = await gql(TeamMembersDocument, { workspaceId: demo.workspaceId, limit: 2 }, actors.owner);
  expect(g.data!.members.nodes.map((m) => m.memberId)).toEqual(first.body.data.items.map((m: any) => m.memberId));
});

describe("bad input", () => {
  test.each([
    ["empty body", {}, 422, "validation_error"],
    ["unknown field", { role: "admin" }, 422, "validation_error"],
    ["workspaceRole owner", { workspaceRole: "owner" }, 422, "validation_error"],
    ["applicationRoles not a list", { applicationRoles: "admin" }, 422, "validation_error"],
    ["unknown application", { applicationRoles: [{ applicationId: "00000000-0000-4000-8000-000000000000", role: "viewer" }] }, 422, "validation_error"],
    ["grant type unknown", { environmentGrants: { grantType: "most" } }, 422, "validation_error"],
    ["selected without ids", { environmentGrants: { grantType: "selected" } }, 400, "invalid_environment_grants"],
    ["ids with all", { environmentGrants: { grantType: "all", environmentIds: ["00000000-0000-4000-8000-000000000000"] } }, 400, "invalid_environment_grants"],
    ["unknown environment", { environmentGrants: { grantType: "selected", environmentIds: ["00000000-0000-4000-8000-000000000000"] } }, 400, "invalid_environment_grants"],
  ])("PATCH %s -> %i %s", async (_n, body, status, code) => {
    const r = await api("PATCH", `${ws()}/members/${await target()}`, { ...actors.owner, body });
    expect([r.status, r.body.error.code]).toEqual([status, code]);
  });

  test("GraphQL returns the same codes for bad grants", async () => {
    const r = await gql(UpdateMemberDocument, { workspaceId: demo.workspaceId, memberId: await target(), environmentGrants: { grantType: "selected" } }, actors.owner);
    expect([r.errors?.[0]?.extensions?.status, codeOf(r)]).toEqual([400, "invalid_environment_grants"]);
    const c = await gql(CreateInviteDocument, { workspaceId: demo.workspaceId, email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "all", environmentIds: [demo.environments.sandbox.id] } }, actors.owner);
    expect(codeOf(c)).toBe("invalid_environment_grants");
    const a = await gql(CreateInviteDocument, { workspaceId: demo.workspaceId, email: fresh(), applicationRoles: dev(), environmentGrants: { grantType: "all" } }, actors.app_admin);
    expect(codeOf(a)).toBe("environment_grants_forbidden");
  });

  test("list query: unknown parameters and bad limits are 422", async () => {
    for (const q of ["limit=0", "limit=1000", "cursor=bad", "status=pending"]) {
      const r = await api("GET", `${ws()}/members?${q}`, actors.owner);
      expect([q, r.status, r.body.error.code]).toEqual([q, 422, "validation_error"]);
    }
  });
});

test("cross-tenant: another workspace's members answer 404; unknown and malformed ids 404", async () => {
  const m = await target();
  for (const [verb, path, body] of [
    ["GET", `${ws()}/members`, undefined],
    ["GET", `${ws()}/members/me`, undefined],
    ["PATCH", `${ws()}/members/${m}`, { applicationRoles: [] }],
    ["DELETE", `${ws()}/members/${m}`, undefined],
    ["PATCH", `workspaces/${other.workspaceId}/members/${m}`, { applicationRoles: [] }],
    ["DELETE", `workspaces/${other.workspaceId}/members/${m}`, undefined],
  ] as const) {
    const r = await api(verb, path, { token: other.dashboardToken, body });
    expect([verb, path, r.status]).toEqual([verb, path, 404]);
  }
  for (const id of ["nope", "00000000-0000-4000-8000-000000000000"]) {
    const r = await api("PATCH", `${ws()}/members/${id}`, { ...actors.owner, body: { applicationRoles: [] } });
    expect([id, r.status]).toEqual([id, 404]);
  }
  const g = await gql(UpdateMemberDocument, { workspaceId: demo.workspaceId, memberId: m, applicationRoles: [] }, { token: other.dashboardToken });
  expect(codeOf(g)).toBe("not_found");
  // the member is untouched
  expect((await t.deps.prisma.member.findUniqueOrThrow({ where: { id: m } })).removedAt).toBeNull();
});

test("GraphQL: invite, accept with the invitee's user-only session, and the accept error codes", async () => {
  const email = fresh();
  const c = await gql(CreateInviteDocument, { workspaceId: demo.workspaceId, email, applicationRoles: [{ applicationId: demo.applicationId, role: "viewer" }] }, actors.owner);
  expect(c.errors).toBeNull();
  expect(c.data!.createInvite).toMatchObject({ email, status: "pending", environmentGrants: { grantType: "all", environmentIds: [] } });
  const link = await inviteLinkFromOutbox(t, api, demo.dashboardToken, email, demo.applicationId);
  const stranger = await userSession(t, fresh());
  expect(codeOf(await gql(AcceptInviteDocument, { token: link!.token! }, { token: stranger.dashboardToken }))).toBe("invite_email_mismatch");
  expect(codeOf(await gql(AcceptInviteDocument, { token: link!.token! }, { key: demo.apiKey }))).toBe("application_key_workspace_route");
  expect(codeOf(await gql(AcceptInviteDocument, { token: "inv_unknown" }, { token: stranger.dashboardToken }))).toBe("not_found");
  const s = await userSession(t, email);
  // a user-only session reaches nothing else
  expect(codeOf(await gql(MyMembershipDocument, { workspaceId: demo.workspaceId }, { token: s.dashboardToken }))).toBe("forbidden");
  const a = await gql(AcceptInviteDocument, { token: link!.token! }, { token: s.dashboardToken });
  expect(a.errors).toBeNull();
  const me = await gql(MyMembershipDocument, { workspaceId: demo.workspaceId }, { token: s.dashboardToken });
  expect(me.data!.myMembership).toMatchObject({ memberId: a.data!.acceptInvite.memberId, email, applicationRoles: [{ role: "viewer" }] });
  expect(codeOf(await gql(AcceptInviteDocument, { token: link!.token! }, { token: s.dashboardToken }))).toBe("not_found");
  const listed = await gql(TeamInvitesDocument, { workspaceId: demo.workspaceId, status: "accepted" }, actors.owner);
  expect(listed.data!.invites.nodes.map((i) => i.email)).toContain(email);
});
