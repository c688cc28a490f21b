// `npm run build` compiles the service into dist/ and `npm run start:built` runs it with plain node: the same
// service as `npm start`, reading its migrations, the extension bridge's modules and the Excel parser's worker from
// where they are when compiled (src/paths.ts, src/imports/import.excel.ts). It once built but could not start.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { killAll, portOf, ROOT, startCommand } from "./helpers/spawn";

const dataDir = mkdtempSync(path.join(tmpdir(), "q2c-built-"));
afterAll(() => {
  killAll();
  rmSync(dataDir, { recursive: true, force: true });
});

test("the compiled service starts on the embedded default, migrates, answers, and parses Excel in its worker", async () => {
  // the compile step of `npm run build` (its `prisma generate` ran at install; running it here would rewrite the
  // client under the other test files)
  execFileSync(path.join(ROOT, "node_modules/.bin/tsc"), ["-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe", timeout: 240_000 });
  const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts;
  expect(scripts["start:built"]).toBe("node dist/src/main.js");

  const svc = await startCommand(process.execPath, ["dist/src/main.js"], { DATA_DIR: dataDir, PORT: "0", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "error" }, /listening on/);
  const base = `http://127.0.0.1:${portOf(svc)}`;
  const creds = JSON.parse(svc.output().split("\n").find((l) => l.startsWith("{"))!);
  expect((await (await fetch(`${base}/readyz`)).json())).toEqual({ status: "ready" });
  const who = await fetch(`${base}/api/v1/whoami`, { headers: { "x-api-key": creds.apiKey } });
  expect(who.status).toBe(200);
  expect(((await who.json()) as any).data.workspace.slug).toBe("demo");
  const bridge = await fetch(`${base}/extension-bridge.js`);
  expect([bridge.status, bridge.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
  expect(await bridge.text()).toBe(readFileSync(path.join(ROOT, "pages/extension-bridge/extension-bridge.js"), "utf8"));
  expect(await svc.stop()).toBe(0);

  // the Excel parser runs in a worker thread that loads the compiled module, not the TypeScript one
  const out = execFileSync(
    process.execPath,
    ["-e", `require("./dist/src/imports/import.excel.js").readExcelRows(require("fs").readFileSync("test/fixtures/imports/shopify-customers.xlsx"), "xlsx").then((r) => console.log(JSON.stringify({ sheets: r.sheets, header: r.rows[0].slice(0, 4) })))`],
    { cwd: ROOT, encoding: "utf8", timeout: 60_000 },
  );
  expect(JSON.parse(out)).toEqual({ sheets: ["customers_export", "Wholesale terms"], header: ["Customer ID", "First Name", "Last Name", "Email"] });
}, 300_000);
