// An extension's manifest: what it asks for (scopes), what it hears (event subscriptions), where it lives (iframe,
// webhook, install callback) and what it is configured with (configSchema, JSON Schema draft 2020-12). Checked at
// create and update; a version snapshots it unchanged.
import type Ajv2020Type from "ajv/dist/2020";
import { z } from "zod";
import { READ_SCOPE, RETIRED, UNSUBSCRIBABLE } from "../events/catalog";
import { DomainError, errors } from "../shared/errors";
import { ALL_SCOPES, NON_EXTENSION_PREFIXES } from "../shared/scopes";

export interface Manifest {
  name: string;
  description: string | null;
  iframeUrl: string | null;
  webhookUrl: string | null;
  eventSubscriptions: string[];
  scopes: string[];
  installCallbackUrl: string | null;
  configSchema: Record<string, unknown> | null;
}

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without credentials");

/** The manifest fields a create or update accepts (update: all optional, null clears the optional ones). */
const manifestFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(2000).nullable().optional(),
  iframeUrl: httpUrl.nullable().optional(),
  webhookUrl: httpUrl.nullable().optional(),
  eventSubscriptions: z.array(z.string().min(1).max(100)).max(READ_SCOPE.size).optional(),
  scopes: z.array(z.string().min(1).max(100)).max(ALL_SCOPES.length).optional(),
  installCallbackUrl: z.string().trim().max(2048).nullable().optional(),
  configSchema: z.record(z.string(), z.unknown()).nullable().optional(),
};
export const createExtensionInput = z.strictObject(manifestFields);
export const updateExtensionInput = z.strictObject({ ...manifestFields, name: manifestFields.name.optional() });

/** Scopes an extension may hold: the registry less `*` and the human and staff families. */
function isExtensionScope(s: string) {
  return s !== "*" && (ALL_SCOPES as readonly string[]).includes(s) && !NON_EXTENSION_PREFIXES.some((p) => s.startsWith(p));
}

/** 422 invalid_callback_url unless an absolute https URL (install callbacks carry a signed token). */
export function checkCallbackUrl(url: string, path: (string | number)[] = ["installCallbackUrl"]): string {
  let u: URL | null = null;
  try {
    u = new URL(url.trim());
  } catch {
    /* below */
  }
  if (!u || u.protocol !== "https:" || u.username || u.password) {
    throw new DomainError("invalid_callback_url", "installCallbackUrl must be an absolute https URL", { path });
  }
  return u.toString();
}

// created on first use (only extension routes validate schemas)
let ajvInstance: Ajv2020Type | null = null;
function ajvOf() {
  if (!ajvInstance) {
    const Ajv2020 = (require("ajv/dist/2020") as { default: typeof Ajv2020Type }).default;
    ajvInstance = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  }
  return ajvInstance;
}

/** The configSchema must be a valid draft 2020-12 schema (ajv compiles it, strict about unknown keywords). */
function checkConfigSchema(schema: Record<string, unknown>) {
  const declared = schema.$schema;
  if (declared !== undefined && declared !== "https://json-schema.org/draft/2020-12/schema") {
    throw errors.validation([{ path: ["configSchema", "$schema"], message: "must be https://json-schema.org/draft/2020-12/schema (or absent)" }]);
  }
  const ajv = ajvOf();
  try {
    if (!ajv.validateSchema(schema)) {
      const e = ajv.errors?.[0];
      throw new Error(`${e?.instancePath || "/"} ${e?.message ?? "is not a valid schema"}`);
    }
    ajv.compile(schema);
  } catch (e) {
    throw errors.validation([{ path: ["configSchema"], message: `is not a valid JSON Schema (draft 2020-12): ${(e as Error).message}`.slice(0, 500) }]);
  }
}

