// Secrets are shown once: an Idempotency-Key replay of a secret-minting request returns the resource with the
// secret as null, and no table holds a raw secret (keys and tokens are hashed, signing secrets sealed).
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { isSealed, openSecret, redactSecrets, sealSecret } from "../src/shared/secrets";
import { sealLegacySigningSecrets, SIGNING_SECRET_PURPOSE } from "../src/webhooks/endpoints.service";
import { basic, createExtension, install, publishVersion } from "./helpers/extensions";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  ({ t, api, demo } = await startWithDemo());
  rx = await startReceiver();
});
afterAll(async () => {
  await rx?.close();
  await t?.close();
});

const dash = () => ({ token: demo.dashboardToken, headers: { "x-service-environment-id": demo.environments.sandbox.id } });

/** Rows of every table whose text form contains `needle`, as "Table" names. */
async function tablesHolding(needle: string): Promise<string[]> {
  const tables = await t.deps.prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  expect(tables.length).toBeGreaterThan(10);
  const hits: string[] = [];
  for (const { name } of tables) {
    const [{ n }] = await t.deps.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${name}" x WHERE strpos(x::text, $1) > 0`, needle);
    if (n > 0) hits.push(name);
  }
  return hits;
}

test("POST /api-keys replayed with its Idempotency-Key returns the key without rawKey, before and after revocation", async () => {
  const first = await api("POST", "api-keys", { ...dash(), body: { name: "replayed", scopes: ["carts:read"] }, idem: "mint-1" });
  expect(first.status).toBe(201);
  expect(first.body.data.rawKey).toMatch(/^sk_sandbox_/);
  const replay = await api("POST", "api-keys", { ...dash(), body: { name: "replayed", scopes: ["carts:read"] }, idem: "mint-1" });
  expect(replay.status).toBe(201);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.data).toEqual({ ...first.body.data, rawKey: null });
  expect(JSON.stringify(replay.body)).not.toContain(first.body.data.rawKey);

  expect((await api("DELETE", `api-keys/${first.body.data.id}`, dash())).status).toBe(204);
  const afterRevoke = await api("POST", "api-keys", { ...dash(), body: { name: "replayed", scopes: ["carts:read"] }, idem: "mint-1" });
  expect(afterRevoke.body.data.rawKey).toBeNull();
  // The key itself still works until revoked, and is dead after.
  expect((await api("GET", "whoami", { key: first.body.data.rawKey })).status).toBe(401);
});

test("webhook secrets (create and rotate) are not replayed", async () => {
  const body = { url: rx.url, enabledEvents: ["order.created"] };
  const created = await api("POST", "webhook-endpoints", { key: demo.apiKey, body, idem: "wh-1" });
  expect(created.status).toBe(201);
  expect(created.body.data.secret).toMatch(/^whsec_/);
  const replay = await api("POST", "webhook-endpoints", { key: demo.apiKey, body, idem: "wh-1" });
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.data).toEqual({ ...created.body.data, secret: null });

  const path = `webhook-endpoints/${created.body.data.id}/rotate-secret`;
  const rotated = await api("POST", path, { key: demo.apiKey, body: { graceSeconds: 60 }, idem: "rot-1" });
  expect(rotated.body.data.secret).toMatch(/^whsec_/);
  const rotReplay = await api("POST", path, { key: demo.apiKey, body: { graceSeconds: 60 }, idem: "rot-1" });
  expect(rotReplay.headers.get("idempotent-replayed")).toBe("true");
  expect(rotReplay.body.data.secret).toBeNull();
  expect(rotReplay.body.data.id).toBe(created.body.data.id);
});

test("no table holds a raw secret after minting one of each kind", async () => {
  const key = await api("POST", "api-keys", { ...dash(), body: { name: "scan", scopes: ["*"] }, idem: "scan-key" });
  const pk = await api("POST", "api-keys", { ...dash(), body: { name: "scan-pk", scopes: ["publishable", "shipping_quotes:write"] } });
  const ep = await api("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: rx.url, enabledEvents: ["cart.created"] }, idem: "scan-ep" });
  const rot = await api("POST", `webhook-endpoints/${ep.body.data.id}/rotate-secret`, { key: demo.apiKey, body: { graceSeconds: 3600 }, idem: "scan-rot" });
  const embed = await api("POST", "checkout-sessions/embed-token", { key: demo.apiKey, body: { amount: 500, currency: "USD" }, idem: "scan-embed" });
  const secrets = {
    secretKey: key.body.data.rawKey,
    publishableKey: pk.body.data.rawKey,
    bootstrapKey: demo.apiKey,
    dashboardToken: demo.dashboardToken,
    signingSecret: ep.body.data.secret,
    rotatedSigningSecret: rot.body.data.secret,
    embedToken: embed.body.data.embedToken,
  };
  for (const [kind, value] of Object.entries(secrets)) {
    expect(typeof value).toBe("string");
    // The random part alone: a prefix such as keyPrefix is meant to be stored.
    const tail = String(value).slice(-20);
    expect({ kind, tables: await tablesHolding(tail) }).toEqual({ kind, tables: [] });
  }
  // The scan itself finds what is there: the key's stored prefix is in ApiKey.
  expect(await tablesHolding(key.body.data.keyPrefix)).toContain("ApiKey");

  // Deliveries still sign with the real secrets (both during the rotation window).
  const row = await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.body.data.id } });
  expect(isSealed(row.secret) && isSealed(row.previousSecret!)).toBe(true);
  expect(openSecret(t.deps.config, SIGNING_SECRET_PURPOSE, row.secret)).toBe(secrets.rotatedSigningSecret);
  expect(openSecret(t.deps.config, SIGNING_SECRET_PURPOSE, row.previousSecret!)).toBe(secrets.signingSecret);
});

