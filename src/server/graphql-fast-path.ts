// The common GraphQL request (a server's JSON POST of a query or mutation, no browser Origin) answered without
// Yoga's fetch-API layer: Yoga turns every Node request into a WHATWG Request (headers, body stream, AbortSignal)
// and its answer back from a Response, which cost more CPU than executing `viewer` itself (bench/RESULTS.md).
// This path runs the same envelop pipeline (parse/validate caches, armor limits, the context and auth, masked
// errors, idempotent mutations) through yoga.getResultForParams, and the same result processor (status codes,
// internal extensions removed) through processRegularResult; only the transport differs. Everything else (GET,
// GraphiQL, subscriptions over SSE/multipart, other content negotiations, CORS) falls through to Yoga.
import type { NextFunction, Request, Response } from "express";
import { normalizedExecutor } from "@graphql-tools/executor";
import { type DocumentNode, type ExecutionResult, type FieldNode, getLocation, getOperationAST, GraphQLError, visit } from "graphql";
import { compileQuery, type CompiledQuery, isCompiledQuery } from "graphql-jit";
import { createGraphQLError, processRegularResult, type YogaServerInstance } from "graphql-yoga";
import type { Clock } from "../shared/clock";
import type { Deps } from "../shared/context";
import { limitHeaders } from "../shared/rate-limit";
import type { GqlContext } from "../graphql/builder";
import { wasReplayed } from "../graphql/idempotency";
import { schema } from "./graphql-schema";
import { buildContext, contextOf, liveGateRefusal, rateStateOf } from "./yoga";

/** What processRegularResult builds, captured instead of a WHATWG Response. */
class CapturedResponse {
  constructor(
    readonly body: string | null,
    readonly init: { status?: number; headers?: Record<string, string> },
  ) {}
}
const CAPTURE_FETCH_API = { Response: CapturedResponse } as unknown as Parameters<typeof processRegularResult>[1];

const REGULAR = ["application/graphql-response+json", "application/json"] as const;

/**
 * The media type Yoga's result processors would answer a non-streaming result with, or null when the Accept header
 * asks for something only Yoga negotiates (event streams, multipart, another charset) or nothing acceptable.
 * Yoga keeps the last match over (processors, accepted types in reverse order, processor types): for the regular
 * processor that is the first accepted type matching one of its two types, and of the two the later one matching.
 */
export function regularMediaType(accept: string | undefined): (typeof REGULAR)[number] | null {
  // clients send the same few Accept headers over and over: answer those from memory
  const key = accept ?? "";
  const known = mediaTypes.get(key);
  if (known !== undefined) return known;
  const type = negotiate(accept);
  if (mediaTypes.size >= 256) mediaTypes.clear();
  mediaTypes.set(key, type);
  return type;
}
const mediaTypes = new Map<string, (typeof REGULAR)[number] | null>();

function negotiate(accept: string | undefined): (typeof REGULAR)[number] | null {
  const entries = (accept || "*/*").replace(/\s/g, "").toLowerCase().split(",");
  for (const entry of entries) {
    const [type, ...params] = entry.split(";");
    const charset = params.find((p) => p.includes("charset="));
    if (charset && charset !== "charset=utf-8") continue;
    if (type === "text/event-stream" || type === "multipart/mixed" || type.startsWith("text/") || type.startsWith("multipart/")) return null;
    const [pre, suf] = type.split("/");
    const matches = REGULAR.filter((m) => {
      const [mp, ms] = m.split("/");
      return (pre === "*" || pre === mp) && (suf === "*" || suf === ms);
    });
    if (matches.length) return matches[matches.length - 1];
  }
  return null;
}

function isParams(v: unknown): v is { query: string; variables?: Record<string, unknown> | null; operationName?: string | null; extensions?: Record<string, unknown> } {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const p = v as Record<string, unknown>;
  const isObj = (x: unknown) => x === undefined || x === null || (typeof x === "object" && !Array.isArray(x));
  return (
    typeof p.query === "string" &&
    p.query.length > 0 &&
    isObj(p.variables) &&
    (p.operationName === undefined || p.operationName === null || typeof p.operationName === "string") &&
    isObj(p.extensions) &&
    Object.keys(p).every((k) => k === "query" || k === "variables" || k === "operationName" || k === "extensions")
  );
}

