// The GraphQL schema describes itself: every type, field, argument and enum value has a description; statuses,
// methods, kinds and types are enums; JSON is used only where the shape is the caller's own (metadata) or varies by
// event type (Event.data); every paged list has one shape, { nodes, pageInfo { cursor hasMore } }.
import {
  getNamedType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
} from "graphql";
import { schema } from "../src/server/graphql-schema";

const types = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith("__") && !isSpecifiedScalarType(t));

type Member = { where: string; field: GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument };
function members(): Member[] {
  const out: Member[] = [];
  for (const t of types) {
    if (isObjectType(t) || isInterfaceType(t)) {
      for (const f of Object.values(t.getFields())) {
        out.push({ where: `${t.name}.${f.name}`, field: f });
        for (const a of f.args) out.push({ where: `${t.name}.${f.name}(${a.name})`, field: a });
      }
    } else if (isInputObjectType(t)) {
      for (const f of Object.values(t.getFields())) out.push({ where: `${t.name}.${f.name}`, field: f });
    }
  }
  return out;
}

const blank = (s: string | null | undefined) => !s || !s.trim();

/** Names that hold a value from a closed set: they must be enums. */
const CLOSED_SET = /(^|[a-z])(status|Status|method|Method|kind|Kind|type|Type|outcome|Outcome|source|Source)$/;
/**
 * Closed-set-looking names that stay String, each with why. Event type names contain dots ("order.created"),
 * which GraphQL enum values cannot; the catalog (Query.eventTypes) lists them and writes validate against it.
 */
const STRING_ALLOWED = new Map<string, string>([
  ["Event.type", "event type names contain dots; Query.eventTypes lists them"],
  ["EventType.type", "event type names contain dots"],
  ["Query.events(type)", "an event type name"],
  ["WebhookDelivery.eventType", "an event type name"],
  ["Subscription.events(types)", "event type names"],
  ["QuoteEvent.type", "an event type name (quote.*)"],
  ["OrderEvent.type", "an event type name (order.*)"],
  ["Import.contentType", "a MIME type (text/csv, text/tab-separated-values), as the upload PUT must send it"],
  ["ImportUpload.contentType", "the MIME type the upload PUT must send"],
  ["OrderTimelineRow.source", "what caused the row, from several tables: status-history sources, payment, fulfillment, return, and what holds, comps and line edits write"],
  ["Order.displayStatus", "a human label built from status, money and goods qualifiers, not a value to branch on"],
]);

/** JSON stays where the shape is the caller's own or differs per event type. */
// an extension's configSchema (a JSON Schema) and an install's config values: shapes their publisher defines
const JSON_ALLOWED = (where: string) => /\.metadata$|\(metadata\)$|\.configSchema$|\(configSchema\)$|\.config$|\(config\)$/.test(where) || where === "Event.data";

describe("GraphQL schema documents itself", () => {
  it("has a description on every type", () => {
    const missing = types.filter((t) => blank(t.description)).map((t) => t.name);
    expect(missing).toEqual([]);
  });

  it("has a description on every field, input field and argument", () => {
    const missing = members()
      .filter((m) => blank(m.field.description))
      .map((m) => m.where);
    expect(missing).toEqual([]);
  });

  it("has a description on every enum value", () => {
    const missing = types.filter(isEnumType).flatMap((e) => e.getValues().filter((v) => blank(v.description)).map((v) => `${e.name}.${v.name}`));
    expect(missing).toEqual([]);
  });

  it("types statuses, methods, kinds and types as enums, not String", () => {
    const stringly = members()
      .filter((m) => CLOSED_SET.test(m.field.name) && getNamedType(m.field.type).name === "String" && !STRING_ALLOWED.has(m.where))
      .map((m) => m.where);
    expect(stringly).toEqual([]);
  });

  it("uses JSON only for metadata and event data", () => {
    const json = members()
      .filter((m) => getNamedType(m.field.type).name === "JSON" && !JSON_ALLOWED(m.where))
      .map((m) => m.where);
    expect(json).toEqual([]);
  });

  it("pages every list the same way: a Relay connection { edges { cursor node } nodes pageInfo }, first/after (and limit/cursor)", () => {
    const pageInfo = schema.getType("PageInfo");
    expect(isObjectType(pageInfo) && Object.keys(pageInfo.getFields()).sort()).toEqual(["cursor", "endCursor", "hasMore", "hasNextPage", "hasPreviousPage", "startCursor"]);
    const bad: string[] = [];
    for (const t of types) {
      if (!isObjectType(t)) continue;
      if (t.name.endsWith("Page")) {
        const f = t.getFields();
        if (Object.keys(f).sort().join() !== "edges,nodes,pageInfo" || String(f.pageInfo.type) !== "PageInfo!") bad.push(t.name);
        const edge = getNamedType(f.edges?.type);
        if (!isObjectType(edge) || Object.keys(edge.getFields()).sort().join() !== "cursor,node" || String(edge.getFields().cursor.type) !== "String!") bad.push(`${t.name}.edges`);
      }
      for (const f of Object.values(t.getFields())) {
        const pagedArgs = f.args.some((a) => ["limit", "cursor", "first", "after", "offset"].includes(a.name));
        if (!pagedArgs) continue;
        const names = f.args.map((a) => a.name);
        if (!["first", "after", "limit", "cursor"].every((n) => names.includes(n)) || names.includes("offset")) bad.push(`${t.name}.${f.name}: args`);
        if (!getNamedType(f.type).name.endsWith("Page")) bad.push(`${t.name}.${f.name}: returns ${String(f.type)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("the checks above can fail: they see a String status and an undescribed field when there is one", () => {
    // Guard against a vacuous pass (e.g. an empty type map): the schema has enums and many described members.
    expect(types.filter(isEnumType).length).toBeGreaterThan(5);
    expect(members().length).toBeGreaterThan(300);
    expect(CLOSED_SET.test("paymentStatus") && CLOSED_SET.test("status") && !CLOSED_SET.test("statusCode")).toBe(true);
    expect(types.some((t) => isScalarType(t) && t.name === "JSON")).toBe(true);
  });
});
