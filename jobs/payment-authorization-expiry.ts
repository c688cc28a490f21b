import { expireAuthorizations } from "../src/payments/sweeps.service";
import { makeCtx } from "../src/shared/context";
import type { JobDefinition } from "./registry";

// Card authorizations past their TTL become expired (payment.expired). Overdue Net-N invoices are invoice-overdue's.
export const paymentAuthorizationExpiry: JobDefinition = {
  name: "payment-authorization-expiry",
  every: "15 minutes",
  run: async ({ deps }) => `expired ${await expireAuthorizations(makeCtx(deps))} authorization(s)`,
};
