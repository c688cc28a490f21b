// The hosted tool endpoint, {base_url}/mcp: the Model Context Protocol over streamable HTTP (the official SDK,
// stateless: a fresh server per request, which also serves 2025-era clients), protected by OAuth access tokens from
// our authorization server and issued for this resource ({base_url}/mcp; a token for the API is refused). No token,
// or a bad one: 401 with a WWW-Authenticate challenge naming /mcp's protected resource metadata, from which a client
// finds the authorization server and the resource to ask for. Serves that metadata, and the API's (RFC 9728).
import express, { Router, type NextFunction, type Request, type Response } from "express";
import type { AuthInfo, StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import type { z } from "zod";
import { authenticateRequest } from "../platform/auth.service";
import type { Principal } from "../shared/principal";
import { looksLikeJwt } from "../oauth/access-tokens";
import { oauthResources } from "../oauth/resources";
import { DPOP_ALGS, dpopRequest, usesDpopScheme } from "../oauth/dpop";
import { type Deps, makeCtx } from "../shared/context";
import { DomainError, parseInput, statusOf } from "../shared/errors";
import { refusalHeaders } from "../shared/rate-limit";
import { hasScope, OAUTH_SCOPES } from "../shared/scopes";
import { verifyUtf8 } from "../rest/http";
import { TOOLS, type ToolDef } from "./tools";

const MCP_PATH = "/mcp";

// The SDK loads on the first /mcp request: every process serves the route, few are ever called on it.
interface Sdk {
  node: typeof import("@modelcontextprotocol/node");
  server: typeof import("@modelcontextprotocol/server");
}
let sdkModules: Sdk | null = null;
const sdk = (): Sdk =>
  (sdkModules ??= { node: require("@modelcontextprotocol/node"), server: require("@modelcontextprotocol/server") });
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

/** A refusal as a tool result: the API's code, message, status and details, as the REST route would answer. */
const errorResult = (e: DomainError) => textResult({ error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}) } }, true);

async function callTool(deps: Deps, principal: Principal, tool: ToolDef, args: unknown) {
  if (!hasScope(principal.scopes, tool.scope)) {
    return errorResult(new DomainError("insufficient_scopes", `The ${tool.name} tool needs the ${tool.scope} scope, which this token was not granted`, { required: [tool.scope] }));
  }
  try {
    // Validated here, not only by the service: a tool's own fields (`id`, `changes`, `item`) reach no service parse,
    // and a missing one would otherwise surface as an internal error. The service still parses what it is given.
    const input = args ?? {};
    parseInput(tool.input, input);
    return textResult(await tool.run(makeCtx(deps, principal), input));
  } catch (e) {
    if (e instanceof DomainError && e.status < 500) return errorResult(e);
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

/** The scopes the tools need: what /mcp's protected resource metadata lists (RFC 9728), not every grantable scope. */
const MCP_SCOPES = [...new Set(TOOLS.map((t) => t.scope))].sort();

/** A quoted-string value of a WWW-Authenticate parameter (RFC 9110): no quote, backslash or control character. */
const quoted = (s: string) => `"${s.replace(/[^\x20-\x7e]|["\\]/g, " ").slice(0, 300)}"`;

export function mcpRouter(deps: Deps) {
  const r = Router();
  const { config } = deps;

  const metadata = (resource: string, scopes: readonly string[]) => ({
    resource,
    authorization_servers: [oauthResources(config).api],
    scopes_supported: scopes,
    bearer_methods_supported: ["header"],
    dpop_signing_alg_values_supported: DPOP_ALGS,
    resource_name: "Quote-to-cash API",
  });
  r.get(PRM_PATH, (_req, res) => void res.json(metadata(oauthResources(config).api, OAUTH_SCOPES)));
  r.get(`${PRM_PATH}${MCP_PATH}`, (_req, res) => void res.json(metadata(oauthResources(config).mcp, MCP_SCOPES)));

  /**
   * Only our OAuth access tokens for /mcp open it; the principal rides along in req.auth (the SDK's AuthInfo). A
   * failure answers 401 with the challenge naming /mcp's metadata (RFC 9728 path form), whose `resource` is what a
   * client asks tokens for, and counts against the address's failed-authentication limit, as on the API: past it,
   * 429 with Retry-After before the token is looked at.
   */
  const authenticate = async (req: Request, res: Response, next: NextFunction) => {
    const ctx = makeCtx(deps, null, req.ip);
    const authorization = req.get("authorization") ?? "";
    const dpop = usesDpopScheme(authorization);
    const challenge = (description: string) => {
      const params = `error="invalid_token", error_description=${quoted(description)}, resource_metadata=${quoted(`${oauthResources(config).api}${PRM_PATH}${MCP_PATH}`)}`;
      // a client that presented a DPoP-bound token is answered in its scheme (RFC 9449 section 7.1)
      res.set("WWW-Authenticate", dpop ? `DPoP ${params}, algs=${quoted(DPOP_ALGS.join(" "))}` : `Bearer ${params}`);
      res.status(401).json({ error: "invalid_token", error_description: description });
    };
    try {
      const token = /^(?:Bearer|DPoP)\s+(\S+)$/i.exec(authorization.trim())?.[1] ?? null;
      let principal: Principal | null = null;
      let refusal: string | null = null;
      if (!authorization) refusal = "Missing Authorization header";
      else if (!token || !looksLikeJwt(token)) refusal = "Send an OAuth access token from this server's authorization server";
      if (refusal) {
        // nothing to authenticate, but a failed attempt all the same (a dashboard token, an API key, a guess)
        if (authorization) {
          deps.limits.blocked("authFailureIp", ctx.ip ?? "");
          await deps.limits.consume("authFailureIp", ctx.ip ?? "");
        }
        return challenge(refusal);
      }
      try {
        const proof = dpop ? dpopRequest(config, req.get("dpop"), req.method, `${req.protocol}://${req.get("host")}${req.originalUrl}`) : undefined;
        ({ principal } = await authenticateRequest(ctx, { authorization, oauthResource: "mcp", dpop: proof }));
      } catch (e) {
        if (e instanceof DomainError && e.code !== "rate_limited" && e.status < 500) return challenge(e.message);
        throw e;
      }
      if (!principal?.oauth) {
        await deps.limits.consume("authFailureIp", ctx.ip ?? "");
        return challenge("Send an OAuth access token from this server's authorization server");
      }
      (req as Request & { auth?: AuthInfo }).auth = {
        token: token!,
        clientId: principal.oauth.clientId,
        scopes: principal.scopes,
        expiresAt: principal.oauth.expiresAt,
        extra: { principal },
      };
      next();
    } catch (e) {
      if (e instanceof DomainError && e.code === "rate_limited") {
        res.set(refusalHeaders(e)); // Retry-After and RateLimit-*, as every 429
        return void res.status(statusOf("rate_limited")).json({ error: "rate_limited", error_description: e.message });
      }
      next(e);
    }
  };

  let node: ReturnType<Sdk["node"]["toNodeHandler"]> | null = null;
  const handle = (req: Request, res: Response) => {
    if (!node) {
      const { server, node: adapter } = sdk();
      node = adapter.toNodeHandler(server.createMcpHandler(({ authInfo }) => buildServer(deps, authInfo!.extra!.principal as Principal)));
    }
    return node(req, res, req.body);
  };
  r.all(MCP_PATH, authenticate, express.json({ limit: config.BODY_LIMIT_BYTES, verify: verifyUtf8 }), handle);
  return r;
}
