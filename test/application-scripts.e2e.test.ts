// Application scripts over REST and GraphQL: create, list, read, update, soft delete, the kill switch, the 24-hour
// health read, the public content-addressed asset, the checkout page's beacons and their script.* events; every route
// against another tenant's ids, narrower scopes, dashboard roles and bad input.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { mintDashboardToken } from "../src/platform/bootstrap.service";
import { FixedClock } from "../src/shared/clock";
import { makeCtx } from "../src/shared/context";
import { sha256Hex } from "../src/shared/crypto";
import { type BootstrapLike, startTestApp, type TestApp } from "./helpers/app";
import { codeOf, gqlClient } from "./helpers/gql";
import { client, mintKeyVia } from "./helpers/http";
import {
  ApplicationScriptAssetDocument,
  ApplicationScriptDocument,
  ApplicationScriptHealthDocument,
  ApplicationScriptsDocument,
  CreateApplicationScriptDocument,
  DeleteApplicationScriptDocument,
  RecordApplicationScriptBeaconDocument,
  SetApplicationScriptKillSwitchDocument,
  UpdateApplicationScriptDocument,
} from "./generated/graphql";

let t: TestApp;
let demo: BootstrapResult;
let other: BootstrapLike;
let api: ReturnType<typeof client>;
let gql: ReturnType<typeof gqlClient>;
const clock = new FixedClock(new Date("2026-11-20T10:00:00Z"));
let key: string;
let readKey: string;
let ordersKey: string;
let origin: http.Server;
let originBase = "";
let originHits = 0;
const ORIGIN_BODY = "window.__vendor = 'v1';\n";

beforeAll(async () => {
  t = (await startTestApp({ clock }))!;
  demo = await t.bootstrap();
  other = await t.otherWorkspace("scripts-other");
  api = client(t.url);
  gql = gqlClient(t.url);
  key = demo.apiKey;
  readKey = (await mintKeyVia(api, demo, ["application_scripts:read"])).rawKey;
  ordersKey = (await mintKeyVia(api, demo, ["orders:read"])).rawKey;
  origin = http.createServer((req, res) => {
    originHits++;
    if (req.url === "/tag.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end(ORIGIN_BODY);
    if (req.url === "/moved.js") return void res.writeHead(302, { location: "/tag.js" }).end();
    if (req.url === "/big.js") return void res.writeHead(200, { "content-type": "text/javascript" }).end("x".repeat(512 * 1024 + 1));
    res.writeHead(404).end("nope");
  });
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  originBase = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => origin?.close(r));
  await t?.close();
});

// the clock is fixed: each create a millisecond later, so "newest first" is well defined
const create = (body: unknown, k = key) => {
  clock.advance(1);
  return api("POST", "application-scripts", { key: k, body });
};

