// Jest globalSetup: on the embedded database every test app starts from a migrated PGlite dump built once here,
// instead of creating and migrating a cluster per app (about 3.5 s of WebAssembly each, over a hundred apps a run).
// The dump is keyed by the migrations' contents and PGlite's version, so it is rebuilt whenever either changes;
// test/helpers/app.ts passes it to openDb through Q2C_PGLITE_TEMPLATE (workers inherit the environment).
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../src/db/client";
import { MIGRATIONS_DIR, migrationNames } from "../src/db/migrate";
import { openApiDocument } from "../src/openapi/document";
import { reachablePgUrl, redisReachable } from "./helpers/db";
import { writeValidators } from "./helpers/openapi";

export default async function globalSetup() {
  // Whether a PostgreSQL server answers, decided once before any file is collected, so a file whose tests need
  // it can register them as skipped (Jest then reports them skipped, never passed) rather than return early.
  process.env.Q2C_TEST_PG_REACHABLE = (await reachablePgUrl()) ? "1" : "0";
  process.env.Q2C_TEST_REDIS_REACHABLE = (await redisReachable()) ? "1" : "0";
  // The OpenAPI document every REST response is checked against (test/helpers/openapi.ts), built once per run here
  // rather than by every test file that loads the helper (a quarter of a second each).
  const doc = JSON.stringify(openApiDocument());
  const docFile = path.join(os.tmpdir(), `q2c-openapi-${createHash("sha256").update(doc).digest("hex").slice(0, 16)}.json`);
  if (!existsSync(docFile)) {
    writeFileSync(`${docFile}.${process.pid}.tmp`, doc);
    renameSync(`${docFile}.${process.pid}.tmp`, docFile);
  }
  process.env.Q2C_OPENAPI_DOC = docFile;
  // and its response validators, as ajv standalone modules, generated once per document (a few seconds) rather than
  // compiled again by every test file that checks responses
  const validators = docFile.replace(/\.json$/, "-validators");
  if (!existsSync(validators)) {
    const tmp = `${validators}.${process.pid}.tmp`;
    writeValidators(JSON.parse(doc), tmp);
    try {
      renameSync(tmp, validators); // atomic: a concurrent run never reads half a folder
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // a concurrent run wrote it first
    }
  }
  process.env.Q2C_OPENAPI_VALIDATORS = validators;
  if (process.env.DATABASE_URL) return;
  const hash = createHash("sha256");
  hash.update(readFileSync(path.join(__dirname, "../node_modules/@electric-sql/pglite/package.json")));
  hash.update("checkpointed, without template databases"); // how the dump is made (below)
  for (const name of migrationNames()) {
    for (const file of readdirSync(path.join(MIGRATIONS_DIR, name)).sort()) hash.update(name).update(file).update(readFileSync(path.join(MIGRATIONS_DIR, name, file)));
  }
  const file = path.join(os.tmpdir(), `q2c-pglite-template-${hash.digest("hex").slice(0, 16)}.tar`);
  if (!existsSync(file)) {
    const db = await openDb({ pgliteDir: "memory://" });
    // No template0 and template1: nothing creates a database on PGlite (test databases are made on PostgreSQL only),
    // and they are two thirds of the dump's files, which every app unpacks (about 0.2 s of CPU per app).
    await db.pglite!.exec(`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`);
    await db.pglite!.exec("DROP DATABASE template0");
    await db.pglite!.exec("DROP DATABASE template1");
    // flushed to the data files first, so each app that loads the dump starts with little WAL to replay
    await db.pglite!.query("CHECKPOINT");
    const dump = await db.pglite!.dumpDataDir("none");
    await db.close();
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
    renameSync(tmp, file); // atomic: a concurrent run never reads half a dump
  }
  process.env.Q2C_PGLITE_TEMPLATE = file;
}
