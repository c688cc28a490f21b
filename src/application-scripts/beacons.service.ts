// Beacons from the hosted checkout page: a script loaded, failed (network or a runtime error), or was blocked (its
// bytes failed the integrity check, or the page's Content-Security-Policy refused a script). Each is recorded once
// per checkout session and kind (a reload does not count again) with its script.* event, in one transaction.
import { z } from "zod";
import { limitBuyer, findSession } from "../checkout/checkout.service";
import { recordEvent, tenantOf } from "../events/events.service";
import { type Ctx, withTx } from "../shared/context";
import { sha256Hex } from "../shared/crypto";
import { errors, parseInput } from "../shared/errors";

const BEACON_TYPES = ["loaded", "error", "blocked"] as const;
export type BeaconType = (typeof BEACON_TYPES)[number];
export const BEACON_REASONS = ["loaded", "load_failed", "runtime_error", "integrity_mismatch", "csp_violation"] as const;
export type BeaconReason = (typeof BEACON_REASONS)[number];

const REASONS: Record<BeaconType, readonly BeaconReason[]> = {
  loaded: ["loaded"],
  error: ["load_failed", "runtime_error"],
  blocked: ["csp_violation", "integrity_mismatch"],
};
/** Distinct reports one checkout session may record; more are accepted and dropped. */
const MAX_BEACONS_PER_SESSION = 50;

export const beaconInput = z
  .strictObject({
    type: z.enum(BEACON_TYPES),
    scriptId: z.uuid().optional().meta({ description: "The application script reported on (data-application-script on its tag); required unless type is blocked" }),
    reason: z.enum(BEACON_REASONS).optional().meta({ description: "loaded; load_failed (default) or runtime_error for error; csp_violation (default) or integrity_mismatch for blocked" }),
    blockedUri: z.string().max(2048).optional().meta({ description: "The refused resource (securitypolicyviolation blockedURI); stored as origin and path only" }),
    violatedDirective: z.string().max(100).optional().meta({ description: "The directive that refused it, e.g. script-src-elem" }),
  })
  .superRefine((v, ctx) => {
    if (v.type !== "blocked" && !v.scriptId) ctx.addIssue({ code: "custom", path: ["scriptId"], message: `Required for type ${v.type}` });
    if (v.type === "blocked" && !v.scriptId && !v.blockedUri) ctx.addIssue({ code: "custom", path: ["blockedUri"], message: "A blocked report names the script (scriptId) or the refused resource (blockedUri)" });
    if (v.reason && !REASONS[v.type].includes(v.reason)) ctx.addIssue({ code: "custom", path: ["reason"], message: `A ${v.type} report's reason is one of ${REASONS[v.type].join(", ")}` });
    if (v.violatedDirective !== undefined && !/^[a-z-]{1,100}$/.test(v.violatedDirective)) ctx.addIssue({ code: "custom", path: ["violatedDirective"], message: "A CSP directive name (lowercase letters and -)" });
  });

/** Query strings and fragments can carry buyer data: only the origin and path of a URL are kept. */
function cleanUri(raw: string | undefined): string | null {
  if (raw === undefined || raw === "") return null;
  if (/^[a-z-]{1,30}$/.test(raw)) return raw; // CSP keywords: inline, eval, wasm-eval, …
  try {
    const u = new URL(raw);
    if (u.protocol === "http:" || u.protocol === "https:") return `${u.origin}${u.pathname}`.slice(0, 500);
    return u.protocol.replace(/:$/, "").slice(0, 30); // data:, blob:, chrome-extension: … the scheme only
  } catch {
    return "other";
  }
}

/** POST /checkout-sessions/{id}/script-beacons (keyless: the session id is the handle, as for the page). */
export async function recordBeacon(ctx: Ctx, sessionId: string, body: unknown) {
  await limitBuyer(ctx, sessionId);
  const input = parseInput(beaconInput, body);
  const session = await findSession(ctx, sessionId);
  const t = { applicationId: session.applicationId, environmentId: session.environmentId };
  const script = input.scriptId
    ? await ctx.db.applicationScript.findFirst({ where: { id: input.scriptId, ...t }, select: { id: true, name: true } })
    : null;
  if (input.scriptId && !script) throw errors.notFound("Application script");
  const reason = input.reason ?? REASONS[input.type][0];
  // only a CSP refusal names a refused resource and directive
  const blockedUri = reason === "csp_violation" ? cleanUri(input.blockedUri) : null;
  const violatedDirective = reason === "csp_violation" ? (input.violatedDirective ?? null) : null;
  const dedupeKey = sha256Hex([input.type, reason, script?.id ?? "-", blockedUri ?? "-", violatedDirective ?? "-"].join("\n"));
  const tenant = await tenantOf(ctx, t);
  const recorded = await withTx(ctx, async (tx) => {
    const count = await tx.db.applicationScriptBeacon.count({ where: { checkoutSessionId: session.id } });
    if (count >= MAX_BEACONS_PER_SESSION) return false;
    const res = await tx.db.applicationScriptBeacon.createMany({
      data: [{ ...t, checkoutSessionId: session.id, scriptId: script?.id ?? null, type: input.type, reason, blockedUri, violatedDirective, dedupeKey, createdAt: ctx.clock.now() }],
      skipDuplicates: true,
    });
    if (res.count === 0) return false;
    const data = { checkoutSessionId: session.id, scriptId: script?.id ?? null, scriptName: script?.name ?? null, reason, blockedUri, violatedDirective };
    await recordEvent(tx, tenant, ({ loaded: "script.loaded", error: "script.error", blocked: "script.blocked" } as const)[input.type], data);
    return true;
  });
  return { recorded };
}
