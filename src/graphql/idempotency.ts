// Idempotency-Key on GraphQL mutations, with the REST semantics (src/rest/idempotency.ts): the same key and the same
// document + variables within 24 h (per credential) returns the first result again (header Idempotent-Replayed:
// true), another document with the key is 422 idempotency_key_reused, a concurrent one 409 idempotency_in_progress.
// Queries and subscriptions ignore the header. Secrets revealed by the first result come back null.
import type { Plugin } from "graphql-yoga";
import { createGraphQLError } from "graphql-yoga";
import { getOperationAST, print, type ExecutionResult } from "graphql";
import { claimIdempotencyKey, completeIdempotencyKey, idempotencyOwner, requestHash } from "../shared/idempotency.service";
import { DomainError, errors as domainErrors } from "../shared/errors";
import { isInvalidTextInput } from "../shared/context";
import { withoutSecrets } from "../shared/secrets";
import type { GqlContext } from "./builder";

const replayed = new WeakSet<Request>();

export function idempotentMutations(): Plugin<GqlContext & { request?: Request }> {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue as GqlContext & { request?: Request };
      const key = ctx.idempotencyKey;
      if (key === undefined || getOperationAST(args.document, args.operationName)?.operation !== "mutation") return;
      const hash = requestHash("GRAPHQL", "/graphql", { query: print(args.document), variables: args.variableValues ?? {}, operationName: args.operationName ?? null });
      let claim;
      try {
        claim = await claimIdempotencyKey(ctx, idempotencyOwner(ctx), key, hash);
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        setResultAndStopExecution({ errors: [createGraphQLError(e.message, { extensions: { code: e.code, status: e.status, ...(e.details ? { details: e.details } : {}), http: { status: e.status } } })] });
        return;
      }
      if (claim.kind === "replay") {
        if (ctx.request) replayed.add(ctx.request);
        setResultAndStopExecution(claim.body as ExecutionResult);
        return;
      }
      const id = claim.id;
      return {
        async onExecuteDone({ result }) {
          if (Symbol.asyncIterator in (result as object)) return; // a mutation never streams
          const r = result as ExecutionResult;
          // Errors here are not masked yet: store them as a client sees them (the domain code and status).
          const errors = r.errors?.map((e) => {
            const de = e.originalError instanceof DomainError ? e.originalError : isInvalidTextInput(e.originalError) ? domainErrors.notFound() : null;
            const code = de?.code ?? e.extensions?.code ?? (e.originalError ? "internal_error" : "validation_error");
            const status = de?.status ?? Number(e.extensions?.status ?? (code === "internal_error" ? 500 : 422));
            return { message: de?.message ?? e.message, path: e.path, locations: e.locations, extensions: { code, status, ...(de?.details ? { details: de.details } : {}) } };
          });
          const stored = { ...(errors ? { errors } : {}), ...(r.data !== undefined ? { data: r.data } : {}) };
          const status = errors?.[0]?.extensions.status ?? 200;
          await completeIdempotencyKey(ctx, id, status, withoutSecrets(JSON.parse(JSON.stringify(stored)), ctx.revealedSecrets));
        },
      };
    },
    onResponse({ request, response }) {
      if (replayed.has(request)) response.headers.set("Idempotent-Replayed", "true");
    },
  };
}
