// GraphQL for publishers and merchants: the same services and views as REST (src/extensions/extensions.rest.ts).
// The Basic client-credential routes (enumeration, api-key mint) are REST-only: that credential is refused here.
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf } from "../graphql/shared-types";
import { errors } from "../shared/errors";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import { deliveryView } from "../webhooks/endpoints.service";
import { DeliveryPage, DeliveryRef } from "../webhooks/webhooks.schema";
import type { ExtensionView, InstallationView, VersionView } from "./extensions.common";
import {
  createClientCredentials,
  createExtension,
  createVersion,
  getExtension,
  getVersion,
  listExtensions,
  listVersions,
  publishVersion,
  setListed,
  updateExtension,
  uploadImage,
} from "./extensions.service";
import { readWebhookSecret, rotateInstallationWebhookSecret } from "./installation-self.service";
import {
  getInstallation,
  installExtension,
  listInstallations,
  listInstallDeliveries,
  replayInstallDelivery,
  testInstallation,
  toggleSuspend,
  uninstall,
} from "./installations.service";
import type { Manifest } from "./manifest";

const LifecycleEnum = describedEnum<ExtensionView["lifecycle"]>("ExtensionLifecycle", "Where an extension is in its life", {
  draft: "Created; no version published yet (only its publisher sees it)",
  published: "At least one version is published: it can be installed",
  delisted: "Taken off the catalog: no new installs, existing installs keep working",
});
const VersionStatusEnum = describedEnum<VersionView["status"]>("ExtensionVersionStatus", "A version's status", {
  draft: "Not installable yet",
  published: "Installable; immutable like every version",
});
const InstallStatusEnum = describedEnum<InstallationView["status"]>("ExtensionInstallationStatus", "An install's status", {
  active: "Receives events; its key and secret work",
  suspended: "Receives no events (merchant toggle or repeated delivery failure)",
  uninstalled: "Removed; its keys are dead",
});
const SuspendReasonEnum = describedEnum<"merchant" | "delivery_failures">("ExtensionSuspendReason", "Why an install is suspended", {
  merchant: "The merchant toggled it",
  delivery_failures: "Consecutive deliveries to its endpoint were dead-lettered",
});
const UninstallReasonEnum = describedEnum<"merchant" | "staff_takedown">("ExtensionUninstallReason", "Why an install was removed", {
  merchant: "The merchant uninstalled it",
  staff_takedown: "Service staff took it down",
});
const EnvKindEnum = describedEnum<"production" | "non_production">("ExtensionEnvironmentKind", "The kind of environment an install lives in", {
  production: "The workspace's production environment",
  non_production: "A sandbox or custom environment",
});
const ProviderEnvEnum = describedEnum<"production" | "sandbox">("ExtensionProviderEnvironment", "Where payments of the install's environment are routed", {
  production: "Live payment providers",
  sandbox: "Test providers",
});
const ImageTypeEnum = describedEnum<"image_png" | "image_jpeg" | "image_webp">("ExtensionImageContentType", "The type of an uploaded image", {
  image_png: "image/png",
  image_jpeg: "image/jpeg",
  image_webp: "image/webp",
});
const ImageKindEnum = describedEnum<"icon" | "screenshot">("ExtensionImageKind", "What an image is for", { icon: "The extension's icon", screenshot: "One of its screenshots" });

const ManifestRef = builder.objectRef<Manifest>("ExtensionManifest").implement({
  description: "What an extension asks for and where it lives; a version keeps an immutable copy",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Display name" }),
    description: t.exposeString("description", { nullable: true, description: "What it does" }),
    iframeUrl: t.exposeString("iframeUrl", { nullable: true, description: "The page the dashboard frames" }),
    webhookUrl: t.exposeString("webhookUrl", { nullable: true, description: "Where installs' events are delivered" }),
    eventSubscriptions: t.exposeStringList("eventSubscriptions", { description: "Event types delivered to installs (each needs its read scope in scopes)" }),
    scopes: t.exposeStringList("scopes", { description: "Scopes of installation keys (extension-allowed only)" }),
    installCallbackUrl: t.exposeString("installCallbackUrl", { nullable: true, description: "https URL that receives install callbacks" }),
    configSchema: t.field({ type: "JSON", nullable: true, description: "JSON Schema (draft 2020-12) of an install's configuration", resolve: (m) => m.configSchema }),
  }),
});

