// Installed extensions seeded straight into the database for the session-token and bridge tests: an extension, one
// published version (its manifest snapshot) and an active installation in one application environment. The install
// routes live elsewhere; these rows are what they leave behind. The manifest deliberately carries a configSchema and
// the install config values, so tests can check that neither leaks into a session token.
import { randomUUID } from "node:crypto";
import type { TestApp } from "./app";

export interface SeedInstallOptions {
  workspaceId: string;
  applicationId: string;
  environmentId: string;
  scopes?: string[];
  iframeUrl?: string | null;
  name?: string;
  version?: string;
  config?: Record<string, unknown>;
  status?: "active" | "suspended" | "uninstalled";
}

export const SECRET_CONFIG_VALUE = "cfg-secret-value-must-not-leak";

const short = () => randomUUID().replace(/-/g, "").slice(0, 20);

export async function seedInstalledExtension(t: TestApp, o: SeedInstallOptions) {
  const db = t.deps.prisma;
  const scopes = o.scopes ?? ["orders:read"];
  const iframeUrl = o.iframeUrl === undefined ? "https://extension.example.com/app" : o.iframeUrl;
  const configSchema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { apiToken: { type: "string", description: "SCHEMA-MARKER" } } };
  const name = o.name ?? "Order notes";
  const extension = await db.extension.create({
    data: { id: `ext_${short()}`, workspaceId: o.workspaceId, name, iframeUrl, scopes, eventSubscriptions: [], configSchema, lifecycle: "published" },
  });
  const version = await db.extensionVersion.create({
    data: {
      id: `ver_${short()}`,
      extensionId: extension.id,
      version: o.version ?? "1.0.0",
      notes: "first",
      status: "published",
      publishedAt: new Date(),
      manifest: { name, description: null, iframeUrl, webhookUrl: null, eventSubscriptions: [], scopes, installCallbackUrl: null, configSchema },
    },
  });
  const installation = await db.installation.create({
    data: {
      id: `inst_${short()}`,
      extensionId: extension.id,
      versionId: version.id,
      workspaceId: o.workspaceId,
      applicationId: o.applicationId,
      environmentId: o.environmentId,
      status: o.status ?? "active",
      config: (o.config ?? { apiToken: SECRET_CONFIG_VALUE }) as object,
    },
  });
  return { extension, version, installation };
}

/** Sets an installation's status as the uninstall or suspend routes would (the row only). */
export async function setInstallationStatus(t: TestApp, installationId: string, status: "active" | "suspended" | "uninstalled") {
  await t.deps.prisma.installation.update({
    where: { id: installationId },
    data: { status, ...(status === "uninstalled" ? { uninstalledAt: new Date(), uninstallReason: "merchant" } : {}), ...(status === "suspended" ? { suspendedAt: new Date(), suspendedReason: "merchant" } : {}) },
  });
}
