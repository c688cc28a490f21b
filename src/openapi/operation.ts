// One /api/v1 operation of the OpenAPI document, built from its declaration (an Op): its stable operationId (the
// GraphQL field over the same service, src/rest/graphql-counterparts.ts), tag, description, parameters, request
// body, success response and error responses. Error responses are derived from the declaration (./errors.ts):
// the credential it takes, its path parameters, body and query, POST's Idempotency-Key, the live gate, plus the
// codes the operation itself declares; each status lists its codes, all with the shared Error schema.
import type { OpenAPIRegistry, RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { GRAPHQL_FOR, NO_GRAPHQL, operationIdOf } from "../rest/graphql-counterparts";
import { errorResponses } from "./errors";
import * as S from "./schemas";

type Method = RouteConfig["method"];
type Params = Record<string, string>;

interface Op {
  /** one line; the description repeats it and adds the GraphQL counterpart and the credential */
  summary: string;
  tag: string;
  /** more prose for the description, after the summary */
  description?: string;
  /** keyless routes (the checkout session id, a token in the path or query is the handle) */
  keyless?: boolean;
  /** buyer wallet routes: the X-Service-PM-Token client token, never a key */
  pmToken?: boolean;
  params?: Params;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** status -> response data schema (wrapped in { data }); null: no body */
  ok: [number, z.ZodType | null, "page"?];
  /** extra `meta` beside data */
  meta?: z.ZodType;
  /** the success body is a CSV file (text/csv), not JSON */
  csv?: string;
  /** the success body is a script (text/javascript), not JSON */
  javascript?: string;
  /** extension client credentials (HTTP Basic): "only" them, or "also" besides keys */
  clientCredentials?: "only" | "also";
  /** the request body is a raw image of one of these types, not JSON */
  imageBody?: readonly string[];
  /** the request body is a raw file of one of these types, not JSON */
  fileBody?: readonly string[];
  /** error codes of this operation beyond those its declaration implies (statuses from the error catalogue) */
  errors?: readonly string[];
}

/** How the path files register their operations. */
export type Register = (method: Method, path: string, op: Op) => void;

const paramSchema = (what: string) =>
  what === "name"
    ? z.string().meta({ description: "The template's name, e.g. customer.quote_proposed" })
    : what === "sha256"
    ? z.string().meta({ description: "The version's SHA-256, 64 hex characters" })
    : what === "token"
    ? z.string().meta({ description: "The quote's share token (qt_...): the buyer link's authority" })
    : z.string().meta({ description: `${what} id`, format: "uuid" });

export const rateLimitHeaders = {
  "Retry-After": { description: "Seconds until the window resets", schema: { type: "integer" as const } },
  "RateLimit-Limit": { description: "Points in the bucket's window", schema: { type: "integer" as const } },
  "RateLimit-Remaining": { description: "Points left (0 on a refusal)", schema: { type: "integer" as const } },
  "RateLimit-Reset": { description: "Seconds until the window resets", schema: { type: "integer" as const } },
};

/** `/carts/{id}` -> `/carts/:id`, the form restRoutes() and the counterparts table use. */
const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

function securityOf(op: Op): Record<string, string[]>[] {
  if (op.keyless) return [];
  if (op.pmToken) return [{ pmToken: [] }];
  if (op.clientCredentials === "only") return [{ clientCredentials: [] }];
  return [{ apiKey: [] }, { dashboardSession: [] }, { oauth2: [] }, ...(op.clientCredentials === "also" ? [{ clientCredentials: [] }] : [])];
}

function credentialSentence(op: Op) {
  if (op.keyless) return "No credential: the path or query carries the authority.";
  if (op.pmToken) return "Credential: a wallet client token (X-Service-PM-Token) only.";
  if (op.clientCredentials === "only") return "Credential: the extension's client credentials (HTTP Basic) only.";
  return `Credential: a secret key, a dashboard session or an OAuth access token${op.clientCredentials === "also" ? ", or the extension's client credentials" : ""}.`;
}

function descriptionOf(routeKey: string, op: Op) {
  const field = GRAPHQL_FOR[routeKey];
  const counterpart = field ? `GraphQL: \`${field}\` (same service, same rules).` : `REST only: ${NO_GRAPHQL[routeKey] ?? "no GraphQL counterpart"}.`;
  const first = /[.!?)]$/.test(op.summary) ? op.summary : `${op.summary}.`;
  return [first, op.description, counterpart, credentialSentence(op)].filter(Boolean).join("\n\n");
}

export function register(reg: OpenAPIRegistry, method: Method, path: string, op: Op) {
  const routeKey = `${method.toUpperCase()} ${expressPath(path)}`;
  const operationId = operationIdOf(routeKey);
  if (!operationId) throw new Error(`OpenAPI: ${routeKey} has no operationId: add it to src/rest/graphql-counterparts.ts`);
  const params = Object.fromEntries(Object.entries(op.params ?? {}).map(([k, what]) => [k, paramSchema(what)]));
  const data = op.ok[1];
  const okSchema =
    data === null ? null : op.ok[2] === "page" ? z.object({ data: z.array(data), meta: S.PageMeta }) : z.object({ data, ...(op.meta ? { meta: op.meta } : {}) });
  const rawTypes = op.imageBody ?? op.fileBody;
  const okHeaders = op.keyless
    ? {}
    : { "RateLimit-Limit": rateLimitHeaders["RateLimit-Limit"], "RateLimit-Remaining": rateLimitHeaders["RateLimit-Remaining"], "RateLimit-Reset": rateLimitHeaders["RateLimit-Reset"] };
  reg.registerPath({
    method,
    path,
    operationId,
    summary: op.summary,
    description: descriptionOf(routeKey, op),
    tags: [op.tag],
    security: securityOf(op),
    request: {
      ...(Object.keys(params).length ? { params: z.object(params) } : {}),
      ...(op.query ? { query: op.query } : {}),
      ...(method === "post"
        ? { headers: z.object({ "Idempotency-Key": z.string().min(1).max(255).optional().meta({ description: "Replays the first response for 24 h (per credential); secrets come back null" }) }) }
        : {}),
      ...(op.body ? { body: { required: true, content: { "application/json": { schema: op.body } } } } : {}),
      ...(rawTypes ? { body: { required: true, content: Object.fromEntries(rawTypes.map((t) => [t, { schema: { type: "string" as const, contentMediaType: t } }])) } } : {}),
    },
    responses: {
      [op.ok[0]]: op.csv
        ? { description: op.csv, content: { "text/csv": { schema: { type: "string" as const } } } }
        : op.javascript
        ? { description: op.javascript, content: { "text/javascript": { schema: { type: "string" as const } } } }
        : op.ok[0] === 302
        ? { description: "Redirect to a short-lived signed URL", headers: { Location: { description: "The signed URL", schema: { type: "string" as const } } } }
        : okSchema
        ? { description: "Success", headers: okHeaders, content: { "application/json": { schema: okSchema } } }
        : { description: "Success, no body" },
      ...errorResponses(method, expressPath(path), op),
    },
  });
}
