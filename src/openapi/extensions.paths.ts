// OpenAPI paths of the extension platform (src/extensions/extensions.rest.ts), registered by document.ts.
import { z } from "zod";
import { clientCredentialsInput, createVersionInput, UPLOAD_TYPES, uploadQuery } from "../extensions/extensions.service";
import { listQuery } from "../extensions/extensions.common";
import { graceInput, myInstallationsQuery } from "../extensions/installation-self.service";
import { installationFilters, installInput, uninstallInput } from "../extensions/installations.service";
import { createExtensionInput, updateExtensionInput } from "../extensions/manifest";
import { deliveriesQuery } from "../webhooks/endpoints.service";
import { WebhookDelivery } from "./schemas";
import type { Register } from "./operation";

const ts = z.iso.datetime();
const Manifest = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    iframeUrl: z.string().nullable(),
    webhookUrl: z.string().nullable(),
    eventSubscriptions: z.array(z.string()),
    scopes: z.array(z.string()),
    installCallbackUrl: z.string().nullable(),
    configSchema: z.record(z.string(), z.unknown()).nullable().meta({ description: "JSON Schema (draft 2020-12) of the install's configuration" }),
  })
  .meta({ id: "ExtensionManifest" });
const Extension = Manifest.extend({
  id: z.string().meta({ description: "ext_…" }),
  workspaceId: z.string(),
  lifecycle: z.enum(["draft", "published", "delisted"]),
  iconKey: z.string().nullable(),
  screenshotKeys: z.array(z.string()),
  clientId: z.string().nullable().meta({ description: "extc_… once client credentials exist" }),
  createdAt: ts,
  updatedAt: ts,
}).meta({ id: "Extension" });
const Version = z
  .object({
    id: z.string().meta({ description: "ver_…" }),
    extensionId: z.string(),
    version: z.string(),
    notes: z.string().nullable(),
    status: z.enum(["draft", "published"]),
    manifest: Manifest,
    createdAt: ts,
    publishedAt: ts.nullable(),
  })
  .meta({ id: "ExtensionVersion" });
const Installation = z
  .object({
    id: z.string().meta({ description: "inst_…" }),
    extensionId: z.string(),
    versionId: z.string().nullable(),
    version: z.string().nullable(),
    status: z.enum(["active", "suspended", "uninstalled"]),
    workspaceId: z.string(),
    applicationId: z.string(),
    environmentId: z.string(),
    environmentSlug: z.string(),
    environmentKind: z.enum(["production", "non_production"]),
    providerEnvironment: z.enum(["production", "sandbox"]),
    installSequence: z.number().int(),
    webhookEndpointId: z.string().nullable(),
    config: z.record(z.string(), z.unknown()),
    installedAt: ts,
    suspendedAt: ts.nullable(),
    suspendedReason: z.enum(["merchant", "delivery_failures"]).nullable(),
    uninstalledAt: ts.nullable(),
    uninstallReason: z.enum(["merchant", "staff_takedown"]).nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "ExtensionInstallation" });
const InstalledNow = Installation.extend({
  apiKey: z.string().nullable().meta({ description: "The installation API key, shown once (null on an Idempotency-Key replay)" }),
  keyPrefix: z.string(),
  webhookSigningSecret: z.string().nullable().meta({ description: "whsec_…: the endpoint's signing secret (the same on reinstall); null without a webhookUrl" }),
}).meta({ id: "ExtensionInstallResult" });
const MyInstallation = z
  .object({
    installationId: z.string(),
    extensionId: z.string(),
    workspaceId: z.string(),
    applicationId: z.string(),
    environmentId: z.string(),
    status: z.enum(["active", "suspended", "uninstalled"]),
    installSequence: z.number().int(),
    versionId: z.string().nullable(),
    installedAt: ts,
  })
  .meta({ id: "ExtensionOwnInstallation" });
