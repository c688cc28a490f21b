// Secrets are shown once: an Idempotency-Key replay of a secret-minting request returns the resource with the
// secret as null, and no table holds a raw secret (keys and tokens are hashed, signing secrets sealed).
import { startWithDemo, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import { startReceiver } from "./helpers/receiver";
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { isSealed, openSecret, sealSecret } from "../src/shared/secrets";
import { sealLegacySigningSecrets, SIGNING_SECRET_PURPOSE } from "../src/webhooks/endpoints.service";

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
