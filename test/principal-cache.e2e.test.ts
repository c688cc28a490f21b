// The API-key principal cache (src/shared/principal-cache.ts): a warm key costs no statement, and a revoked key
// (or one of an archived environment) fails on the very next request in every process sharing the database.
import { PrincipalCache } from "../src/shared/principal-cache";
import type { Principal } from "../src/shared/principal";
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";
import { statementsOf } from "./helpers/statements";

const P = (keyId: string) => ({ apiKey: { id: keyId } }) as unknown as Principal;

describe("unit", () => {
  test("a lookup that raced with an invalidation is not stored; entries expire; key:<id> drops only that key", () => {
    const c = new PrincipalCache(1_000);
    const g = c.mark();
    c.apply("key:k1");
    c.set("h1", P("k1"), 0, g);
    expect(c.get("h1", 1)).toBeNull();
    c.set("h1", P("k1"), 0, c.mark());
    c.set("h2", P("k2"), 0, c.mark());
    expect(c.get("h1", 999)).not.toBeNull();
    expect(c.get("h1", 1_000)).toBeNull(); // expired
    c.set("h1", P("k1"), 0, c.mark());
    c.apply("key:k1");
    expect([c.get("h1", 1), c.get("h2", 1)?.apiKey?.id]).toEqual([null, "k2"]);
    c.apply("all");
    expect(c.size).toBe(0);
    const off = new PrincipalCache(0);
    off.set("h", P("k"), 0, off.mark());
    expect(off.get("h", 1)).toBeNull();
  });
});

describe("two processes on one PostgreSQL database", () => {
  let a: TestApp | null;
  let b: TestApp | null;
  beforeAll(async () => {
    a = await startPgApp({ worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_AUTH_FAILURES_PER_IP: "off" } }); // 40 deliberate 401s
    if (!a) return; // no PostgreSQL: every test below is registered as skipped
    b = await startTestApp({ databaseUrl: a.databaseUrl, worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off", RATE_LIMIT_AUTH_FAILURES_PER_IP: "off" } }); // 40 deliberate 401s
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  pgTest("a warm key costs no statement; revoked through one process, it fails on the next request in the other (20 keys)", async () => {
    if (!a || !b) throw notStarted();
    const demo = await a.bootstrap();
    const [apiA, apiB] = [client(a.url), client(b.url)];
    for (let i = 0; i < 20; i++) {
      const k = await mintKeyVia(apiA, demo, ["*"], demo.environments.sandbox.id, `cache-${i}`);
      expect((await apiA("GET", "whoami", { key: k.rawKey })).status).toBe(200);
      expect((await apiB("GET", "whoami", { key: k.rawKey })).status).toBe(200);
      if (i === 0) {
        const warm = await statementsOf(() => apiB("GET", "whoami", { key: k.rawKey }));
        expect({ status: warm.result.status, statements: warm.statements }).toEqual({ status: 200, statements: [] });
      }
      const revoke = await apiA("DELETE", `api-keys/${k.id}`, { token: demo.dashboardToken });
      expect(revoke.status).toBe(204);
      const [onB, onA] = [await apiB("GET", "whoami", { key: k.rawKey }), await apiA("GET", "whoami", { key: k.rawKey })];
      expect({ i, b: onB.status, a: onA.status }).toEqual({ i, b: 401, a: 401 });
    }
  });

  pgTest("archiving an environment stops its cached keys at once in the other process", async () => {
    if (!a || !b) throw notStarted();
    const demo = await a.bootstrap();
    const [apiA, apiB] = [client(a.url), client(b.url)];
    const env = await apiA("POST", `workspaces/${demo.workspaceId}/environments`, { token: demo.dashboardToken, body: { slug: "cache-env", name: "Cache env" } });
    expect(env.status).toBe(201);
    const k = await mintKeyVia(apiA, demo, ["*"], env.body.data.id, "env-key");
    expect((await apiB("GET", "whoami", { key: k.rawKey })).status).toBe(200);
    expect((await apiB("GET", "whoami", { key: k.rawKey })).status).toBe(200);
    expect((await apiA("DELETE", `workspaces/${demo.workspaceId}/environments/${env.body.data.id}`, { token: demo.dashboardToken })).status).toBe(200);
    expect((await apiB("GET", "whoami", { key: k.rawKey })).status).toBe(401);
  });

  pgTest("while the LISTEN connection is down nothing is cached (every request looks the key up), and caching resumes after", async () => {
    if (!a || !b) throw notStarted();
    const demo = await a.bootstrap();
    const apiB = client(b.url);
    await apiB("GET", "whoami", { key: demo.apiKey });
    expect(b.deps.principals!.live).toBe(true);
    await a.deps.prisma.$executeRawUnsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'principal-cache' AND datname = current_database()`);
    for (let i = 0; i < 50 && b.deps.principals!.live; i++) await new Promise((r) => setTimeout(r, 20));
    expect(b.deps.principals!.live).toBe(false);
    expect(b.deps.principals!.size).toBe(0);
    const cold = await statementsOf(() => apiB("GET", "whoami", { key: demo.apiKey }));
    expect(cold.result.status).toBe(200);
    expect(cold.statements.length).toBe(1);
    for (let i = 0; i < 100 && !b.deps.principals!.live; i++) await new Promise((r) => setTimeout(r, 50));
    expect(b.deps.principals!.live).toBe(true);
    await apiB("GET", "whoami", { key: demo.apiKey });
    const warm = await statementsOf(() => apiB("GET", "whoami", { key: demo.apiKey }));
    expect(warm.statements).toEqual([]);
  });

  pgTest("closed while its LISTEN connection is being opened, a cache leaves no connection behind", async () => {
    if (!a || !b) throw notStarted();
    const listeners = async () =>
      Number((await a!.deps.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'principal-cache' AND datname = current_database()`))[0].n);
    const before = await listeners();
    const c = new PrincipalCache(1_000, a.databaseUrl);
    const starting = c.start();
    await c.close(); // while start() waits for its connection
    await starting;
    expect(c.live).toBe(false);
    // a backend takes a moment to leave pg_stat_activity after its client ends
    let now = await listeners();
    for (let i = 0; i < 100 && now !== before; i++) now = await new Promise((r) => setTimeout(r, 50)).then(listeners);
    expect(now).toBe(before);
  });
});
