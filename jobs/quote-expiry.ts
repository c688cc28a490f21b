import { runQuoteExpiry } from "../src/quotes/quote-expiry.service";
import type { JobDefinition } from "./registry";

export const quoteExpiry: JobDefinition = {
  name: "quote-expiry",
  every: "1 hour",
  run: async ({ deps }) => {
    const r = await runQuoteExpiry(deps);
    return `expired ${r.expired} quote(s); ${r.repWarnings} rep and ${r.buyerWarnings} buyer warning(s)`;
  },
};
