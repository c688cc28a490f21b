// The live gate and workspace billing: production credentials of a workspace that is not live answer 402 on every
// route (REST and GraphQL), sandbox never; subscribe makes the workspace live at once (the key principal cache is
// warm); trial expiry answers trial_expired; billing writes are owner-only for dashboard sessions, scope-gated for keys.
import { runPlatformBilling } from "../src/billing/platform-billing.service";
import { gateExemptRoute } from "../src/billing/live-gate";
import { eventTypeInfo } from "../src/events/catalog";
import { mintKey } from "../src/platform/api-keys.service";
import { ensureWorkspace, mintDashboardToken } from "../src/platform/bootstrap.service";
import { restRoutes } from "../src/rest/routes";
import { FixedClock } from "../src/shared/clock";
import { makeCtx } from "../src/shared/context";
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { gqlClient } from "./helpers/gql";
import { client } from "./helpers/http";
import { inviteLinkFromOutbox, memberWith } from "./helpers/team";
import {
  AcceptInviteDocument,
  CreateInviteDocument,
  MyMembershipDocument,
  RemoveMemberDocument,
  ResendInviteDocument,
  RevokeInviteDocument,
  TeamInvitesDocument,
  TeamMembersDocument,
  UpdateMemberDocument,
} from "./generated/graphql";

let t: TestApp;
let api: ReturnType<typeof client>;
let clock: FixedClock;
const DAY = 86_400_000;

