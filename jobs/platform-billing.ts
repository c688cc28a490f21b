import { runPlatformBilling } from "../src/billing/platform-billing.service";
import { makeCtx } from "../src/shared/context";
import type { JobDefinition } from "./registry";

export const platformBilling: JobDefinition = {
  name: "platform-billing",
  every: "5 minutes",
  run: async ({ deps }) => {
    const c = await runPlatformBilling(makeCtx(deps));
    return `trials expired ${c.trialsExpired}, subscriptions ended ${c.ended}, renewed ${c.renewed}, failed ${c.failed}, backup card charged ${c.backupUsed}`;
  },
};
