// The safety net of the mail dispatcher (src/mail/mail-sender.ts): a process that runs jobs is woken at every commit
// that queues an email; this job drains what it missed (emails queued by a process without a dispatcher, retries whose
// backoff ended, a claim left by a process that died). Drains until nothing is due, so a backlog is not capped per run.
import { drainEmails } from "../src/mail/mail.service";
import type { JobDefinition } from "./registry";

export const mailDispatch: JobDefinition = {
  name: "mail-dispatch",
  every: "10 seconds",
  run: async ({ deps }) => {
    const r = await drainEmails(deps);
    return `sent ${r.sent}, kept ${r.kept}, retried ${r.retried}, failed ${r.failed}`;
  },
};
