// mountApiRouters (src/rest/routes.ts): the /api/v1 routers mounted by first path segment must answer every request
// exactly as mounting them one after another does. Synthetic routers, no database.
import express, { type Router } from "express";
import type { AddressInfo } from "node:net";
import { apiRouter } from "../src/rest/api-router";
import { apiRouters, mountApiRouters, restRoutes } from "../src/rest/routes";

/** A router whose every route answers with its own name, so a response says which route took the request. */
function named(name: string, routes: [method: "get" | "post", path: string][], middleware?: [path: string, express.RequestHandler]): Router {
  const r = apiRouter();
  if (middleware) r.use(...middleware);
  for (const [method, path] of routes) r[method](path, (_req, res) => void res.json({ by: `${name} ${method.toUpperCase()} ${path}`, seen: res.locals.seen ?? [] }));
  return r;
}

function routersUnderTest(): Router[] {
  return [
    named("A", [["get", "/carts/special"], ["get", "/orders/:id"]]),
    named("C", [["get", "/carts/:id"], ["post", "/carts/:id/items"], ["get", "/carts/:id/count"]]),
    // path-scoped middleware: runs for the requests under its path that reach this router
    named("D", [["get", "/me/things"]], [
      "/me",
      (_req, res, next) => {
        res.locals.seen = [...(res.locals.seen ?? []), "D"];
        next();
      },
    ]),
    named("E", [["get", "/carts/:id"], ["get", "/orders/special"], ["get", "/me/other"]]),
  ];
}

async function serve(mount: (api: express.Router) => void) {
  const app = express();
  const api = express.Router();
  mount(api);
  api.use((_req, res) => void res.status(404).json({ by: "not found", seen: res.locals.seen ?? [] }));
  app.use("/api/v1", api);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, close: () => new Promise((r) => server.close(r)) };
}

const requests: [method: string, path: string][] = [
  ["GET", "/carts/special"], // A, before C and E
  ["GET", "/carts/42"], // C before E
  ["GET", "/carts/42/count"],
  ["POST", "/carts/42/items"],
  ["GET", "/orders/special"], // A's /orders/:id, before E
  ["GET", "/CARTS/42"], // Express matches case-insensitively
  ["GET", "/carts/42/"], // a trailing slash, not strict
  ["GET", "/me/things"], // D, its middleware ran
  ["GET", "/me/other"], // E, after D's middleware ran
  ["GET", "/me"], // nothing: D's middleware ran, then 404
  ["GET", "/nowhere"], // nothing, no middleware
  ["GET", "/"],
  ["POST", "/carts/42"], // a method no route has: 404 from the end of the chain
  ["GET", "/orders"],
  ["GET", "/carts?x=1"], // a query string after the segment: no route is /carts with GET
  ["GET", "/carts/42?x=/y"],
];

test("mounted by segment, the routers answer every request as the routers mounted in order do", async () => {
  const linear = await serve((api) => {
    for (const r of routersUnderTest()) api.use(r);
  });
  const dispatched = await serve((api) => mountApiRouters(api, routersUnderTest()));
  try {
    const answers: unknown[] = [];
    for (const [method, path] of requests) {
      const a = await fetch(linear.base + path, { method });
      const b = await fetch(dispatched.base + path, { method });
      const [ja, jb] = [await a.json(), await b.json()];
      expect({ method, path, status: b.status, body: jb }).toEqual({ method, path, status: a.status, body: ja });
      answers.push([path, jb.by]);
    }
    // The cases above exercise what they say (so the comparison is not two identical 404s).
    expect(answers).toEqual([
      ["/carts/special", "A GET /carts/special"],
      ["/carts/42", "C GET /carts/:id"],
      ["/carts/42/count", "C GET /carts/:id/count"],
      ["/carts/42/items", "C POST /carts/:id/items"],
      ["/orders/special", "A GET /orders/:id"],
      ["/CARTS/42", "C GET /carts/:id"],
      ["/carts/42/", "C GET /carts/:id"],
      ["/me/things", "D GET /me/things"],
      ["/me/other", "E GET /me/other"],
      ["/me", "not found"],
      ["/nowhere", "not found"],
      ["/", "not found"],
      ["/carts/42", "not found"],
      ["/orders", "not found"],
      ["/carts?x=1", "not found"],
      ["/carts/42?x=/y", "C GET /carts/:id"],
    ]);
  } finally {
    await linear.close();
    await dispatched.close();
  }
});

test("the answers carry what the middleware saw", async () => {
  const dispatched = await serve((api) => mountApiRouters(api, routersUnderTest()));
  try {
    expect(await (await fetch(`${dispatched.base}/me/other`)).json()).toEqual({ by: "E GET /me/other", seen: ["D"] });
    expect(await (await fetch(`${dispatched.base}/me`)).json()).toEqual({ by: "not found", seen: ["D"] });
    expect(await (await fetch(`${dispatched.base}/carts/42`)).json()).toEqual({ by: "C GET /carts/:id", seen: [] });
  } finally {
    await dispatched.close();
  }
});

test("a route starting with a parameter, middleware without a path, or a router not built with apiRouter() is refused at mount", () => {
  const param = apiRouter();
  param.get("/:kind/count", (_req, res) => void res.end());
  expect(() => mountApiRouters(express.Router(), [param])).toThrow(/must be literal/);
  const pathless = apiRouter();
  pathless.use((_req, _res, next) => next());
  expect(() => mountApiRouters(express.Router(), [pathless])).toThrow(/needs a path/);
  expect(() => mountApiRouters(express.Router(), [express.Router()])).toThrow(/apiRouter\(\)/);
});

test("every /api/v1 route starts with a literal segment, and the real routers mount", () => {
  const routes = restRoutes();
  expect(routes.length).toBeGreaterThan(150);
  const firsts = new Set(routes.map((r) => r.path.split("/")[1]));
  for (const f of firsts) expect(f).toMatch(/^[a-z0-9._-]+$/);
  expect(() => mountApiRouters(express.Router(), apiRouters())).not.toThrow();
});
