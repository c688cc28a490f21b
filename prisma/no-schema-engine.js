#!/usr/bin/env node
// Stands in for Prisma 7's native schema engine, which this project never downloads (prisma.config.ts points
// PRISMA_SCHEMA_ENGINE_BINARY here so that `prisma generate` runs offline). Commands that need the engine get this.
console.error(
  "This project has no native Prisma schema engine (it is never downloaded).\n" +
    "  apply migrations:      npm run db:migrate\n" +
    "  create a migration:    npm run db:new-migration -- <name>\n" +
    "  check migrations:      npm run db:check-migrations\n" +
    "See docs/prisma.md.",
);
process.exit(1);