beforeAll(async () => {
  t = (await startTestApp({ clock: "fixed", worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off" } }))!;
  api = client(t.url);
  clock = t.deps.clock as FixedClock;
  await t.bootstrap();
});
afterAll(() => t.close());

let n = 0;
/** A fresh workspace (not live unless asked) with an owner session and keys in both system environments. */
async function workspace(opts: { live?: boolean; trialEndsAt?: Date; scopes?: string[] } = {}) {
  const ctx = makeCtx(t.deps);
  const slug = `bill-${++n}-${Date.now()}`;
  const w = await ensureWorkspace(ctx, { slug, name: slug, ownerEmail: `owner@${slug}.test`, appSlug: "store", appName: "Store", live: opts.live, trialEndsAt: opts.trialEndsAt });
  const key = async (env: typeof w.production, scopes = opts.scopes ?? ["*"], type: "secret" | "publishable" = "secret") => {
    const k = mintKey(type, env);
    await t.db.prisma.apiKey.create({ data: { workspaceId: w.ws.id, applicationId: w.app.id, environmentId: env.id, name: "k", type, scopes, keyHash: k.keyHash, keyPrefix: k.keyPrefix } });
    return k.rawKey;
  };
  const member = async (role: "workspace_admin" | null, applicationRoles: unknown[] = []) => {
    const user = await t.db.prisma.user.create({ data: { email: `${role ?? "dev"}-${++n}@${slug}.test` } });
    const m = await t.db.prisma.member.create({ data: { workspaceId: w.ws.id, userId: user.id, workspaceRole: role, applicationRoles: applicationRoles as any } });
    return mintDashboardToken(ctx, m.id);
  };
  return {
    ...w,
    owner: await mintDashboardToken(ctx, w.owner.id),
    prodKey: await key(w.production),
    sandboxKey: await key(w.sandbox),
    key,
    member,
  };
}

async function gql(query: string, cred: { key?: string; token?: string; headers?: Record<string, string> }, variables: Record<string, unknown> = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", ...cred.headers };
  if (cred.key) headers["x-api-key"] = cred.key;
  if (cred.token) headers.authorization = `Bearer ${cred.token}`;
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: any; errors?: { extensions?: { code?: string; status?: number; details?: any } }[] };
  return { status: res.status, data: body.data, code: body.errors?.[0]?.extensions?.code, errors: body.errors };
}

const events = (workspaceId: string, type: string) => t.db.prisma.event.findMany({ where: { workspaceId, type }, orderBy: { createdAt: "asc" } });
const UUID = "00000000-0000-4000-8000-000000000000";

test("a production key of a workspace that is not live gets 402 workspace_not_live on every route; sandbox and the workspace's own routes do not", async () => {
  const w = await workspace();
  const routes = restRoutes();
  expect(routes.length).toBeGreaterThan(80);
  const gatedSeen: string[] = [];
  for (const r of routes) {
    const path = r.path.replace(/:[A-Za-z]+/g, UUID);
    const res = await api(r.method.toUpperCase(), path.slice(1), { key: w.prodKey, body: ["post", "put", "patch"].includes(r.method) ? {} : undefined, validate: false });
    const label = `${r.method.toUpperCase()} ${r.path}`;
    if (gateExemptRoute(r.method, r.path)) {
      expect([label, res.status]).not.toEqual([label, 402]);
    } else {
      expect([label, res.status, res.body?.error?.code]).toEqual([label, 402, "workspace_not_live"]);
      gatedSeen.push(label);
    }
  }
  expect(gatedSeen.length).toBeGreaterThan(80);
  // the sandbox key of the same workspace works, and so does a dashboard session that picks the sandbox
  expect((await api("GET", "connectors", { key: w.sandboxKey })).status).toBe(200);
  expect((await api("GET", "connectors", { token: w.owner, headers: { "x-service-environment-id": w.sandbox.id } })).status).toBe(200);
  // a dashboard session acting in production (the default) is gated like a production key
  const dash = await api("GET", "connectors", { token: w.owner });
  expect([dash.status, dash.body.error.code]).toEqual([402, "workspace_not_live"]);
  // a custom non-production environment is never gated
  const env = await api("POST", `workspaces/${w.ws.id}/environments`, { token: w.owner, body: { slug: "staging", name: "Staging" } });
  expect(env.status).toBe(201);
  const stagingKey = await w.key({ id: env.body.data.id, slug: "staging", kind: "non_production" } as any);
  expect((await api("GET", "connectors", { key: stagingKey })).status).toBe(200);
  // the billing routes answer the production key (that is how a workspace goes live)
  const billing = await api("GET", "billing", { key: w.prodKey });
  expect([billing.status, billing.body.data.state, billing.body.data.live]).toEqual([200, "workspace_not_live", false]);
  // a publishable production key on the keyless estimate is gated too
  const pk = await w.key(w.production, ["shipping_quotes:write", "tax_calculations:write"], "publishable");
  const est = await api("POST", "shipping-tax/estimate", { key: pk, body: {}, validate: false });
  expect([est.status, est.body.error.code]).toEqual([402, "workspace_not_live"]);
});

test("GraphQL: the same gate per operation; viewer and billing fields pass; sandbox works", async () => {
  const w = await workspace();
  const q = await gql("{ connectors { nodes { id } } }", { key: w.prodKey });
  expect([q.status, q.code, q.data ?? null]).toEqual([402, "workspace_not_live", null]);
  // a gated field behind a fragment or mixed with an exempt one is still gated
  expect((await gql("query { viewer { scopes } ...F } fragment F on Query { connectors { nodes { id } } }", { key: w.prodKey })).code).toBe("workspace_not_live");
  const mut = await gql('mutation { createConnector(kind: card, provider: test) { id } }', { token: w.owner });
  expect(mut.code).toBe("workspace_not_live");
  const ok = await gql("{ viewer { scopes } billing { state live } }", { key: w.prodKey });
  expect([ok.code, ok.data?.billing]).toEqual([undefined, { state: "workspace_not_live", live: false }]);
  expect((await gql("{ connectors { nodes { id } } }", { key: w.sandboxKey })).code).toBeUndefined();
  expect((await gql("{ connectors { nodes { id } } }", { token: w.owner, headers: { "x-service-environment-id": w.sandbox.id } })).code).toBeUndefined();
  // The document is in Yoga's parse and validation caches by now: the gate holds on a cached document too, word for word.
  const again = await gql("{ connectors { nodes { id } } }", { key: w.prodKey });
  expect([again.status, again.code, again.data ?? null]).toEqual([402, "workspace_not_live", null]);
  expect(again.errors).toEqual(q.errors);
});

test("team management is exempt over REST and GraphQL alike: the owner of a workspace that is not live runs its team from a production session; its members accept invitations elsewhere", async () => {
  const w = await workspace();
  const typed = gqlClient(t.url);
  const owner = { token: w.owner };
  expect((await api("GET", "connectors", owner)).body.error.code).toBe("workspace_not_live"); // the session is gated
  expect((await gql("{ connectors { nodes { id } } }", owner)).code).toBe("workspace_not_live");
  const viewer = [{ applicationId: w.app.id, role: "viewer" as const }];
  const email = () => `team-${++n}@${w.ws.slug}.test`;
  const target = async () => (await memberWith(t, w.ws.id, { applicationRoles: viewer })).memberId;
  const ws = `workspaces/${w.ws.id}`;

  const created = await api("POST", `${ws}/invites`, { ...owner, body: { email: email(), applicationRoles: viewer } });
  const rest: [string, { status: number }, number][] = [
    ["create invitation", created, 201],
    ["list invitations", await api("GET", `${ws}/invites`, owner), 200],
    ["resend", await api("POST", `${ws}/invites/${created.body.data?.id}/resend`, owner), 200],
    ["revoke", await api("POST", `${ws}/invites/${created.body.data?.id}/revoke`, owner), 204],
    ["list members", await api("GET", `${ws}/members`, owner), 200],
    ["my membership", await api("GET", `${ws}/members/me`, owner), 200],
    ["change a member", await api("PATCH", `${ws}/members/${await target()}`, { ...owner, body: { applicationRoles: [] } }), 200],
    ["remove a member", await api("DELETE", `${ws}/members/${await target()}`, owner), 204],
  ];
  expect(rest.map(([name, r]) => [name, r.status])).toEqual(rest.map(([name, , want]) => [name, want]));

  const inv = await typed(CreateInviteDocument, { workspaceId: w.ws.id, email: email(), applicationRoles: viewer }, owner);
  const graphql = [
    ["createInvite", inv],
    ["invites", await typed(TeamInvitesDocument, { workspaceId: w.ws.id }, owner)],
    ["resendInvite", await typed(ResendInviteDocument, { workspaceId: w.ws.id, id: inv.data?.createInvite.id ?? "" }, owner)],
    ["revokeInvite", await typed(RevokeInviteDocument, { workspaceId: w.ws.id, id: inv.data?.createInvite.id ?? "" }, owner)],
    ["members", await typed(TeamMembersDocument, { workspaceId: w.ws.id }, owner)],
    ["myMembership", await typed(MyMembershipDocument, { workspaceId: w.ws.id }, owner)],
    ["updateMember", await typed(UpdateMemberDocument, { workspaceId: w.ws.id, memberId: await target(), applicationRoles: [] }, owner)],
    ["removeMember", await typed(RemoveMemberDocument, { workspaceId: w.ws.id, memberId: await target() }, owner)],
  ] as const;
  expect(graphql.map(([name, r]) => [name, r.status, r.errors])).toEqual(graphql.map(([name]) => [name, 200, null]));

  // a member of this workspace (a session acting in its production) is invited to another, live workspace and
  // accepts with the session it has, over REST and over GraphQL
  const other = await workspace({ live: true });
  const accepted: [string, number, unknown][] = [];
  for (const via of ["REST", "GraphQL"]) {
    const m = await memberWith(t, w.ws.id, { applicationRoles: viewer, email: email() });
    expect((await api("GET", "connectors", { token: m.token })).body.error.code).toBe("workspace_not_live");
    expect((await api("POST", `workspaces/${other.ws.id}/invites`, { token: other.owner, body: { email: m.email, applicationRoles: [{ applicationId: other.app.id, role: "viewer" }] } })).status).toBe(201);
    const link = await inviteLinkFromOutbox(t, api, other.owner, m.email, other.app.id);
    if (via === "REST") {
      const r = await api("POST", "invites/accept", { token: m.token, body: { token: link!.token } });
      accepted.push([via, r.status, r.body.data?.workspaceId]);
    } else {
      const r = await typed(AcceptInviteDocument, { token: link!.token! }, { token: m.token });
      accepted.push([via, r.status, r.data?.acceptInvite.workspaceId ?? r.errors]);
    }
  }
  expect(accepted).toEqual([
    ["REST", 200, other.ws.id],
    ["GraphQL", 200, other.ws.id],
  ]);
});

test("the gate's exemptions: exactly the listed routes, by method and path", () => {
  for (const [m, p] of [["GET", "/whoami"], ["get", "/whoami/"], ["HEAD", "/billing"], ["POST", "/invites/accept"], ["DELETE", `/workspaces/${UUID}/members/${UUID}`], ["GET", `/workspaces/${UUID}/members/me`]]) {
    expect([m, p, gateExemptRoute(m, p)]).toEqual([m, p, true]);
  }
  // another verb on an exempt path, a longer path, and paths beside the listed ones stay gated
  for (const [m, p] of [["DELETE", "/whoami"], ["GET", "/billing/nope"], ["GET", `/workspaces/${UUID}/members/me/x`], ["POST", "/invites"], ["GET", "/whoamix"], ["GET", "/api-keys"]]) {
    expect([m, p, gateExemptRoute(m, p)]).toEqual([m, p, false]);
  }
});

test("subscribe makes the workspace live at once although the key's principal is cached; cancel keeps it live until the period end; the sweep ends it", async () => {
  const w = await workspace();
  expect(t.deps.principals).toBeDefined();
  expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(402);
  const hits = t.deps.principals!.hits;
  expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(402);
  expect(t.deps.principals!.hits).toBeGreaterThan(hits); // the principal is served from the cache
  const sub = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "growth", paymentToken: "tok_visa" } });
  expect(sub.status).toBe(200);
  expect(sub.body.data).toMatchObject({ live: true, state: "live", subscription: { plan: "growth", status: "active", amount: 9900, currency: "USD", cancelAtPeriodEnd: false } });
  expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(200);
  expect((await gql("{ connectors { nodes { id } } }", { key: w.prodKey })).code).toBeUndefined();
  expect((await events(w.ws.id, "workspace.payment_method.added")).length).toBe(1);
  const charged = await events(w.ws.id, "workspace.platform_charge.succeeded");
  expect(charged.map((e) => [e.environmentId, (e.data as any).charge.amount])).toEqual([[w.production.id, 9900]]);
  // subscribing twice is refused
  const again = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "starter" } });
  expect([again.status, again.body.error.code]).toEqual([400, "invalid_subscription_state"]);
  // cancel: live until the period end
  const cancelled = await api("POST", "billing/cancel", { token: w.owner });
  expect(cancelled.body.data).toMatchObject({ live: true, subscription: { cancelAtPeriodEnd: true } });
  expect((await api("POST", "billing/cancel", { token: w.owner })).body.error.code).toBe("invalid_subscription_state");
  expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(200);
  expect((await api("POST", "billing/resume", { token: w.owner })).body.data.subscription.cancelAtPeriodEnd).toBe(false);
  expect((await api("POST", "billing/resume", { token: w.owner })).body.error.code).toBe("invalid_subscription_state");
  await api("POST", "billing/cancel", { token: w.owner });
  const end = new Date(sub.body.data.subscription.currentPeriodEnd);
  const start = clock.now();
  clock.set(new Date(end.getTime() + 1000));
  try {
    const lapsed = await api("GET", "connectors", { key: w.prodKey });
    expect([lapsed.status, lapsed.body.error.code]).toEqual([402, "workspace_not_entitled_for_live"]);
    const gLapsed = await gql("{ connectors { nodes { id } } }", { key: w.prodKey });
    expect([gLapsed.status, gLapsed.code, gLapsed.errors?.[0]?.extensions?.status, gLapsed.data ?? null]).toEqual([402, "workspace_not_entitled_for_live", 402, null]);
    expect((await api("POST", "billing/resume", { token: w.owner })).body.error.code).toBe("invalid_subscription_state");
    const swept = await runPlatformBilling(makeCtx(t.deps));
    expect(swept.ended).toBeGreaterThanOrEqual(1);
    const after = await api("GET", "billing", { token: w.owner });
    expect(after.body.data).toMatchObject({ live: false, state: "workspace_not_entitled_for_live", subscription: { status: "cancelled" } });
    // subscribing again with the card on file makes it live again
    const back = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "starter" } });
    expect([back.status, back.body.data.state]).toEqual([200, "live"]);
    expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(200);
  } finally {
    clock.set(start);
  }
});

