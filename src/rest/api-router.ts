// The Router every /api/v1 router is built with: an Express Router that also keeps the list of the routes registered
// on it (method and path, in order). The OpenAPI document, the REST/GraphQL parity test and the mounting by path
// segment (src/rest/routes.ts) read that list; nothing reads Express's own router internals.
import { Router } from "express";

export const ROUTE_METHODS = ["get", "post", "put", "patch", "delete"] as const;

export interface RouteInfo {
  method: (typeof ROUTE_METHODS)[number];
  /** Express form, relative to /api/v1: `/carts/:id` */
  path: string;
}

/** What an API router registered: its routes, and the paths of its path-scoped middleware (`r.use("/me", ...)`). */
export interface RouteTable {
  routes: RouteInfo[];
  /** the first path segment of each `use` with a path; null for a `use` without one (it sees every request) */
  middleware: (string | null)[];
}

const tables = new WeakMap<Router, RouteTable>();

function stringPath(path: unknown): string {
  if (typeof path !== "string" || !path.startsWith("/")) throw new Error(`API routes are registered with a string path starting with "/" (got ${String(path)})`);
  return path;
}

/** An Express Router that records its routes as they are registered. */
export function apiRouter(): Router {
  const router = Router();
  const table: RouteTable = { routes: [], middleware: [] };
  for (const method of ROUTE_METHODS) {
    const register = router[method].bind(router) as (path: unknown, ...handlers: unknown[]) => Router;
    (router as unknown as Record<string, unknown>)[method] = (path: unknown, ...handlers: unknown[]) => {
      table.routes.push({ method, path: stringPath(path) });
      return register(path, ...handlers);
    };
  }
  const use = router.use.bind(router) as (...args: unknown[]) => Router;
  (router as unknown as Record<string, unknown>).use = (...args: unknown[]) => {
    table.middleware.push(typeof args[0] === "string" ? stringPath(args[0]).split("/")[1] : null);
    return use(...args);
  };
  tables.set(router, table);
  return router;
}

/** The table of a router built with apiRouter(). */
export function routeTable(router: Router): RouteTable {
  const table = tables.get(router);
  if (!table) throw new Error("not an API router: build it with apiRouter() (src/rest/api-router.ts)");
  return table;
}
