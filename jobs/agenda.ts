// Agenda on PostgreSQL through its Postgres backend; on the embedded database through a pg.Pool look-alike
// over PGlite (../shared/stack.md). One Agenda instance per process.
import { PostgresBackend } from "@agendajs/postgres-backend";
import { Agenda } from "agenda";
import type { Db } from "../src/db/client";
import { pgliteAsPgPool } from "./pglite-pool";
import { JOBS, type JobContext } from "./registry";
import { setNudger, startHeartbeat } from "../src/shared/job-workers";

export async function startAgenda(db: Db, jobCtx: JobContext, opts: { lockLifetimeMs?: number; processEveryMs?: number } = {}) {
  const pool = db.pool ?? (pgliteAsPgPool(db.pglite!) as any);
  const backend = new PostgresBackend({ pool });
  // The LISTEN connection emits 'error' when PostgreSQL ends it (a restart, a failover, a dropped database). Without a
  // listener Node throws it as an unhandled error and the worker dies; Agenda keeps polling every processEvery anyway.
  backend.notificationChannel?.on("error", (e: Error) => console.error("[jobs] notification channel:", e.message));
  const agenda = new Agenda({ backend, processEvery: opts.processEveryMs ?? 5_000, name: `q2c-${process.pid}` });
  for (const job of JOBS) {
    agenda.define(
      job.name,
      async () => {
        try {
          const summary = await job.run(jobCtx);
          if (jobCtx.deps.config.LOG_LEVEL === "debug") console.log(`[jobs] ${job.name}: ${summary}`);
        } catch (e) {
          console.error(`[jobs] ${job.name} failed`, e);
          throw e;
        }
      },
      { lockLifetime: opts.lockLifetimeMs ?? 5 * 60_000, concurrency: 1 },
    );
  }
  await agenda.ready;
  await agenda.start();
  for (const job of JOBS) await agenda.every(job.every, job.name);
  // the heartbeat tells request handlers a worker is here to run what they queue (imports: 503 without one)
  const heartbeat = await startHeartbeat(jobCtx.deps.prisma);
  const nudge = (name: string) => void agenda.now(name).catch(() => {});
  setNudger(nudge);
  return {
    agenda,
    /** runs one job now instead of at its next tick (a verb that just queued work) */
    nudge,
    stop: async () => {
      setNudger(null);
      await heartbeat.stop();
      // drain waits for running jobs, so none touches the database after the caller closes it
      await agenda.drain({ timeout: 10_000, closeConnection: false }).catch(() => agenda.stop().catch(() => {}));
    },
  };
}