/** How many requests this process answered on the fast path, and how many of them as prepared queries (tests prove the paths are taken; operators can read it). */
export const fastPathStats = { served: 0, prepared: 0, verified: 0, unverifiable: 0 };

/**
 * Prepared queries. A query document that comes a second time and has passed Yoga's parse and validation (the armor
 * depth, alias, cost and token limits included) is kept by its text and operation name, with a graphql-jit
 * compilation of it (a document sent once is never compiled). Its next requests skip envelop's plugin chain: they
 * build the same context (credentials, rate limit), apply the live gate, execute, mask errors with Yoga's own masking
 * function and answer through the same result processor. For a
 * query nothing else in that chain acts on execution (the idempotency plugin acts on mutations only; armor and Yoga's
 * request checks act on parse, validation and params, which the fast path and the cached validation cover), so the
 * answer is the same; test/graphql-fast-path.e2e.test.ts compares both. Mutations and subscriptions always take the
 * full pipeline. The schema is fixed for the life of the process, so entries never go stale; the map is bounded like
 * Yoga's parse and validation caches.
 *
 * GRAPHQL_PREPARED: "jit" (default) executes with the compiled query, "execute" with graphql-tools' executor (as Yoga
 * does), "off" sends every request through Yoga's pipeline, "verify" answers as "jit" and also executes every query
 * with the executor, on Yoga's path too, failing the request when the two disagree (the test suite runs so).
 */
export type PreparedMode = "jit" | "execute" | "off" | "verify";

interface Prepared {
  document: DocumentNode;
  compiled: CompiledQuery | null;
  /** the document's fields by "line:column", to give errors from the compiled query the nodes the executor gives them */
  fields: Map<string, FieldNode>;
}

function fieldsByLocation(document: DocumentNode) {
  const fields = new Map<string, FieldNode>();
  visit(document, {
    Field(node) {
      if (!node.loc) return;
      const { line, column } = getLocation(node.loc.source, node.loc.start);
      fields.set(`${line}:${column}`, node);
    },
  });
  return fields;
}
const PREPARED_MAX = 1000;
const preparedKey = (query: string, operationName: string | null | undefined) => (operationName ? `${operationName}\u0000${query}` : query);

type Yoga = YogaServerInstance<any, GqlContext>;
type Params = { query: string; variables?: Record<string, unknown> | null; operationName?: string | null };

class PreparedQueries {
  private readonly entries = new Map<string, Prepared>();
  /** texts that did not parse or validate, or are not queries: not tried again */
  private readonly refused = new Set<string>();
  /** texts seen once: a document is compiled on its second request, so one-off documents cost no compilation */
  private readonly seen = new Set<string>();

  constructor(
    private readonly yoga: Yoga,
    private readonly mode: PreparedMode,
  ) {}

  get(params: Params) {
    return this.mode === "off" ? undefined : this.entries.get(preparedKey(params.query, params.operationName));
  }

  /** After Yoga answered (the second time for this text): keep the document when it parses, validates and selects a query operation. */
  learn(params: Params) {
    if (this.mode === "off") return undefined;
    const key = preparedKey(params.query, params.operationName);
    const known = this.entries.get(key);
    if (known || this.refused.has(key)) return known;
    if (!this.seen.has(key)) {
      if (this.seen.size >= PREPARED_MAX) this.seen.clear();
      this.seen.add(key);
      return undefined;
    }
    this.seen.delete(key);
    let entry: Prepared | undefined;
    try {
      // the same parse and validate Yoga ran (its caches answer: no second parse or validation)
      const enveloped = this.yoga.getEnveloped({});
      const document = enveloped.parse(params.query);
      if (enveloped.validate(enveloped.schema, document).length === 0 && getOperationAST(document, params.operationName)?.operation === "query") {
        const compiled = this.mode === "execute" ? null : compileQuery(schema, document, params.operationName ?? undefined);
        entry = { document, compiled: compiled && isCompiledQuery(compiled) ? compiled : null, fields: fieldsByLocation(document) };
      }
    } catch {
      entry = undefined;
    }
    if (this.entries.size >= PREPARED_MAX) this.entries.clear();
    if (this.refused.size >= PREPARED_MAX) this.refused.clear();
    if (entry) this.entries.set(key, entry);
    else this.refused.add(key);
    return entry;
  }
}