async function openSession(k = key, applicationId = demo.applicationId) {
  const cart = await api("POST", "carts", { key: k, body: { applicationId } });
  await api("POST", `carts/${cart.body.data.id}/items`, { key: k, body: { name: "Widget", unitPrice: 1000, quantity: 1 } });
  const s = await api("POST", "checkout/sessions", { key: k, body: { applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/no" } });
  expect(s.status).toBe(201);
  return s.body.data.id as string;
}
const beacon = (sessionId: string, body: unknown) => api("POST", `checkout-sessions/${sessionId}/script-beacons`, { body });

/** A dashboard member with one role on the demo application. */
async function memberToken(role: "viewer" | "finance" | "developer" | "admin") {
  const db = t.deps.prisma;
  const user = await db.user.create({ data: { email: `${role}-${Date.now()}@example.com` } });
  const member = await db.member.create({ data: { workspaceId: demo.workspaceId, userId: user.id, workspaceRole: null, applicationRoles: [{ applicationId: demo.applicationId, role }], environmentGrants: { grantType: "all" } } });
  return mintDashboardToken(makeCtx(t.deps), member.id);
}

describe("CRUD", () => {
  test("an inline script: created with its hash and asset URL, read, listed, updated, deleted", async () => {
    const text = "window.__a = 1;";
    const c = await create({ name: " Analytics ", inline: text, placement: "checkout_head" });
    expect(c.status).toBe(201);
    const s = c.body.data;
    const hex = sha256Hex(text);
    expect(s).toMatchObject({
      name: "Analytics",
      src: null,
      inline: text,
      placement: "checkout_head",
      enabled: true,
      sha256: hex,
      integrity: `sha256-${Buffer.from(hex, "hex").toString("base64")}`,
      assetUrl: `${t.url}/api/v1/storefront/script-assets/${s.id}/${hex}`,
      sizeBytes: text.length,
      applicationId: demo.applicationId,
      environmentId: demo.environments.sandbox.id,
    });
    expect((await api("GET", `application-scripts/${s.id}`, { key: readKey })).body.data).toEqual(s);
    // defaults: placement checkout_body, enabled true
    const d = await create({ name: "Defaults", inline: "1" });
    expect(d.body.data).toMatchObject({ placement: "checkout_body", enabled: true });

    const list = await api("GET", "application-scripts?limit=1", { key: readKey });
    expect(list.body.data.map((x: any) => x.id)).toEqual([d.body.data.id]);
    expect(list.body.meta.pagination.hasMore).toBe(true);
    const next = await api("GET", `application-scripts?limit=1&cursor=${list.body.meta.pagination.cursor}`, { key: readKey });
    expect(next.body.data.map((x: any) => x.id)).toEqual([s.id]);

    clock.advance(1000);
    const u = await api("PATCH", `application-scripts/${s.id}`, { key, body: { name: "Renamed", placement: "checkout_body", enabled: false } });
    expect(u.status).toBe(200);
    expect(u.body.data).toMatchObject({ name: "Renamed", placement: "checkout_body", enabled: false, sha256: hex, inline: text });
    expect(u.body.data.updatedAt).not.toBe(s.updatedAt);

    // new content: a new hash and URL; the old URL keeps answering the old bytes (immutable)
    const u2 = await api("PATCH", `application-scripts/${s.id}`, { key, body: { inline: "window.__a = 2;" } });
    expect(u2.body.data.sha256).toBe(sha256Hex("window.__a = 2;"));
    expect(await (await fetch(u2.body.data.assetUrl)).text()).toBe("window.__a = 2;");
    expect(await (await fetch(s.assetUrl)).text()).toBe(text);

    const del = await api("DELETE", `application-scripts/${s.id}`, { key });
    expect(del.status).toBe(204);
    expect((await api("GET", `application-scripts/${s.id}`, { key })).status).toBe(404);
    expect((await api("PATCH", `application-scripts/${s.id}`, { key, body: { name: "x" } })).status).toBe(404);
    expect((await api("DELETE", `application-scripts/${s.id}`, { key })).status).toBe(404);
    expect((await api("GET", "application-scripts?limit=100", { key })).body.data.map((x: any) => x.id)).not.toContain(s.id);
    expect((await fetch(s.assetUrl)).status).toBe(404);
    expect((await fetch(u2.body.data.assetUrl)).status).toBe(404);
    await api("DELETE", `application-scripts/${d.body.data.id}`, { key });
  });

  test("a src script: the URL is fetched once and the stored copy is served; a pin must match", async () => {
    const before = originHits;
    const c = await create({ name: "Vendor", src: `${originBase}/tag.js` });
    expect(c.status).toBe(201);
    expect(originHits).toBe(before + 1);
    expect(c.body.data).toMatchObject({ src: `${originBase}/tag.js`, inline: null, sha256: sha256Hex(ORIGIN_BODY), sizeBytes: ORIGIN_BODY.length });
    const asset = await fetch(c.body.data.assetUrl);
    expect(await asset.text()).toBe(ORIGIN_BODY);
    expect(originHits).toBe(before + 1);

    const pinned = await create({ name: "Pinned", src: `${originBase}/tag.js`, sha256: sha256Hex(ORIGIN_BODY).toUpperCase() });
    expect(pinned.status).toBe(201);
    const wrong = await create({ name: "Pinned", src: `${originBase}/tag.js`, sha256: "0".repeat(64) });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toMatchObject({ code: "script_integrity_mismatch", details: { expected: "0".repeat(64), actual: sha256Hex(ORIGIN_BODY) } });
    const wrongInline = await api("PATCH", `application-scripts/${pinned.body.data.id}`, { key, body: { inline: "x", sha256: "1".repeat(64) } });
    expect(wrongInline.body.error.code).toBe("script_integrity_mismatch");

    // refresh from the same URL, and switch an inline script to src
    const refreshed = await api("PATCH", `application-scripts/${pinned.body.data.id}`, { key, body: { src: `${originBase}/tag.js` } });
    expect(refreshed.status).toBe(200);
    expect(originHits).toBe(before + 4);
    const toInline = await api("PATCH", `application-scripts/${pinned.body.data.id}`, { key, body: { inline: "window.__b = 1;" } });
    expect(toInline.body.data).toMatchObject({ src: null, inline: "window.__b = 1;" });
    for (const x of [c, pinned]) await api("DELETE", `application-scripts/${x.body.data.id}`, { key });
  });

  test("fetch failures and URL rules: 404, redirect, too large, bad scheme, production http and private addresses", async () => {
    const code = async (body: unknown, k = key, headers?: Record<string, string>) => {
      const r = await api("POST", "application-scripts", headers ? { token: demo.dashboardToken, headers, body } : { key: k, body });
      return [r.status, r.body.error?.code];
    };
    expect(await code({ name: "x", src: `${originBase}/missing.js` })).toEqual([422, "script_fetch_failed"]);
    expect(await code({ name: "x", src: `${originBase}/moved.js` })).toEqual([422, "script_fetch_failed"]);
    expect(await code({ name: "x", src: `${originBase}/big.js` })).toEqual([422, "script_too_large"]);
    expect(await code({ name: "x", src: "ftp://example.com/a.js" })).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "not a url" })).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "https://user:pw@example.com/a.js" })).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "http://127.0.0.1:1/a.js" })).toEqual([422, "script_fetch_failed"]);
    // production: https only, and never a loopback or private address
    const prod = { "x-service-environment-id": demo.environments.production.id };
    expect(await code({ name: "x", src: `${originBase}/tag.js` }, key, prod)).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "https://127.0.0.1/tag.js" }, key, prod)).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "https://10.0.0.8/tag.js" }, key, prod)).toEqual([422, "invalid_script_url"]);
    expect(await code({ name: "x", src: "https://localhost/tag.js" }, key, prod)).toEqual([422, "invalid_script_url"]);
    // multi-byte text under the character limit but over the byte limit
    expect(await code({ name: "x", inline: "é".repeat(300 * 1024) })).toEqual([422, "script_too_large"]);
  });

  test("environments are separate: a sandbox script is not seen from production", async () => {
    const c = await create({ name: "Sandbox only", inline: "1;" });
    const prod = { token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.production.id } };
    expect((await api("GET", `application-scripts/${c.body.data.id}`, prod)).status).toBe(404);
    expect((await api("GET", "application-scripts", prod)).body.data).toEqual([]);
    const inProd = await api("POST", "application-scripts", { ...prod, body: { name: "Prod", inline: "2;" } });
    expect(inProd.body.data.environmentId).toBe(demo.environments.production.id);
    await api("DELETE", `application-scripts/${inProd.body.data.id}`, prod);
    await api("DELETE", `application-scripts/${c.body.data.id}`, { key });
  });

  test("an environment holds at most 20 scripts (409 script_limit_reached); a deleted one frees its place", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await create({ name: `s${i}`, inline: `${i};` }, other.apiKey);
      expect(r.status).toBe(201);
      ids.push(r.body.data.id);
    }
    const over = await create({ name: "one too many", inline: "x;" }, other.apiKey);
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: "script_limit_reached", details: { limit: 20 } });
    await api("DELETE", `application-scripts/${ids[0]}`, { key: other.apiKey });
    expect((await create({ name: "fits again", inline: "y;" }, other.apiKey)).status).toBe(201);
    // the demo tenant was never near its limit
    const mine = await create({ name: "demo", inline: "z;" });
    expect(mine.status).toBe(201);
    await api("DELETE", `application-scripts/${mine.body.data.id}`, { key });
  });

  test("an Idempotency-Key replays the create", async () => {
    const first = await api("POST", "application-scripts", { key, idem: "script-create-1", body: { name: "Once", inline: "1;" } });
    const again = await api("POST", "application-scripts", { key, idem: "script-create-1", body: { name: "Once", inline: "1;" } });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    await api("DELETE", `application-scripts/${first.body.data.id}`, { key });
  });
});