test("a declined card: 402 payment_failed, a failed charge event, still not live; renewal failure makes it past_due", async () => {
  const w = await workspace();
  const declined = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "starter", paymentToken: "tok_card_declined" } });
  expect([declined.status, declined.body.error.code, declined.body.error.details.reason]).toEqual([402, "payment_failed", "card_declined"]);
  expect((await events(w.ws.id, "workspace.platform_charge.failed")).length).toBe(1);
  expect((await api("GET", "connectors", { key: w.prodKey })).body.error.code).toBe("workspace_not_live");
  // a good card as the new default: live; then the renewal declines on a declined default card
  const good = await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken: "tok_visa", makeDefault: true } });
  expect(good.status).toBe(201);
  expect((await events(w.ws.id, "workspace.payment_method.default_changed")).length).toBe(1);
  const sub = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "scale" } });
  expect(sub.body.data.state).toBe("live");
  const cards = await api("GET", "billing/payment-methods", { token: w.owner });
  const bad = cards.body.data.find((c: any) => !c.isDefault);
  expect((await api("POST", `billing/payment-methods/${bad.id}/default`, { token: w.owner })).body.data.isDefault).toBe(true);
  const start = clock.now();
  clock.set(new Date(new Date(sub.body.data.subscription.currentPeriodEnd).getTime() + 1000));
  try {
    const swept = await runPlatformBilling(makeCtx(t.deps));
    expect(swept.failed).toBeGreaterThanOrEqual(1);
    expect((await api("GET", "billing", { token: w.owner })).body.data).toMatchObject({ state: "workspace_not_entitled_for_live", subscription: { status: "past_due" } });
    expect((await api("GET", "connectors", { key: w.prodKey })).body.error.code).toBe("workspace_not_entitled_for_live");
    // over GraphQL too, for a dashboard session acting in production; the billing fields still answer
    const g = await gql("mutation { createConnector(kind: card, provider: test) { id } }", { token: w.owner });
    expect([g.status, g.code, g.errors?.[0]?.extensions?.status]).toEqual([402, "workspace_not_entitled_for_live", 402]);
    expect((await gql("{ billing { state } }", { token: w.owner })).data.billing.state).toBe("workspace_not_entitled_for_live");
    expect((await events(w.ws.id, "workspace.platform_charge.failed")).length).toBe(2);
    // no backup card: nothing else is charged
    expect(await events(w.ws.id, "workspace.payment_method.backup_used")).toEqual([]);
  } finally {
    clock.set(start);
  }
});

