// GraphQL types of the extension platform: the enums and object types the queries and mutations of
// extensions.schema.ts return.
import { builder } from "../graphql/builder";
import { describedEnum, pageOf } from "../graphql/shared-types";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import type { ExtensionView, InstallationView, VersionView } from "./extensions.common";
import { createClientCredentials, uploadImage } from "./extensions.service";
import { readWebhookSecret, rotateInstallationWebhookSecret } from "./installation-self.service";
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
export const InstallStatusEnum = describedEnum<InstallationView["status"]>("ExtensionInstallationStatus", "An install's status", {
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
export const ImageTypeEnum = describedEnum<"image_png" | "image_jpeg" | "image_webp">("ExtensionImageContentType", "The type of an uploaded image", {
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

export const ExtensionRef = builder.objectRef<ExtensionView>("Extension").implement({
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
export const ExtensionPage = pageOf<ExtensionView>("ExtensionPage", ExtensionRef, "extensions");

export const VersionRef = builder.objectRef<VersionView>("ExtensionVersion").implement({
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
export const VersionPage = pageOf<VersionView>("ExtensionVersionPage", VersionRef, "extension versions");

const installationFields = (t: any) => ({
  id: t.exposeID("id", { description: "inst_…" }),
  extensionId: t.exposeID("extensionId", { description: "The extension" }),
  versionId: t.exposeID("versionId", { nullable: true, description: "The pinned version (null for legacy installs)" }),
  versionLabel: t.string({ nullable: true, description: "The pinned version's label (the `version` edge's `version`)", resolve: (i: InstallationView) => i.version }),
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
export const InstallationRef = builder.objectRef<InstallationView>("ExtensionInstallation").implement({
  description: "An extension installed in one application environment",
  fields: (t) => installationFields(t),
});
export const InstallationPage = pageOf<InstallationView>("ExtensionInstallationPage", InstallationRef, "installations");

export type Installed = InstallationView & { apiKey: OneTimeSecret | string | null; keyPrefix: string; webhookSigningSecret: OneTimeSecret | string | null };
export const InstalledRef = builder.objectRef<Installed>("ExtensionInstallResult").implement({
  description: "An install with its one-time credentials",
  fields: (t) => ({
    installation: t.field({ type: InstallationRef, description: "The install", resolve: (i) => i }),
    apiKey: t.string({ nullable: true, description: "The installation API key, shown once", resolve: (i, _a, ctx) => revealed(i.apiKey, ctx) }),
    keyPrefix: t.exposeString("keyPrefix", { description: "The key's non-secret prefix" }),
    webhookSigningSecret: t.string({ nullable: true, description: "whsec_… of the managed endpoint (the same on reinstall); null without a webhookUrl", resolve: (i, _a, ctx) => revealed(i.webhookSigningSecret, ctx) }),
  }),
});

type Creds = Awaited<ReturnType<typeof createClientCredentials>>;
export const CredsRef = builder.objectRef<Creds>("ExtensionClientCredentials").implement({
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
export const ImageRef = builder.objectRef<Image>("ExtensionImage").implement({
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
export const SecretRef = builder.objectRef<Secret>("InstallationWebhookSecret").implement({
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
export type Rotation = Awaited<ReturnType<typeof rotateInstallationWebhookSecret>>;
export const RotationRef = builder.objectRef<Rotation>("InstallationSecretRotation").implement({
  description: "A rotated install signing secret",
  fields: (t) => ({
    installationId: t.exposeID("installationId", { description: "The install" }),
    endpointId: t.exposeID("endpointId", { description: "The managed endpoint" }),
    signingSecret: t.string({ nullable: true, description: "The new secret, shown once", resolve: (r, _a, ctx) => revealed(r.signingSecret, ctx) }),
    previousSecretExpiresAt: t.field({ type: "DateTime", nullable: true, description: "Until when the old secret co-signs; null when it ended at once", resolve: (r) => r.previousSecretExpiresAt }),
  }),
});