/** Validates install configuration values against a version's configSchema (422 naming the offending value). */
export function checkConfigValues(schema: Record<string, unknown> | null, config: Record<string, unknown>) {
  if (!schema) {
    if (Object.keys(config).length) throw errors.validation([{ path: ["config"], message: "this version declares no configSchema: send no config" }]);
    return;
  }
  const validate = ajvOf().compile(schema);
  if (!validate(config)) {
    throw errors.validation(
      (validate.errors ?? []).slice(0, 20).map((e) => ({ path: ["config", ...e.instancePath.split("/").filter(Boolean)], message: e.message ?? "is invalid" })),
    );
  }
}

/**
 * Rules 1 and 2: every scope extension-allowed (400 invalid_scope), every subscribed event known, subscribable
 * (reserved types arrive without a subscription) and covered by its read scope in the manifest (400
 * insufficient_scopes). Returns the normalised manifest.
 */
export function checkManifest(m: Manifest): Manifest {
  const scopes = [...new Set(m.scopes)];
  const unknown = scopes.filter((s) => !(ALL_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw errors.invalidScope(unknown, "unknown scope");
  const human = scopes.filter((s) => !isExtensionScope(s));
  if (human.length) throw errors.invalidScope(human, "human and staff scopes (team_members:*, billing:*, admin:*, *) are never granted to extensions");

  const issues: { path: (string | number)[]; message: string }[] = [];
  const events = m.eventSubscriptions.map((t, i) => {
    const name = RETIRED[t] ?? t;
    if (!READ_SCOPE.has(name)) issues.push({ path: ["eventSubscriptions", i], message: `Unknown event type "${t}"` });
    else if (UNSUBSCRIBABLE.has(name)) issues.push({ path: ["eventSubscriptions", i], message: `"${t}" is delivered without a subscription and cannot be listed` });
    return name;
  });
  if (issues.length) throw errors.validation(issues);
  const eventSubscriptions = [...new Set(events)];
  const missing = [...new Set(eventSubscriptions.map((t) => READ_SCOPE.get(t)!).filter((s) => !scopes.includes(s)))];
  if (missing.length) {
    throw new DomainError("insufficient_scopes", `Subscribing needs each event's read scope in the manifest's scopes: missing ${missing.join(", ")}`, { required: missing });
  }
  if (eventSubscriptions.length && !m.webhookUrl) {
    throw errors.validation([{ path: ["webhookUrl"], message: "Required when eventSubscriptions lists events: events are delivered to it" }]);
  }
  const installCallbackUrl = m.installCallbackUrl === null ? null : checkCallbackUrl(m.installCallbackUrl);
  if (m.configSchema) checkConfigSchema(m.configSchema);
  return { ...m, scopes, eventSubscriptions, installCallbackUrl };
}

/** The manifest a version stored (older snapshots may lack fields: defaults fill them). */
/** An extension row's own manifest fields (what its next version snapshots; its view shows them). */
export function manifestOfRow(e: { name: string; description: string | null; iframeUrl: string | null; webhookUrl: string | null; eventSubscriptions: string[]; scopes: string[]; installCallbackUrl: string | null; configSchema: unknown }): Manifest {
  return {
    name: e.name,
    description: e.description,
    iframeUrl: e.iframeUrl,
    webhookUrl: e.webhookUrl,
    eventSubscriptions: e.eventSubscriptions,
    scopes: e.scopes,
    installCallbackUrl: e.installCallbackUrl,
    configSchema: (e.configSchema as Record<string, unknown> | null) ?? null,
  };
}

export function manifestOf(json: unknown): Manifest {
  const m = (json ?? {}) as Partial<Manifest>;
  return {
    name: m.name ?? "",
    description: m.description ?? null,
    iframeUrl: m.iframeUrl ?? null,
    webhookUrl: m.webhookUrl ?? null,
    eventSubscriptions: m.eventSubscriptions ?? [],
    scopes: m.scopes ?? [],
    installCallbackUrl: m.installCallbackUrl ?? null,
    configSchema: (m.configSchema as Record<string, unknown> | null) ?? null,
  };
}
