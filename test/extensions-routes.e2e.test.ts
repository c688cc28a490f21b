// Issue 17's acceptance proof, route by route: for every extension and installation route, another tenant's id
// (404 like an unknown one), a credential lacking the scope or role (403 with the spec's code) and bad input (422
// naming the field, never a 5xx), as tables. Then what had no test: the catalog reads, delist/relist and their 409s,
// the screenshot limit, the 24-hour default grace (limits: graceSeconds), rule 5's "not active" on the merchant's
// delivery routes, reinstall and reactivation after a suspension, the 401/403 alert raised once per streak, the
// extension.ping schedule (2 minutes after start, every 6 hours) and the install-time ping (delivery rule 6), and one
// walk through the real routes from creating an extension to its session token being refused after a suspension.
import { until as untilDefault } from "./helpers/until";
import { startAgenda } from "../jobs/agenda";
import { stopAgenda } from "./helpers/jobs";
import { findJob } from "../jobs/registry";
import { PING_AFTER_DEPLOY_MS, PING_JOB, probeInstallations, scheduleDeployProbe } from "../src/extensions/install-health.service";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { emit } from "./helpers/events";
import { basic, createExtension, install, installHeaders, publishVersion } from "./helpers/extensions";
import { client, type Cred, mintKeyVia, type Res } from "./helpers/http";
import { seedOrder } from "./helpers/orders";
import { startReceiver } from "./helpers/receiver";
import { memberWith } from "./helpers/team";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult; // the merchant
let pub: BootstrapLike; // the publisher
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let sandbox: string;

beforeAll(async () => {
  t = (await startTestApp({
    env: { WEBHOOK_RETRY_SCHEDULE: "100ms,100ms,100ms,100ms,100ms", RATE_LIMIT_AUTH_FAILURES_PER_IP: "1000/5m" },
    worker: { timeoutMs: 2_000, idleMs: 100 },
  }))!;
  api = client(t.url);
  demo = await t.bootstrap();
  pub = await t.otherWorkspace("publisher");
  sandbox = demo.environments.sandbox.id;
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => receiver.setResponder(() => ({ status: 200, body: "ok" })));

const until = <T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000) => untilDefault(fn, ok, ms);
const at = (p: string) => receiver.received.filter((r) => r.path === p);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const merchant = (token = demo.dashboardToken, env = sandbox): Cred => ({ token, headers: installHeaders(demo.applicationId, env) });
const demoTenant = () => ({ workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: sandbox });

let n = 0;
/** A published webhook extension of the publisher, whose endpoint is `/<path>` on the receiver. */
async function webhookExtension(extra: Record<string, unknown> = {}) {
  const path = `/routes-${++n}`;
  const name = `Routes ext ${n}`;
  const ext = await createExtension(api, pub.dashboardToken, { name, webhookUrl: `${receiver.url}${path}`, eventSubscriptions: ["order.created"], scopes: ["orders:read", "extensions:read"], ...extra });
  const version = await publishVersion(api, pub.dashboardToken, ext.id);
  return { ext, version, path, name };
}
async function credentials(extensionId: string) {
  const r = await api("POST", `extensions/${extensionId}/client-credentials`, { token: pub.dashboardToken, body: {} });
  expect(r.status).toBe(201);
  return { authorization: basic(r.body.data.clientId, r.body.data.clientSecret) };
}

// ---- the table runner ---------------------------------------------------------------------------------------------

interface Case {
  name: string;
  method: "GET" | "POST" | "PATCH";
  path: string;
  cred: Cred;
  body?: unknown;
  status: number;
  code: string;
  /** for 422: the issue path (dot-joined) the answer must name */
  field?: string;
}

/** Runs every case and compares them all at once, so one failing row shows beside the others. */
async function expectTable(cases: Case[]) {
  const got: unknown[] = [];
  const want: unknown[] = [];
  for (const c of cases) {
    const body = c.body !== undefined ? c.body : c.method === "GET" ? undefined : {};
    const r = await api(c.method, c.path, { ...c.cred, body });
    const issues: string[] = r.body?.error?.details?.issues?.map((i: { path: (string | number)[] }) => i.path.join(".")) ?? [];
    got.push([c.name, r.status, r.body?.error?.code ?? null, c.field ? issues : null]);
    want.push([c.name, c.status, c.code, c.field ? expect.arrayContaining([c.field]) : null]);
  }
  expect(got).toEqual(want);
}

// ---- shared fixtures for the tables -------------------------------------------------------------------------------

interface Fixtures {
  ext: { id: string };
  version: { id: string };
  draftVersion: { id: string };
  draftExt: { id: string };
  otherVersion: { id: string };
  inst: Awaited<ReturnType<typeof install>>;
  deliveryId: string;
  auth: Record<string, string>;
  pubViewer: Cred;
  demoViewer: Cred;
  demoRead: Cred;
  demoOrders: Cred;
  pubRead: Cred;
}
let f: Fixtures;

beforeAll(async () => {
  const { ext, version } = await webhookExtension();
  const draftVersion = (await api("POST", `extensions/${ext.id}/versions`, { token: pub.dashboardToken, body: { version: "2.0.0-draft" } })).body.data;
  const draftExt = await createExtension(api, pub.dashboardToken, { name: "Still a draft", scopes: ["orders:read"] });
  await api("POST", `extensions/${draftExt.id}/versions`, { token: pub.dashboardToken, body: { version: "0.1.0" } });
  const other = await webhookExtension();
  const auth = await credentials(ext.id);
  const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
  const ping = await api("POST", `installations/${inst.id}/test`, { key: demo.apiKey });
  const viewerOf = async (b: { workspaceId: string; applicationId: string }) =>
    (await memberWith(t, b.workspaceId, { applicationRoles: [{ applicationId: b.applicationId, role: "viewer" }] })).token;
  f = {
    ext,
    version,
    draftVersion,
    draftExt,
    otherVersion: other.version,
    inst,
    deliveryId: ping.body.data.id,
    auth,
    pubViewer: { token: await viewerOf(pub) },
    demoViewer: merchant(await viewerOf(demo)),
    demoRead: { key: (await mintKeyVia(api, demo, ["extensions:read"])).rawKey },
    demoOrders: { key: (await mintKeyVia(api, demo, ["orders:read"])).rawKey },
    pubRead: { key: (await mintKeyVia(api, pub as BootstrapResult, ["extensions:read"])).rawKey },
  };
});