test("a sealed secret opens only for its purpose and key; plaintext from before sealing is sealed at start-up", async () => {
  const sealed = sealSecret(t.deps.config, SIGNING_SECRET_PURPOSE, "whsec_abc");
  expect(() => openSecret(t.deps.config, "other-purpose", sealed)).toThrow();
  expect(() => openSecret({ ...t.deps.config, SECRET_KEY: "another-key-another-key-another-key!" }, SIGNING_SECRET_PURPOSE, sealed)).toThrow();

  const ep = await api("POST", "webhook-endpoints", { key: demo.apiKey, body: { url: rx.url, enabledEvents: ["cart.created"] } });
  await t.deps.prisma.webhookEndpoint.update({ where: { id: ep.body.data.id }, data: { secret: "whsec_legacyPlaintextSecret0000000" } });
  expect(await sealLegacySigningSecrets(t.deps)).toBeGreaterThanOrEqual(1);
  const row = await t.deps.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: ep.body.data.id } });
  expect(isSealed(row.secret)).toBe(true);
  expect(openSecret(t.deps.config, SIGNING_SECRET_PURPOSE, row.secret)).toBe("whsec_legacyPlaintextSecret0000000");
  expect(await sealLegacySigningSecrets(t.deps)).toBe(0);
});

// ---- wallet client tokens, vault embed tokens and installation keys (issue 34 items 12 and 13) --------------------

async function walletCustomer() {
  const c = await api("POST", "customers", { key: demo.apiKey, body: { email: `w${Math.random().toString(36).slice(2)}@example.com` } });
  expect(c.status).toBe(201);
  const sub = await t.deps.prisma.subscription.create({
    data: {
      applicationId: demo.applicationId,
      environmentId: demo.environments.sandbox.id,
      customerId: c.body.data.id,
      status: "active",
      planReference: "pro",
      interval: "monthly",
      amount: 1500,
      quantity: 1,
      currency: "USD",
      currentPeriodStart: new Date(),
      currentPeriodEnd: new Date(Date.now() + 30 * 86_400_000),
    },
  });
  return { customerId: c.body.data.id as string, subscriptionId: sub.id };
}

async function gqlPost(query: string, variables: Record<string, unknown>, headers: Record<string, string>) {
  const res = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ query, variables }) });
  return { status: res.status, replayed: res.headers.get("idempotent-replayed"), body: (await res.json()) as any };
}

test("a wallet client token (pmt_) is shown once: a REST replay returns token and updateCardUrl as null, and the token stays usable", async () => {
  const { customerId, subscriptionId } = await walletCustomer();
  const body = { customerId, subscriptionId };
  const first = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body, idem: "pmt-rest-1" });
  expect(first.status).toBe(201);
  const token = first.body.data.token as string;
  expect(token).toMatch(/^pmt_/);
  expect(first.body.data.updateCardUrl).toContain(token);
  const replay = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body, idem: "pmt-rest-1" });
  expect(replay.status).toBe(201);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.data).toEqual({ ...first.body.data, token: null, updateCardUrl: null });
  expect(JSON.stringify(replay.body)).not.toContain(token.slice(4));
  // another body with the key: refused; the minted token works
  const reused = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId }, idem: "pmt-rest-1" });
  expect([reused.status, reused.body.error.code]).toEqual([422, "idempotency_key_reused"]);
  expect((await api("GET", "me/payment-methods", { headers: { "x-service-pm-token": token } })).status).toBe(200);
  expect(await tablesHolding(token.slice(-20))).toEqual([]);
});

