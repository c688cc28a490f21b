import { flagOverdueInvoices } from "../src/payments/sweeps.service";
import { makeCtx } from "../src/shared/context";
import type { JobDefinition } from "./registry";

// Authorized Net-N invoices past their due date: invoice.overdue once per payment (overdueNotifiedAt), status unchanged.
export const invoiceOverdue: JobDefinition = {
  name: "invoice-overdue",
  every: "1 hour",
  run: async ({ deps }) => `${await flagOverdueInvoices(makeCtx(deps))} invoice(s) newly overdue`,
};