describe("publisher routes: tenancy, credentials, bad input", () => {
  test("PATCH /extensions/{id}", async () => {
    const p = `extensions/${f.ext.id}`;
    const owner = { token: pub.dashboardToken };
    await expectTable([
      { name: "another workspace's (published) extension", method: "PATCH", path: p, cred: { token: demo.dashboardToken }, body: { name: "x" }, status: 404, code: "not_found" },
      { name: "another workspace's draft", method: "PATCH", path: `extensions/${f.draftExt.id}`, cred: { token: demo.dashboardToken }, body: { name: "x" }, status: 404, code: "not_found" },
      { name: "unknown id", method: "PATCH", path: "extensions/ext_nope", cred: owner, body: { name: "x" }, status: 404, code: "not_found" },
      { name: "malformed id", method: "PATCH", path: "extensions/not-an-id", cred: owner, body: { name: "x" }, status: 404, code: "not_found" },
      { name: "a key, even with every scope", method: "PATCH", path: p, cred: { key: pub.apiKey }, body: { name: "x" }, status: 403, code: "forbidden" },
      { name: "a viewer without application:extensions:write", method: "PATCH", path: p, cred: f.pubViewer, body: { name: "x" }, status: 403, code: "permission_denied" },
      { name: "unknown field", method: "PATCH", path: p, cred: owner, body: { colour: "red" }, status: 422, code: "validation_error", field: "colour" },
      { name: "name of the wrong type", method: "PATCH", path: p, cred: owner, body: { name: 5 }, status: 422, code: "validation_error", field: "name" },
      { name: "name null (required)", method: "PATCH", path: p, cred: owner, body: { name: null }, status: 422, code: "validation_error", field: "name" },
      { name: "scopes not an array", method: "PATCH", path: p, cred: owner, body: { scopes: "orders:read" }, status: 422, code: "validation_error", field: "scopes" },
      { name: "iframeUrl not a URL", method: "PATCH", path: p, cred: owner, body: { iframeUrl: "javascript:alert(1)" }, status: 422, code: "validation_error", field: "iframeUrl" },
      { name: "a body that is not an object", method: "PATCH", path: p, cred: owner, body: [1], status: 422, code: "validation_error" },
    ]);
    const bad = await api("PATCH", p, { token: pub.dashboardToken, raw: "{not json" });
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_json"]);
  });

  test("POST /extensions/{id}/versions", async () => {
    const p = `extensions/${f.ext.id}/versions`;
    const owner = { token: pub.dashboardToken };
    await expectTable([
      { name: "another workspace's extension", method: "POST", path: p, cred: { token: demo.dashboardToken }, body: { version: "9.0.0" }, status: 404, code: "not_found" },
      { name: "malformed id", method: "POST", path: "extensions/garbage/versions", cred: owner, body: { version: "9.0.0" }, status: 404, code: "not_found" },
      { name: "a key without a dashboard session", method: "POST", path: p, cred: { key: pub.apiKey }, body: { version: "9.0.0" }, status: 403, code: "forbidden" },
      { name: "a viewer", method: "POST", path: p, cred: f.pubViewer, body: { version: "9.0.0" }, status: 403, code: "permission_denied" },
      { name: "no version", method: "POST", path: p, cred: owner, body: {}, status: 422, code: "validation_error", field: "version" },
      { name: "empty version", method: "POST", path: p, cred: owner, body: { version: "" }, status: 422, code: "validation_error", field: "version" },
      { name: "version with a space", method: "POST", path: p, cred: owner, body: { version: "1 0" }, status: 422, code: "validation_error", field: "version" },
      { name: "version starting with '-'", method: "POST", path: p, cred: owner, body: { version: "-1.0" }, status: 422, code: "validation_error", field: "version" },
      { name: "version too long", method: "POST", path: p, cred: owner, body: { version: "1".repeat(51) }, status: 422, code: "validation_error", field: "version" },
      { name: "version a number", method: "POST", path: p, cred: owner, body: { version: 1 }, status: 422, code: "validation_error", field: "version" },
      { name: "notes too long", method: "POST", path: p, cred: owner, body: { version: "9.0.1", notes: "x".repeat(5001) }, status: 422, code: "validation_error", field: "notes" },
      { name: "unknown field", method: "POST", path: p, cred: owner, body: { version: "9.0.2", channel: "beta" }, status: 422, code: "validation_error", field: "channel" },
    ]);
  });

  test("POST /extensions/{id}/versions/{versionId}/publish", async () => {
    const p = `extensions/${f.ext.id}/versions/${f.draftVersion.id}/publish`;
    const owner = { token: pub.dashboardToken };
    await expectTable([
      { name: "another workspace", method: "POST", path: p, cred: { token: demo.dashboardToken }, status: 404, code: "not_found" },
      { name: "a key", method: "POST", path: p, cred: { key: pub.apiKey }, status: 403, code: "forbidden" },
      { name: "a viewer", method: "POST", path: p, cred: f.pubViewer, status: 403, code: "permission_denied" },
      { name: "non-empty body", method: "POST", path: p, cred: owner, body: { force: true }, status: 422, code: "validation_error", field: "force" },
      { name: "malformed version id", method: "POST", path: `extensions/${f.ext.id}/versions/nope/publish`, cred: owner, status: 404, code: "not_found" },
      { name: "another extension's version", method: "POST", path: `extensions/${f.ext.id}/versions/${f.otherVersion.id}/publish`, cred: owner, status: 404, code: "not_found" },
      { name: "already published", method: "POST", path: `extensions/${f.ext.id}/versions/${f.version.id}/publish`, cred: owner, status: 409, code: "version_not_draft" },
    ]);
  });

  test("GET /extensions/{id} and the version reads", async () => {
    await expectTable([
      { name: "another workspace's draft", method: "GET", path: `extensions/${f.draftExt.id}`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "a key lacking extensions:read", method: "GET", path: `extensions/${f.ext.id}`, cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
      { name: "malformed id", method: "GET", path: "extensions/%20", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "versions of another workspace's draft", method: "GET", path: `extensions/${f.draftExt.id}/versions`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "another workspace's draft version", method: "GET", path: `extensions/${f.ext.id}/versions/${f.draftVersion.id}`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "versions: limit 0", method: "GET", path: `extensions/${f.ext.id}/versions?limit=0`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "versions: limit 101", method: "GET", path: `extensions/${f.ext.id}/versions?limit=101`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "versions: bad cursor", method: "GET", path: `extensions/${f.ext.id}/versions?cursor=zzz`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.cursor" },
      { name: "versions: unknown parameter", method: "GET", path: `extensions/${f.ext.id}/versions?status=draft`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.status" },
      { name: "list: a key lacking extensions:read", method: "GET", path: "extensions", cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
      { name: "list: limit abc", method: "GET", path: "extensions?limit=abc", cred: { key: pub.apiKey }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "list: a cursor that is base64 but no cursor", method: "GET", path: `extensions?cursor=${Buffer.from('["x",1]').toString("base64url")}`, cred: { key: pub.apiKey }, status: 422, code: "validation_error", field: "query.cursor" },
    ]);
  });

  test("delist and relist", async () => {
    const p = (verb: string) => `extensions/${f.ext.id}/${verb}`;
    await expectTable([
      { name: "delist: another workspace", method: "POST", path: p("delist"), cred: { token: demo.dashboardToken }, status: 404, code: "not_found" },
      { name: "delist: a key", method: "POST", path: p("delist"), cred: { key: pub.apiKey }, status: 403, code: "forbidden" },
      { name: "delist: a viewer", method: "POST", path: p("delist"), cred: f.pubViewer, status: 403, code: "permission_denied" },
      { name: "relist: another workspace", method: "POST", path: p("relist"), cred: { token: demo.dashboardToken }, status: 404, code: "not_found" },
      { name: "delist: malformed id", method: "POST", path: "extensions/x/delist", cred: { token: pub.dashboardToken }, status: 404, code: "not_found" },
      { name: "delist a draft", method: "POST", path: `extensions/${f.draftExt.id}/delist`, cred: { token: pub.dashboardToken }, status: 409, code: "invalid_lifecycle" },
      { name: "relist a draft", method: "POST", path: `extensions/${f.draftExt.id}/relist`, cred: { token: pub.dashboardToken }, status: 409, code: "invalid_lifecycle" },
      { name: "delist: a body with fields", method: "POST", path: p("delist"), cred: { token: pub.dashboardToken }, body: { reason: "x" }, status: 422, code: "validation_error", field: "reason" },
      { name: "relist: a body with fields", method: "POST", path: p("relist"), cred: { token: pub.dashboardToken }, body: { force: true }, status: 422, code: "validation_error", field: "force" },
    ]);
  });
});

describe("merchant routes: tenancy, credentials, bad input", () => {
  test("POST /extensions/{id}/install", async () => {
    const p = `extensions/${f.ext.id}/install`;
    const ok = { versionId: f.version.id };
    await expectTable([
      { name: "another workspace's draft extension", method: "POST", path: `extensions/${f.draftExt.id}/install`, cred: merchant(), body: ok, status: 404, code: "not_found" },
      { name: "unknown extension", method: "POST", path: "extensions/ext_nope/install", cred: merchant(), body: ok, status: 404, code: "not_found" },
      { name: "another extension's version", method: "POST", path: p, cred: merchant(), body: { versionId: f.otherVersion.id }, status: 404, code: "not_found" },
      { name: "unknown version", method: "POST", path: p, cred: merchant(), body: { versionId: "ver_nope" }, status: 404, code: "not_found" },
      { name: "malformed versionId", method: "POST", path: p, cred: merchant(), body: { versionId: "not a version" }, status: 422, code: "validation_error", field: "versionId" },
      { name: "versionId a number", method: "POST", path: p, cred: merchant(), body: { versionId: 7 }, status: 422, code: "validation_error", field: "versionId" },
      { name: "no versionId", method: "POST", path: p, cred: merchant(), body: {}, status: 422, code: "validation_error", field: "versionId" },
      { name: "config not an object", method: "POST", path: p, cred: merchant(), body: { ...ok, config: "x" }, status: 422, code: "validation_error", field: "config" },
      { name: "unknown field", method: "POST", path: p, cred: merchant(), body: { ...ok, pin: true }, status: 422, code: "validation_error", field: "pin" },
      { name: "a draft version", method: "POST", path: p, cred: merchant(), body: { versionId: f.draftVersion.id }, status: 409, code: "version_not_published" },
      { name: "a key", method: "POST", path: p, cred: { key: demo.apiKey }, body: ok, status: 403, code: "forbidden" },
      { name: "a viewer without application:extensions:write", method: "POST", path: p, cred: f.demoViewer, body: ok, status: 403, code: "permission_denied" },
      { name: "no environment header", method: "POST", path: p, cred: { token: demo.dashboardToken }, body: ok, status: 422, code: "validation_error", field: "headers.x-service-environment-id" },
      { name: "a malformed environment header", method: "POST", path: p, cred: { token: demo.dashboardToken, headers: installHeaders(demo.applicationId, "nope") }, body: ok, status: 404, code: "environment_not_found" },
      { name: "another workspace's environment", method: "POST", path: p, cred: merchant(demo.dashboardToken, pub.environments.sandbox.id), body: ok, status: 404, code: "environment_not_found" },
    ]);
  });

  test("POST /extensions/{id}/suspend", async () => {
    const p = `extensions/${f.ext.id}/suspend`;
    await expectTable([
      { name: "a key with only extensions:read", method: "POST", path: p, cred: f.demoRead, status: 403, code: "insufficient_scopes" },
      { name: "a viewer", method: "POST", path: p, cred: f.demoViewer, status: 403, code: "permission_denied" },
      { name: "another workspace (the publisher's own key)", method: "POST", path: p, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "the production environment (no install there)", method: "POST", path: p, cred: merchant(demo.dashboardToken, demo.environments.production.id), status: 404, code: "not_found" },
      { name: "unknown extension", method: "POST", path: "extensions/ext_nope/suspend", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "malformed id", method: "POST", path: "extensions/!!/suspend", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "a body with fields", method: "POST", path: p, cred: { key: demo.apiKey }, body: { status: "suspended" }, status: 422, code: "validation_error", field: "status" },
      { name: "the installation's own key", method: "POST", path: p, cred: { key: f.inst.apiKey }, status: 403, code: "insufficient_scopes" },
    ]);
    expect((await api("GET", `installations/${f.inst.id}`, { key: demo.apiKey })).body.data.status).toBe("active");
  });

  test("GET /extension-installations and GET /installations/{id}", async () => {
    await expectTable([
      { name: "list: a key lacking extensions:read", method: "GET", path: "extension-installations", cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
      { name: "list: limit 101", method: "GET", path: "extension-installations?limit=101", cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "list: bad cursor", method: "GET", path: "extension-installations?cursor=%%%", cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.cursor" },
      { name: "list: bad status", method: "GET", path: "extension-installations?status=paused", cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.status" },
      { name: "read: another workspace", method: "GET", path: `installations/${f.inst.id}`, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "read: a key lacking extensions:read", method: "GET", path: `installations/${f.inst.id}`, cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
    ]);
  });

  test("POST /installations/{id}/uninstall", async () => {
    const p = `installations/${f.inst.id}/uninstall`;
    await expectTable([
      { name: "unknown body field", method: "POST", path: p, cred: { key: demo.apiKey }, body: { reason: "staff_takedown" }, status: 422, code: "validation_error", field: "reason" },
      { name: "another workspace", method: "POST", path: p, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "a key with only extensions:read", method: "POST", path: p, cred: f.demoRead, status: 403, code: "insufficient_scopes" },
      { name: "a viewer", method: "POST", path: p, cred: f.demoViewer, status: 403, code: "permission_denied" },
      { name: "malformed id", method: "POST", path: "installations/123/uninstall", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
    ]);
    expect((await api("GET", `installations/${f.inst.id}`, { key: demo.apiKey })).body.data.status).toBe("active");
  });

  test("deliveries, replay and the test ping", async () => {
    const d = `installations/${f.inst.id}/deliveries`;
    const replay = `${d}/${f.deliveryId}/replay`;
    const test = `installations/${f.inst.id}/test`;
    const other = await webhookExtension();
    const otherInst = await install(api, demo.dashboardToken, other.ext.id, other.version.id, demo.applicationId, sandbox);
    await expectTable([
      { name: "deliveries: another workspace", method: "GET", path: d, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "deliveries: a key lacking extensions:read", method: "GET", path: d, cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
      { name: "deliveries: limit 0", method: "GET", path: `${d}?limit=0`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "deliveries: offset -1", method: "GET", path: `${d}?offset=-1`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.offset" },
      { name: "deliveries: a cursor (offset paging here)", method: "GET", path: `${d}?cursor=abc`, cred: { key: demo.apiKey }, status: 422, code: "validation_error", field: "query.cursor" },
      { name: "deliveries: malformed id", method: "GET", path: "installations/x/deliveries", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "replay: another workspace", method: "POST", path: replay, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "replay: a key with only extensions:read", method: "POST", path: replay, cred: f.demoRead, status: 403, code: "insufficient_scopes" },
      { name: "replay: a viewer", method: "POST", path: replay, cred: f.demoViewer, status: 403, code: "permission_denied" },
      { name: "replay: malformed delivery id", method: "POST", path: `${d}/nope/replay`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "replay: another install's delivery", method: "POST", path: `installations/${otherInst.id}/deliveries/${f.deliveryId}/replay`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "replay: not a dead letter", method: "POST", path: replay, cred: { key: demo.apiKey }, status: 409, code: "delivery_not_replayable" },
      { name: "test: a key with only extensions:read", method: "POST", path: test, cred: f.demoRead, status: 403, code: "insufficient_scopes" },
      { name: "test: a key with another scope", method: "POST", path: test, cred: f.demoOrders, status: 403, code: "insufficient_scopes" },
      { name: "test: a viewer", method: "POST", path: test, cred: f.demoViewer, status: 403, code: "permission_denied" },
      { name: "test: another workspace", method: "POST", path: test, cred: { key: pub.apiKey }, status: 404, code: "not_found" },
      { name: "test: bad id", method: "POST", path: "installations/inst_/test", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "test: unknown id", method: "POST", path: "installations/inst_nope/test", cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "test: another install's key", method: "POST", path: test, cred: { key: otherInst.apiKey }, status: 403, code: "insufficient_scopes" },
      { name: "replay: a body with fields", method: "POST", path: replay, cred: { key: demo.apiKey }, body: { force: true }, status: 422, code: "validation_error", field: "force" },
      { name: "test: a body with fields", method: "POST", path: test, cred: { key: demo.apiKey }, body: { type: "order.created" }, status: 422, code: "validation_error", field: "type" },
    ]);
  });
});

describe("the extension's own routes: credentials and bad input", () => {
  test("GET /extensions/me/installations: bad limit and cursor, and pagination over every install", async () => {
    const ext = await createExtension(api, pub.dashboardToken, { name: "Paged", iframeUrl: "https://ext.example/app", scopes: ["orders:read"] });
    const v = await publishVersion(api, pub.dashboardToken, ext.id);
    const auth = await credentials(ext.id);
    const ids = [
      (await install(api, demo.dashboardToken, ext.id, v.id, demo.applicationId, sandbox)).id,
      (await install(api, demo.dashboardToken, ext.id, v.id, demo.applicationId, demo.environments.production.id)).id,
      (await install(api, pub.dashboardToken, ext.id, v.id, pub.applicationId, pub.environments.sandbox.id)).id,
    ];
    const me = "extensions/me/installations";
    await expectTable([
      { name: "limit 0", method: "GET", path: `${me}?limit=0`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "limit 101", method: "GET", path: `${me}?limit=101`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "limit abc", method: "GET", path: `${me}?limit=abc`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.limit" },
      { name: "cursor garbage", method: "GET", path: `${me}?cursor=garbage`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.cursor" },
      { name: "cursor naming no install", method: "GET", path: `${me}?cursor=${Buffer.from('["2026-01-01T00:00:00.000Z","ext_x"]').toString("base64url")}`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.cursor" },
      { name: "unknown parameter", method: "GET", path: `${me}?status=active`, cred: { headers: auth }, status: 422, code: "validation_error", field: "query.status" },
      { name: "an API key", method: "GET", path: me, cred: { key: demo.apiKey }, status: 403, code: "forbidden" },
      { name: "a dashboard session", method: "GET", path: me, cred: { token: pub.dashboardToken }, status: 403, code: "forbidden" },
      { name: "no credential", method: "GET", path: me, cred: {}, status: 401, code: "unauthorized" },
    ]);
    await api("POST", `extensions/${ext.id}/suspend`, merchant(demo.dashboardToken, demo.environments.production.id));
    const seen: { installationId: string; status: string }[] = [];
    let cursor: string | null = null;
    const pages: number[] = [];
    do {
      const r: Res = await api("GET", `${me}?limit=2${cursor ? `&cursor=${cursor}` : ""}`, { headers: auth });
      expect(r.status).toBe(200);
      seen.push(...r.body.data);
      pages.push(r.body.data.length);
      cursor = r.body.meta.pagination.cursor;
      expect(r.body.meta.pagination.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(pages).toEqual([2, 1]);
    expect(seen.map((s) => s.installationId).sort()).toEqual([...ids].sort());
    expect(seen.find((s) => s.installationId === ids[1])?.status).toBe("suspended"); // non-active installs are listed
  });

  test("POST /installations/{id}/api-key: client credentials only (an installation key is 403); graceSeconds bounds; 24 hours by default", async () => {
    const { ext, version } = await webhookExtension();
    const auth = await credentials(ext.id);
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    const p = `installations/${inst.id}/api-key`;
    await expectTable([
      { name: "the installation's own key", method: "POST", path: p, cred: { key: inst.apiKey }, status: 403, code: "forbidden" },
      { name: "the merchant's key", method: "POST", path: p, cred: { key: demo.apiKey }, status: 403, code: "forbidden" },
      { name: "a dashboard session", method: "POST", path: p, cred: merchant(), status: 403, code: "forbidden" },
      { name: "graceSeconds -1", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: -1 }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds 604801", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: 604_801 }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds 1.5", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: 1.5 }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds a string", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: "60" }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds null", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: null }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "unknown field", method: "POST", path: p, cred: { headers: auth }, body: { scopes: ["*"] }, status: 422, code: "validation_error", field: "scopes" },
    ]);
    // omitted: the previous key lives 86400 s more (rule 7's 24 hours)
    const before = Date.now();
    const r = await api("POST", p, { headers: auth, body: {} });
    expect(r.status).toBe(201);
    const grace = Date.parse(r.body.data.previousKeyExpiresAt) - before;
    expect(grace).toBeGreaterThanOrEqual(86_400_000 - 1_000);
    expect(grace).toBeLessThanOrEqual(86_400_000 + 30_000);
    const old = await t.deps.prisma.apiKey.findFirstOrThrow({ where: { installationId: inst.id, keyPrefix: { not: r.body.data.keyPrefix }, revokedAt: null } });
    expect(old.expiresAt?.toISOString()).toBe(r.body.data.previousKeyExpiresAt);
    expect((await api("GET", "whoami", { key: inst.apiKey })).status).toBe(200);
    // the most it allows: 7 days
    const max = await api("POST", p, { headers: auth, body: { graceSeconds: 604_800 } });
    expect(Date.parse(max.body.data.previousKeyExpiresAt) - Date.now()).toBeGreaterThan(604_800_000 - 30_000);
  });

  test("POST /installations/{id}/rotate-webhook-secret: graceSeconds bounds; 24 hours by default", async () => {
    const { ext, version } = await webhookExtension();
    const auth = await credentials(ext.id);
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    const p = `installations/${inst.id}/rotate-webhook-secret`;
    await expectTable([
      { name: "graceSeconds -1", method: "POST", path: p, cred: { key: inst.apiKey }, body: { graceSeconds: -1 }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds 604801", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: 604_801 }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "graceSeconds a string", method: "POST", path: p, cred: { headers: auth }, body: { graceSeconds: "0" }, status: 422, code: "validation_error", field: "graceSeconds" },
      { name: "unknown field", method: "POST", path: p, cred: { headers: auth }, body: { secret: "whsec_mine" }, status: 422, code: "validation_error", field: "secret" },
      { name: "the merchant's key", method: "POST", path: p, cred: { key: demo.apiKey }, status: 403, code: "forbidden" },
      { name: "another install's key", method: "POST", path: p, cred: { key: f.inst.apiKey }, status: 404, code: "not_found" },
    ]);
    const before = Date.now();
    const r = await api("POST", p, { key: inst.apiKey, body: {} });
    expect(r.status).toBe(200);
    const grace = Date.parse(r.body.data.previousSecretExpiresAt) - before;
    expect(grace).toBeGreaterThanOrEqual(86_400_000 - 1_000);
    expect(grace).toBeLessThanOrEqual(86_400_000 + 30_000);
    const read = await api("GET", `installations/${inst.id}/webhook-secret`, { headers: auth });
    expect(read.body.data.previousSecretExpiresAt).toBe(r.body.data.previousSecretExpiresAt);
    // no body at all: the same default
    const bare = await fetch(`${t.url}/api/v1/${p}`, { method: "POST", headers: { "x-api-key": inst.apiKey } });
    const bareBody = (await bare.json()) as any;
    expect(bare.status).toBe(200);
    expect(Date.parse(bareBody.data.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_400_000 - 30_000);
  });
});

describe("catalog reads, delist/relist and the 409s", () => {
  test("GET /extensions is the caller's own (any lifecycle), paged; another workspace sees none of them", async () => {
    const mine = await api("GET", "extensions?limit=100", { token: pub.dashboardToken });
    const ids = mine.body.data.map((e: { id: string }) => e.id);
    expect(ids).toEqual(expect.arrayContaining([f.ext.id, f.draftExt.id]));
    expect(mine.body.data.find((e: { id: string }) => e.id === f.draftExt.id).lifecycle).toBe("draft");
    expect((await api("GET", "extensions?limit=100", { key: f.pubRead.key })).body.data.map((e: { id: string }) => e.id)).toEqual(ids);
    const theirs = await api("GET", "extensions?limit=100", { key: demo.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data.map((e: { id: string }) => e.id)).not.toContain(f.ext.id);
    // pages of one: every extension once, in the same order
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const r: Res = await api("GET", `extensions?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { token: pub.dashboardToken });
      paged.push(...r.body.data.map((e: { id: string }) => e.id));
      cursor = r.body.meta.pagination.cursor;
    } while (cursor && paged.length < 200);
    expect(paged).toEqual(ids);
  });

  test("GET /extensions/{id}/versions: the publisher sees drafts, other workspaces published versions only", async () => {
    const own = await api("GET", `extensions/${f.ext.id}/versions`, { token: pub.dashboardToken });
    expect(own.body.data.map((v: { id: string }) => v.id).sort()).toEqual([f.version.id, f.draftVersion.id].sort());
    const other = await api("GET", `extensions/${f.ext.id}/versions`, { key: demo.apiKey });
    expect(other.body.data.map((v: { id: string; status: string }) => [v.id, v.status])).toEqual([[f.version.id, "published"]]);
    expect((await api("GET", `extensions/${f.ext.id}/versions/${f.version.id}`, { key: demo.apiKey })).status).toBe(200);
    const page = await api("GET", `extensions/${f.ext.id}/versions?limit=1`, { token: pub.dashboardToken });
    expect([page.body.data.length, page.body.meta.pagination.hasMore]).toEqual([1, true]);
    const rest = await api("GET", `extensions/${f.ext.id}/versions?limit=1&cursor=${page.body.meta.pagination.cursor}`, { token: pub.dashboardToken });
    expect([rest.body.data.length, rest.body.meta.pagination.hasMore, rest.body.data[0].id]).toEqual([1, false, expect.not.stringMatching(page.body.data[0].id)]);
  });

  test("delist: no new installs (409 extension_delisted), existing ones keep working; relist: installs again", async () => {
    const { ext, version } = await webhookExtension();
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    const d = await api("POST", `extensions/${ext.id}/delist`, { token: pub.dashboardToken });
    expect([d.status, d.body.data.lifecycle]).toEqual([200, "delisted"]);
    expect((await api("POST", `extensions/${ext.id}/delist`, { token: pub.dashboardToken })).body.data.lifecycle).toBe("delisted"); // idempotent
    expect((await api("GET", `extensions/${ext.id}`, { key: demo.apiKey })).body.data.lifecycle).toBe("delisted");
    const prod = await api("POST", `extensions/${ext.id}/install`, { ...merchant(demo.dashboardToken, demo.environments.production.id), body: { versionId: version.id } });
    expect([prod.status, prod.body.error.code]).toEqual([409, "extension_delisted"]);
    const again = await api("POST", `extensions/${ext.id}/install`, { ...merchant(), body: { versionId: version.id } });
    expect([again.status, again.body.error.code]).toEqual([409, "extension_delisted"]);
    // the existing install: active, its key works, it still hears its events
    expect((await api("GET", `installations/${inst.id}`, { key: demo.apiKey })).body.data.status).toBe("active");
    expect((await api("GET", "orders", { key: inst.apiKey })).status).toBe(200);
    const e = await emit(t, demoTenant(), "order.created", { id: "while-delisted" });
    expect(await t.deps.prisma.webhookDelivery.count({ where: { endpointId: inst.webhookEndpointId!, eventId: e.id } })).toBe(1);
    const r = await api("POST", `extensions/${ext.id}/relist`, { token: pub.dashboardToken });
    expect([r.status, r.body.data.lifecycle]).toEqual([200, "published"]);
    const ok = await api("POST", `extensions/${ext.id}/install`, { ...merchant(), body: { versionId: version.id } });
    expect([ok.status, ok.body.data.installSequence]).toEqual([201, 2]);
  });

  test("screenshots: the ninth is 409 screenshot_limit_reached", async () => {
    const ext = await createExtension(api, pub.dashboardToken, { name: "Shots" });
    const png = (i: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, i)]);
    const upload = (i: number) =>
      fetch(`${t.url}/api/v1/extensions/screenshot-upload?extensionId=${ext.id}`, { method: "POST", headers: { authorization: `Bearer ${pub.dashboardToken}`, "content-type": "image/png" }, body: new Uint8Array(png(i)) });
    for (let i = 1; i <= 8; i++) expect([i, (await upload(i)).status]).toEqual([i, 201]);
    const ninth = await upload(9);
    expect([ninth.status, ((await ninth.json()) as any).error.code]).toEqual([409, "screenshot_limit_reached"]);
    expect((await api("GET", `extensions/${ext.id}`, { token: pub.dashboardToken })).body.data.screenshotKeys).toHaveLength(8);
  });
});

describe("rule 5 and the suspension paths", () => {
  test("a suspended install: deliveries, replay and test are 404 like an unknown id; reinstalling reactivates it", async () => {
    const { ext, version, path } = await webhookExtension();
    const auth = await credentials(ext.id);
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    const d = await api("POST", `installations/${inst.id}/test`, { key: demo.apiKey });
    await until(() => t.deps.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: d.body.data.id } }), (x) => x.status === "succeeded");
    await t.deps.prisma.webhookDelivery.update({ where: { id: d.body.data.id }, data: { status: "dead_letter" } });
    const s = await api("POST", `extensions/${ext.id}/suspend`, merchant());
    expect([s.status, s.body.data.status]).toEqual([200, "suspended"]);
    await expectTable([
      { name: "deliveries", method: "GET", path: `installations/${inst.id}/deliveries`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "replay", method: "POST", path: `installations/${inst.id}/deliveries/${d.body.data.id}/replay`, cred: { key: demo.apiKey }, status: 404, code: "not_found" },
      { name: "test (merchant)", method: "POST", path: `installations/${inst.id}/test`, cred: merchant(), status: 404, code: "not_found" },
      { name: "test (its own key)", method: "POST", path: `installations/${inst.id}/test`, cred: { key: inst.apiKey }, status: 404, code: "not_found" },
      { name: "webhook-secret", method: "GET", path: `installations/${inst.id}/webhook-secret`, cred: { headers: auth }, status: 404, code: "not_found" },
      { name: "rotate-webhook-secret", method: "POST", path: `installations/${inst.id}/rotate-webhook-secret`, cred: { headers: auth }, status: 404, code: "not_found" },
      { name: "api-key", method: "POST", path: `installations/${inst.id}/api-key`, cred: { headers: auth }, status: 404, code: "not_found" },
    ]);
    // the merchant still reads it
    expect((await api("GET", `installations/${inst.id}`, { key: demo.apiKey })).body.data).toMatchObject({ status: "suspended", suspendedReason: "merchant" });

    const again = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    expect([again.id, again.status, again.installSequence, again.webhookEndpointId, again.webhookSigningSecret]).toEqual([inst.id, "active", 2, inst.webhookEndpointId, inst.webhookSigningSecret]);
    const view = (await api("GET", `installations/${inst.id}`, { key: demo.apiKey })).body.data;
    expect([view.suspendedAt, view.suspendedReason]).toEqual([null, null]);
    const e = await emit(t, demoTenant(), "order.created", { id: "after-reinstall" });
    await receiver.waitFor(() => at(path).some((x) => x.body?.id === e.id));
    expect((await api("GET", `installations/${inst.id}/deliveries`, { key: demo.apiKey })).status).toBe(200);
  });

  test("after an automatic suspension the toggle reactivates it, events flow again and the dead-letter count starts over", async () => {
    const { ext, version, path } = await webhookExtension();
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    await receiver.waitFor(() => at(path).some((x) => x.body?.type === "extension.ping"));
    receiver.setResponder((r) => (r.path === path ? { status: 500 } : { status: 200 }));
    for (let i = 0; i < 3; i++) await emit(t, demoTenant(), "order.created", { id: `dead-${i}` });
    const suspended = await until(() => api("GET", `installations/${inst.id}`, { key: demo.apiKey }), (r) => r.body.data.status === "suspended");
    expect(suspended.body.data.suspendedReason).toBe("delivery_failures");
    expect((await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: inst.webhookEndpointId! } })).isActive).toBe(false);

    const on = await api("POST", `extensions/${ext.id}/suspend`, merchant());
    expect([on.status, on.body.data.status, on.body.data.suspendedReason]).toEqual([200, "active", null]);
    expect((await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: inst.webhookEndpointId! } })).isActive).toBe(true);
    // still failing: one more dead letter is not "repeated delivery failure" of the reactivated install
    const one = await emit(t, demoTenant(), "order.created", { id: "dead-after" });
    await until(() => t.deps.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: inst.webhookEndpointId!, eventId: one.id } }), (x) => x.status === "dead_letter");
    await sleep(200);
    expect((await api("GET", `installations/${inst.id}`, { key: demo.apiKey })).body.data.status).toBe("active");
    // fixed: events arrive
    receiver.setResponder(() => ({ status: 200 }));
    const ok = await emit(t, demoTenant(), "order.created", { id: "alive" });
    await receiver.waitFor(() => at(path).some((x) => x.body?.id === ok.id && x.headers["x-service-event-id"] === ok.id));
    const alerts = await t.deps.prisma.webhookAlert.count({ where: { endpointId: inst.webhookEndpointId!, kind: "install_suspended" } });
    expect(alerts).toBe(1);
  });

  test("three 401/403 answers raise one alert per streak: not again while the streak lasts, again after a success", async () => {
    const { ext, version, path, name } = await webhookExtension();
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    await receiver.waitFor(() => at(path).some((x) => x.body?.type === "extension.ping"));
    const ep = inst.webhookEndpointId!;
    const alerts = () => t.deps.prisma.webhookAlert.count({ where: { endpointId: ep, kind: "consecutive_auth_failures" } });
    const mails = () => t.deps.prisma.email.count({ where: { template: "member.extension_endpoint_alert", vars: { path: ["extensionName"], equals: name } } });
    const authAnswers = () => t.deps.prisma.webhookDeliveryAttempt.count({ where: { delivery: { endpointId: ep }, statusCode: { in: [401, 403] } } });
    receiver.setResponder((r, i) => (r.path === path ? { status: i % 2 ? 401 : 403 } : { status: 200 }));
    const first = await emit(t, demoTenant(), "order.created", { id: "streak-1" });
    // five attempts, all 401 or 403: the alert comes at the third and not at the fourth or fifth
    await until(() => t.deps.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: ep, eventId: first.id } }), (x) => x.status === "dead_letter");
    expect(await authAnswers()).toBe(5);
    expect(await alerts()).toBe(1);
    expect(await mails()).toBe(2); // the merchant's admins and the publisher, once each
    const second = await emit(t, demoTenant(), "order.created", { id: "streak-1b" });
    await until(() => t.deps.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: ep, eventId: second.id } }), (x) => x.status === "dead_letter");
    expect([await authAnswers(), await alerts(), await mails()]).toEqual([10, 1, 2]);
    // a success ends the streak; the next three failures are a new streak and a new alert
    receiver.setResponder(() => ({ status: 200 }));
    const fine = await emit(t, demoTenant(), "order.created", { id: "ok" });
    await until(() => t.deps.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: ep, eventId: fine.id } }), (x) => x.status === "succeeded");
    receiver.setResponder((r) => (r.path === path ? { status: 401 } : { status: 200 }));
    await emit(t, demoTenant(), "order.created", { id: "streak-2" });
    await until(alerts, (c) => c === 2);
    expect(await mails()).toBe(4);
  });
});

describe("extension.ping: the install-time ping, 2 minutes after start, every 6 hours", () => {
  test("installing (and reinstalling) sends a signed extension.ping; a first 401 to it is not reported", async () => {
    const { ext, version, path } = await webhookExtension();
    // the receiver has no secret yet: 401 to the first ping; it fetches the secret and the retry verifies
    let secretKnown = false;
    receiver.setResponder((r) => (r.path === path && !secretKnown ? ((secretKnown = true), { status: 401 }) : { status: 200 }));
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    const hit = (await receiver.waitFor(() => at(path).some((x) => x.body?.type === "extension.ping"))).find((x) => x.path === path)!;
    expect(hit.body.data).toEqual({ installationId: inst.id, extensionId: ext.id, endpointId: inst.webhookEndpointId, reason: "install" });
    expect(String(hit.headers["x-service-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const delivery = await until(() => t.deps.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: inst.webhookEndpointId!, event: { type: "extension.ping" } } }), (x) => x.status === "succeeded");
    expect(delivery.attempts).toBe(2);
    await sleep(200);
    expect(await t.deps.prisma.webhookAlert.count({ where: { endpointId: inst.webhookEndpointId!, kind: { in: ["ping_failed", "consecutive_auth_failures"] } } })).toBe(0);
    const again = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    await receiver.waitFor(() => at(path).filter((x) => x.body?.type === "extension.ping").length >= 3);
    const pings = at(path).filter((x) => x.body?.type === "extension.ping");
    expect(pings.map((x) => x.body.data.reason)).toEqual(["install", "install", "install"]);
    expect(new Set(pings.map((x) => x.body.id)).size).toBe(2); // the first one retried, then the reinstall's
    expect(again.installSequence).toBe(2);
    // a version without a webhook: nothing to ping
    const iframeOnly = await createExtension(api, pub.dashboardToken, { name: "No hook", iframeUrl: "https://ext.example/app", scopes: [] });
    const v = await publishVersion(api, pub.dashboardToken, iframeOnly.id);
    const quiet = await install(api, demo.dashboardToken, iframeOnly.id, v.id, demo.applicationId, sandbox);
    expect(await t.deps.prisma.event.count({ where: { type: "extension.ping", data: { path: ["installationId"], equals: quiet.id } } })).toBe(0);
  });

  test("a ping answered 401 again on its retry is reported (once a day)", async () => {
    const { ext, version, path } = await webhookExtension();
    receiver.setResponder((r) => (r.path === path ? { status: 401 } : { status: 200 }));
    const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    await until(() => t.deps.prisma.webhookAlert.count({ where: { endpointId: inst.webhookEndpointId!, kind: "ping_failed" } }), (c) => c === 1);
  });

  test("the deploy probe fires once, PING_AFTER_DEPLOY_MS (2 minutes) after start, and pings every active install", async () => {
    expect(PING_AFTER_DEPLOY_MS).toBe(120_000);
    const calls: string[] = [];
    jest.useFakeTimers({ doNotFake: ["nextTick", "queueMicrotask"] });
    try {
      scheduleDeployProbe(t.deps, undefined, async (_deps, reason = "schedule") => {
        calls.push(reason);
        return 0;
      });
      jest.advanceTimersByTime(119_999);
      expect(calls).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(calls).toEqual(["deploy"]);
      jest.advanceTimersByTime(24 * 3_600_000);
      expect(calls).toEqual(["deploy"]);
    } finally {
      jest.useRealTimers();
    }
    // cancelled before it fires (shutdown): nothing
    const cancel = scheduleDeployProbe(t.deps, 20, async () => {
      calls.push("late");
      return 0;
    });
    cancel();
    await sleep(60);
    expect(calls).toEqual(["deploy"]);
    // the real probe: a signed extension.ping with reason "deploy" to each active install's endpoint
    const { ext, version, path } = await webhookExtension();
    await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, sandbox);
    scheduleDeployProbe(t.deps, 10);
    await receiver.waitFor(() => at(path).some((x) => x.body?.type === "extension.ping" && x.body.data.reason === "deploy"));
    expect(await probeInstallations(t.deps, "schedule")).toBeGreaterThan(0);
  });

  test("Agenda runs the extension-ping job every 6 hours", async () => {
    const job = findJob(PING_JOB)!;
    expect(job.every).toBe("6 hours");
    const agenda = await startAgenda(t.db, { deps: t.deps, deliveries: t.deliveries }, { lockLifetimeMs: 1000, processEveryMs: 200 });
    try {
      const row = await until(
        async () => (await agenda.agenda.queryJobs({ name: PING_JOB })).jobs[0],
        (j) => Boolean(j?.lastRunAt && j.nextRunAt),
      );
      expect(row.repeatInterval).toBe("6 hours");
      expect(new Date(row.nextRunAt!).getTime() - new Date(row.lastRunAt!).getTime()).toBe(6 * 3_600_000);
    } finally {
      await stopAgenda(agenda);
    }
  });
});

describe("end to end through the real routes", () => {
  test("create, version, publish, install, mint a session, read orders with it; suspend and it is refused", async () => {
    const created = await api("POST", "extensions", { token: pub.dashboardToken, body: { name: "Order notes e2e", iframeUrl: "https://notes.example/app", scopes: ["orders:read"] } });
    expect([created.status, created.body.data.lifecycle]).toEqual([201, "draft"]);
    const extId = created.body.data.id;
    const v = await api("POST", `extensions/${extId}/versions`, { token: pub.dashboardToken, body: { version: "1.0.0", notes: "first" } });
    expect([v.status, v.body.data.status]).toEqual([201, "draft"]);
    const p = await api("POST", `extensions/${extId}/versions/${v.body.data.id}/publish`, { token: pub.dashboardToken, body: {} });
    expect([p.status, p.body.data.status]).toEqual([200, "published"]);
    const i = await api("POST", `extensions/${extId}/install`, { ...merchant(), body: { versionId: v.body.data.id } });
    expect([i.status, i.body.data.status, i.body.data.webhookSigningSecret]).toEqual([201, "active", null]);
    const instId = i.body.data.id;
    const order = (await seedOrder(t, demo, { lines: [{ quantity: 1, unitPrice: 1234 }] })).order;

    const s = await api("POST", `installations/${instId}/session`, { token: demo.dashboardToken });
    expect([s.status, s.body.data.tokenType, s.body.data.context.installationId, s.body.data.context.scopes]).toEqual([201, "Bearer", instId, ["orders:read"]]);
    const bearer = s.body.data.token;
    const orders = await api("GET", "orders?limit=100", { token: bearer });
    expect(orders.status).toBe(200);
    expect(orders.body.data.map((o: { id: string }) => o.id)).toContain(order.id);
    const quotes = await api("GET", "quotes", { token: bearer });
    expect([quotes.status, quotes.body.error.code]).toEqual([403, "insufficient_scopes"]);

    const off = await api("POST", `extensions/${extId}/suspend`, merchant());
    expect([off.status, off.body.data.status]).toEqual([200, "suspended"]);
    const refused = await api("GET", "orders", { token: bearer });
    expect([refused.status, refused.body.error.code]).toEqual([401, "unauthorized"]);
    expect((await api("POST", `installations/${instId}/session`, { token: demo.dashboardToken })).status).toBe(404);
    // reactivated: a fresh session works again (the old token too: it names an active install again)
    expect((await api("POST", `extensions/${extId}/suspend`, merchant())).body.data.status).toBe("active");
    const s2 = await api("POST", `installations/${instId}/session`, { token: demo.dashboardToken });
    expect((await api("GET", "orders", { token: s2.body.data.token })).status).toBe(200);
  });
});
