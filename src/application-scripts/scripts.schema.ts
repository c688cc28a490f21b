// GraphQL for application scripts: the same services and views as REST (src/application-scripts/scripts.rest.ts).
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { type BeaconReason, type BeaconType, recordBeacon } from "./beacons.service";
import {
  createScript,
  deleteScript,
  getScript,
  integrityOf,
  type KillSwitchView,
  listScripts,
  type Placement,
  scriptAsset,
  scriptHealth,
  type ScriptHealth,
  type ScriptView,
  setKillSwitch,
  updateScript,
} from "./scripts.service";

const PlacementEnum = describedEnum<Placement>("ApplicationScriptPlacement", "Where on the hosted checkout page a script's tag goes", {
  checkout_head: "In <head>, before the page renders (parser-blocking)",
  checkout_body: "At the end of <body>, after the page's content",
});
const BeaconTypeEnum = describedEnum<BeaconType>("ApplicationScriptBeaconType", "What the checkout page reports about a script (the event script.<type>)", {
  loaded: "The script loaded and ran",
  error: "The script failed to load, or threw while running",
  blocked: "The browser refused it: its bytes failed the integrity check, or the page's Content-Security-Policy blocked a script",
});
const BeaconReasonEnum = describedEnum<BeaconReason>("ApplicationScriptBeaconReason", "Why a beacon was sent", {
  loaded: "loaded: the script ran",
  load_failed: "error: the script could not be fetched",
  runtime_error: "error: the script threw an uncaught error",
  integrity_mismatch: "blocked: the bytes served no longer match the integrity hash",
  csp_violation: "blocked: the Content-Security-Policy refused a script (for example one an application script tried to add)",
});

const ScriptRef = builder.objectRef<ScriptView>("ApplicationScript").implement({
  description: "A script on the hosted checkout page, served from a stored copy with an integrity hash",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { description: "Your label for it" }),
    src: t.exposeString("src", { nullable: true, description: "The URL its copy was fetched from when saved; null for an inline script" }),
    inline: t.exposeString("inline", { nullable: true, description: "The script's text, for an inline script; null for a src script" }),
    placement: t.field({ type: PlacementEnum, description: "Where its tag goes on the page", resolve: (s) => s.placement }),
    enabled: t.exposeBoolean("enabled", { description: "false keeps it off the page" }),
    sha256: t.exposeString("sha256", { description: "SHA-256 of the stored bytes, 64 hex characters (the last segment of assetUrl)" }),
    integrity: t.exposeString("integrity", { description: "The integrity attribute the page puts on its tag: sha256-<base64>" }),
    assetUrl: t.exposeString("assetUrl", { description: "Where the page loads the stored copy from (immutable, cached for a year)" }),
    sizeBytes: t.exposeInt("sizeBytes", { description: "Size of the stored bytes" }),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    createdAt: t.field({ type: "DateTime", resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (s) => s.updatedAt }),
  }),
});
const ScriptPage = pageOf<ScriptView>("ApplicationScriptPage", ScriptRef, "application scripts");

const KillSwitchRef = builder.objectRef<KillSwitchView>("ApplicationScriptKillSwitch").implement({
  description: "The environment's kill switch: while enabled, no application script is put on the checkout page",
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled", { description: "true: every script is off the page" }),
    changedAt: t.field({ type: "DateTime", nullable: true, description: "When it was last switched; null if never", resolve: (k) => k.changedAt }),
  }),
});