describe("the public asset", () => {
  test("immutable long-cache headers, exact bytes, 304 on a matching ETag; wrong hash, unknown id and junk are 404", async () => {
    const c = await create({ name: "Asset", inline: "window.__asset = 'ü';" });
    const { id, sha256, assetUrl } = c.body.data;
    const res = await fetch(assetUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("etag")).toBe(`"${sha256}"`);
    expect(sha256Hex(Buffer.from(await res.arrayBuffer()))).toBe(sha256);
    expect((await fetch(assetUrl, { headers: { "if-none-match": `"${sha256}"` } })).status).toBe(304);

    const base = `storefront/script-assets`;
    for (const path of [`${base}/${id}/${"a".repeat(64)}`, `${base}/${id}/${sha256.slice(0, 63)}`, `${base}/${id}/${sha256.toUpperCase()}`, `${base}/${id}/not-a-hash`, `${base}/4b0c4c2e-6a4f-4a55-8a7e-1d1f0b8d9a11/${sha256}`, `${base}/nope/${sha256}`]) {
      const r = await api("GET", path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 404, "not_found"]);
    }
    // it is public: no key needed, and another tenant's key reads it the same way (the hash is the authority)
    expect((await api("GET", `${base}/${id}/${sha256}`, { key: other.apiKey })).status).toBe(200);

    const g = await gql(ApplicationScriptAssetDocument, { id, sha256 });
    expect(g.data!.applicationScriptAsset).toEqual({ scriptId: id, sha256, integrity: c.body.data.integrity, sizeBytes: c.body.data.sizeBytes, bodyBase64: Buffer.from("window.__asset = 'ü';").toString("base64") });
    expect(codeOf(await gql(ApplicationScriptAssetDocument, { id, sha256: "b".repeat(64) }))).toBe("not_found");
    await api("DELETE", `application-scripts/${id}`, { key });
  });
});

