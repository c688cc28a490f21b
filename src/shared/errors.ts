// One error type for every rule the specs name: a stable code plus its HTTP status. REST maps it in one
// handler; GraphQL puts the same code in extensions.code. Anything else is unexpected and masked.
import type { z } from "zod";
import { type ErrorCode, type NotFoundCode, statusOf } from "./error-catalogue";

export { ERROR_CATALOGUE, errorCatalogue, statusOf, type ErrorCode } from "./error-catalogue";

export type Issue = { path: (string | number)[]; message: string };

/**
 * The status always comes from the error catalogue (src/shared/error-catalogue.ts): a code has one status
 * everywhere, and no call site states it. `new DomainError(code, message, details)` takes a catalogued code only
 * (tsc refuses another), and its status is the catalogue's; the message says what happened to this request.
 */
export class DomainError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
    this.status = statusOf(code);
  }
}

export const errors = {
  validation: (issues: Issue[], message = describeIssues(issues)) => new DomainError("validation_error", message, { issues }),
  invalidJson: (message = "Request body is not valid JSON") => new DomainError("invalid_json", message),
  payloadTooLarge: (limit: number) => new DomainError("payload_too_large", `Request body exceeds ${limit} bytes`, { limitBytes: limit }),
  notFound: (what = "Resource", code: NotFoundCode = "not_found") => new DomainError(code, `${what} not found`),
  unauthorized: (message = "Missing or invalid credentials") => new DomainError("unauthorized", message),
  forbidden: (message: string) => new DomainError("forbidden", message),
  permissionDenied: (message: string) => new DomainError("permission_denied", message),
  insufficientScopes: (required: string[]) =>
    new DomainError("insufficient_scopes", `This credential lacks the required scope: ${required.join(", ")}`, { required }),
  invalidScope: (scopes: string[], reason: string) =>
    new DomainError("invalid_scope", `Invalid scope ${scopes.map((s) => `"${s}"`).join(", ")}: ${reason}`, { scopes }),
  applicationKeyWorkspaceRoute: () => new DomainError("application_key_workspace_route", "API keys cannot call workspace routes; use a dashboard session"),
};

function describeIssues(issues: Issue[]) {
  const first = issues[0];
  if (!first) return "Invalid request";
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return `${where}${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`;
}

function fromZod(err: z.ZodError, prefix: (string | number)[] = [], schema?: z.ZodType): DomainError {
  const issues: Issue[] = [];
  for (const i of err.issues) {
    const path = [...prefix, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    // One issue per unknown field, with the field in the path, so a client can point at it (and the likely fix).
    if (i.code === "unrecognized_keys") {
      const known = schema ? knownKeysAt(schema, i.path) : [];
      for (const k of i.keys) {
        const guess = suggestField(k, known);
        issues.push({ path: [...path, k], message: guess ? `Unknown field; did you mean "${guess}"?` : "Unknown field" });
      }
    } else issues.push({ path, message: i.message });
  }
  return errors.validation(issues);
}

/** The keys an object schema accepts at `path` (through optional, nullable, default, pipe and array wrappers). */
function knownKeysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  let s: any = schema;
  const unwrap = () => {
    for (let n = 0; s && n < 10; n++) {
      const def = s._zod?.def;
      if (!def) return;
      if (def.innerType) s = def.innerType;
      else if (def.type === "pipe") s = def.in;
      else return;
    }
  };
  unwrap();
  for (const p of path) {
    const def = s?._zod?.def;
    if (def?.type === "object") s = def.shape?.[p as string];
    else if (def?.type === "array") s = def.element;
    else return [];
    unwrap();
  }
  const def = s?._zod?.def;
  return def?.type === "object" ? Object.keys(def.shape ?? {}) : [];
}

const FIELD_SYNONYMS: Record<string, string[]> = {
  stateProvince: ["region", "state", "province", "county"],
  postalCode: ["zip", "zipCode", "postcode", "postCode"],
  countryCode: ["country"],
  addressLine1: ["address", "line1", "street"],
  addressLine2: ["line2"],
  unitPrice: ["price", "amount"],
  quantity: ["qty"],
};

/** The accepted field a client most likely meant: snake_case or another casing, a common synonym, or a typo. */
function suggestField(sent: string, known: string[]): string | null {
  if (known.length === 0) return null;
  const norm = (k: string) => k.replace(/[_\-\s]/g, "").toLowerCase();
  const byNorm = known.find((k) => norm(k) === norm(sent));
  if (byNorm) return byNorm;
  const synonym = known.find((k) => FIELD_SYNONYMS[k]?.some((s) => norm(s) === norm(sent)));
  if (synonym) return synonym;
  let best: string | null = null;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(norm(sent), norm(k));
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== null && bestD <= Math.max(1, Math.floor(norm(sent).length / 4)) ? best : null;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

// PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate is not encodable: both are input errors.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this rejects
export const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Paths of strings (keys or values, at any depth) that no text column can store. */
function unsafeStringPaths(value: unknown, path: (string | number)[] = [], out: Issue[] = [], depth = 0): Issue[] {
  if (out.length >= 20 || depth > 64) return out;
  if (typeof value === "string") {
    if (UNSAFE_TEXT.test(value)) out.push({ path, message: "must not contain NUL characters or unpaired surrogates" });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => unsafeStringPaths(v, [...path, i], out, depth + 1));
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (UNSAFE_TEXT.test(k)) out.push({ path: [...path, k], message: "field names must not contain NUL characters or unpaired surrogates" });
      unsafeStringPaths(v, [...path, k], out, depth + 1);
    }
  }
  return out;
}

/** Parse with a zod schema; a failure is a 422 validation_error listing every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix: (string | number)[] = []): z.output<S> {
  const unsafe = unsafeStringPaths(input, prefix);
  if (unsafe.length) throw errors.validation(unsafe);
  const res = schema.safeParse(input);
  if (!res.success) throw fromZod(res.error, prefix, schema);
  return res.data;
}