const ExtensionRef = builder.objectRef<ExtensionView>("Extension").implement({
  description: "A third-party extension (ext_…) of a publisher workspace",
  fields: (t) => ({
    id: t.exposeID("id", { description: "ext_…" }),
    workspaceId: t.exposeID("workspaceId", { description: "The publisher's workspace" }),
    name: t.exposeString("name", { description: "Display name" }),
    description: t.exposeString("description", { nullable: true, description: "What it does" }),
    iframeUrl: t.exposeString("iframeUrl", { nullable: true, description: "The page the dashboard frames" }),
    webhookUrl: t.exposeString("webhookUrl", { nullable: true, description: "Where installs' events are delivered" }),
    eventSubscriptions: t.exposeStringList("eventSubscriptions", { description: "Subscribed event types" }),
    scopes: t.exposeStringList("scopes", { description: "Requested scopes" }),
    installCallbackUrl: t.exposeString("installCallbackUrl", { nullable: true, description: "https URL that receives install callbacks" }),
    configSchema: t.field({ type: "JSON", nullable: true, description: "JSON Schema (draft 2020-12) of an install's configuration", resolve: (e) => e.configSchema }),
    lifecycle: t.field({ type: LifecycleEnum, description: "draft, published or delisted", resolve: (e) => e.lifecycle }),
    iconKey: t.exposeString("iconKey", { nullable: true, description: "Storage key of the icon" }),
    screenshotKeys: t.exposeStringList("screenshotKeys", { description: "Storage keys of the screenshots" }),
    clientId: t.exposeString("clientId", { nullable: true, description: "extc_… once client credentials exist" }),
    createdAt: t.field({ type: "DateTime", description: "Created", resolve: (e) => e.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "Last changed", resolve: (e) => e.updatedAt }),
  }),
});
const ExtensionPage = pageOf<ExtensionView>("ExtensionPage", ExtensionRef, "extensions");

const VersionRef = builder.objectRef<VersionView>("ExtensionVersion").implement({
  description: "An immutable snapshot of an extension's manifest (ver_…)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "ver_…" }),
    extensionId: t.exposeID("extensionId", { description: "The extension" }),
    version: t.exposeString("version", { description: "The publisher's version label, e.g. 1.0.0" }),
    notes: t.exposeString("notes", { nullable: true, description: "Release notes" }),
    status: t.field({ type: VersionStatusEnum, description: "draft or published", resolve: (v) => v.status }),
    manifest: t.field({ type: ManifestRef, description: "The manifest as it was when the version was made", resolve: (v) => v.manifest }),
    createdAt: t.field({ type: "DateTime", description: "Created", resolve: (v) => v.createdAt }),
    publishedAt: t.field({ type: "DateTime", nullable: true, description: "When it was published", resolve: (v) => v.publishedAt }),
  }),
});
const VersionPage = pageOf<VersionView>("ExtensionVersionPage", VersionRef, "extension versions");