test("trial: production works until it ends, then 402 trial_expired; the sweep records workspace.trial_expired once; a card turns it into not entitled", async () => {
  const w = await workspace({ trialEndsAt: new Date(clock.now().getTime() + DAY) });
  expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(200);
  expect((await api("GET", "billing", { key: w.prodKey })).body.data.state).toBe("trialing");
  const start = clock.now();
  clock.set(new Date(start.getTime() + 2 * DAY));
  try {
    const expired = await api("GET", "connectors", { key: w.prodKey });
    expect([expired.status, expired.body.error.code]).toEqual([402, "trial_expired"]);
    expect((await gql("{ connectors { nodes { id } } }", { key: w.prodKey })).code).toBe("trial_expired");
    expect((await api("GET", "connectors", { key: w.sandboxKey })).status).toBe(200);
    await runPlatformBilling(makeCtx(t.deps));
    await runPlatformBilling(makeCtx(t.deps));
    const ev = await events(w.ws.id, "workspace.trial_expired");
    expect(ev.map((e) => (e.data as any).hasPaymentMethod)).toEqual([false]);
    expect((await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken: "tok_visa" } })).status).toBe(201);
    expect((await api("GET", "connectors", { key: w.prodKey })).body.error.code).toBe("workspace_not_entitled_for_live");
    expect((await api("POST", "billing/subscribe", { key: w.prodKey, body: { plan: "starter" } })).body.data.state).toBe("live");
    expect((await api("GET", "connectors", { key: w.prodKey })).status).toBe(200);
  } finally {
    clock.set(start);
  }
});

