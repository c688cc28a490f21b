// Calendar dates on input (YYYY-MM-DD): real days only, in years 0001-9999 (what PostgreSQL's date holds).
import { z } from "zod";

export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD")
  .refine((d) => {
    const parsed = new Date(`${d}T00:00:00Z`);
    // JavaScript rolls 2024-02-31 over to March: a real date reads back as itself
    return !d.startsWith("0000") && !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(d);
  }, "must be a real calendar date");

// Built once: toLocaleDateString with options builds a new Intl.DateTimeFormat on every call (tens of microseconds,
// on the checkout path through the receipt email).
const DAY = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });

/** A day as readers see it in emails and pages ("November 25, 2026"), in UTC. */
export function formatDay(d: Date | string | number): string {
  return DAY.format(d instanceof Date ? d : new Date(d));
}

