// Agenda on PostgreSQL through its Postgres backend; on the embedded database through a pg.Pool look-alike
// over PGlite (../shared/stack.md). One Agenda instance per process.
import { PostgresBackend } from "@agendajs/postgres-backend";
import { Agenda } from "agenda";
import type { Db } from "../src/db/client";
import { pgliteAsPgPool } from "./pglite-pool";
import { JOBS, type JobContext } from "./registry";

export async function startAgenda(db: Db, jobCtx: JobContext, opts: { lockLifetimeMs?: number; processEveryMs?: number } = {}) {
  const pool = db.pool ?? (pgliteAsPgPool(db.pglite!) as any);
  const agenda = new Agenda({ backend: new PostgresBackend({ pool }), processEvery: opts.processEveryMs ?? 5_000, name: `q2c-${process.pid}` });
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
  return {
    agenda,
    stop: async () => {
      // drain waits for running jobs, so none touches the database after the caller closes it
      await agenda.drain({ timeout: 10_000, closeConnection: false }).catch(() => agenda.stop().catch(() => {}));
    },
  };
}
