// The document's shared parts and its finishing: security schemes (API key, dashboard session, OAuth 2.1 access
// tokens, extension client credentials, the wallet client token), the shared Error and RateLimited responses, the
// webhooks of the documented events, the tags, and the last pass over the generated JSON (event data conditions,
// patterns in the JSON Schema dialect, every operation's tag declared).
import type { OpenApiGeneratorV31, OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { OAUTH_PATHS } from "../oauth/provider";
import { OAUTH_SCOPES } from "../shared/scopes";
import { eventDataConditions, registerEventWebhooks } from "./events";
import { rateLimitHeaders } from "./operation";
import { jsonSchemaPattern } from "./patterns";
import { ErrorBody } from "./schemas";
import { TAGS } from "./tags";

const scopeDescription = (scope: string) => {
  const [resource, verb] = scope.split(":");
  return `${verb === "read" ? "Read" : verb === "install" ? "Install" : "Create and change"} ${resource.replace(/_/g, " ")}`;
};

export function registerComponents(reg: OpenAPIRegistry) {
  reg.registerComponent("securitySchemes", "apiKey", { type: "apiKey", in: "header", name: "X-API-Key", description: "A secret key (sk_…)" });
  reg.registerComponent("securitySchemes", "dashboardSession", {
    type: "http",
    scheme: "bearer",
    description: "A dashboard session token (dst_…), or an extension session token (an RS256 JWT from POST /installations/{id}/session: its install's scopes, application and environment only)",
  });
  reg.registerComponent("securitySchemes", "oauth2", {
    type: "oauth2",
    description:
      "OAuth 2.1 access tokens (Authorization: Bearer): RS256 JWTs (RFC 9068) for the resource {BASE_URL} (RFC 8707), valid 1 hour, carrying the consented scopes; the grant is pinned to the application and environment the member picked on the consent page. Public clients only, with PKCE (S256) required; clients register dynamically (RFC 7591) at /oauth/register; the server's metadata is at /.well-known/oauth-authorization-server. Refresh tokens rotate.",
    flows: {
      authorizationCode: {
        authorizationUrl: OAUTH_PATHS.authorization,
        tokenUrl: OAUTH_PATHS.token,
        refreshUrl: OAUTH_PATHS.token,
        scopes: Object.fromEntries(OAUTH_SCOPES.map((s) => [s, scopeDescription(s)])),
      },
    },
  });
  reg.registerComponent("securitySchemes", "clientCredentials", { type: "http", scheme: "basic", description: "An extension's client credentials: base64(clientId:clientSecret), unwrapped; four routes only" });
  reg.registerComponent("securitySchemes", "pmToken", { type: "apiKey", in: "header", name: "X-Service-PM-Token", description: "A wallet client token (pmt_…) for one customer: /me/payment-methods* and /me/subscriptions* only" });
  const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };
  reg.registerComponent("responses", "Error", { description: "An error: `error.code` is stable and has one status everywhere (the error catalogue)", content: errorContent });
  reg.registerComponent("responses", "RateLimited", {
    description: "`rate_limited`: too many requests; retry after Retry-After seconds (`details.retryAfterSeconds`)",
    headers: rateLimitHeaders,
    content: errorContent,
  });
  registerEventWebhooks(reg);
}

/** Schemas the document carries although only raw $refs name them (the shared responses'). */
export const standaloneSchemas = () => [{ type: "schema" as const, schema: ErrorBody }];

type Doc = ReturnType<OpenApiGeneratorV31["generateDocument"]>;

/** Rewrites every `pattern` of the document for the JSON Schema dialect (regex flags folded in, or refused). */
function fixPatterns(node: unknown) {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) return node.forEach(fixPatterns);
  const o = node as Record<string, unknown>;
  if (typeof o.pattern === "string") o.pattern = jsonSchemaPattern(o.pattern);
  for (const v of Object.values(o)) fixPatterns(v);
}

export function finishDocument(gen: OpenApiGeneratorV31): Doc {
  const doc = gen.generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Quote-to-cash API",
      version: "1",
      description:
        "REST adapter of the quote-to-cash commerce API. Bodies are JSON; every list is { data, meta.pagination }; every error is { error: { code, message, status, details? } }, and a code has one status everywhere. GraphQL at /graphql exposes the same operations: each operationId is the name of the GraphQL field over the same service.",
      contact: { name: "API support" },
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/api/v1" }],
    tags: [...TAGS],
  });
  const declared = new Set(TAGS.map((t) => t.name));
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { tags?: string[] }>)) {
      for (const tag of op.tags ?? []) if (!declared.has(tag)) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} has tag "${tag}", which src/openapi/tags.ts does not declare`);
    }
  }
  const event = doc.components?.schemas?.Event as Record<string, unknown> | undefined;
  if (event) event.allOf = eventDataConditions();
  fixPatterns(doc);
  return doc;
}