test("createPaymentMethodClientToken replayed over GraphQL returns token and updateCardUrl as null; nothing stored holds the token", async () => {
  const { customerId, subscriptionId } = await walletCustomer();
  const q = "mutation($c: ID!, $s: ID) { createPaymentMethodClientToken(customerId: $c, subscriptionId: $s) { token expiresAt customerId subscriptionId updateCardUrl } }";
  const headers = { "x-api-key": demo.apiKey, "idempotency-key": "pmt-gql-1" };
  const first = await gqlPost(q, { c: customerId, s: subscriptionId }, headers);
  expect(first.body.errors).toBeUndefined();
  const minted = first.body.data.createPaymentMethodClientToken;
  expect(minted.token).toMatch(/^pmt_/);
  const again = await gqlPost(q, { c: customerId, s: subscriptionId }, headers);
  expect(again.replayed).toBe("true");
  expect(again.body.data.createPaymentMethodClientToken).toEqual({ ...minted, token: null, updateCardUrl: null });
  expect(await tablesHolding(minted.token.slice(-20))).toEqual([]);
});

test("a vault embed token (POST /me/payment-methods/embed-token) is shown once: a replay returns embedToken null; no table holds it", async () => {
  const { customerId } = await walletCustomer();
  const minted = await api("POST", "payment-methods/client-token", { key: demo.apiKey, body: { customerId } });
  const pm = { headers: { "x-service-pm-token": minted.body.data.token as string } };
  const first = await api("POST", "me/payment-methods/embed-token", { ...pm, idem: "vault-1" });
  expect(first.status).toBe(201);
  const embed = first.body.data.embedToken as string;
  expect(embed).toMatch(/^emb_/);
  const replay = await api("POST", "me/payment-methods/embed-token", { ...pm, idem: "vault-1" });
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.data).toEqual({ ...first.body.data, embedToken: null });
  expect(await tablesHolding(embed.slice(-20))).toEqual([]);
  // the replayed session is the same one: it still vaults a card
  const confirmed = await api("POST", "me/payment-methods/confirm", { ...pm, body: { checkoutSessionId: replay.body.data.checkoutSessionId, paymentToken: "tok_visa" } });
  expect(confirmed.status).toBe(201);
});

test("POST /installations/{id}/api-key honours Idempotency-Key: the replay mints nothing and returns apiKey null; another body is 422", async () => {
  const ext = await createExtension(api, demo.dashboardToken, { name: `Idem ext ${Math.random().toString(36).slice(2, 8)}`, scopes: ["orders:read"] });
  const version = await publishVersion(api, demo.dashboardToken, ext.id);
  const c = await api("POST", `extensions/${ext.id}/client-credentials`, { token: demo.dashboardToken, body: {} });
  expect(c.status).toBe(201);
  const auth = { authorization: basic(c.body.data.clientId, c.body.data.clientSecret) };
  const inst = await install(api, demo.dashboardToken, ext.id, version.id, demo.applicationId, demo.environments.sandbox.id);
  const p = `installations/${inst.id}/api-key`;
  const keys = () => t.deps.prisma.apiKey.count({ where: { installationId: inst.id } });

  const first = await api("POST", p, { headers: auth, body: { graceSeconds: 60 }, idem: "inst-key-1" });
  expect(first.status).toBe(201);
  expect(first.body.data.apiKey).toMatch(/^sk_sandbox_/);
  const minted = await keys();
  const replay = await api("POST", p, { headers: auth, body: { graceSeconds: 60 }, idem: "inst-key-1" });
  expect(replay.status).toBe(201);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.data).toEqual({ ...first.body.data, apiKey: null });
  expect(await keys()).toBe(minted);
  const reused = await api("POST", p, { headers: auth, body: { graceSeconds: 0 }, idem: "inst-key-1" });
  expect([reused.status, reused.body.error.code]).toEqual([422, "idempotency_key_reused"]);
  expect(await keys()).toBe(minted);
  // the key of the first answer is the live one; nothing stored holds it
  expect((await api("GET", "whoami", { key: first.body.data.apiKey })).status).toBe(200);
  expect(await tablesHolding(first.body.data.apiKey.slice(-20))).toEqual([]);
  // the record belongs to the extension's client, not to whoever shares its address
  const rec = await t.deps.prisma.idempotencyKey.findFirstOrThrow({ where: { key: "inst-key-1" } });
  expect(rec.credentialId).toBe(`extc:${c.body.data.clientId}`);
});

test("a logged URL keeps no bearer secret: the update-card page's pmt_ token and the others are redacted", () => {
  const pmt = "pmt_Z3eATvpFBpRFffMIMDZSjwac7PxLDvevdCke0QcL";
  expect(redactSecrets(`/billing/${pmt}?done=added`)).toBe("/billing/pmt_[redacted]?done=added");
  expect(redactSecrets("/q/qt_abcdefghijklmnopqrstuvwxyz012345 /invites/inv_abcdefghijklmnop")).toBe("/q/qt_[redacted] /invites/inv_[redacted]");
  expect(redactSecrets("key sk_sandbox_abcdefghijklmnop")).toBe("key sk_sandbox_[redacted]");
  expect(redactSecrets("/api/v1/orders/5b0f0d4e-1c8c-4a37-9d1e-0e6f1b0c1d2e")).toBe("/api/v1/orders/5b0f0d4e-1c8c-4a37-9d1e-0e6f1b0c1d2e");
});