/** What Yoga's masking makes of an error (as graphql-yoga's handleError does with masked errors on). */
function masked(yoga: Yoga, error: unknown): GraphQLError {
  const opts = (yoga as unknown as { maskedErrorsOpts: { maskError(e: unknown, message: string, isDev?: boolean): Error; errorMessage: string; isDev?: boolean } }).maskedErrorsOpts;
  const m = opts.maskError(error, opts.errorMessage, opts.isDev);
  return m instanceof GraphQLError ? m : createGraphQLError(m.message, { originalError: m });
}

function maskResult(yoga: Yoga, result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map((e) => masked(yoga, e)) } : result;
}

/**
 * graphql-jit's errors carry line/column locations but not the AST nodes graphql-js's carry (which Yoga's masking
 * reads): rebuilt as graphql-js errors located at the same fields, they mask and serialise as the executor's do.
 */
function located(prepared: Prepared, e: GraphQLError): GraphQLError {
  const nodes = (e.locations ?? []).map((l) => prepared.fields.get(`${l.line}:${l.column}`)).filter((n): n is FieldNode => n !== undefined);
  return new GraphQLError(e.message, { nodes: nodes.length ? nodes : undefined, path: e.path, originalError: e.originalError ?? undefined, extensions: e.extensions });
}

async function execute(prepared: Prepared, ctx: GqlContext, params: Params): Promise<ExecutionResult> {
  if (prepared.compiled) {
    const result = (await prepared.compiled.query(undefined, ctx, params.variables ?? {})) as ExecutionResult;
    // No data at all: the variables did not coerce, and nothing ran. The executor words those errors as Yoga's path
    // does (and runs nothing either).
    if (result.errors && !("data" in result)) return execute({ ...prepared, compiled: null }, ctx, params);
    return result.errors ? { ...result, errors: result.errors.map((e) => located(prepared, e)) } : result;
  }
  return (await normalizedExecutor({ schema, document: prepared.document, contextValue: ctx, variableValues: params.variables ?? undefined, operationName: params.operationName ?? undefined })) as ExecutionResult;
}

/**
 * "verify": the prepared answer must agree with the executor's in data and in each error as a client sees it. The
 * clock is pinned for the request (preparedResult), so the time reads the same in every run. The
 * rows may change between the two executions (a worker writing meanwhile), so a difference is looked at again: both
 * run up to three more times, and one agreeing pair settles it. A query whose answer changes with every execution
 * (one that mints a token, say) cannot be compared: when the executor then disagrees with itself, the request is
 * counted as unverifiable. Otherwise the difference is the prepared path's, and the request fails.
 */
export async function compare(params: Params, given: ExecutionResult, reference: ExecutionResult, again: { given(): Promise<ExecutionResult>; reference(): Promise<ExecutionResult> }) {
  const shape = (r: ExecutionResult) => JSON.stringify({ data: r.data, errors: r.errors?.map((e) => ({ message: e.message, path: e.path, locations: e.locations, extensions: e.extensions })) });
  const a = shape(given);
  const b = shape(reference);
  if (a === b) return void fastPathStats.verified++;
  for (let i = 0; i < 3; i++) {
    const r = shape(await again.reference());
    if (shape(await again.given()) === r) return void fastPathStats.verified++;
  }
  if (shape(await again.reference()) !== shape(await again.reference())) return void fastPathStats.unverifiable++;
  throw new Error(`GRAPHQL_PREPARED=verify: the prepared query answered ${a.slice(0, 600)} where the executor answered ${b.slice(0, 600)} (${JSON.stringify(params.query.slice(0, 200))})`);
}

/** A clock that stays at `at`. */
function pinnedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}