const installationFields = (t: any) => ({
  id: t.exposeID("id", { description: "inst_…" }),
  extensionId: t.exposeID("extensionId", { description: "The extension" }),
  versionId: t.exposeID("versionId", { nullable: true, description: "The pinned version (null for legacy installs)" }),
  version: t.exposeString("version", { nullable: true, description: "The pinned version's label" }),
  status: t.field({ type: InstallStatusEnum, description: "active, suspended or uninstalled", resolve: (i: InstallationView) => i.status }),
  workspaceId: t.exposeID("workspaceId", { description: "The merchant's workspace" }),
  applicationId: t.exposeID("applicationId", { description: "The application it is installed in" }),
  environmentId: t.exposeID("environmentId", { description: "The environment it is installed in" }),
  environmentSlug: t.exposeString("environmentSlug", { description: "That environment's slug" }),
  environmentKind: t.field({ type: EnvKindEnum, description: "That environment's kind", resolve: (i: InstallationView) => i.environmentKind }),
  providerEnvironment: t.field({ type: ProviderEnvEnum, description: "Where that environment's payments go", resolve: (i: InstallationView) => i.providerEnvironment }),
  installSequence: t.exposeInt("installSequence", { description: "1 on the first install, + 1 on each reinstall" }),
  webhookEndpointId: t.exposeID("webhookEndpointId", { nullable: true, description: "The managed webhook endpoint" }),
  config: t.field({ type: "JSON", description: "Configuration values (validated against the version's configSchema)", resolve: (i: InstallationView) => i.config }),
  installedAt: t.field({ type: "DateTime", description: "The latest (re)install", resolve: (i: InstallationView) => i.installedAt }),
  suspendedAt: t.field({ type: "DateTime", nullable: true, description: "When it was suspended", resolve: (i: InstallationView) => i.suspendedAt }),
  suspendedReason: t.field({ type: SuspendReasonEnum, nullable: true, description: "Why it is suspended", resolve: (i: InstallationView) => i.suspendedReason }),
  uninstalledAt: t.field({ type: "DateTime", nullable: true, description: "When it was uninstalled", resolve: (i: InstallationView) => i.uninstalledAt }),
  uninstallReason: t.field({ type: UninstallReasonEnum, nullable: true, description: "Why it was uninstalled", resolve: (i: InstallationView) => i.uninstallReason }),
  createdAt: t.field({ type: "DateTime", description: "First installed", resolve: (i: InstallationView) => i.createdAt }),
  updatedAt: t.field({ type: "DateTime", description: "Last changed", resolve: (i: InstallationView) => i.updatedAt }),
});
const InstallationRef = builder.objectRef<InstallationView>("ExtensionInstallation").implement({
  description: "An extension installed in one application environment",
  fields: (t) => installationFields(t),
});
const InstallationPage = pageOf<InstallationView>("ExtensionInstallationPage", InstallationRef, "installations");

type Installed = InstallationView & { apiKey: OneTimeSecret | string | null; keyPrefix: string; webhookSigningSecret: OneTimeSecret | string | null };
const InstalledRef = builder.objectRef<Installed>("ExtensionInstallResult").implement({
  description: "An install with its one-time credentials",
  fields: (t) => ({
    installation: t.field({ type: InstallationRef, description: "The install", resolve: (i) => i }),
    apiKey: t.string({ nullable: true, description: "The installation API key, shown once", resolve: (i, _a, ctx) => revealed(i.apiKey, ctx) }),
    keyPrefix: t.exposeString("keyPrefix", { description: "The key's non-secret prefix" }),
    webhookSigningSecret: t.string({ nullable: true, description: "whsec_… of the managed endpoint (the same on reinstall); null without a webhookUrl", resolve: (i, _a, ctx) => revealed(i.webhookSigningSecret, ctx) }),
  }),
});

type Creds = Awaited<ReturnType<typeof createClientCredentials>>;
const CredsRef = builder.objectRef<Creds>("ExtensionClientCredentials").implement({
  description: "An extension's client credentials (Basic auth on its four self routes)",
  fields: (t) => ({
    extensionId: t.exposeID("extensionId", { description: "The extension" }),
    clientId: t.exposeString("clientId", { description: "extc_…" }),
    clientSecret: t.string({ nullable: true, description: "Shown once; the previous secret is dead", resolve: (c, _a, ctx) => revealed(c.clientSecret, ctx) }),
    installCallbackUrl: t.exposeString("installCallbackUrl", { nullable: true, description: "Where install callbacks go" }),
    rotatedAt: t.field({ type: "DateTime", description: "When this secret was issued", resolve: (c) => c.rotatedAt }),
  }),
});

type Image = Awaited<ReturnType<typeof uploadImage>>;
const ImageRef = builder.objectRef<Image>("ExtensionImage").implement({
  description: "An uploaded icon or screenshot",
  fields: (t) => ({
    extensionId: t.exposeID("extensionId", { description: "The extension" }),
    kind: t.field({ type: ImageKindEnum, description: "icon or screenshot", resolve: (i) => i.kind }),
    key: t.exposeString("key", { description: "Storage key" }),
    contentType: t.field({ type: ImageTypeEnum, description: "The image type", resolve: (i) => i.contentType.replace("/", "_") as "image_png" }),
    sizeBytes: t.exposeInt("sizeBytes", { description: "Size in bytes" }),
    url: t.exposeString("url", { description: "A signed download URL, valid one hour" }),
  }),
});

