import { purgeExpiredOAuthRecords } from "../src/oauth/grants.service";
import type { JobDefinition } from "./registry";

export const oauthCleanup: JobDefinition = {
  name: "oauth-cleanup",
  every: "1 hour",
  run: async ({ deps }) => {
    const r = await purgeExpiredOAuthRecords(deps);
    return `deleted ${r.deleted} expired authorization-server record(s)`;
  },
};