const WebhookSecret = z
  .object({
    installationId: z.string(),
    installSequence: z.number().int(),
    endpointId: z.string(),
    url: z.string(),
    enabledEvents: z.array(z.string()),
    signingSecret: z.string(),
    previousSecretExpiresAt: ts.nullable(),
  })
  .meta({ id: "InstallationWebhookSecret" });
const MintedKey = z
  .object({ installationId: z.string(), apiKey: z.string().nullable(), keyPrefix: z.string(), previousKeyExpiresAt: ts.nullable() })
  .meta({ id: "InstallationApiKey" });
const Rotated = z
  .object({ installationId: z.string(), endpointId: z.string(), signingSecret: z.string().nullable(), previousSecretExpiresAt: ts.nullable() })
  .meta({ id: "InstallationSecretRotation" });
const Credentials = z
  .object({ extensionId: z.string(), clientId: z.string(), clientSecret: z.string().nullable().meta({ description: "Shown once" }), installCallbackUrl: z.string().nullable(), rotatedAt: ts })
  .meta({ id: "ExtensionClientCredentials" });
const Upload = z
  .object({ extensionId: z.string(), kind: z.enum(["icon", "screenshot"]), key: z.string(), contentType: z.enum(UPLOAD_TYPES), sizeBytes: z.number().int(), url: z.string().meta({ description: "A signed download URL, valid one hour" }) })
  .meta({ id: "ExtensionImage" });

type Reg = Register;