test("payment methods and billing writes: owner-only for dashboard sessions, scopes for keys; tenancy and bad input", async () => {
  const w = await workspace({ live: true });
  const other = await workspace({ live: true });
  const admin = await w.member("workspace_admin");
  const developer = await w.member(null, [{ applicationId: w.app.id, role: "developer" }]);
  const add = await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken: "tok_visa" } });
  expect(add.status).toBe(201);
  expect(add.body.data).toMatchObject({ id: expect.stringMatching(/^wpm_/), isDefault: true, cardLastFour: "4242" });
  // admins read, but every write is the owner's
  expect((await api("GET", "billing/payment-methods", { token: admin })).status).toBe(200);
  for (const [m, p, body] of [
    ["POST", "billing/payment-methods", { paymentToken: "tok_visa" }],
    ["POST", `billing/payment-methods/${add.body.data.id}/default`, undefined],
    ["DELETE", `billing/payment-methods/${add.body.data.id}`, undefined],
    ["POST", "billing/subscribe", { plan: "starter" }],
    ["POST", "billing/cancel", undefined],
    ["POST", "billing/resume", undefined],
  ] as const) {
    const r = await api(m, p, { token: admin, body });
    expect([m, p, r.status, r.body.error.code]).toEqual([m, p, 403, "permission_denied"]);
  }
  // an application role is not a workspace role: no billing read either
  expect((await api("GET", "billing/payment-methods", { token: developer })).body.error.code).toBe("permission_denied");
  expect((await api("GET", "billing", { token: developer })).body.error.code).toBe("permission_denied");
  // keys: scope alone
  const reader = await w.key(w.sandbox, ["billing:read"]);
  const noBilling = await w.key(w.sandbox, ["orders:read"]);
  expect((await api("GET", "billing/payment-methods", { key: reader })).body.data).toHaveLength(1);
  expect((await api("POST", "billing/payment-methods", { key: reader, body: { paymentToken: "tok_visa" } })).body.error.code).toBe("insufficient_scopes");
  expect((await api("GET", "billing", { key: noBilling })).body.error.code).toBe("insufficient_scopes");
  const writer = await w.key(w.sandbox, ["billing:write"]);
  expect((await api("POST", "billing/payment-methods", { key: writer, body: { paymentToken: "tok_visa" } })).status).toBe(201);
  // another workspace's card is unknown here
  const theirs = await api("POST", "billing/payment-methods", { token: other.owner, body: { paymentToken: "tok_visa" } });
  for (const r of [
    await api("DELETE", `billing/payment-methods/${theirs.body.data.id}`, { token: w.owner }),
    await api("POST", `billing/payment-methods/${theirs.body.data.id}/default`, { token: w.owner }),
    await api("DELETE", "billing/payment-methods/not-an-id", { token: w.owner }),
  ]) {
    expect([r.status, r.body.error.code]).toEqual([404, "not_found"]);
  }
  expect((await api("GET", "billing/payment-methods", { token: other.owner })).body.data).toHaveLength(1);
  // bad input names the field
  const cases: [string, unknown, string][] = [
    ["billing/payment-methods", {}, "paymentToken"],
    ["billing/payment-methods", { paymentToken: "tok_nope" }, "paymentToken"],
    ["billing/payment-methods", { paymentToken: "tok_visa", extra: 1 }, "extra"],
    ["billing/subscribe", {}, "plan"],
    ["billing/subscribe", { plan: "gold" }, "plan"],
    ["billing/subscribe", { plan: 5 }, "plan"],
  ];
  for (const [p, body, field] of cases) {
    const r = await api("POST", p, { token: w.owner, body });
    expect([p, r.status, r.body.error.code, r.body.error.details.issues[0].path]).toEqual([p, 422, "validation_error", [field]]);
  }
  const none = await workspace({ live: true });
  const noCard = await api("POST", "billing/subscribe", { token: none.owner, body: { plan: "starter" } });
  expect([noCard.status, noCard.body.error.details.issues[0].path]).toEqual([422, ["paymentToken"]]);
  // the default card of an active subscription stays
  await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "starter" } });
  const def = await api("DELETE", `billing/payment-methods/${add.body.data.id}`, { token: w.owner });
  expect([def.status, def.body.error.code]).toEqual([409, "cannot_remove_default"]);
  const cards = (await api("GET", "billing/payment-methods", { token: w.owner })).body.data;
  const spare = cards.find((c: any) => !c.isDefault);
  expect((await api("DELETE", `billing/payment-methods/${spare.id}`, { token: w.owner })).status).toBe(204);
  expect((await events(w.ws.id, "workspace.payment_method.removed")).length).toBe(1);
  // a publishable key never reaches billing
  const pk = await w.key(w.sandbox, ["shipping_quotes:write"], "publishable");
  expect((await api("GET", "billing", { key: pk })).body.error.code).toBe("forbidden");
});

