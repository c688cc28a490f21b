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
