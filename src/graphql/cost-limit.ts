// Query cost that accounts for list sizes (issue 37 item 6). Every field selected costs 1; under a paged field
// (one taking `first` or `limit`, src/graphql/shared-types.ts pageArgs) the cost of its selection is multiplied by
// the page size asked for (first, else limit, else the default 20), so `quotes(first: 100) { nodes { customer {
// orders(first: 100) { nodes { id } } } } }` costs what it may read: about 100 x 100 rows, not 5 fields.
// Plain lists (an order's lines, its payments) are small and bounded: they count once. Introspection fields
// (__schema, __type, __typename) cost nothing. Computed before execution with the request's variables (a
// validation rule cannot see them), for queries, mutations and subscriptions alike; above the limit the operation
// is refused with code query_too_costly (422) naming the cost and the limit.
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLNamedType,
  type GraphQLSchema,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";
import { statusOf } from "../shared/errors";

/** The page size a paged field answers when neither first nor limit is given (src/shared/pagination.ts). */
export const DEFAULT_PAGE_SIZE = 20;
const PAGE_ARGS = ["first", "limit"] as const;

function intOf(node: ValueNode | undefined, variables: Record<string, unknown>): number | null {
  if (!node) return null;
  if (node.kind === Kind.INT) return Number(node.value);
  if (node.kind === Kind.VARIABLE) {
    const v = variables[node.name.value];
    return typeof v === "number" && Number.isFinite(v) ? v : null;
  }
  return null;
}

/** How many items a field's selection is paid for: the page size for a paged field, 1 otherwise. */
function multiplierOf(parent: GraphQLNamedType, field: FieldNode, variables: Record<string, unknown>): number {
  if (!isObjectType(parent) && !isInterfaceType(parent)) return 1;
  const def = parent.getFields()[field.name.value];
  if (!def || !def.args.some((a) => (PAGE_ARGS as readonly string[]).includes(a.name))) return 1;
  for (const name of PAGE_ARGS) {
    const n = intOf(field.arguments?.find((a) => a.name.value === name)?.value, variables);
    if (n !== null) return Math.max(1, Math.floor(n));
  }
  return DEFAULT_PAGE_SIZE;
}

/** The operation's cost (see the file comment); `operationName` picks the operation when the document has several. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables: Record<string, unknown> = {}): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  const operations: OperationDefinitionNode[] = [];
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    if (d.kind === Kind.OPERATION_DEFINITION) operations.push(d);
  }
  const op = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!op) return 0;
  const root = op.operation === "query" ? schema.getQueryType() : op.operation === "mutation" ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;

  const costOf = (set: SelectionSetNode, parent: GraphQLNamedType, spreading: Set<string>): number => {
    let sum = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith("__")) continue;
        sum += 1;
        if (!s.selectionSet) continue;
        const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[s.name.value] : undefined;
        const child = def ? getNamedType(def.type) : parent;
        sum += multiplierOf(parent, s, variables) * costOf(s.selectionSet, child, spreading);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const on = s.typeCondition ? (schema.getType(s.typeCondition.name.value) ?? parent) : parent;
        sum += costOf(s.selectionSet, on, spreading);
      } else {
        const f = fragments.get(s.name.value);
        if (!f || spreading.has(f.name.value)) continue; // a cycle is a validation error, counted once here
        const on = schema.getType(f.typeCondition.name.value) ?? parent;
        sum += costOf(f.selectionSet, on, new Set([...spreading, f.name.value]));
      }
    }
    return sum;
  };
  return costOf(op.selectionSet, root, new Set());
}

/** Refuses an operation whose cost is above `maxCost` before anything runs: code query_too_costly. */
export function costLimit(maxCost: number): Plugin {
  const check = ({ args, setResultAndStopExecution }: { args: any; setResultAndStopExecution: (r: any) => void }) => {
    const cost = operationCost(args.schema, args.document, args.operationName, (args.variableValues ?? {}) as Record<string, unknown>);
    if (cost <= maxCost) return;
    const message = `Query cost ${cost} is above the limit of ${maxCost}: ask for smaller pages (first) or fewer fields`;
    setResultAndStopExecution({ errors: [createGraphQLError(message, { extensions: { code: "query_too_costly", status: statusOf("query_too_costly"), details: { cost, maxCost } } })] });
  };
  return { onExecute: check, onSubscribe: check } as Plugin;
}