test("GraphQL billing: subscribe, read, owner-only writes, error codes", async () => {
  const w = await workspace();
  const admin = await w.member("workspace_admin");
  const denied = await gql('mutation { subscribeBilling(plan: starter, paymentToken: "tok_visa") { state } }', { token: admin });
  expect(denied.code).toBe("permission_denied");
  const bad = await gql('mutation { addBillingPaymentMethod(paymentToken: "tok_nope") { id } }', { token: w.owner });
  expect([bad.code, bad.errors?.[0]?.extensions?.details?.issues?.[0]?.path]).toEqual(["validation_error", ["paymentToken"]]);
  const sub = await gql('mutation { subscribeBilling(plan: starter, paymentToken: "tok_visa") { live state subscription { plan status amount } } }', { token: w.owner });
  expect(sub.data.subscribeBilling).toEqual({ live: true, state: "live", subscription: { plan: "starter", status: "active", amount: 2900 } });
  expect((await gql("{ connectors { nodes { id } } }", { key: w.prodKey })).code).toBeUndefined();
  const cards = await gql("{ billingPaymentMethods { id isDefault } }", { token: admin });
  expect(cards.data.billingPaymentMethods).toEqual([{ id: expect.stringMatching(/^wpm_/), isDefault: true }]);
  const rm = await gql("mutation($id: ID!) { removeBillingPaymentMethod(id: $id) }", { token: w.owner }, { id: cards.data.billingPaymentMethods[0].id });
  expect(rm.code).toBe("cannot_remove_default");
  expect((await gql("mutation { cancelBilling { subscription { cancelAtPeriodEnd } } }", { token: w.owner })).data.cancelBilling.subscription.cancelAtPeriodEnd).toBe(true);
  expect((await gql("mutation { cancelBilling { state } }", { token: w.owner })).code).toBe("invalid_subscription_state");
  expect((await gql("mutation { resumeBilling { state } }", { token: w.owner })).data.resumeBilling.state).toBe("live");
  const keyDenied = await gql("{ billing { state } }", { key: await w.key(w.sandbox, ["orders:read"]) });
  expect(keyDenied.code).toBe("insufficient_scopes");
});

/** Each event's data has the keys the catalog promises for its type. */
function expectCatalogKeys(rows: { type: string; data: unknown }[]) {
  for (const e of rows) expect([e.type, eventTypeInfo(e.type).requiredDataKeys.filter((k) => !(k in (e.data as object)))]).toEqual([e.type, []]);
}

