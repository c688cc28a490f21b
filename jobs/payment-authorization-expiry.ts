import { expireAuthorizations, flagOverdueInvoices } from "../src/payments/sweeps.service";
import { makeCtx } from "../src/shared/context";
import type { JobDefinition } from "./registry";

// Both sweeps are about authorized payments outliving a date: card authorizations past their TTL expire,
// Net-N invoices past their due date raise invoice.overdue (and stay authorized).
export const paymentAuthorizationExpiry: JobDefinition = {
  name: "payment-authorization-expiry",
  every: "15 minutes",
  run: async ({ deps }) => {
    const ctx = makeCtx(deps);
    return `expired ${await expireAuthorizations(ctx)} authorization(s); ${await flagOverdueInvoices(ctx)} invoice(s) newly overdue`;
  },
};