describe("kill switch and health", () => {
  test("the kill switch is off until switched; switching records when; repeating keeps the time", async () => {
    const h = await api("GET", "application-scripts/health", { key: readKey });
    expect(h.body.data.killSwitch).toEqual({ enabled: false, changedAt: null });
    const on = await api("POST", "application-scripts/kill-switch", { key, body: { enabled: true } });
    expect(on.body.data).toEqual({ enabled: true, changedAt: clock.now().toISOString() });
    const at = on.body.data.changedAt;
    clock.advance(5000);
    expect((await api("POST", "application-scripts/kill-switch", { key, body: { enabled: true } })).body.data).toEqual({ enabled: true, changedAt: at });
    expect((await api("GET", "application-scripts/health", { key })).body.data.killSwitch).toEqual({ enabled: true, changedAt: at });
    // another tenant's switch is its own
    expect((await api("GET", "application-scripts/health", { key: other.apiKey })).body.data.killSwitch.enabled).toBe(false);
    const off = await api("POST", "application-scripts/kill-switch", { key, body: { enabled: false } });
    expect(off.body.data).toEqual({ enabled: false, changedAt: clock.now().toISOString() });
  });

  test("beacons: one per session and outcome, counted per script over the last 24 hours, each a script.* event", async () => {
    const a = (await create({ name: "A", inline: "a;" })).body.data;
    const b = (await create({ name: "B", inline: "b;" })).body.data;
    const s1 = await openSession();
    const s2 = await openSession();
    const ok = async (sessionId: string, body: unknown, recorded = true) => {
      const r = await beacon(sessionId, body);
      expect([r.status, r.body.data]).toEqual([202, { recorded }]);
    };
    await ok(s1, { type: "loaded", scriptId: a.id });
    await ok(s1, { type: "loaded", scriptId: a.id }, false); // a reload: same session, same outcome
    await ok(s2, { type: "loaded", scriptId: a.id });
    await ok(s1, { type: "error", scriptId: b.id, reason: "runtime_error" });
    await ok(s1, { type: "error", scriptId: b.id }); // load_failed: another outcome
    await ok(s2, { type: "blocked", scriptId: b.id, reason: "integrity_mismatch" });
    await ok(s2, { type: "blocked", blockedUri: "https://evil.example/x.js?card=4242#frag", violatedDirective: "script-src-elem" });

    const h = (await api("GET", "application-scripts/health", { key: readKey })).body.data;
    expect(h.windowEnd).toBe(clock.now().toISOString());
    expect(new Date(h.windowEnd).getTime() - new Date(h.windowStart).getTime()).toBe(24 * 3600 * 1000);
    const row = (id: string) => h.scripts.find((x: any) => x.scriptId === id);
    expect(row(a.id)).toEqual({ scriptId: a.id, name: "A", enabled: true, deleted: false, loaded: 2, error: 0, blocked: 0, lastReportAt: clock.now().toISOString() });
    expect(row(b.id)).toMatchObject({ loaded: 0, error: 2, blocked: 1 });
    expect(h.unattributed).toEqual({ loaded: 0, error: 0, blocked: 1 });
    expect(h.totals.loaded).toBeGreaterThanOrEqual(2);
    const sum = (k: string) => h.scripts.reduce((n: number, x: any) => n + x[k], 0) + h.unattributed[k];
    for (const k of ["loaded", "error", "blocked"]) expect(sum(k)).toBe(h.totals[k]);

    // the events, readable with application_scripts:read only
    const ev = await api("GET", "events?type=script.blocked", { key: readKey });
    expect(ev.status).toBe(200);
    const unattributed = ev.body.data.find((e: any) => e.data.scriptId === null);
    expect(unattributed.data).toEqual({ checkoutSessionId: s2, scriptId: null, scriptName: null, reason: "csp_violation", blockedUri: "https://evil.example/x.js", violatedDirective: "script-src-elem" });
    const loadedEvents = await api("GET", "events?type=script.loaded", { key: readKey });
    expect(loadedEvents.body.data.filter((e: any) => e.data.scriptId === a.id)).toHaveLength(2);
    expect((await api("GET", "events?type=script.loaded", { key: ordersKey })).status).toBe(403);
    expect((await api("GET", `events/${unattributed.id}`, { key: ordersKey })).status).toBe(403);

    // a deleted script keeps its counts in the window, flagged
    await api("DELETE", `application-scripts/${b.id}`, { key });
    const h2 = (await api("GET", "application-scripts/health", { key })).body.data;
    expect(h2.scripts.find((x: any) => x.scriptId === b.id)).toMatchObject({ deleted: true, enabled: false, error: 2 });
    // another tenant sees none of it
    const ho = (await api("GET", "application-scripts/health", { key: other.apiKey })).body.data;
    expect(ho.totals).toEqual({ loaded: 0, error: 0, blocked: 0 });

    // 24 hours later they have left the window
    clock.advance(24 * 3600 * 1000 + 1);
    const later = (await api("GET", "application-scripts/health", { key })).body.data;
    expect(later.totals).toEqual({ loaded: 0, error: 0, blocked: 0 });
    expect(later.scripts.find((x: any) => x.scriptId === a.id)).toMatchObject({ loaded: 0, lastReportAt: null });
    await api("DELETE", `application-scripts/${a.id}`, { key });
  });

  test("a session records at most 50 distinct reports", async () => {
    const s = await openSession();
    for (let i = 0; i < 50; i++) expect((await beacon(s, { type: "blocked", blockedUri: `https://x.example/${i}.js` })).body.data.recorded).toBe(true);
    expect((await beacon(s, { type: "blocked", blockedUri: "https://x.example/51.js" })).body.data.recorded).toBe(false);
  });
});