test("backup card: the owner marks one (workspace.payment_method.backup_set), it replaces the previous, never the default; removing it or making it the default clears it", async () => {
  const w = await workspace({ live: true });
  const other = await workspace({ live: true });
  const admin = await w.member("workspace_admin");
  const add = async (paymentToken = "tok_visa") => (await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken } })).body.data;
  const def = await add();
  const a = await add();
  const b = await add("tok_card_declined");
  expect([def.isDefault, def.isBackup, a.isBackup]).toEqual([true, false, false]);
  const setA = await api("POST", `billing/payment-methods/${a.id}/backup`, { token: w.owner });
  expect([setA.status, setA.body.data]).toEqual([200, expect.objectContaining({ id: a.id, isBackup: true, isDefault: false })]);
  expect((await api("GET", "billing", { token: w.owner })).body.data).toMatchObject({ defaultPaymentMethodId: def.id, backupPaymentMethodId: a.id });
  // again: nothing changes, no second event
  expect((await api("POST", `billing/payment-methods/${a.id}/backup`, { token: w.owner })).body.data.isBackup).toBe(true);
  // another card replaces it
  expect((await api("POST", `billing/payment-methods/${b.id}/backup`, { token: w.owner })).body.data.isBackup).toBe(true);
  const cards = (await api("GET", "billing/payment-methods", { token: w.owner })).body.data;
  expect(Object.fromEntries(cards.map((c: any) => [c.id, [c.isDefault, c.isBackup]]))).toEqual({ [def.id]: [true, false], [a.id]: [false, false], [b.id]: [false, true] });
  const set = await events(w.ws.id, "workspace.payment_method.backup_set");
  expect(set.map((e) => [e.environmentId, e.data])).toEqual([
    [w.production.id, { workspaceId: w.ws.id, paymentMethodId: a.id, previousPaymentMethodId: null }],
    [w.production.id, { workspaceId: w.ws.id, paymentMethodId: b.id, previousPaymentMethodId: a.id }],
  ]);
  expectCatalogKeys(set);
  // never the default card
  const onDefault = await api("POST", `billing/payment-methods/${def.id}/backup`, { token: w.owner });
  expect([onDefault.status, onDefault.body.error.code]).toEqual([409, "cannot_backup_default"]);
  // the owner's only: a workspace admin gets 403; another workspace's card, an unknown or removed one is 404
  const denied = await api("POST", `billing/payment-methods/${a.id}/backup`, { token: admin });
  expect([denied.status, denied.body.error.code]).toEqual([403, "permission_denied"]);
  const theirs = (await api("POST", "billing/payment-methods", { token: other.owner, body: { paymentToken: "tok_visa" } })).body.data;
  for (const id of [theirs.id, "wpm_0000", "not-an-id"]) {
    const r = await api("POST", `billing/payment-methods/${id}/backup`, { token: w.owner });
    expect([id, r.status, r.body.error.code]).toEqual([id, 404, "not_found"]);
  }
  const rTheirs = await gql("mutation($id: ID!) { setBackupBillingPaymentMethod(id: $id) { id } }", { token: w.owner }, { id: theirs.id });
  expect(rTheirs.code).toBe("not_found");
  expect((await api("GET", "billing/payment-methods", { token: other.owner })).body.data[0].isBackup).toBe(false);
  // keys: billing:write, in any environment; billing:read is not enough
  expect((await api("POST", `billing/payment-methods/${a.id}/backup`, { key: await w.key(w.sandbox, ["billing:read"]) })).body.error.code).toBe("insufficient_scopes");
  expect((await api("POST", `billing/payment-methods/${a.id}/backup`, { key: await w.key(w.sandbox, ["billing:write"]) })).body.data.isBackup).toBe(true);
  // making the backup the default: it stops being the backup (a card is never both)
  const madeDefault = await api("POST", `billing/payment-methods/${a.id}/default`, { token: w.owner });
  expect(madeDefault.body.data).toMatchObject({ isDefault: true, isBackup: false });
  expect((await api("GET", "billing", { token: w.owner })).body.data).toMatchObject({ defaultPaymentMethodId: a.id, backupPaymentMethodId: null });
  // GraphQL: the same mutation and fields; removing the backup card clears it
  const g = await gql("mutation($id: ID!) { setBackupBillingPaymentMethod(id: $id) { id isBackup isDefault } }", { token: w.owner }, { id: def.id });
  expect(g.data.setBackupBillingPaymentMethod).toEqual({ id: def.id, isBackup: true, isDefault: false });
  expect((await gql("mutation($id: ID!) { setBackupBillingPaymentMethod(id: $id) { id } }", { token: admin }, { id: b.id })).code).toBe("permission_denied");
  expect((await gql("mutation($id: ID!) { setBackupBillingPaymentMethod(id: $id) { id } }", { token: w.owner }, { id: a.id })).code).toBe("cannot_backup_default");
  expect((await api("DELETE", `billing/payment-methods/${def.id}`, { token: w.owner })).status).toBe(204);
  const after = await gql("{ billing { backupPaymentMethodId } billingPaymentMethods { id isBackup } }", { token: w.owner });
  expect(after.data).toEqual({ billing: { backupPaymentMethodId: null }, billingPaymentMethods: [expect.objectContaining({ isBackup: false }), expect.objectContaining({ isBackup: false })] });
  expect((await events(w.ws.id, "workspace.payment_method.backup_set")).length).toBe(4);
});

