import { runInviteExpiry } from "../src/platform/invitations.service";
import type { JobDefinition } from "./registry";

export const inviteExpiry: JobDefinition = {
  name: "invite-expiry",
  every: "1 hour",
  run: async ({ deps }) => {
    const r = await runInviteExpiry(deps);
    return `expired ${r.expired} invitation(s)`;
  },
};