describe("credentials, tenants and bad input", () => {
  let mine: any;
  let sessionId: string;
  beforeAll(async () => {
    mine = (await create({ name: "Mine", inline: "mine;" })).body.data;
    sessionId = await openSession();
  });

  test("no credential is 401 on every merchant route; a publishable key is 403", async () => {
    const pk = (await mintKeyVia(api, demo, ["publishable", "tax_calculations:write"])).rawKey;
    const routes: [string, string, unknown?][] = [
      ["POST", "application-scripts", { name: "x", inline: "1" }],
      ["GET", "application-scripts"],
      ["GET", `application-scripts/${mine.id}`],
      ["PATCH", `application-scripts/${mine.id}`, { name: "x" }],
      ["DELETE", `application-scripts/${mine.id}`],
      ["POST", "application-scripts/kill-switch", { enabled: true }],
      ["GET", "application-scripts/health"],
    ];
    for (const [m, p, body] of routes) {
      const none = await api(m, p, { body });
      expect([m, p, none.status, none.body.error.code]).toEqual([m, p, 401, "unauthorized"]);
      const pub = await api(m, p, { key: pk, body });
      expect([m, p, pub.status, pub.body.error.code]).toEqual([m, p, 403, "forbidden"]);
    }
  });

  test("scopes: read routes need application_scripts:read, writes application_scripts:write", async () => {
    for (const [m, p] of [["GET", "application-scripts"], ["GET", `application-scripts/${mine.id}`], ["GET", "application-scripts/health"]]) {
      expect((await api(m, p, { key: readKey })).status).toBe(200);
      const r = await api(m, p, { key: ordersKey });
      expect([m, p, r.status, r.body.error.code]).toEqual([m, p, 403, "insufficient_scopes"]);
    }
    for (const [m, p, body] of [
      ["POST", "application-scripts", { name: "x", inline: "1" }],
      ["PATCH", `application-scripts/${mine.id}`, { name: "x" }],
      ["DELETE", `application-scripts/${mine.id}`, undefined],
      ["POST", "application-scripts/kill-switch", { enabled: true }],
    ] as [string, string, unknown][]) {
      const r = await api(m, p, { key: readKey, body });
      expect([m, p, r.status, r.body.error.code]).toEqual([m, p, 403, "insufficient_scopes"]);
    }
    // nothing changed
    expect((await api("GET", `application-scripts/${mine.id}`, { key })).body.data.name).toBe("Mine");
    expect((await api("GET", "application-scripts/health", { key })).body.data.killSwitch.enabled).toBe(false);
  });

  test("dashboard roles: admins and developers write; finance and viewers only read", async () => {
    for (const role of ["viewer", "finance"] as const) {
      const token = await memberToken(role);
      expect((await api("GET", "application-scripts", { token })).status).toBe(200);
      expect((await api("GET", "application-scripts/health", { token })).status).toBe(200);
      for (const [m, p, body] of [
        ["POST", "application-scripts", { name: "x", inline: "1" }],
        ["PATCH", `application-scripts/${mine.id}`, { name: "x" }],
        ["DELETE", `application-scripts/${mine.id}`, undefined],
        ["POST", "application-scripts/kill-switch", { enabled: true }],
      ] as [string, string, unknown][]) {
        const r = await api(m, p, { token, body, headers: { "x-service-environment-id": demo.environments.sandbox.id } });
        expect([role, m, p, r.status, r.body.error.code]).toEqual([role, m, p, 403, "permission_denied"]);
      }
    }
    for (const role of ["developer", "admin"] as const) {
      const token = await memberToken(role);
      const c = await api("POST", "application-scripts", { token, headers: { "x-service-environment-id": demo.environments.sandbox.id }, body: { name: role, inline: "1;" } });
      expect([role, c.status]).toEqual([role, 201]);
      expect((await api("DELETE", `application-scripts/${c.body.data.id}`, { token, headers: { "x-service-environment-id": demo.environments.sandbox.id } })).status).toBe(204);
    }
  });

  test("another tenant's script is 404 on every route, and its list, health and beacons never show it", async () => {
    const k = other.apiKey;
    expect((await api("GET", `application-scripts/${mine.id}`, { key: k })).status).toBe(404);
    expect((await api("PATCH", `application-scripts/${mine.id}`, { key: k, body: { enabled: false } })).status).toBe(404);
    expect((await api("DELETE", `application-scripts/${mine.id}`, { key: k })).status).toBe(404);
    expect((await api("GET", "application-scripts?limit=100", { key: k })).body.data.map((x: any) => x.id)).not.toContain(mine.id);
    expect((await api("GET", "application-scripts/health", { key: k })).body.data.scripts.map((x: any) => x.scriptId)).not.toContain(mine.id);
    // a beacon from the other tenant's checkout cannot name this tenant's script
    const theirs = await openSession(k, other.applicationId);
    const r = await beacon(theirs, { type: "loaded", scriptId: mine.id });
    expect([r.status, r.body.error.code]).toEqual([404, "not_found"]);
    // the script is untouched
    expect((await api("GET", `application-scripts/${mine.id}`, { key })).body.data).toMatchObject({ enabled: true, name: "Mine" });
  });

  test("bad input on create and update: 422 naming the field, never 500", async () => {
    const cases: [unknown, string][] = [
      [{ inline: "1" }, "name"],
      [{ name: "", inline: "1" }, "name"],
      [{ name: "x".repeat(101), inline: "1" }, "name"],
      [{ name: "x" }, "src"],
      [{ name: "x", src: "https://a.example/a.js", inline: "1" }, "inline"],
      [{ name: "x", inline: "" }, "inline"],
      [{ name: "x", inline: 5 }, "inline"],
      [{ name: "x", inline: "1", placement: "footer" }, "placement"],
      [{ name: "x", inline: "1", enabled: "yes" }, "enabled"],
      [{ name: "x", inline: "1", sha256: "abc" }, "sha256"],
      [{ name: "x", inline: "1", color: "red" }, "color"],
      [{ name: "x", inline: "1\u0000" }, "inline"],
      [[1, 2], "expected object"],
    ];
    for (const [body, field] of cases) {
      const r = await create(body);
      expect([JSON.stringify(body).slice(0, 60), r.status, r.body.error.code]).toEqual([JSON.stringify(body).slice(0, 60), 422, "validation_error"]);
      expect(JSON.stringify(r.body.error.details?.issues ?? r.body.error.message)).toContain(field);
    }
    const updates: [unknown, string][] = [
      [{ sha256: "a".repeat(64) }, "sha256"],
      [{ src: "https://a.example/a.js", inline: "1" }, "inline"],
      [{ placement: "anywhere" }, "placement"],
      [{ enabled: null }, "enabled"],
      [{ name: "   " }, "name"],
      [{ unknown: 1 }, "unknown"],
    ];
    for (const [body, field] of updates) {
      const r = await api("PATCH", `application-scripts/${mine.id}`, { key, body });
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([JSON.stringify(body), 422, "validation_error"]);
      expect(JSON.stringify(r.body.error.details.issues)).toContain(field);
    }
    expect((await api("POST", "application-scripts", { key, raw: "{nope" })).body.error.code).toBe("invalid_json");
    expect((await api("PATCH", `application-scripts/${mine.id}`, { key, raw: "{nope" })).body.error.code).toBe("invalid_json");
    for (const id of ["nope", "00000000-0000-0000-0000-000000000000", "4b0c4c2e-6a4f-4a55-8a7e-1d1f0b8d9a11"]) {
      expect((await api("GET", `application-scripts/${id}`, { key })).status).toBe(404);
      expect((await api("PATCH", `application-scripts/${id}`, { key, body: { name: "x" } })).status).toBe(404);
      expect((await api("DELETE", `application-scripts/${id}`, { key })).status).toBe(404);
    }
  });

  test("bad input on list, kill switch and beacons", async () => {
    for (const q of ["limit=0", "limit=101", "limit=x", "cursor=garbage", "color=red"]) {
      const r = await api("GET", `application-scripts?${q}`, { key });
      expect([q, r.status, r.body.error.code]).toEqual([q, 422, "validation_error"]);
    }
    for (const body of [{}, { enabled: "yes" }, { enabled: 1 }, { enabled: true, extra: 1 }, [true]]) {
      const r = await api("POST", "application-scripts/kill-switch", { key, body });
      expect([JSON.stringify(body), r.status, r.body.error.code]).toEqual([JSON.stringify(body), 422, "validation_error"]);
    }
    expect((await api("POST", "application-scripts/kill-switch", { key, raw: "{" })).body.error.code).toBe("invalid_json");

    const bad: [unknown, string][] = [
      [{}, "type"],
      [{ type: "exploded", scriptId: mine.id }, "type"],
      [{ type: "loaded" }, "scriptId"],
      [{ type: "error" }, "scriptId"],
      [{ type: "blocked" }, "blockedUri"],
      [{ type: "loaded", scriptId: "nope" }, "scriptId"],
      [{ type: "loaded", scriptId: mine.id, reason: "csp_violation" }, "reason"],
      [{ type: "error", scriptId: mine.id, reason: "integrity_mismatch" }, "reason"],
      [{ type: "blocked", scriptId: mine.id, violatedDirective: "script-src; evil" }, "violatedDirective"],
      [{ type: "blocked", blockedUri: "x".repeat(2049) }, "blockedUri"],
      [{ type: "loaded", scriptId: mine.id, extra: true }, "extra"],
    ];
    for (const [body, field] of bad) {
      const r = await beacon(sessionId, body);
      expect([JSON.stringify(body).slice(0, 80), r.status, r.body.error.code]).toEqual([JSON.stringify(body).slice(0, 80), 422, "validation_error"]);
      expect(JSON.stringify(r.body.error.details.issues)).toContain(field);
    }
    for (const id of ["nope", "4b0c4c2e-6a4f-4a55-8a7e-1d1f0b8d9a11"]) {
      const r = await beacon(id, { type: "loaded", scriptId: mine.id });
      expect([id, r.status, r.body.error.code]).toEqual([id, 404, "session_not_found"]);
    }
    const unknownScript = await beacon(sessionId, { type: "loaded", scriptId: "4b0c4c2e-6a4f-4a55-8a7e-1d1f0b8d9a11" });
    expect([unknownScript.status, unknownScript.body.error.code]).toEqual([404, "not_found"]);
    expect((await beacon(sessionId, undefined)).status).toBe(422);
    expect((await api("POST", `checkout-sessions/${sessionId}/script-beacons`, { raw: "{" })).body.error.code).toBe("invalid_json");
  });
});

