import { expireCheckoutSessions } from "../src/checkout/expiry.service";
import { makeCtx } from "../src/shared/context";
import type { JobDefinition } from "./registry";

export const checkoutSessionExpiry: JobDefinition = {
  name: "checkout-session-expiry",
  every: "1 minute",
  run: async ({ deps }) => `expired ${await expireCheckoutSessions(makeCtx(deps))} session(s)`,
};
