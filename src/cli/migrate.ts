// npm run db:migrate: applies pending migrations to DATABASE_URL or the embedded data folder.
import path from "node:path";
import { openDb } from "../db/client";
import { applyMigrations, pgDriver, pgliteDriver } from "../db/migrate";
import { cliConfig, exitWith } from "./common";

(async () => {
  const config = cliConfig();
  const db = await openDb({ url: config.DATABASE_URL, pgliteDir: path.join(config.DATA_DIR, "pglite"), migrate: false });
  const applied = await applyMigrations(db.pool ? pgDriver(db.pool) : pgliteDriver(db.pglite!));
  console.log(`[${db.kind}] applied ${applied.length} migration(s)${applied.length ? `: ${applied.join(", ")}` : ""}`);
  await db.close();
})().catch(exitWith);
