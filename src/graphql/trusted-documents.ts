// Trusted documents (issue 37 item 6): first-party clients (the dashboard) send the sha256 of an operation from a
// manifest built from their .graphql files (scripts/persisted-operations.ts: clients/**/*.graphql ->
// clients/persisted-operations.json, `{ "<sha256 hex>": "<document>" }`, the shape GraphQL Code Generator's client
// preset writes as persisted-documents.json) instead of its text, through Yoga's persisted-operations plugin.
// Ad hoc documents stay allowed (API keys, integrations, GraphiQL); GRAPHQL_DASHBOARD_PERSISTED_ONLY=on refuses
// them from dashboard sessions, so a stolen dashboard token can run only what the dashboard itself runs.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { usePersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import { type DefinitionNode, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, Kind, type OperationDefinitionNode, parse, print, validate, visit } from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";

export type PersistedManifest = Record<string, string>;

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The fragments an operation uses, transitively, by name. */
function fragmentsOf(node: DefinitionNode, all: Map<string, FragmentDefinitionNode>, seen = new Set<string>()): Set<string> {
  visit(node, {
    FragmentSpread(s) {
      const name = s.name.value;
      if (seen.has(name) || !all.has(name)) return;
      seen.add(name);
      fragmentsOf(all.get(name)!, all, seen);
    },
  });
  return seen;
}

/**
 * The manifest of some .graphql sources (all their fragments shared): one entry per named operation, its document
 * the operation and the fragments it uses (sorted by name), printed; keyed by that text's sha256. Each document is
 * validated against `schema`: a client document the schema no longer answers fails the build, not the dashboard.
 */
export function buildManifest(sources: { name: string; body: string }[], schema: GraphQLSchema): PersistedManifest {
  const docs = sources.map((s) => ({ name: s.name, doc: parse(s.body) }));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const { doc } of docs) for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const out: PersistedManifest = {};
  const names = new Set<string>();
  for (const { name, doc } of docs) {
    for (const op of doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)) {
      if (!op.name) throw new Error(`${name}: every operation of a first-party client needs a name`);
      if (names.has(op.name.value)) throw new Error(`${name}: operation ${op.name.value} is defined twice`);
      names.add(op.name.value);
      const used = [...fragmentsOf(op, fragments)].sort().map((f) => fragments.get(f)!);
      const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [op, ...used] };
      const problems = validate(schema, document);
      if (problems.length) throw new Error(`${name}: ${op.name.value}: ${problems.map((p) => p.message).join("; ")}`);
      const text = print(document);
      out[sha256(text)] = text;
    }
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** The manifest at `file`; none (an empty one) when the file does not exist. */
export function loadManifest(file: string): Map<string, string> {
  if (!existsSync(file)) return new Map();
  const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error(`${file}: not a { "<sha256>": "<document>" } manifest`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  for (const [hash, doc] of entries) {
    if (typeof doc !== "string" || sha256(doc) !== hash) throw new Error(`${file}: the entry ${hash} is not its document's sha256`);
  }
  return new Map(entries as [string, string][]);
}

const manifests = new Map<string, Map<string, string>>();
/** The manifest at `file`, read once per process (the HTTP plugin and graphql-ws share it). */
export function manifestAt(file: string): Map<string, string> {
  let m = manifests.get(file);
  if (!m) manifests.set(file, (m = loadManifest(file)));
  return m;
}

const PERSISTED_ONLY_MESSAGE = "PersistedQueryOnly: dashboard sessions send persisted operations only (extensions.persistedQuery.sha256Hash of a document in the manifest)";

/**
 * graphql-ws: the document of a subscribe message by the same rules as over HTTP (Yoga's plugin sees HTTP requests
 * only): a known hash gives the manifest's document, an unknown one PersistedQueryNotFound; a document sent as text
 * runs, except from a dashboard session when `dashboardPersistedOnly`.
 */
export function socketDocument(
  manifest: Map<string, string>,
  params: { query?: unknown; extensions?: Record<string, unknown> | null },
  opts: { dashboardPersistedOnly: boolean; dashboardSession: boolean },
): string {
  const text = typeof params.query === "string" && params.query ? params.query : null;
  // as over HTTP, a document's text is refused even beside a known hash
  if (text && opts.dashboardPersistedOnly && opts.dashboardSession) throw createGraphQLError(PERSISTED_ONLY_MESSAGE, { extensions: { code: "PERSISTED_QUERY_ONLY" } });
  const hash = (params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
  if (typeof hash === "string") {
    const doc = manifest.get(hash);
    if (!doc) throw createGraphQLError("PersistedQueryNotFound", { extensions: { code: "PERSISTED_QUERY_NOT_IN_LIST" } });
    return doc;
  }
  if (!text) throw createGraphQLError(opts.dashboardPersistedOnly && opts.dashboardSession ? PERSISTED_ONLY_MESSAGE : "Must provide query string.");
  return text;
}

/** A dashboard session's credential (Authorization: Bearer dst_…): verified later, by authentication, like any other. */
export const isDashboardSession = (authorization: string | null | undefined) => /^Bearer\s+dst_/i.test(authorization ?? "");
export const isDashboardSessionRequest = (request: Request) => isDashboardSession(request.headers.get("authorization"));

/**
 * Yoga's persisted-operations plugin over the manifest: `extensions.persistedQuery.sha256Hash` runs the manifest's
 * document (an unknown hash is PersistedQueryNotFound, code PERSISTED_QUERY_NOT_IN_LIST); a document sent as text
 * runs too, except from a dashboard session when `dashboardPersistedOnly` (PersistedQueryOnly).
 */
export function trustedDocuments(manifest: Map<string, string>, opts: { dashboardPersistedOnly: boolean }): Plugin {
  return usePersistedOperations({
    getPersistedOperation: (hash: string) => manifest.get(hash) ?? null,
    allowArbitraryOperations: (request: Request) => !(opts.dashboardPersistedOnly && isDashboardSessionRequest(request)),
    customErrors: {
      // neither a document nor a hash: what Yoga answers without the plugin
      keyNotFound: () => createGraphQLError("Must provide query string.", { extensions: { http: { status: 400, headers: { Allow: "GET, POST" } } } }),
      persistedQueryOnly: {
        message: PERSISTED_ONLY_MESSAGE,
        extensions: { code: "PERSISTED_QUERY_ONLY" },
      },
    },
  }) as Plugin;
}