test("the platform-billing job charges the backup when the default declines: renewed on the backup (workspace.payment_method.backup_used); a backup that declines too leaves it past_due", async () => {
  const run = async (backupToken: "tok_visa" | "tok_card_declined") => {
    const w = await workspace();
    const sub = await api("POST", "billing/subscribe", { token: w.owner, body: { plan: "growth", paymentToken: "tok_visa" } });
    expect(sub.body.data.state).toBe("live");
    const good = sub.body.data.defaultPaymentMethodId;
    // the default becomes a declining card; the backup is the good card (or another declining one)
    const declining = (await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken: "tok_card_declined", makeDefault: true } })).body.data;
    const backup = backupToken === "tok_visa" ? good : (await api("POST", "billing/payment-methods", { token: w.owner, body: { paymentToken: backupToken } })).body.data.id;
    expect((await api("POST", `billing/payment-methods/${backup}/backup`, { token: w.owner })).status).toBe(200);
    const end = new Date(sub.body.data.subscription.currentPeriodEnd);
    const start = clock.now();
    clock.set(new Date(end.getTime() + 1000));
    try {
      const swept = await runPlatformBilling(makeCtx(t.deps));
      expect(swept.backupUsed).toBeGreaterThanOrEqual(1);
      const used = await events(w.ws.id, "workspace.payment_method.backup_used");
      const failed = await events(w.ws.id, "workspace.platform_charge.failed");
      expect(failed.map((e) => (e.data as any).charge.paymentMethodId)[0]).toBe(declining.id);
      expect(used.map((e) => [e.environmentId, e.data])).toEqual([
        [
          w.production.id,
          {
            workspaceId: w.ws.id,
            paymentMethodId: backup,
            failedPaymentMethodId: declining.id,
            failedChargeId: (failed[0].data as any).charge.id,
            charge: expect.objectContaining({ paymentMethodId: backup, amount: 9900, currency: "USD", status: backupToken === "tok_visa" ? "succeeded" : "failed" }),
          },
        ],
      ]);
      expectCatalogKeys(used);
      // running again changes nothing: the period moved on, or the subscription is past_due
      await runPlatformBilling(makeCtx(t.deps));
      expect((await events(w.ws.id, "workspace.payment_method.backup_used")).length).toBe(1);
      return { w, swept, failed, backup, declining, billing: (await api("GET", "billing", { token: w.owner })).body.data, end };
    } finally {
      clock.set(start);
    }
  };

  const ok = await run("tok_visa");
  expect(ok.billing).toMatchObject({ state: "live", defaultPaymentMethodId: ok.declining.id, backupPaymentMethodId: ok.backup, subscription: { status: "active" } });
  expect(Date.parse(ok.billing.subscription.currentPeriodStart)).toBe(ok.end.getTime());
  const succeeded = await events(ok.w.ws.id, "workspace.platform_charge.succeeded");
  expect(succeeded.map((e) => (e.data as any).charge.paymentMethodId)).toEqual([ok.backup, ok.backup]); // subscribe, then the renewal
  expect(ok.failed).toHaveLength(1);

  const bad = await run("tok_card_declined");
  expect(bad.billing).toMatchObject({ state: "workspace_not_entitled_for_live", subscription: { status: "past_due" } });
  expect(bad.failed.map((e) => (e.data as any).charge.paymentMethodId)).toEqual([bad.declining.id, bad.backup]);
});

describe("two processes on one PostgreSQL database", () => {
  let a: TestApp | null = null;
  let b: TestApp | null = null;
  beforeAll(async () => {
    a = await startPgApp({ worker: false });
    if (!a) return; // no PostgreSQL: every test below is registered as skipped
    b = await startTestApp({ databaseUrl: a.databaseUrl, worker: false });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  pgTest("a subscribe in one process makes the key live in the other at once, although that process had it cached", async () => {
    if (!a || !b) throw notStarted();
    const ctxA = makeCtx(a.deps);
    const w = await ensureWorkspace(ctxA, { slug: `pg-bill-${Date.now()}`, name: "pg", ownerEmail: `owner-${Date.now()}@pg.test`, appSlug: "store", appName: "Store" });
    const k = mintKey("secret", w.production);
    await a.db.prisma.apiKey.create({ data: { workspaceId: w.ws.id, applicationId: w.app.id, environmentId: w.production.id, name: "k", type: "secret", scopes: ["*"], keyHash: k.keyHash, keyPrefix: k.keyPrefix } });
    const owner = await mintDashboardToken(ctxA, w.owner.id);
    const apiA = client(a.url);
    const apiB = client(b.url);
    expect((await apiB("GET", "connectors", { key: k.rawKey })).status).toBe(402);
    const hits = b.deps.principals!.hits;
    expect((await apiB("GET", "connectors", { key: k.rawKey })).status).toBe(402);
    expect(b.deps.principals!.hits).toBe(hits + 1); // cached in process B
    expect((await apiA("POST", "billing/subscribe", { token: owner, body: { plan: "starter", paymentToken: "tok_visa" } })).status).toBe(200);
    expect((await apiB("GET", "connectors", { key: k.rawKey })).status).toBe(200);
  });
});
