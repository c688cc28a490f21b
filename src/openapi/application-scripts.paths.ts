// OpenAPI paths of application scripts (src/application-scripts/scripts.rest.ts), registered by document.ts.
import { z } from "zod";
import { beaconInput, BEACON_REASONS } from "../application-scripts/beacons.service";
import { createScriptInput, killSwitchInput, PLACEMENTS, updateScriptInput } from "../application-scripts/scripts.service";
import { pageQuery } from "../shared/pagination";
import type { Register } from "./operation";

const ts = z.iso.datetime();
const ApplicationScript = z
  .object({
    id: z.string(),
    name: z.string(),
    src: z.string().nullable().meta({ description: "The URL the stored copy was fetched from; null for an inline script" }),
    inline: z.string().nullable().meta({ description: "The text of an inline script; null for a src script" }),
    placement: z.enum(PLACEMENTS),
    enabled: z.boolean(),
    sha256: z.string().meta({ description: "SHA-256 of the stored bytes, hex" }),
    integrity: z.string().meta({ description: "sha256-<base64>: the integrity attribute of the page's tag" }),
    assetUrl: z.string().meta({ description: "Where the page loads the stored copy from" }),
    sizeBytes: z.number().int(),
    applicationId: z.string(),
    environmentId: z.string(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "ApplicationScript" });
const KillSwitch = z.object({ enabled: z.boolean(), changedAt: ts.nullable() }).meta({ id: "ApplicationScriptKillSwitch" });
const Counts = z.object({ loaded: z.number().int(), error: z.number().int(), blocked: z.number().int() }).meta({ id: "ApplicationScriptBeaconCounts" });
const Health = z
  .object({
    windowStart: ts,
    windowEnd: ts,
    killSwitch: KillSwitch,
    totals: Counts,
    unattributed: Counts.meta({ description: "Beacons no application script caused" }),
    scripts: z.array(
      z.object({
        scriptId: z.string(),
        name: z.string(),
        enabled: z.boolean(),
        deleted: z.boolean(),
        loaded: z.number().int(),
        error: z.number().int(),
        blocked: z.number().int(),
        lastReportAt: ts.nullable(),
      }),
    ),
  })
  .meta({ id: "ApplicationScriptHealth" });
const BeaconResult = z.object({ recorded: z.boolean().meta({ description: "false when the session already reported the same thing, or reached 50 reports" }) }).meta({ id: "ApplicationScriptBeaconResult" });

type Reg = Register;

export function registerApplicationScripts(r: Reg) {
  const tag = "application scripts";
  const id = { id: "The script's" };
  r("post", "/application-scripts", { tag, summary: "Add a script to the hosted checkout page: inline text, or an https src fetched once and stored (application_scripts:write; 422 invalid_script_url, script_fetch_failed, script_too_large, script_integrity_mismatch; 409 script_limit_reached)", body: createScriptInput, ok: [201, ApplicationScript] });
  r("get", "/application-scripts", { tag, summary: "The environment's scripts, newest first (application_scripts:read)", query: pageQuery, ok: [200, ApplicationScript, "page"] });
  r("post", "/application-scripts/kill-switch", { tag, summary: "enabled: true takes every script off the checkout page at once; false puts the enabled ones back (application_scripts:write)", body: killSwitchInput, ok: [200, KillSwitch] });
  r("get", "/application-scripts/health", { tag, summary: "script.loaded / script.error / script.blocked beacons of the last 24 hours, per script and in total, with the kill switch (application_scripts:read)", ok: [200, Health] });
  r("get", "/application-scripts/{id}", { tag, summary: "A script (application_scripts:read)", params: id, ok: [200, ApplicationScript] });
  r("patch", "/application-scripts/{id}", { tag, summary: "Change name, placement, enabled, or the content (src fetched again, or inline): a new sha256 and asset URL (application_scripts:write)", params: id, body: updateScriptInput, ok: [200, ApplicationScript] });
  r("delete", "/application-scripts/{id}", { tag, summary: "Soft delete: off the page at once, its asset URLs answer 404 (application_scripts:write)", params: id, ok: [204, null] });
  r("get", "/storefront/script-assets/{id}/{sha256}", {
    tag,
    keyless: true,
    summary: "Keyless: the stored bytes of one version of a script, immutable (Cache-Control: public, max-age=31536000, immutable); a wrong hash, an unknown id or a deleted script is 404",
    params: { id: "The script's", sha256: "sha256" },
    ok: [200, null],
    javascript: "The script's bytes exactly as stored",
  });
  r("post", "/checkout-sessions/{id}/script-beacons", { tag, keyless: true, summary: `Keyless, sent by the hosted checkout page: a script loaded, failed or was blocked; records script.<type> once per session and outcome (reasons: ${BEACON_REASONS.join(", ")})`, params: { id: "Checkout session" }, body: beaconInput, ok: [202, BeaconResult] });
}
