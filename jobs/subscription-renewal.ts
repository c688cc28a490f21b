import { makeCtx } from "../src/shared/context";
import { runRenewals } from "../src/subscriptions/renewals.service";
import type { JobDefinition } from "./registry";

export const subscriptionRenewal: JobDefinition = {
  name: "subscription-renewal",
  every: "1 minute",
  run: async ({ deps }) => {
    const c = await runRenewals(makeCtx(deps));
    return `renewed ${c.renewed}, declined ${c.declined}, cancelled ${c.cancelled}, failed ${c.failed} subscription(s)`;
  },
};
