// The error responses of an operation, derived from its declaration rather than written per route: what every
// operation can answer (429 rate_limited; the shared Error response as `default`), what its credential implies (401,
// 403, the live gate's 402 unless the route is exempt), its path parameters (404), body and query (400 invalid_json,
// 413, 415, 422 validation_error), POST's Idempotency-Key (409/422), plus the codes it declares itself (Op.errors) or names
// in its summary. Each status is one response listing its codes, with one example body per code; statuses and
// meanings come from the error catalogue, so a code has the same status in every operation.
import { gateExemptRoute } from "../platform/live-gate";
import { errorCatalogue } from "./error-codes";

const ERROR_SCHEMA_REF = { $ref: "#/components/schemas/Error" };
const ERROR_RESPONSE_REF = { $ref: "#/components/responses/Error" };
const RATE_LIMITED_RESPONSE_REF = { $ref: "#/components/responses/RateLimited" };

const byCode = new Map<string, { status: number; meaning: string }>(errorCatalogue().map((e) => [e.code, e]));
const CODE_WORD = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

interface Declared {
  summary: string;
  keyless?: boolean;
  pmToken?: boolean;
  clientCredentials?: "only" | "also";
  params?: Record<string, string>;
  query?: unknown;
  body?: unknown;
  imageBody?: readonly string[];
  fileBody?: readonly string[];
  errors?: readonly string[];
}

/** The codes an operation can answer with, besides 429 and the catch-all default. */
function errorCodesOf(method: string, expressPath: string, op: Declared): string[] {
  const codes = new Set<string>();
  const secured = !op.keyless;
  if (secured) codes.add("unauthorized");
  if (op.pmToken || op.clientCredentials) codes.add("forbidden");
  if (secured && !op.pmToken && op.clientCredentials !== "only") {
    codes.add("insufficient_scopes");
    if (!gateExemptRoute(method, expressPath)) for (const c of ["workspace_not_live", "workspace_not_entitled_for_live", "trial_expired"]) codes.add(c);
  }
  if (op.params && Object.keys(op.params).length) codes.add("not_found");
  if (op.body) for (const c of ["invalid_json", "payload_too_large", "unsupported_media_type", "unsupported_encoding", "validation_error"]) codes.add(c);
  if (op.imageBody) for (const c of ["payload_too_large", "unsupported_media_type"]) codes.add(c);
  if (op.fileBody) codes.add("payload_too_large");
  if (op.query) codes.add("validation_error");
  if (method === "post") for (const c of ["idempotency_in_progress", "idempotency_key_reused"]) codes.add(c);
  for (const c of op.errors ?? []) {
    if (!byCode.has(c)) throw new Error(`OpenAPI: ${method.toUpperCase()} ${expressPath} declares error code ${c}, which the error catalogue does not have`);
    codes.add(c);
  }
  for (const word of op.summary.match(CODE_WORD) ?? []) if (byCode.has(word) && word !== "rate_limited") codes.add(word);
  return [...codes];
}

/** The responses object entries for an operation's errors: one per status, then 429 and default. */
export function errorResponses(method: string, expressPath: string, op: Declared) {
  const byStatus = new Map<number, string[]>();
  for (const code of errorCodesOf(method, expressPath, op)) {
    const status = byCode.get(code)!.status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status)!;
    out[String(status)] = {
      description: codes.map((c) => `\`${c}\`: ${byCode.get(c)!.meaning}`).join("\n\n"),
      content: {
        "application/json": {
          schema: ERROR_SCHEMA_REF,
          examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: { error: { code: c, message: byCode.get(c)!.meaning, status } } }])),
        },
      },
    };
  }
  out["429"] = RATE_LIMITED_RESPONSE_REF;
  out.default = ERROR_RESPONSE_REF;
  return out;
}
