// GraphQL for publishers and merchants: the same services and views as REST (src/extensions/extensions.rest.ts).
// The Basic client-credential routes (enumeration, api-key mint) are REST-only: that credential is refused here.
import { compact } from "../graphql/args";
import { builder } from "../graphql/builder";
import { pageArgs, withEdgeCursors } from "../graphql/shared-types";
import { errors } from "../shared/errors";
import { deliveryView } from "../webhooks/endpoints.service";
import { DeliveryPage, DeliveryRef } from "../webhooks/webhooks.schema";
import { createClientCredentials, createExtension, createVersion, getExtension, getVersion, listExtensions, listVersions, publishVersion, setListed, updateExtension, uploadImage } from "./extensions.service";
import { readWebhookSecret, rotateInstallationWebhookSecret } from "./installation-self.service";
import { getInstallation, installExtension, listInstallations, listInstallDeliveries, replayInstallDelivery, testInstallation, toggleSuspend, uninstall } from "./installations.service";
import {
  CredsRef,
  ExtensionPage,
  ExtensionRef,
  ImageRef,
  ImageTypeEnum,
  InstallStatusEnum,
  InstallationPage,
  InstallationRef,
  type Installed,
  InstalledRef,
  type Rotation,
  RotationRef,
  SecretRef,
  VersionPage,
  VersionRef,
} from "./extension-types.schema";

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
    args: { ...pageArgs(t) },
    resolve: (_r, a, ctx) => listExtensions(ctx, compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) })),
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
    args: { extensionId: t.arg.id({ required: true, description: extId }), ...pageArgs(t) },
    resolve: (_r, a, ctx) => listVersions(ctx, String(a.extensionId), compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) })),
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
      ...pageArgs(t),
      status: t.arg({ type: InstallStatusEnum, description: "Only this status" }),
      extensionId: t.arg.id({ description: "Only this extension" }),
    },
    resolve: (_r, a, ctx) => listInstallations(ctx, compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor), status: a.status, extensionId: a.extensionId ? String(a.extensionId) : undefined })),
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
    args: { id: t.arg.id({ required: true, description: instId }), ...pageArgs(t) },
    resolve: async (_r, a, ctx) => {
      // the cursor carries the offset of the next page (the REST route pages by limit/offset)
      let offset = 0;
      const after = a.after ?? a.cursor;
      if (after) {
        const m = /^o:(\d{1,7})$/.exec(Buffer.from(after, "base64url").toString("utf8"));
        if (!m) throw errors.validation([{ path: ["cursor"], message: "Invalid cursor: pass pageInfo.cursor of the previous page" }]);
        offset = Number(m[1]);
      }
      const page = await listInstallDeliveries(ctx, String(a.id), compact({ limit: (a.first ?? a.limit), offset }));
      const next = page.offset + page.items.length;
      const hasMore = next < page.total;
      const items = withEdgeCursors(page.items.map(deliveryView), (i) => Buffer.from(`o:${page.offset + i + 1}`).toString("base64url"));
      return { items, pagination: { cursor: hasMore ? Buffer.from(`o:${next}`).toString("base64url") : null, hasMore } };
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