async function preparedResult(yoga: Yoga, deps: Deps, req: Request, prepared: Prepared, params: Params, mode: PreparedMode): Promise<{ result: ExecutionResult; ctx: GqlContext | null }> {
  let ctx: GqlContext;
  try {
    ctx = await buildContext(deps, { header: (n) => req.get(n) ?? null, request: { method: req.method, url: `${req.protocol}://${req.get("host")}${req.originalUrl}` } }, req.ip);
  } catch (e) {
    // Yoga masks a context error and answers it alone
    return { result: { errors: [masked(yoga, e)] }, ctx: null };
  }
  const refusal = liveGateRefusal({ contextValue: ctx, document: prepared.document, operationName: params.operationName });
  if (refusal) return { result: { errors: [refusal] }, ctx };
  // "verify" runs the query at least twice: the clock is pinned for the request, so an answer that reads the time
  // (a window ending now, say) is the same in every run and the runs can be compared.
  if (mode === "verify") ctx.clock = pinnedClock(ctx.clock.now());
  const result = maskResult(yoga, await execute(prepared, ctx, params));
  if (mode === "verify") {
    const reference = () => execute({ ...prepared, compiled: null }, ctx, params).then((r) => maskResult(yoga, r));
    await compare(params, result, await reference(), { reference, given: () => execute(prepared, ctx, params).then((r) => maskResult(yoga, r)) });
  }
  return { result, ctx };
}

/** Express middleware placed before Yoga; `res.locals.graphqlBody` is the JSON body parsed once by the JSON check. */
export function graphqlFastPath(yoga: Yoga, deps: Deps, mode: PreparedMode = "jit") {
  const prepared = new PreparedQueries(yoga, mode);
  return async (req: Request, res: Response, next: NextFunction) => {
    const params: unknown = res.locals.graphqlBody;
    if (req.method !== "POST" || params === undefined || req.headers.origin !== undefined) return next();
    if (!/^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i.test(req.headers["content-type"] ?? "")) return next();
    const mediaType = regularMediaType(req.headers.accept);
    // A subscription over POST streams (SSE/multipart): Yoga's. The word may sit in a name or string: then Yoga
    // answers it, which is only slower.
    if (!mediaType || !isParams(params) || (params.query.includes("subscription") && /\bsubscription\b/.test(params.query))) return next();
    try {
      const entry = prepared.get(params);
      let result: ExecutionResult;
      let rate: ReturnType<typeof rateStateOf>;
      let replayed = false;
      if (entry) {
        const answer = await preparedResult(yoga, deps, req, entry, params, mode);
        result = answer.result;
        rate = answer.ctx?.rate?.state ?? null;
        fastPathStats.prepared++;
      } else {
        // What the context and plugins read of the request: its headers (credentials, Idempotency-Key).
        const request = { method: "POST", url: req.originalUrl, headers: { get: (name: string) => req.get(name) ?? null } } as unknown as globalThis.Request;
        result = (await yoga.getResultForParams({ params: { ...params, variables: params.variables ?? undefined, operationName: params.operationName ?? undefined }, request }, { req, res, request } as any)) as ExecutionResult;
        rate = rateStateOf(request);
        replayed = wasReplayed(request);
        const learned = prepared.learn(params);
        const ctx = contextOf(request);
        if (mode === "verify" && learned && ctx && !liveGateRefusal({ contextValue: ctx, document: learned.document, operationName: params.operationName })) {
          // the prepared execution must give Yoga's answer for this request's context too
          await compare(params, maskResult(yoga, await execute(learned, ctx, params)), result, {
            reference: () => execute({ ...learned, compiled: null }, ctx, params).then((r) => maskResult(yoga, r)),
            given: () => execute(learned, ctx, params).then((r) => maskResult(yoga, r)),
          });
        }
      }
      const out = processRegularResult(result as any, CAPTURE_FETCH_API, mediaType) as unknown as CapturedResponse;
      // setHeader, not Express' res.set: these values are final (res.set looks up a charset for Content-Type)
      if (rate) for (const [k, v] of Object.entries(limitHeaders(rate))) res.setHeader(k, v);
      if (replayed) res.setHeader("Idempotent-Replayed", "true");
      res.statusCode = out.init.status ?? 200;
      for (const [k, v] of Object.entries(out.init.headers ?? {})) res.setHeader(k, v);
      // end(), not send(): Yoga's answer carries no ETag and needs no freshness check (send() hashed every body)
      res.end(out.body ?? "");
      fastPathStats.served++;
    } catch (e) {
      next(e);
    }
  };
}
