// Every /api/v1 route has a GraphQL root field over the same service: src/rest/graphql-counterparts.ts says which (the
// OpenAPI operationIds come from it too), and the test fails
// when a route is added without one, when a named field is missing from the schema, or when a route is gone.
import type { GraphQLSchema } from "graphql";
import { GATE_EXEMPT, GATE_EXEMPT_FIELDS, gateExemptRoute } from "../src/platform/live-gate";
import { schema } from "../src/server/graphql-schema";
import { GRAPHQL_FOR, NO_GRAPHQL } from "../src/rest/graphql-counterparts";
import { restRoutes, type RouteInfo } from "../src/server/rest-routes";

const routeKey = (r: RouteInfo) => `${r.method.toUpperCase()} ${r.path}`;

/** Everything wrong with the table against the routes and the schema; empty when they agree. */
function parityProblems(routes: RouteInfo[], table: Readonly<Record<string, string>>, allowed: Readonly<Record<string, string>>, s: GraphQLSchema): string[] {
  const problems: string[] = [];
  const keys = routes.map(routeKey);
  const live = new Set(keys);
  for (const k of keys) {
    if (!(k in table) && !(k in allowed)) problems.push(`route without GraphQL: ${k}`);
  }
  for (const [k, field] of Object.entries(table)) {
    if (!live.has(k)) problems.push(`table names a route that does not exist: ${k}`);
    const [root, name] = field.split(".");
    const type = root === "Query" ? s.getQueryType() : root === "Mutation" ? s.getMutationType() : root === "Subscription" ? s.getSubscriptionType() : null;
    if (!type || !name || !(name in type.getFields())) problems.push(`field not in the schema: ${field} (for ${k})`);
  }
  for (const [k, why] of Object.entries(allowed)) {
    if (!live.has(k)) problems.push(`allow-list names a route that does not exist: ${k}`);
    if (k in table) problems.push(`route both mapped and allow-listed: ${k}`);
    if (!why.trim()) problems.push(`allow-list entry without a reason: ${k}`);
  }
  return problems;
}

const routes = restRoutes();

test("restRoutes() lists the routers' routes, each once", () => {
  expect(routes.length).toBeGreaterThanOrEqual(56);
  const keys = routes.map(routeKey);
  expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
});

test("every REST route has a GraphQL field, every named field exists, every named route exists", () => {
  expect(parityProblems(routes, GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual([]);
});

test("the live gate exempts a route exactly when it exempts the route's GraphQL field, and names each pair as this table does", () => {
  const disagree = Object.entries(GRAPHQL_FOR)
    .filter(([k, field]) => {
      const [method, path] = k.split(" ");
      return gateExemptRoute(method, path) !== GATE_EXEMPT_FIELDS.has(field.split(".")[1]);
    })
    .map(([k, field]) => `${k} / ${field}`);
  expect(disagree).toEqual([]);
  const misnamed = Object.entries(GATE_EXEMPT).filter(([k, field]) => GRAPHQL_FOR[k]?.split(".")[1] !== field);
  expect(misnamed).toEqual([]);
});

describe("each check can fail", () => {
  // Only the problems a doctored input adds, so a broken table fails the test above and not these as well.
  const baseline = parityProblems(routes, GRAPHQL_FOR, NO_GRAPHQL, schema);
  const problems = (...args: Parameters<typeof parityProblems>) => parityProblems(...args).filter((p) => !baseline.includes(p));
  const without = (k: string) => Object.fromEntries(Object.entries(GRAPHQL_FOR).filter(([key]) => key !== k));

  test("a new route missing from the table", () => {
    const extra: RouteInfo = { method: "post", path: "/carts/:id/merge" };
    expect(problems([...routes, extra], GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual(["route without GraphQL: POST /carts/:id/merge"]);
    expect(problems(routes, without("PATCH /carts/:id"), NO_GRAPHQL, schema)).toEqual(["route without GraphQL: PATCH /carts/:id"]);
  });

  test("a mapped field the schema does not have", () => {
    const table = { ...GRAPHQL_FOR, "PATCH /carts/:id": "Mutation.noSuchField", "GET /carts/:id": "Nope.cart" };
    expect(problems(routes, table, NO_GRAPHQL, schema)).toEqual([
      "field not in the schema: Nope.cart (for GET /carts/:id)",
      "field not in the schema: Mutation.noSuchField (for PATCH /carts/:id)",
    ]);
    // a Query field named as a Mutation is not the same field
    expect(problems(routes, { ...GRAPHQL_FOR, "GET /carts/:id": "Mutation.cart" }, NO_GRAPHQL, schema)).toEqual([
      "field not in the schema: Mutation.cart (for GET /carts/:id)",
    ]);
  });

  test("a table or allow-list entry for a route that is gone", () => {
    const gone = routes.filter((r) => routeKey(r) !== "GET /event-types");
    expect(problems(gone, GRAPHQL_FOR, NO_GRAPHQL, schema)).toEqual(["table names a route that does not exist: GET /event-types"]);
    expect(problems(routes, GRAPHQL_FOR, { ...NO_GRAPHQL, "GET /gone": "was browser-only" }, schema)).toEqual(["allow-list names a route that does not exist: GET /gone"]);
  });

  test("an allow-listed route needs a reason, and is not also mapped", () => {
    expect(problems(routes, without("GET /whoami"), { ...NO_GRAPHQL, "GET /whoami": " " }, schema)).toEqual(["allow-list entry without a reason: GET /whoami"]);
    expect(problems(routes, GRAPHQL_FOR, { ...NO_GRAPHQL, "GET /whoami": "because" }, schema)).toEqual(["route both mapped and allow-listed: GET /whoami"]);
  });
});
