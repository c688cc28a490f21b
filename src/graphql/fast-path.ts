// The common GraphQL request (a server's JSON POST of a query or mutation, no browser Origin) answered without
// Yoga's fetch-API layer: Yoga turns every Node request into a WHATWG Request (headers, body stream, AbortSignal)
// and its answer back from a Response, which cost more CPU than executing `viewer` itself (bench/RESULTS.md).
// This path runs the same envelop pipeline (parse/validate caches, armor limits, the context and auth, masked
// errors, idempotent mutations) through yoga.getResultForParams, and the same result processor (status codes,
// internal extensions removed) through processRegularResult; only the transport differs. Everything else (GET,
// GraphiQL, subscriptions over SSE/multipart, other content negotiations, CORS) falls through to Yoga.
import type { NextFunction, Request, Response } from "express";
import { processRegularResult, type YogaServerInstance } from "graphql-yoga";
import { limitHeaders } from "../shared/rate-limit";
import type { GqlContext } from "./builder";
import { wasReplayed } from "./idempotency";
import { rateStateOf } from "./yoga";

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

/** How many requests this process answered on the fast path (tests prove the path is taken; operators can read it). */
export const fastPathStats = { served: 0 };

/** Express middleware placed before Yoga; `res.locals.graphqlBody` is the JSON body parsed once by the JSON check. */
export function graphqlFastPath(yoga: YogaServerInstance<any, GqlContext>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const params: unknown = res.locals.graphqlBody;
    if (req.method !== "POST" || params === undefined || req.headers.origin !== undefined) return next();
    if (!/^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i.test(req.headers["content-type"] ?? "")) return next();
    const mediaType = regularMediaType(req.headers.accept);
    // A subscription over POST streams (SSE/multipart): Yoga's. The word may sit in a name or string: then Yoga
    // answers it, which is only slower.
    if (!mediaType || !isParams(params) || (params.query.includes("subscription") && /\bsubscription\b/.test(params.query))) return next();
    try {
      // What the context and plugins read of the request: its headers (credentials, Idempotency-Key).
      const request = { method: "POST", url: req.originalUrl, headers: { get: (name: string) => req.get(name) ?? null } } as unknown as globalThis.Request;
      const result = await yoga.getResultForParams({ params: { ...params, variables: params.variables ?? undefined, operationName: params.operationName ?? undefined }, request }, { req, res, request } as any);
      const out = processRegularResult(result as any, CAPTURE_FETCH_API, mediaType) as unknown as CapturedResponse;
      const state = rateStateOf(request);
      // setHeader, not Express' res.set: these values are final (res.set looks up a charset for Content-Type)
      if (state) for (const [k, v] of Object.entries(limitHeaders(state))) res.setHeader(k, v);
      if (wasReplayed(request)) res.setHeader("Idempotent-Replayed", "true");
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
