import { dispatchEmails } from "../src/mail/mail.service";
import type { JobDefinition } from "./registry";

export const mailDispatch: JobDefinition = {
  name: "mail-dispatch",
  every: "10 seconds",
  run: async ({ deps }) => {
    const r = await dispatchEmails(deps);
    return `sent ${r.sent}, kept ${r.kept}, retried ${r.retried}, failed ${r.failed}`;
  },
};
