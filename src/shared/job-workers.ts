// Which job workers are alive. A process that runs the Agenda schedules (npm start without --no-jobs, or
// npm run jobs) writes a heartbeat every 20 seconds; verbs that hand work to a worker (imports) answer 503
// queue_unavailable when none has been seen for a minute, rather than accepting work nobody will do. Times are the
// database's clock (now()), so every process agrees and a test's injected business clock does not age them.
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { sql } from "kysely";
import type { DbHandle } from "./context";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { DomainError } from "./errors";

const HEARTBEAT_MS = 20_000;
const WORKER_STALE_SECONDS = 60;

export async function beat(db: DbHandle, workerId: string) {
  await sqlInPrisma(db)
    .insertInto("JobWorker")
    .values({ id: workerId, startedAt: sql`now()`, lastSeenAt: sql`now()` })
    .onConflict((oc) => oc.column("id").doUpdateSet({ lastSeenAt: sql`now()` }))
    .execute();
}

/** Starts the heartbeat of this process's worker; the returned stop() removes it (a clean shutdown is seen at once). */
export async function startHeartbeat(prisma: PrismaClient, workerId = `${process.pid}-${randomUUID().slice(0, 8)}`) {
  await beat(prisma, workerId);
  const timer = setInterval(() => void beat(prisma, workerId).catch(() => {}), HEARTBEAT_MS);
  timer.unref();
  return {
    workerId,
    stop: async () => {
      clearInterval(timer);
      await sqlInPrisma(prisma).deleteFrom("JobWorker").where("id", "=", workerId).execute().catch(() => {});
    },
  };
}

export async function workerAlive(db: DbHandle): Promise<boolean> {
  const row = await sqlInPrisma(db)
    .selectFrom("JobWorker")
    .select("id")
    .where("lastSeenAt", ">", sql<Date>`now() - make_interval(secs => ${WORKER_STALE_SECONDS})`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** 503 queue_unavailable unless a job worker is alive to run the work this request hands over. */
export async function requireWorker(db: DbHandle) {
  if (!(await workerAlive(db))) {
    throw new DomainError("queue_unavailable", "No job worker is running to process this request; start one with `npm run jobs` (or `npm start` without --no-jobs) and retry");
  }
}

// A process running Agenda registers how to start a job now; verbs that queued work call nudge() so the worker
// starts within milliseconds rather than at its next tick. Without a local worker this does nothing (a worker in
// another process picks the work up on its schedule).
let nudger: ((job: string) => void) | null = null;
export function setNudger(fn: ((job: string) => void) | null) {
  nudger = fn;
}
export function nudge(job: string) {
  nudger?.(job);
}
