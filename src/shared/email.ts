import { z } from "zod";

/** An email address as every input takes it: trimmed, lower-cased, at most 254 characters. */
export const emailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email("must be a valid email address"));