type Counts = ScriptHealth["totals"];
const CountsRef = builder.objectRef<Counts>("ApplicationScriptBeaconCounts").implement({
  description: "Beacons from checkout pages, by type (each checkout session reports each outcome once)",
  fields: (t) => ({
    loaded: t.exposeInt("loaded", { description: "script.loaded beacons" }),
    error: t.exposeInt("error", { description: "script.error beacons" }),
    blocked: t.exposeInt("blocked", { description: "script.blocked beacons" }),
  }),
});
const HealthRowRef = builder.objectRef<ScriptHealth["scripts"][number]>("ApplicationScriptHealthRow").implement({
  description: "One script's beacons in the window",
  fields: (t) => ({
    scriptId: t.exposeID("scriptId", { description: "The script" }),
    name: t.exposeString("name", { description: "Its name" }),
    enabled: t.exposeBoolean("enabled", { description: "Whether it is enabled now" }),
    deleted: t.exposeBoolean("deleted", { description: "Deleted since it reported (listed so the counts add up to the totals)" }),
    loaded: t.exposeInt("loaded", { description: "script.loaded beacons" }),
    error: t.exposeInt("error", { description: "script.error beacons" }),
    blocked: t.exposeInt("blocked", { description: "script.blocked beacons" }),
    lastReportAt: t.field({ type: "DateTime", nullable: true, description: "Its latest beacon in the window", resolve: (r) => r.lastReportAt }),
  }),
});
const HealthRef = builder.objectRef<ScriptHealth>("ApplicationScriptHealth").implement({
  description: "Checkout-page beacons of the last 24 hours, per script and in total, with the kill switch",
  fields: (t) => ({
    windowStart: t.field({ type: "DateTime", description: "Start of the window (24 hours before windowEnd)", resolve: (h) => h.windowStart }),
    windowEnd: t.field({ type: "DateTime", description: "End of the window (now)", resolve: (h) => h.windowEnd }),
    killSwitch: t.field({ type: KillSwitchRef, description: "The kill switch", resolve: (h) => h.killSwitch }),
    totals: t.field({ type: CountsRef, description: "Every beacon in the window", resolve: (h) => h.totals }),
    unattributed: t.field({ type: CountsRef, description: "Beacons no application script caused (a blocked script the page did not add)", resolve: (h) => h.unattributed }),
    scripts: t.field({ type: [HealthRowRef], description: "Each current script (oldest first), then deleted ones that reported", resolve: (h) => h.scripts }),
  }),
});

type AssetV = Awaited<ReturnType<typeof scriptAsset>>;
const AssetRef = builder.objectRef<AssetV>("ApplicationScriptAsset").implement({
  description: "The stored bytes of one version of a script",
  fields: (t) => ({
    scriptId: t.exposeID("scriptId", { description: "The script" }),
    sha256: t.exposeString("sha256", { description: "SHA-256 of the version, hex (what it is addressed by)" }),
    integrity: t.string({ description: "sha256-<base64> of the version", resolve: (a) => integrityOf(a.sha256) }),
    sizeBytes: t.int({ description: "Size of the bytes", resolve: (a) => a.body.length }),
    bodyBase64: t.string({ description: "The bytes as stored, base64-encoded", resolve: (a) => a.body.toString("base64") }),
  }),
});

const BeaconResultRef = builder.objectRef<{ recorded: boolean }>("ApplicationScriptBeaconResult").implement({
  description: "What became of a beacon",
  fields: (t) => ({
    recorded: t.exposeBoolean("recorded", { description: "false when the session already reported the same thing (or reached its 50 reports)" }),
  }),
});

const scriptId = "The script's id";
const src = "An https URL (http too outside production), fetched once now; the page loads the stored copy";
const inline = "The script's text (at most 512 KiB)";
const pin = "Optional: the expected SHA-256 (hex) of the bytes; 422 script_integrity_mismatch when they differ";