describe("GraphQL", () => {
  test("the same operations and codes", async () => {
    clock.advance(1);
    const c = await gql(CreateApplicationScriptDocument, { name: "Gql", inline: "window.__g = 1;", placement: "checkout_head" }, { key });
    expect(c.errors).toBeNull();
    const s = c.data!.createApplicationScript;
    expect(s).toMatchObject({ name: "Gql", placement: "checkout_head", enabled: true, sha256: sha256Hex("window.__g = 1;"), src: null });
    const rest = (await api("GET", `application-scripts/${s.id}`, { key })).body.data;
    expect(s).toEqual(rest);

    expect((await gql(ApplicationScriptDocument, { id: s.id }, { key: readKey })).data!.applicationScript).toEqual(rest);
    const list = await gql(ApplicationScriptsDocument, { limit: 1 }, { key: readKey });
    expect(list.data!.applicationScripts.nodes.map((n) => n.id)).toEqual([s.id]);
    expect(list.data!.applicationScripts.pageInfo.hasMore).toBe(true);

    const u = await gql(UpdateApplicationScriptDocument, { id: s.id, enabled: false, placement: "checkout_body" }, { key });
    expect(u.data!.updateApplicationScript).toMatchObject({ enabled: false, placement: "checkout_body", sha256: s.sha256 });

    const session = await openSession();
    const b = await gql(RecordApplicationScriptBeaconDocument, { checkoutSessionId: session, type: "loaded", scriptId: s.id });
    expect(b.data!.recordApplicationScriptBeacon).toEqual({ recorded: true });
    expect((await gql(RecordApplicationScriptBeaconDocument, { checkoutSessionId: session, type: "loaded", scriptId: s.id })).data!.recordApplicationScriptBeacon).toEqual({ recorded: false });
    const h = await gql(ApplicationScriptHealthDocument, {}, { key: readKey });
    expect(h.data!.applicationScriptHealth.scripts.find((x) => x.scriptId === s.id)).toMatchObject({ loaded: 1, error: 0, blocked: 0, enabled: false });

    const k = await gql(SetApplicationScriptKillSwitchDocument, { enabled: true }, { key });
    expect(k.data!.setApplicationScriptKillSwitch.enabled).toBe(true);
    expect((await gql(ApplicationScriptHealthDocument, {}, { key })).data!.applicationScriptHealth.killSwitch.enabled).toBe(true);
    await gql(SetApplicationScriptKillSwitchDocument, { enabled: false }, { key });

    // codes
    expect(codeOf(await gql(CreateApplicationScriptDocument, { name: "x", inline: "1" }, { key: readKey }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(ApplicationScriptsDocument, {}, { key: ordersKey }))).toBe("insufficient_scopes");
    expect(codeOf(await gql(ApplicationScriptsDocument, {}))).toBe("unauthorized");
    expect(codeOf(await gql(CreateApplicationScriptDocument, { name: "x" }, { key }))).toBe("validation_error");
    expect(codeOf(await gql(CreateApplicationScriptDocument, { name: "x", inline: "1", sha256: "c".repeat(64) }, { key }))).toBe("script_integrity_mismatch");
    expect(codeOf(await gql(ApplicationScriptDocument, { id: s.id }, { key: other.apiKey }))).toBe("not_found");
    expect(codeOf(await gql(UpdateApplicationScriptDocument, { id: s.id, name: "theirs" }, { key: other.apiKey }))).toBe("not_found");
    expect(codeOf(await gql(DeleteApplicationScriptDocument, { id: s.id }, { key: other.apiKey }))).toBe("not_found");
    expect(codeOf(await gql(RecordApplicationScriptBeaconDocument, { checkoutSessionId: session, type: "loaded" }))).toBe("validation_error");
    expect(codeOf(await gql(RecordApplicationScriptBeaconDocument, { checkoutSessionId: "4b0c4c2e-6a4f-4a55-8a7e-1d1f0b8d9a11", type: "loaded", scriptId: s.id }))).toBe("session_not_found");

    expect((await gql(DeleteApplicationScriptDocument, { id: s.id }, { key })).data!.deleteApplicationScript).toBe(true);
    expect(codeOf(await gql(ApplicationScriptDocument, { id: s.id }, { key }))).toBe("not_found");
  });
});
