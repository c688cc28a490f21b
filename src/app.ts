// buildApp(): Express 5 with the REST adapter, GraphQL over HTTP and graphql-ws on one server. No listening here.
import http from "node:http";
import express from "express";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "ws";
import { GraphQLError } from "graphql";
import { checkoutPages } from "../pages/checkout/checkout.page";
import { quotePages } from "../pages/quote.page";
import { invitePages } from "../pages/invite.page";
import { billingPages } from "../pages/billing.page";
import { extensionHostPages } from "../pages/extension-host.page";
import { extensionBridgeRouter } from "./extensions/bridge.rest";
import { extensionSessionCors, narrowExtensionSessionCors } from "./extensions/session-cors";
import { oauthPages } from "../pages/oauth.page";
import { oauthProviderMiddleware } from "./oauth/provider";
import { mcpRouter } from "./mcp/mcp.rest";
import { filesRouter } from "./shared/files.rest";
import { buildContext, createYogaServer, paramsSource } from "./server/yoga";
import { isDashboardSession, manifestAt, socketDocument } from "./graphql/trusted-documents";
import { authMiddleware } from "./server/rest-auth";
import { errorHandler, notFoundHandler, rejectDeepBodies, requestId, requireJsonBody, toDomainError, verifyUtf8 } from "./rest/http";
import { idempotency } from "./rest/idempotency";
import { API_PREFIX, mountApiRouters } from "./server/rest-routes";
import { openapiRouter } from "./openapi/openapi.rest";
import { walletCors } from "./wallet/wallet.rest";
import { IMPORT_UPLOAD_PATH, importUploadHandler } from "./imports/imports.rest";
import type { Db } from "./db/client";
import type { Deps } from "./shared/context";
import { statusOf } from "./shared/errors";
import { RAW_UPLOAD_PATHS } from "./extensions/client-routes";
import { registerHooks } from "./hooks";
import { publicJwks } from "./platform/signing-keys";

export interface App {
  app: express.Express;
  server: http.Server;
  wss: WebSocketServer;
  /** stop accepting, close sockets; the database is the caller's */
  close(): Promise<void>;
}