type Secret = Awaited<ReturnType<typeof readWebhookSecret>>;
const SecretRef = builder.objectRef<Secret>("InstallationWebhookSecret").implement({
  description: "An install's current signing secret",
  fields: (t) => ({
    installationId: t.exposeID("installationId", { description: "The install" }),
    installSequence: t.exposeInt("installSequence", { description: "Its install sequence" }),
    endpointId: t.exposeID("endpointId", { description: "The managed endpoint" }),
    url: t.exposeString("url", { description: "Where events go" }),
    enabledEvents: t.exposeStringList("enabledEvents", { description: "Subscribed event types" }),
    signingSecret: t.exposeString("signingSecret", { description: "whsec_…" }),
    previousSecretExpiresAt: t.field({ type: "DateTime", nullable: true, description: "End of a rotation window (the old secret still co-signs)", resolve: (s) => s.previousSecretExpiresAt }),
  }),
});
type Rotation = Awaited<ReturnType<typeof rotateInstallationWebhookSecret>>;
const RotationRef = builder.objectRef<Rotation>("InstallationSecretRotation").implement({
  description: "A rotated install signing secret",
  fields: (t) => ({
    installationId: t.exposeID("installationId", { description: "The install" }),
    endpointId: t.exposeID("endpointId", { description: "The managed endpoint" }),
    signingSecret: t.string({ nullable: true, description: "The new secret, shown once", resolve: (r, _a, ctx) => revealed(r.signingSecret, ctx) }),
    previousSecretExpiresAt: t.field({ type: "DateTime", nullable: true, description: "Until when the old secret co-signs; null when it ended at once", resolve: (r) => r.previousSecretExpiresAt }),
  }),
});

const extId = "The extension's id (ext_…)";
const instId = "The installation's id (inst_…)";
const manifestArgs = (t: any, nameRequired: boolean) => ({
  name: t.arg.string({ required: nameRequired, description: "Display name" }),
  description: t.arg.string({ description: "What it does (null clears)" }),
  iframeUrl: t.arg.string({ description: "The page the dashboard frames (null clears)" }),
  webhookUrl: t.arg.string({ description: "Where installs' events are delivered (null clears)" }),
  eventSubscriptions: t.arg.stringList({ description: "Event types; each needs its read scope in scopes (403 insufficient_scopes)" }),
  scopes: t.arg.stringList({ description: "Extension-allowed scopes (400 invalid_scope otherwise)" }),
  installCallbackUrl: t.arg.string({ description: "https only (422 invalid_callback_url)" }),
  configSchema: t.arg({ type: "JSON", description: "JSON Schema (draft 2020-12) of an install's configuration" }),
});
/** Keeps explicit nulls (they clear) and drops absent arguments. */
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

function bytesOf(b64: string) {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw errors.validation([{ path: ["dataBase64"], message: "must be base64" }]);
  return Buffer.from(b64, "base64");
}

