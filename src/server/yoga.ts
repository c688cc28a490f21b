// graphql-yoga over the Pothos schema: one context for HTTP and WebSocket, the spec's error codes in
// extensions.code, depth/alias limits (graphql-armor), a cost limit that multiplies by page sizes
// (graphql/cost-limit.ts), trusted documents (graphql/trusted-documents.ts), bundled GraphiQL outside production.
import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { createGraphQLError, createYoga, type YogaServerInstance } from "graphql-yoga";
import { type DocumentNode, execute } from "graphql";
import { operationIsGated } from "../platform/live-gate";
import { authenticateRequest } from "../platform/auth.service";
import { refusedState } from "../rest/http";
import { type Deps, isInvalidTextInput, makeCtx, reportLimit } from "../shared/context";
import { DomainError, errors, statusOf } from "../shared/errors";
import { PM_TOKEN_HEADER } from "../wallet/pm-tokens.service";
import { limitHeaders } from "../shared/rate-limit";
import type { GqlContext } from "../graphql/builder";
import { idempotentMutations } from "../graphql/idempotency";
import { unknownIdArguments } from "../graphql/bad-ids";
import { costLimit } from "../graphql/cost-limit";
import { manifestAt, trustedDocuments } from "../graphql/trusted-documents";
import { schema } from "./graphql-schema";
import { dpopRequest, usesDpopScheme } from "../oauth/dpop";

interface CredentialSource {
  header(name: string): string | null | undefined;
  /** an HTTP request's method and URL (what a DPoP proof is checked against); absent over graphql-ws */
  request?: { method: string; url: string };
}

/** Credentials from HTTP headers, or from graphql-ws connectionParams (same names, any case). */
function credentialsFrom(src: CredentialSource, config: { BASE_URL: string }) {
  return {
    apiKey: src.header("x-api-key"),
    authorization: src.header("authorization"),
    applicationId: src.header("x-service-application-id"),
    environmentId: src.header("x-service-environment-id"),
    ...(src.request && usesDpopScheme(src.header("authorization")) ? { dpop: dpopRequest(config, src.header("dpop"), src.request.method, src.request.url) } : {}),
  };
}

export function paramsSource(params: Record<string, unknown> | undefined): CredentialSource {
  const lower = new Map(Object.entries(params ?? {}).map(([k, v]) => [k.toLowerCase(), typeof v === "string" ? v : undefined]));
  const alias: Record<string, string> = { "x-api-key": "apikey" };
  return { header: (n) => lower.get(n) ?? lower.get(alias[n] ?? "") };
}

export async function buildContext(deps: Deps, src: CredentialSource, ip?: string): Promise<GqlContext> {
  const ctx = makeCtx(deps, null, ip);
  try {
    // The wallet client token is for the /me/* REST routes only: GraphQL refuses it whatever else is sent.
    if (src.header(PM_TOKEN_HEADER)) throw errors.forbidden("X-Service-PM-Token is accepted only on /me/payment-methods and /me/subscriptions");
    const { principal, limit, gate } = await authenticateRequest(ctx, credentialsFrom(src, deps.config), { deferGate: true });
    ctx.principal = principal;
    ctx.liveGate = gate;
    reportLimit(ctx, limit);
    return ctx;
  } catch (e) {
    if (e instanceof DomainError) {
      const headers = e.code === "rate_limited" ? limitHeaders(refusedState(e), true) : undefined;
      throw createGraphQLError(e.message, {
        extensions: { code: e.code, status: e.status, ...(e.details ? { details: e.details } : {}), http: { status: e.status, ...(headers ? { headers } : {}) } },
      });
    }
    throw e;
  }
}

/** The live gate's refusal for this operation, or null: an operation selecting any gated root field answers the credential's 402. */
function liveGateRefusal(args: { contextValue: unknown; document: DocumentNode; operationName?: string | null }) {
  const gate = (args.contextValue as GqlContext).liveGate;
  if (!gate || !operationIsGated(args.document, args.operationName)) return null;
  return createGraphQLError(gate.message, { extensions: { code: gate.code, status: gate.status, ...(gate.details ? { details: gate.details } : {}), http: { status: gate.status } } });
}

/** The live gate for GraphQL. */
function liveGatePlugin() {
  const refuse = liveGateRefusal;
  return {
    onExecute({ args, setResultAndStopExecution }: any) {
      const e = refuse(args);
      if (e) setResultAndStopExecution({ errors: [e] });
    },
    onSubscribe({ args, setResultAndStopExecution }: any) {
      const e = refuse(args);
      if (e) setResultAndStopExecution({ errors: [e] });
    },
  };
}

/**
 * Queries and mutations run on graphql-js's own `execute` (Yoga's default, @graphql-tools/executor's, adds
 * incremental delivery we do not serve and costs about a third more CPU on a large selection: bench/RESULTS.md,
 * issue 36). Subscriptions keep Yoga's executor. Envelop's public `setExecuteFn` hook.
 */
function graphqlJsExecute() {
  // A request graphql-js refuses before executing (a variable of the wrong type or missing, an unknown operation)
  // answers `{ errors }` without `data`: GraphQL over HTTP makes that a 400, as Yoga's executor marks it.
  const run: typeof execute = (args) => {
    const result = execute(args);
    if ("then" in result || "data" in result) return result;
    return { errors: result.errors?.map((e) => createGraphQLError(e.message, { nodes: e.nodes, source: e.source, positions: e.positions, extensions: { ...e.extensions, http: { status: 400 } } })) };
  };
  return {
    onExecute({ setExecuteFn }: { setExecuteFn: (fn: typeof execute) => void }) {
      setExecuteFn(run);
    },
  };
}

