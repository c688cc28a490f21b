// Descriptions shared by many types: a field or argument with one of these names and no description of its own
// gets this one, so the same sentence is written once. Anything type-specific is described where it is defined;
// test/graphql-schema.test.ts fails on any type, field, argument or enum value left without a description.
import { type GraphQLSchema, isInputObjectType, isInterfaceType, isObjectType } from "graphql";

/** Field and argument names whose meaning is the same on every type. */
const COMMON_FIELDS: Record<string, string> = {
  id: "Unique identifier",
  createdAt: "When it was created (ISO 8601, UTC)",
  updatedAt: "When it last changed (ISO 8601, UTC)",
  metadata: "Your own key-value data (at most 50 keys, 10 KB), returned unchanged",
  currency: "ISO 4217 currency code, upper case (e.g. USD)",
  workspaceId: "The workspace it belongs to",
  applicationId: "The application it belongs to",
  environmentId: "The environment (sandbox, production, …) it belongs to",
  nodes: "The items of this page, newest first",
  pageInfo: "Where this page ends and whether more follow",
};

/** Arguments of list fields. */
const COMMON_ARGS: Record<string, string> = {
  limit: "Items per page, 1 to 100 (default 20)",
  cursor: "pageInfo.cursor of the previous page; omit for the first page",
};

/** Fills missing descriptions from COMMON_FIELDS / COMMON_ARGS; mutates the schema it is given. */
export function describeCommonFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith("__")) continue;
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        field.description ??= COMMON_FIELDS[field.name];
        for (const arg of field.args) arg.description ??= COMMON_ARGS[arg.name] ?? COMMON_FIELDS[arg.name];
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) field.description ??= COMMON_FIELDS[field.name];
    }
  }
  return schema;
}
