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
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError("rate_limited", 429, "Too many requests", { retryAfterSeconds }),
};

export function describeIssues(issues: Issue[]) {
  const first = issues[0];
  if (!first) return "Invalid request";
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return `${where}${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`;
}

export function fromZod(err: z.ZodError, prefix: (string | number)[] = []): DomainError {
  return errors.validation(
    err.issues.map((i) => ({ path: [...prefix, ...i.path.map((p) => (typeof p === "symbol" ? String(p) : p))], message: i.message })),
  );
}

/** Parse with a zod schema; a failure is a 422 validation_error listing every offending field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix: (string | number)[] = []): z.output<S> {
  const res = schema.safeParse(input);
  if (!res.success) throw fromZod(res.error, prefix);
  return res.data;
}