export function registerExtensions(r: Reg) {
  const tag = "extensions";
  const id = { id: "The extension's (ext_…)" };
  const inst = { id: "The installation's (inst_…)" };
  r("post", "/extensions", { tag, summary: "Create an extension (dashboard session of the publishing workspace). 400 invalid_scope (human/admin scopes), 403 insufficient_scopes (an event without its read scope), 422 invalid_callback_url, 422 validation_error (configSchema not a valid JSON Schema 2020-12, reserved event types)", body: createExtensionInput, ok: [201, Extension] });
  r("get", "/extensions", { tag, summary: "The workspace's own extensions, newest first (dashboard session, or a key with extensions:read)", query: listQuery, ok: [200, Extension, "page"] });
  r("post", "/extensions/icon-upload", { tag, summary: "Upload the extension's icon (raw PNG, JPEG or WebP body, at most 256 KiB; any credential with extensions:write). 415 unsupported_media_type, 413 payload_too_large", query: uploadQuery, imageBody: UPLOAD_TYPES, ok: [201, Upload] });
  r("post", "/extensions/screenshot-upload", { tag, summary: "Add a screenshot (raw PNG, JPEG or WebP body, at most 1 MiB, 8 per extension; any credential with extensions:write)", query: uploadQuery, imageBody: UPLOAD_TYPES, ok: [201, Upload] });
  r("get", "/extensions/me/installations", { tag, summary: "Basic client credentials only: every install of the calling extension (any status), newest first", query: myInstallationsQuery, clientCredentials: "only", ok: [200, MyInstallation, "page"] });
  r("get", "/extensions/{id}", { tag, summary: "An extension: the publisher sees any; other workspaces see published and delisted ones", params: id, ok: [200, Extension] });
  r("patch", "/extensions/{id}", { tag, summary: "Change the working manifest (checked again as a whole; versions keep their snapshot)", params: id, body: updateExtensionInput, ok: [200, Extension] });
  r("post", "/extensions/{id}/delist", { tag, summary: "published -> delisted: no new installs; existing installs keep working", params: id, ok: [200, Extension] });
  r("post", "/extensions/{id}/relist", { tag, summary: "delisted -> published", params: id, ok: [200, Extension] });
  r("post", "/extensions/{id}/versions", { tag, summary: "Snapshot the manifest as an immutable draft version (409 version_exists)", params: id, body: createVersionInput, ok: [201, Version] });
  r("get", "/extensions/{id}/versions", { tag, summary: "Versions, newest first (other workspaces: published only)", params: id, query: listQuery, ok: [200, Version, "page"] });
  r("get", "/extensions/{id}/versions/{versionId}", { tag, summary: "A version", params: { id: "The extension's", versionId: "The version's (ver_…)" }, ok: [200, Version] });
  r("post", "/extensions/{id}/versions/{versionId}/publish", { tag, summary: "draft -> published (409 version_not_draft); the extension's first published version publishes it", params: { id: "The extension's", versionId: "The version's" }, body: z.strictObject({}), ok: [200, Version] });
  r("post", "/extensions/{id}/install", { tag, summary: "Install a published version into the application and environment named by X-Service-Application-Id / X-Service-Environment-Id (dashboard session). Returns the one-time apiKey and the webhookSigningSecret; installing again reuses the row, endpoint and secret and bumps installSequence. 409 version_not_published, extension_delisted", params: id, body: installInput, ok: [201, InstalledNow] });
  r("post", "/extensions/{id}/suspend", { tag, summary: "Toggle the environment's install of this extension: active -> suspended (it receives no events), suspended -> active (dashboard session, or a key with extensions:install)", params: id, ok: [200, Installation] });
  r("post", "/extensions/{id}/client-credentials", { tag, summary: "Create or rotate the extension's client credentials (the old secret dies at once); installCallbackUrl must be https (422 invalid_callback_url). Dashboard session or a secret key with extensions:write, never the extension's own credentials", params: id, body: clientCredentialsInput, ok: [201, Credentials] });
  r("get", "/extension-installations", { tag, summary: "The environment's installs, newest first (key with extensions:read)", query: listQuery.extend(installationFilters), ok: [200, Installation, "page"] });
  r("get", "/installations/{id}", { tag, summary: "An install of the caller's application and environment (extensions:read)", params: inst, ok: [200, Installation] });
  r("post", "/installations/{id}/uninstall", { tag, summary: "Uninstall (reason merchant): the state is set, the installation's keys die at once, then extension.uninstalled is delivered to its endpoint (extensions:install)", params: inst, body: uninstallInput, ok: [200, Installation] });
  r("get", "/installations/{id}/deliveries", { tag, summary: "Deliveries to the install's endpoint, newest first (extensions:read; 404 when not active; 409 no_webhook_endpoint)", params: inst, query: deliveriesQuery, ok: [200, z.array(WebhookDelivery)], meta: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }) });
  r("post", "/installations/{id}/deliveries/{deliveryId}/replay", { tag, summary: "Send a dead-lettered delivery again with the original id, payload and createdAt (extensions:install)", params: { id: "The installation's", deliveryId: "Delivery" }, ok: [202, WebhookDelivery] });
  r("post", "/installations/{id}/test", { tag, summary: "A signed extension.ping to the install's endpoint (extensions:install, or the installation's own key)", params: inst, ok: [202, WebhookDelivery] });
  r("get", "/installations/{id}/webhook-secret", { tag, summary: "The install's current signing secret (idempotent): Basic client credentials or the installation's API key. 404 for another extension's, unknown or non-active installs; 409 no_webhook_endpoint", params: inst, clientCredentials: "also", ok: [200, WebhookSecret] });
  r("post", "/installations/{id}/api-key", { tag, summary: "Basic client credentials only: a new installation API key (shown once); the previous one works for graceSeconds more (0..604800, default 86400). 409 version_not_found, 404 environment_not_found", params: inst, body: graceInput.partial(), clientCredentials: "only", ok: [201, MintedKey] });
  r("post", "/installations/{id}/rotate-webhook-secret", { tag, summary: "A new signing secret (shown once); the old one co-signs for graceSeconds (0..604800, default 86400; 0 ends it now). Sends extension.webhook_secret_rotated. Installation API key or Basic client credentials", params: inst, body: graceInput.partial(), clientCredentials: "also", ok: [200, Rotated] });
}