builder.queryFields((t) => ({
  extensions: t.field({
    type: ExtensionPage,
    description: "The workspace's own extensions, newest first",
    authScopes: { authenticated: true },
    args: { limit: t.arg.int({ description: "1..100, default 20" }), cursor: t.arg.string({ description: "pageInfo.cursor of the previous page" }) },
    resolve: (_r, a, ctx) => listExtensions(ctx, compact({ limit: a.limit, cursor: a.cursor })),
  }),
  extension: t.field({
    type: ExtensionRef,
    description: "An extension (another workspace's only once published)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: extId }) },
    resolve: (_r, a, ctx) => getExtension(ctx, String(a.id)),
  }),
  extensionVersions: t.field({
    type: VersionPage,
    description: "An extension's versions, newest first",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), limit: t.arg.int({ description: "1..100" }), cursor: t.arg.string({ description: "Next page" }) },
    resolve: (_r, a, ctx) => listVersions(ctx, String(a.extensionId), compact({ limit: a.limit, cursor: a.cursor })),
  }),
  extensionVersion: t.field({
    type: VersionRef,
    description: "One version",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), versionId: t.arg.id({ required: true, description: "The version's id (ver_…)" }) },
    resolve: (_r, a, ctx) => getVersion(ctx, String(a.extensionId), String(a.versionId)),
  }),
  extensionInstallations: t.field({
    type: InstallationPage,
    description: "The environment's installs, newest first (extensions:read)",
    authScopes: { scope: "extensions:read" },
    args: {
      limit: t.arg.int({ description: "1..100" }),
      cursor: t.arg.string({ description: "Next page" }),
      status: t.arg({ type: InstallStatusEnum, description: "Only this status" }),
      extensionId: t.arg.id({ description: "Only this extension" }),
    },
    resolve: (_r, a, ctx) => listInstallations(ctx, compact({ limit: a.limit, cursor: a.cursor, status: a.status, extensionId: a.extensionId ? String(a.extensionId) : undefined })),
  }),
  extensionInstallation: t.field({
    type: InstallationRef,
    description: "One install of the environment (extensions:read)",
    authScopes: { scope: "extensions:read" },
    args: { id: t.arg.id({ required: true, description: instId }) },
    resolve: (_r, a, ctx) => getInstallation(ctx, String(a.id)),
  }),
  extensionInstallationDeliveries: t.field({
    type: DeliveryPage,
    description: "Deliveries to an install's endpoint, newest first (extensions:read)",
    authScopes: { scope: "extensions:read" },
    args: { id: t.arg.id({ required: true, description: instId }), limit: t.arg.int({ description: "1..100" }), cursor: t.arg.string({ description: "pageInfo.cursor of the previous page" }) },
    resolve: async (_r, a, ctx) => {
      // the cursor carries the offset of the next page (the REST route pages by limit/offset)
      let offset = 0;
      if (a.cursor) {
        const m = /^o:(\d{1,7})$/.exec(Buffer.from(a.cursor, "base64url").toString("utf8"));
        if (!m) throw errors.validation([{ path: ["cursor"], message: "Invalid cursor: pass pageInfo.cursor of the previous page" }]);
        offset = Number(m[1]);
      }
      const page = await listInstallDeliveries(ctx, String(a.id), compact({ limit: a.limit, offset }));
      const next = page.offset + page.items.length;
      const hasMore = next < page.total;
      return { items: page.items.map(deliveryView), pagination: { cursor: hasMore ? Buffer.from(`o:${next}`).toString("base64url") : null, hasMore } };
    },
  }),
  installationWebhookSecret: t.field({
    type: SecretRef,
    description: "An install's signing secret, for the installation's own API key (idempotent)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: instId }) },
    resolve: (_r, a, ctx) => readWebhookSecret(ctx, String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createExtension: t.field({
    type: ExtensionRef,
    description: "Create an extension (dashboard session of the publishing workspace)",
    authScopes: { authenticated: true },
    args: manifestArgs(t, true),
    resolve: (_r, a, ctx) => createExtension(ctx, defined(a)),
  }),
  updateExtension: t.field({
    type: ExtensionRef,
    description: "Change the working manifest; absent arguments are unchanged, null clears",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: extId }), ...manifestArgs(t, false) },
    resolve: (_r, { id, ...a }, ctx) => updateExtension(ctx, String(id), defined(a)),
  }),
  delistExtension: t.field({
    type: ExtensionRef,
    description: "published -> delisted: no new installs",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: extId }) },
    resolve: (_r, a, ctx) => setListed(ctx, String(a.id), false),
  }),
  relistExtension: t.field({
    type: ExtensionRef,
    description: "delisted -> published",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: extId }) },
    resolve: (_r, a, ctx) => setListed(ctx, String(a.id), true),
  }),
  createExtensionVersion: t.field({
    type: VersionRef,
    description: "Snapshot the manifest as an immutable draft version",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), version: t.arg.string({ required: true, description: "Label, e.g. 1.0.0" }), notes: t.arg.string({ description: "Release notes" }) },
    resolve: (_r, a, ctx) => createVersion(ctx, String(a.extensionId), compact({ version: a.version, notes: a.notes })),
  }),
  publishExtensionVersion: t.field({
    type: VersionRef,
    description: "draft -> published",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), versionId: t.arg.id({ required: true, description: "The version's id" }) },
    resolve: (_r, a, ctx) => publishVersion(ctx, String(a.extensionId), String(a.versionId), {}),
  }),
  installExtension: t.field({
    type: InstalledRef,
    description: "Install a published version into the application and environment named by the X-Service-* headers (dashboard session)",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), versionId: t.arg.id({ required: true, description: "A published version" }), config: t.arg({ type: "JSON", description: "Configuration values" }) },
    resolve: (_r, a, ctx) => installExtension(ctx, String(a.extensionId), compact({ versionId: String(a.versionId), config: a.config ?? undefined })) as Promise<Installed>,
  }),
  toggleExtensionSuspension: t.field({
    type: InstallationRef,
    description: "active <-> suspended for the environment's install of this extension (extensions:install)",
    authScopes: { scope: "extensions:install" },
    args: { extensionId: t.arg.id({ required: true, description: extId }) },
    resolve: (_r, a, ctx) => toggleSuspend(ctx, String(a.extensionId)),
  }),
  createExtensionClientCredentials: t.field({
    type: CredsRef,
    description: "Create or rotate client credentials (the old secret dies at once)",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), installCallbackUrl: t.arg.string({ description: "https only (422 invalid_callback_url); null clears" }) },
    resolve: (_r, a, ctx) => createClientCredentials(ctx, String(a.extensionId), defined({ installCallbackUrl: a.installCallbackUrl })),
  }),
  uploadExtensionIcon: t.field({
    type: ImageRef,
    description: "Upload the icon (at most 256 KiB; extensions:write)",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), contentType: t.arg({ type: ImageTypeEnum, required: true, description: "The image type" }), dataBase64: t.arg.string({ required: true, description: "The image, base64" }) },
    resolve: (_r, a, ctx) => uploadImage(ctx, "icon", { extensionId: String(a.extensionId) }, a.contentType.replace("_", "/"), bytesOf(a.dataBase64)),
  }),
  uploadExtensionScreenshot: t.field({
    type: ImageRef,
    description: "Add a screenshot (at most 1 MiB, 8 per extension; extensions:write)",
    authScopes: { authenticated: true },
    args: { extensionId: t.arg.id({ required: true, description: extId }), contentType: t.arg({ type: ImageTypeEnum, required: true, description: "The image type" }), dataBase64: t.arg.string({ required: true, description: "The image, base64" }) },
    resolve: (_r, a, ctx) => uploadImage(ctx, "screenshot", { extensionId: String(a.extensionId) }, a.contentType.replace("_", "/"), bytesOf(a.dataBase64)),
  }),
  uninstallExtension: t.field({
    type: InstallationRef,
    description: "Uninstall: the state is set, keys die at once, then extension.uninstalled is delivered (extensions:install)",
    authScopes: { scope: "extensions:install" },
    args: { id: t.arg.id({ required: true, description: instId }) },
    resolve: (_r, a, ctx) => uninstall(ctx, String(a.id), {}),
  }),
  replayInstallationDelivery: t.field({
    type: DeliveryRef,
    description: "Send a dead-lettered delivery of an install again (extensions:install)",
    authScopes: { scope: "extensions:install" },
    args: { id: t.arg.id({ required: true, description: instId }), deliveryId: t.arg.id({ required: true, description: "The delivery" }) },
    resolve: async (_r, a, ctx) => deliveryView(await replayInstallDelivery(ctx, String(a.id), String(a.deliveryId))),
  }),
  testInstallation: t.field({
    type: DeliveryRef,
    description: "A signed extension.ping to the install's endpoint",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: instId }) },
    resolve: async (_r, a, ctx) => deliveryView(await testInstallation(ctx, String(a.id))),
  }),
  rotateInstallationWebhookSecret: t.field({
    type: RotationRef,
    description: "Rotate an install's signing secret (the installation's own API key); the old one co-signs for graceSeconds",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: instId }), graceSeconds: t.arg.int({ description: "0..604800, default 86400" }) },
    resolve: (_r, a, ctx) => rotateInstallationWebhookSecret(ctx, String(a.id), compact({ graceSeconds: a.graceSeconds })) as Promise<Rotation>,
  }),
}));
