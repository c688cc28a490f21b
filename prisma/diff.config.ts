// Read only by the pinned Prisma 6.19 CLI (tools/prisma-6-cli) that scripts/new-migration.ts runs: its JS engine is
// the WebAssembly schema engine, which replays prisma/migrations into an in-memory PGlite shadow database and diffs
// the result against the schema. No native engine, no download, no database server. A plain object rather than
// prisma/config's defineConfig, which would resolve to the Prisma 7 package of the project.
import { pgliteMigrationAdapter } from "./pglite-cli-adapter";

export default {
  // scripts/new-migration.ts passes its 6.19-compatible copy of prisma/schema.prisma
  schema: process.env.PRISMA_DIFF_SCHEMA ?? "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => pgliteMigrationAdapter() as any,
};