builder.queryFields((t) => ({
  applicationScripts: t.field({
    type: ScriptPage,
    description: "The environment's application scripts, newest first",
    authScopes: { scope: "application_scripts:read" },
    args: { ...pageArgs(t) },
    resolve: (_r, a, ctx) => listScripts(ctx, compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) })),
  }),
  applicationScript: t.field({
    type: ScriptRef,
    description: "One application script",
    authScopes: { scope: "application_scripts:read" },
    args: { id: t.arg.id({ required: true, description: scriptId }) },
    resolve: (_r, a, ctx) => getScript(ctx, String(a.id)),
  }),
  applicationScriptHealth: t.field({
    type: HealthRef,
    description: "Beacons of the last 24 hours (script.loaded, script.error, script.blocked) per script, and the kill switch",
    authScopes: { scope: "application_scripts:read" },
    resolve: (_r, _a, ctx) => scriptHealth(ctx),
  }),
  applicationScriptAsset: t.field({
    type: AssetRef,
    description: "Keyless: one stored version of a script, as GET /storefront/script-assets/{id}/{sha256} serves it (404 for a wrong hash or a deleted script)",
    args: { id: t.arg.id({ required: true, description: scriptId }), sha256: t.arg.string({ required: true, description: "The version's SHA-256, hex" }) },
    resolve: (_r, a, ctx) => scriptAsset(ctx, String(a.id), a.sha256),
  }),
}));

builder.mutationFields((t) => ({
  createApplicationScript: t.field({
    type: ScriptRef,
    description: "Adds a script to the checkout page (give src or inline); at most 20 per environment",
    authScopes: { scope: "application_scripts:write" },
    args: {
      name: t.arg.string({ required: true, description: "Your label for it" }),
      src: t.arg.string({ description: src }),
      inline: t.arg.string({ description: inline }),
      placement: t.arg({ type: PlacementEnum, description: "Where its tag goes (default checkout_body)" }),
      enabled: t.arg.boolean({ description: "Default true" }),
      sha256: t.arg.string({ description: pin }),
    },
    resolve: (_r, a, ctx) => createScript(ctx, compact(a)),
  }),
  updateApplicationScript: t.field({
    type: ScriptRef,
    description: "Absent arguments are unchanged; src (fetched again) or inline replaces the content and its hash",
    authScopes: { scope: "application_scripts:write" },
    args: {
      id: t.arg.id({ required: true, description: scriptId }),
      name: t.arg.string({ description: "New label" }),
      src: t.arg.string({ description: src }),
      inline: t.arg.string({ description: inline }),
      placement: t.arg({ type: PlacementEnum, description: "New placement" }),
      enabled: t.arg.boolean({ description: "false takes it off the page" }),
      sha256: t.arg.string({ description: pin }),
    },
    resolve: (_r, { id, ...body }, ctx) => updateScript(ctx, String(id), compact(body)),
  }),
  deleteApplicationScript: t.boolean({
    description: "Deletes a script: off the page at once, its asset URLs answer 404. true when done",
    authScopes: { scope: "application_scripts:write" },
    args: { id: t.arg.id({ required: true, description: scriptId }) },
    resolve: async (_r, a, ctx) => {
      await deleteScript(ctx, String(a.id));
      return true;
    },
  }),
  setApplicationScriptKillSwitch: t.field({
    type: KillSwitchRef,
    description: "enabled: true takes every script of the environment off the checkout page; false puts the enabled ones back",
    authScopes: { scope: "application_scripts:write" },
    args: { enabled: t.arg.boolean({ required: true, description: "true stops every script" }) },
    resolve: (_r, a, ctx) => setKillSwitch(ctx, { enabled: a.enabled }),
  }),
  recordApplicationScriptBeacon: t.field({
    type: BeaconResultRef,
    description: "Keyless, as the checkout page sends it: a script loaded, failed or was blocked (records script.<type> once per session)",
    args: {
      checkoutSessionId: t.arg.id({ required: true, description: "The checkout session whose page reports" }),
      type: t.arg({ type: BeaconTypeEnum, required: true, description: "What happened" }),
      scriptId: t.arg.id({ description: "The script (required unless type is blocked)" }),
      reason: t.arg({ type: BeaconReasonEnum, description: "Why (defaults: loaded, load_failed, csp_violation)" }),
      blockedUri: t.arg.string({ description: "The refused resource; stored as origin and path only" }),
      violatedDirective: t.arg.string({ description: "The CSP directive that refused it" }),
    },
    resolve: (_r, { checkoutSessionId, ...body }, ctx) => recordBeacon(ctx, String(checkoutSessionId), compact(body)),
  }),
}));
