// Two service processes on one PostgreSQL database and one Redis (the scale-out set-up): the live-event tests use
// it to show that an event committed by one process reaches a subscriber of the other, and that unsubscribing frees
// the Redis channel at once.
import Redis from "ioredis";
import { notStarted, startPgApp, startTestApp, type TestApp } from "./app";
import { testRedisUrl } from "./db";

/**
 * Starts the two processes for the enclosing describe block (beforeAll/afterAll); the tests that use them are
 * `pgRedisTest`s, registered as skipped when Redis or PostgreSQL does not answer. The getter throws when not started.
 */
export function twoProcessesOnRedis(): () => { p1: TestApp; p2: TestApp; redisUrl: string } {
  const redisUrl = testRedisUrl();
  let p1: TestApp | null = null;
  let p2: TestApp | null = null;
  beforeAll(async () => {
    if (process.env.Q2C_TEST_REDIS_REACHABLE !== "1") return;
    p1 = await startPgApp({ redisUrl });
    if (!p1) return;
    p2 = await startTestApp({ databaseUrl: p1.databaseUrl, redisUrl });
  });
  afterAll(async () => {
    await p2?.close();
    await p1?.close();
  });
  return () => {
    if (!p1 || !p2) throw notStarted();
    return { p1, p2, redisUrl };
  };
}

/** The tenant's event channel has one subscriber, and none within 3 s of `unsubscribe` (not at the next event). */
export async function expectChannelReleased(redisUrl: string, tenant: { applicationId: string; environments: { sandbox: { id: string } } }, unsubscribe: () => void) {
  const channel = `events:${tenant.applicationId}:${tenant.environments.sandbox.id}`;
  const redis = new Redis(redisUrl);
  try {
    const subscribers = async () => Number(((await redis.pubsub("NUMSUB", channel)) as [string, number])[1]);
    expect(await subscribers()).toBe(1);
    unsubscribe();
    const start = Date.now();
    while ((await subscribers()) !== 0 && Date.now() - start < 3_000) await new Promise((r) => setTimeout(r, 50));
    expect(await subscribers()).toBe(0);
  } finally {
    redis.disconnect();
  }
}