/** RateLimit-* headers on GraphQL HTTP responses: the context of each request keeps its bucket's state. */
const limitByRequest = new WeakMap<Request, GqlContext>();

export function createYogaServer(deps: Deps): YogaServerInstance<any, GqlContext> {
  const { config } = deps;
  const manifest = manifestAt(config.GRAPHQL_PERSISTED_OPERATIONS_FILE);
  if (config.GRAPHQL_DASHBOARD_PERSISTED_ONLY === "on" && manifest.size === 0) {
    throw new Error(`GRAPHQL_DASHBOARD_PERSISTED_ONLY=on needs the trusted documents' manifest: ${config.GRAPHQL_PERSISTED_OPERATIONS_FILE} is missing or empty`);
  }
  return createYoga<any, GqlContext>({
    schema,
    graphqlEndpoint: "/graphql",
    logging: config.LOG_LEVEL === "debug" ? "debug" : false,
    landingPage: false,
    // Express has read the body under BODY_LIMIT_BYTES already (app.ts): Yoga's own limit would stream it through a
    // second pipeline per request, about a tenth of a small query's CPU, to count bytes already counted
    maxRequestBodySize: false,
    graphiql: config.isProduction ? false : { subscriptionsProtocol: "WS", title: "Quote-to-cash GraphQL" },
    // loaded on the first page view: every process would otherwise pay for it at start
    renderGraphiQL: async (o) => (await import("@graphql-yoga/render-graphiql")).renderGraphiQL(o),
    context: async (init: any) => {
      if (init.connectionParams !== undefined || init.extra?.socket) {
        return buildContext(deps, paramsSource(init.connectionParams), init.extra?.request?.socket?.remoteAddress);
      }
      const req = init.request as Request;
      // the URL as the client called it (Yoga's own request URL lost the /graphql mount path): a DPoP proof names it
      const node = init.req as import("express").Request | undefined;
      const url = node?.originalUrl !== undefined ? `${node.protocol}://${node.get("host")}${node.originalUrl}` : req.url;
      const ctx = await buildContext(deps, { header: (n) => req.headers.get(n), request: { method: req.method, url } }, init.req?.ip);
      const key = req.headers.get("idempotency-key");
      if (key !== null) ctx.idempotencyKey = key;
      limitByRequest.set(req, ctx);
      return ctx;
    },
    plugins: [
      trustedDocuments(manifest, { dashboardPersistedOnly: config.GRAPHQL_DASHBOARD_PERSISTED_ONLY === "on" }),
      graphqlJsExecute(),
      liveGatePlugin(),
      unknownIdArguments(),
      idempotentMutations(),
      {
        onResponse({ request, response }: { request: Request; response: Response }) {
          // a 429 carries the refusing bucket's RateLimit-* and Retry-After (from the error): those stand
          const state = response.status === 429 ? null : limitByRequest.get(request)?.rate?.state;
          if (state) for (const [k, v] of Object.entries(limitHeaders(state))) response.headers.set(k, v);
        },
      },
      costLimit(config.GRAPHQL_MAX_COST),
      EnvelopArmorPlugin({
        maxDepth: { n: config.GRAPHQL_MAX_DEPTH, ignoreIntrospection: true, flattenFragments: true }, // fields count, fragment spreads do not
        maxAliases: { n: config.GRAPHQL_MAX_ALIASES },
        costLimit: { enabled: false }, // src/graphql/cost-limit.ts: page sizes multiply (armor's cost does not)
        maxTokens: { n: 2000 },
        blockFieldSuggestion: { enabled: config.isProduction },
      }),
    ],
    maskedErrors: {
      maskError(error: any, message) {
        // an id argument the database cannot compare (NUL, not a UUID) is an unknown id, as over REST
        const original = isInvalidTextInput(error?.originalError) ? errors.notFound() : error?.originalError;
        if (original instanceof DomainError) {
          const http = original.code === "rate_limited" ? { http: { status: statusOf("rate_limited"), headers: limitHeaders(refusedState(original), true) } } : {};
          return createGraphQLError(original.message, {
            nodes: error.nodes,
            path: error.path,
            source: error.source,
            positions: error.positions,
            extensions: { code: original.code, status: original.status, ...(original.details ? { details: original.details } : {}), ...http },
          });
        }
        if (original?.name === "GraphQLError" && original.extensions?.code) return original;
        // Parse, validation and variable-coercion errors are the client's: safe to show, coded as input errors
        // (422 validation_error, as over REST, unless GraphQL already gave them a code).
        if (error?.name === "GraphQLError" && (!original || original.name === "GraphQLError")) {
          if (error.extensions?.code) return error;
          return createGraphQLError(error.message, {
            nodes: error.nodes,
            path: error.path,
            source: error.source,
            positions: error.positions,
            extensions: { ...error.extensions, code: "validation_error", status: statusOf("validation_error") },
          });
        }
        console.error("[graphql] unexpected error", original ?? error);
        return createGraphQLError(message, { nodes: error?.nodes, path: error?.path, extensions: { code: "internal_error", status: statusOf("internal_error") } });
      },
    },
  });
}
