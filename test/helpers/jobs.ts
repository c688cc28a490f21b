import type { startAgenda } from "../../jobs/agenda";

/**
 * Stops an Agenda started by a test and waits out the timer Agenda leaves behind for each job it ran: its lock check
 * sleeps max(processEvery, lockLifetime) / 2 and only then sees that the job ended. Left running, those timers keep
 * the Jest worker alive at the end of the run longer than Jest waits for it (500 ms), and Jest force-exits it ("A
 * worker process has failed to exit gracefully"). Tests start Agenda with a 1 s lock lifetime, hence 500 ms here.
 */
export async function stopAgenda(agenda: Awaited<ReturnType<typeof startAgenda>>, lockLifetimeMs = 1000) {
  await agenda.stop();
  await new Promise((r) => setTimeout(r, lockLifetimeMs / 2 + 50));
}
