// What finding a /api/v1 route costs: the routers mounted one after another against mountApiRouters (src/rest/routes.ts:
// one route per first path segment). Both are built from the real routers' route tables (src/rest/api-router.ts) with
// stub handlers, and driven in this process with plain request objects, so only Express's routing is measured.
//   npx tsx bench/rest-routing.ts            (BENCH_REQUESTS per path and variant, default 20000; 3 alternating rounds)
import express, { type Router } from "express";
import { apiRouter, routeTable } from "../src/rest/api-router";
import { apiRouters, mountApiRouters } from "../src/rest/routes";

const N = Number(process.env.BENCH_REQUESTS ?? 20000);

/** The routers' routes (methods and paths, in order) with a handler that only records that it ran. */
function stubRouters(): Router[] {
  return apiRouters().map((real) => {
    const r = apiRouter();
    const table = routeTable(real);
    for (const segment of table.middleware) r.use(`/${segment}`, (_req, _res, next) => next());
    for (const { method, path } of table.routes) r[method](path, (_req, res) => (res as unknown as { done(v: boolean): void }).done(true));
    return r;
  });
}

const linear = express.Router();
for (const r of stubRouters()) linear.use(r);
const dispatched = express.Router();
mountApiRouters(dispatched, stubRouters());

const paths: [string, string][] = [
  ["GET", "/whoami"],
  ["POST", "/carts"],
  ["POST", "/carts/0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c/items"],
  ["POST", "/checkout/sessions"],
  ["POST", "/checkout-sessions/0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c/complete"],
  ["GET", "/orders/0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c"],
  ["GET", "/quotes/0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c"],
  ["GET", "/installations/0b6a3c1e-7d2f-4a51-9c83-2f4e5d6a7b8c"],
  ["GET", "/no-such-route"],
];

/** One request through the router: true when a route's handler took it, false when it fell through. The router
 * may continue asynchronously (it yields with setImmediate after 100 layers in a row), hence the promise. */
function route(router: Router, method: string, url: string): Promise<boolean> {
  return new Promise((done) => (router as any)({ method, url, headers: {} }, { done }, () => done(false)));
}

async function run(router: Router, method: string, url: string): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) await route(router, method, url);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / N;
}

async function main() {
  // check both variants reach a stub for every path but the last
  for (const [method, url] of paths) {
    for (const router of [linear, dispatched]) {
      if ((await route(router, method, url)) !== (url !== "/no-such-route")) throw new Error(`${method} ${url}: routing did not reach the expected handler`);
    }
  }

  const results = new Map<string, { linear: number[]; dispatched: number[] }>();
  for (let round = 0; round < 3; round++) {
    for (const [method, url] of paths) {
      const key = `${method} ${url}`;
      const r = results.get(key) ?? { linear: [], dispatched: [] };
      r.linear.push(await run(linear, method, url));
      r.dispatched.push(await run(dispatched, method, url));
      results.set(key, r);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`routing CPU per request, µs (median of 3 rounds of ${N}; node ${process.version})`);
  console.log("| request | routers in order | mountApiRouters | ratio |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [key, r] of results) {
    const a = median(r.linear);
    const b = median(r.dispatched);
    console.log(`| ${key.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/, "{id}")} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(a / b).toFixed(1)}x |`);
  }
}

void main();
