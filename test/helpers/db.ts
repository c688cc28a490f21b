// Test databases: a fresh PostgreSQL database per test file when DATABASE_URL is set (or when a test asks for
// the real server), else in-memory PGlite.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { Client } from "pg";

export const DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/postgres";

/** The server URL to create test databases on: DATABASE_URL, else the local default if it answers. */
export async function reachablePgUrl(): Promise<string | null> {
  const candidates = [process.env.DATABASE_URL, process.env.TEST_DATABASE_URL, DEFAULT_PG_URL].filter(Boolean) as string[];
  for (const url of candidates) {
    const c = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await c.connect();
      await c.end();
      return url;
    } catch {
      await c.end().catch(() => {});
    }
  }
  return null;
}

/** The Redis the cross-process tests use: REDIS_URL, else the local default. */
export const testRedisUrl = () => process.env.REDIS_URL || "redis://127.0.0.1:6379";

/** Whether that Redis answers a PING. */
export async function redisReachable(url = testRedisUrl()): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/** Creates an empty database on the server of `serverUrl`; returns its URL and a dropper. */
export async function createTestDatabase(serverUrl: string) {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}
