// Small formatting helpers of the quote page: days, moments (with the time, for messages) and the form values an
// error re-render carries back.
import { formatDay } from "../../src/shared/dates";

export const day = (iso: string | null | undefined) => (iso ? formatDay(iso.length === 10 ? `${iso}T00:00:00Z` : iso) : "");

const MOMENT = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC" });
/** "Nov 25, 2026, 14:05 UTC" */
export const moment = (iso: string) => `${MOMENT.format(new Date(iso))} UTC`;

/** A posted form's values (an error re-render keeps what the buyer entered). */
export type Values = Record<string, unknown> | undefined;
export const valueOf = (v: Values, k: string) => (typeof v?.[k] === "string" ? (v[k] as string) : "");
