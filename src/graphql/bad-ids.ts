// An ID argument holding text no id can have (a NUL byte, an unpaired surrogate) is an unknown id: 404 not_found
// for the whole operation, before any resolver parses it (where a body-style parse would call it a 422, or the
// database refuse it). Mirrors the REST side (src/rest/http.ts toDomainError: invalid escapes and ids the database
// cannot compare are 404). Only ID-typed variables and literals are looked at, and only when some text is suspect.
import { getNamedType, type GraphQLSchema, isInputType, type DocumentNode, TypeInfo, typeFromAST, visit, visitWithTypeInfo } from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";
import { statusOf, UNSAFE_TEXT } from "../shared/errors";

const hasUnsafe = (v: unknown): boolean => (typeof v === "string" ? UNSAFE_TEXT.test(v) : Array.isArray(v) ? v.some(hasUnsafe) : false);
/** a NUL or surrogate escape in the document's text: literals worth a look */
const SUSPECT_LITERAL = /\\u0000|\\u[dD][89a-fA-F]/;

function badIdArgument(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | undefined): boolean {
  const suspectVars = variables ? Object.values(variables).some(hasUnsafe) : false;
  const suspectLiterals = SUSPECT_LITERAL.test(document.loc?.source.body ?? "");
  if (!suspectVars && !suspectLiterals) return false;
  const typeInfo = new TypeInfo(schema);
  let bad = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      VariableDefinition(node) {
        const type = typeFromAST(schema, node.type as any);
        if (type && isInputType(type) && getNamedType(type).name === "ID" && hasUnsafe(variables?.[node.variable.name.value])) bad = true;
      },
      StringValue(node) {
        const type = typeInfo.getInputType();
        if (type && getNamedType(type).name === "ID" && UNSAFE_TEXT.test(node.value)) bad = true;
      },
    }),
  );
  return bad;
}

export function unknownIdArguments(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (badIdArgument(args.schema, args.document, args.variableValues as Record<string, unknown> | undefined)) {
        setResultAndStopExecution({ errors: [createGraphQLError("Resource not found", { extensions: { code: "not_found", status: statusOf("not_found") } })] });
      }
    },
  };
}
