// One error type for every rule the specs name: a stable code plus its HTTP status. REST maps it in one
// handler; GraphQL puts the same code in extensions.code. Anything else is unexpected and masked.
import type { z } from "zod";

export type Issue = { path: (string | number)[]; message: string };

export class DomainError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const errors = {
  validation: (issues: Issue[], message = describeIssues(issues)) =>
    new DomainError("validation_error", 422, message, { issues }),
  invalidJson: (message = "Request body is not valid JSON") => new DomainError("invalid_json", 400, message),
  payloadTooLarge: (limit: number) =>
    new DomainError("payload_too_large", 413, `Request body exceeds ${limit} bytes`, { limitBytes: limit }),
  notFound: (what = "Resource", code = "not_found") => new DomainError(code, 404, `${what} not found`),
  unauthorized: (message = "Missing or invalid credentials") => new DomainError("unauthorized", 401, message),
  forbidden: (message: string) => new DomainError("forbidden", 403, message),
  permissionDenied: (message: string) => new DomainError("permission_denied", 403, message),
  insufficientScopes: (required: string[], status = 403) =>
    new DomainError("insufficient_scopes", status, `This credential lacks the required scope: ${required.join(", ")}`, { required }),
  invalidScope: (scopes: string[], reason: string) =>
    new DomainError("invalid_scope", 400, `Invalid scope ${scopes.map((s) => `"${s}"`).join(", ")}: ${reason}`, { scopes }),
  applicationKeyWorkspaceRoute: () =>
    new DomainError("application_key_workspace_route", 403, "API keys cannot call workspace routes; use a dashboard session"),
};

export function describeIssues(issues: Issue[]) {
  const first = issues[0];
  if (!first) return "Invalid request";
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return `${where}${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`;
}

export function fromZod(err: z.ZodError, prefix: (string | number)[] = []): DomainError {
  const issues: Issue[] = [];
  for (const i of err.issues) {
    const path = [...prefix, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    // One issue per unknown field, with the field in the path, so a client can point at it.
    if (i.code === "unrecognized_keys") for (const k of i.keys) issues.push({ path: [...path, k], message: "Unknown field" });
    else issues.push({ path, message: i.message });
  }
  return errors.validation(issues);
}

// PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate is not encodable: both are input errors.
// eslint-disable-next-line no-control-regex -- NUL is exactly what this rejects
export const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Paths of strings (keys or values, at any depth) that no text column can store. */
export function unsafeStringPaths(value: unknown, path: (string | number)[] = [], out: Issue[] = [], depth = 0): Issue[] {
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
  if (!res.success) throw fromZod(res.error, prefix);
  return res.data;
}
