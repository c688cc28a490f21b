// The hosted tool endpoint, {base_url}/mcp: the Model Context Protocol over streamable HTTP (the official SDK,
// stateless: a fresh server per request, which also serves 2025-era clients), protected by OAuth access tokens from
// our authorization server and issued for this resource ({base_url}/mcp; a token for the API is refused). No token,
// or a bad one: 401 with a WWW-Authenticate challenge naming /mcp's protected resource metadata, from which a client
// finds the authorization server and the resource to ask for. Serves that metadata, and the API's (RFC 9728).
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { AuthInfo, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { authenticateRequest } from "../platform/auth.service";
import type { Principal } from "../platform/principal";
import { looksLikeJwt } from "../oauth/access-tokens";
import { oauthResources } from "../oauth/resources";
import { type Deps, makeCtx } from "../shared/context";
import { DomainError, parseInput } from "../shared/errors";
import { hasScope, OAUTH_SCOPES } from "../shared/scopes";
import { verifyUtf8 } from "../rest/http";
import { TOOLS, type ToolDef } from "./tools";

export const MCP_PATH = "/mcp";

// The SDK loads on the first /mcp request: every process serves the route, few are ever called on it.
interface Sdk {
  express: typeof import("@modelcontextprotocol/express");
  node: typeof import("@modelcontextprotocol/node");
  server: typeof import("@modelcontextprotocol/server");
}
let sdkModules: Sdk | null = null;
const sdk = (): Sdk =>
  (sdkModules ??= { express: require("@modelcontextprotocol/express"), node: require("@modelcontextprotocol/node"), server: require("@modelcontextprotocol/server") });
const PRM_PATH = "/.well-known/oauth-protected-resource";

/**
 * The REST zod schema as the tool's input: its JSON Schema is advertised in tools/list. The SDK's validation step
 * passes values through; callTool() validates them with the same schema, so a bad argument gets the REST route's
 * validation_error (details.issues naming each field) as a tool result rather than the SDK's own error shape.
 */
function advertised(schema: z.ZodType): StandardSchemaWithJSON {
  const std = schema["~standard"] as unknown as { jsonSchema: StandardSchemaWithJSON["~standard"]["jsonSchema"] };
  return { "~standard": { version: 1, vendor: "quote-to-cash", validate: (value: unknown) => ({ value }), jsonSchema: std.jsonSchema } } as StandardSchemaWithJSON;
}

const textResult = (value: unknown, isError = false) => ({ content: [{ type: "text" as const, text: JSON.stringify(value, null, 2) }], ...(isError ? { isError: true } : {}) });

async function callTool(deps: Deps, principal: Principal, tool: ToolDef, args: unknown) {
  if (!hasScope(principal.scopes, tool.scope)) {
    return textResult({ error: { code: "insufficient_scope", message: `The ${tool.name} tool needs the ${tool.scope} scope, which this token was not granted`, scope: tool.scope } }, true);
  }
  try {
    // Validated here, not only by the service: a tool's own fields (`id`, `changes`, `item`) reach no service parse,
    // and a missing one would otherwise surface as an internal error. The service still parses what it is given.
    const input = args ?? {};
    parseInput(tool.input, input);
    return textResult(await tool.run(makeCtx(deps, principal), input));
  } catch (e) {
    if (e instanceof DomainError && e.status < 500) {
      return textResult({ error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}) } }, true);
    }
    console.error(`[mcp] tool ${tool.name} failed:`, e instanceof Error ? e.message : e);
    return textResult({ error: { code: "internal_error", message: "An unexpected error occurred" } }, true);
  }
}

function buildServer(deps: Deps, principal: Principal) {
  const server = new (sdk().server.McpServer)({ name: "quote-to-cash", version: "1.0.0" });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: `${tool.description} Needs the ${tool.scope} scope.`, inputSchema: advertised(tool.input), annotations: { readOnlyHint: tool.readOnly, openWorldHint: false } },
      (args: unknown) => callTool(deps, principal, tool, args),
    );
  }
  return server;
}

export function mcpRouter(deps: Deps) {
  const r = Router();
  const { config } = deps;

  const metadata = (resource: string) => ({
    resource,
    authorization_servers: [oauthResources(config).api],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Quote-to-cash API",
  });
  r.get(PRM_PATH, (_req, res) => void res.json(metadata(oauthResources(config).api)));
  r.get(`${PRM_PATH}${MCP_PATH}`, (_req, res) => void res.json(metadata(oauthResources(config).mcp)));

  /** Only our OAuth access tokens open /mcp; the principal rides along in AuthInfo.extra. */
  const verifier = {
    verifyAccessToken: async (token: string): Promise<AuthInfo> => {
      if (!looksLikeJwt(token)) throw new (sdk().server.OAuthError)("invalid_token", "Send an OAuth access token from this server's authorization server");
      let principal: Principal | null;
      try {
        ({ principal } = await authenticateRequest(makeCtx(deps), { authorization: `Bearer ${token}`, oauthResource: "mcp" }));
      } catch (e) {
        if (e instanceof DomainError && e.code === "rate_limited") throw new (sdk().server.OAuthError)("temporarily_unavailable", e.message);
        throw new (sdk().server.OAuthError)("invalid_token", e instanceof DomainError ? e.message : "Invalid access token");
      }
      if (!principal?.oauth) throw new (sdk().server.OAuthError)("invalid_token", "Invalid access token");
      return { token, clientId: principal.oauth.clientId, scopes: principal.scopes, expiresAt: principal.oauth.expiresAt, extra: { principal } };
    },
  };
  let auth: ReturnType<Sdk["express"]["requireBearerAuth"]> | null = null;
  const bearer = (req: Request, res: Response, next: NextFunction) => {
    // built on first use: the metadata URL follows BASE_URL, known once the server listens. The challenge names
    // /mcp's own metadata (RFC 9728 path form), whose `resource` is what a client asks tokens for.
    auth ??= sdk().express.requireBearerAuth({ verifier, resourceMetadataUrl: `${oauthResources(config).api}${PRM_PATH}${MCP_PATH}` });
    return auth(req, res, next);
  };

  let node: ReturnType<Sdk["node"]["toNodeHandler"]> | null = null;
  const handle = (req: Request, res: Response) => {
    if (!node) {
      const { server, node: adapter } = sdk();
      node = adapter.toNodeHandler(server.createMcpHandler(({ authInfo }) => buildServer(deps, authInfo!.extra!.principal as Principal)));
    }
    return node(req, res, req.body);
  };
  r.all(MCP_PATH, bearer, express.json({ limit: config.BODY_LIMIT_BYTES, verify: verifyUtf8 }), handle);
  return r;
}