export function buildApp(deps: Deps, db: Pick<Db, "ping" | "migrationsApplied">): App {
  const { config } = deps;
  // the calls that go up the layers (token kinds, receipts, order roll-up, install health, discounts, quotes)
  registerHooks();
  const app = express();
  app.disable("x-powered-by");
  // No automatic ETag on every res.send (a SHA-1 of each body): API answers are not revalidated, and the few
  // cacheable assets (bridge modules, script assets) set and check their own.
  app.set("etag", false);
  app.set("trust proxy", "loopback");
  app.use(requestId);

  const yoga = createYogaServer(deps);
  // GraphQL first: its one path overlaps no other route, and the routers below would each be walked (and their
  // routes matched) on every GraphQL request before reaching it.
  // Read the raw body here so the size limit and UTF-8 check hold for chunked bodies too; Yoga parses it.
  app.use(
    yoga.graphqlEndpoint,
    express.raw({ type: () => true, limit: config.BODY_LIMIT_BYTES, verify: verifyUtf8 }),
    (req: express.Request, _res: express.Response, next: express.NextFunction) => {
      if (Buffer.isBuffer(req.body) && req.body.length === 0) req.body = undefined;
      next();
    },
    rejectMalformedGraphqlJson,
    yoga,
    (err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      const de = toDomainError(err);
      res.status(de.status).json({ errors: [{ message: de.message, extensions: { code: de.code, status: de.status } }] });
    },
  );

  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.get("/readyz", async (_req, res) => {
    try {
      await db.ping();
      if (!(await db.migrationsApplied())) return void res.status(503).json({ status: "migrations_pending" });
      res.json({ status: "ready" });
    } catch {
      res.status(503).json({ status: "database_unreachable" });
    }
  });

  // Public keys that verify install tokens (X-Service-Install-Token) and extension session tokens.
  app.get("/.well-known/extension-jwks.json", async (_req, res) => {
    res.set({ "cache-control": "public, max-age=300", "access-control-allow-origin": "*" }).json(await publicJwks(deps, "extensions"));
  });

  const api = express.Router();
  api.use(walletCors(deps)); // before authentication: a CORS preflight carries no credential
  api.use(extensionSessionCors); // an extension's iframe calls with its session token from its own origin
  api.use(requireJsonBody(RAW_UPLOAD_PATHS));
  api.use(express.json({ limit: config.BODY_LIMIT_BYTES, type: ["application/json", "application/*+json"], verify: verifyUtf8 }));
  api.use(rejectDeepBodies);
  api.use(authMiddleware(deps));
  api.use(narrowExtensionSessionCors);
  api.use(idempotency);
  mountApiRouters(api);
  api.use(notFoundHandler);
  // The routes under /api/v1 that the API router must not see: the OpenAPI document and its docs (no credential),
  // and the signed import upload, which carries the raw file (no JSON, no API key), streamed to storage.
  app.use(openapiRouter());
  app.put(IMPORT_UPLOAD_PATH, importUploadHandler(deps));
  // The API before the routers that serve no /api/v1 path, so an API request does not walk them: the API router
  // answers every /api/v1 path itself (404 at its end).
  app.use(API_PREFIX, api);
  // OAuth 2.1 authorization server (metadata, authorize, token, register, revoke, JWKS), its consent page, and the
  // tool endpoint it protects
  app.use(oauthProviderMiddleware(deps));
  app.use(oauthPages(deps));
  app.use(mcpRouter(deps));
  app.use(checkoutPages(deps));
  app.use(quotePages(deps));
  app.use(billingPages(deps));
  app.use(invitePages(deps));
  app.use(extensionBridgeRouter(deps));
  app.use(extensionHostPages(deps));
  app.use(filesRouter(deps));

  app.use(notFoundHandler);
  app.use(errorHandler);

  const server = http.createServer(app);
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint, maxPayload: config.BODY_LIMIT_BYTES });
  useServer(
    {
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      // Reject bad credentials at connect time (close 4403), so a subscriber never half-connects.
      onConnect: async (ctx) => {
        try {
          await buildContext(deps, paramsSource(ctx.connectionParams), ctx.extra.request.socket.remoteAddress);
          return true;
        } catch {
          return false;
        }
      },
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        // A bad document or a credential revoked since connect is the client's problem: answer the operation
        // with an error message and keep the socket open (a throw here would close it as an internal error).
        try {
          const args = {
            schema,
            operationName: params.operationName,
            document: parse(
              socketDocument(manifestAt(config.GRAPHQL_PERSISTED_OPERATIONS_FILE), params, {
                dashboardPersistedOnly: config.GRAPHQL_DASHBOARD_PERSISTED_ONLY === "on",
                dashboardSession: isDashboardSession(paramsSource(ctx.connectionParams).header("authorization")),
              }),
            ),
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
          const errors = validate(args.schema, args.document);
          return errors.length ? errors : args;
        } catch (e) {
          if (e instanceof GraphQLError) return [e];
          const de = toDomainError(e);
          if (de.status >= 500) console.error("[graphql-ws] subscribe failed", e);
          return [new GraphQLError(de.status >= 500 ? "Unexpected error" : de.message, { extensions: { code: de.code, status: de.status } })];
        }
      },
    },
    wss,
  );

  return {
    app,
    server,
    wss,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * GraphQL requests whose JSON does not parse (the POST body, or the `variables` / `extensions` parameters of a
 * GET) are 400 invalid_json, as over REST, before Yoga sees them (it answered a GET with a 200 internal_error).
 */
function rejectMalformedGraphqlJson(req: express.Request, res: express.Response, next: express.NextFunction) {
  const refuse = (what: string) =>
    void res.status(statusOf("invalid_json")).json({ errors: [{ message: `${what} is not valid JSON`, extensions: { code: "invalid_json", status: statusOf("invalid_json") } }] });
  if (req.method === "GET") {
    for (const param of ["variables", "extensions"]) {
      const v = req.query[param];
      if (v === undefined || v === "") continue;
      if (typeof v !== "string") return refuse(`The ${param} parameter (given more than once)`);
      try {
        JSON.parse(v);
      } catch {
        return refuse(`The ${param} parameter`);
      }
    }
  } else if (req.method === "POST" && Buffer.isBuffer(req.body) && /\bjson\b/i.test(req.get("content-type") ?? "")) {
    try {
      JSON.parse(req.body.toString("utf8"));
    } catch {
      return refuse("The request body");
    }
  }
  next();
}
