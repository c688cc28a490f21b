// CI runs the whole suite twice, on the embedded database and then on PostgreSQL (.ci/run), and each file runs in
// whichever passes it means something in. The embedded pass (Q2C_CI_PASS=embedded) leaves out the files that would
// run there exactly as they run in the PostgreSQL pass: files whose every test app is on PostgreSQL whatever the
// pass (concurrency, statement counts, killed processes), and the Chromium files whose every test drives a browser
// or checks what does not touch the database (headers, a 404 page, a CORS refusal): the pages' database paths are
// covered in both passes by their HTTP tests. Files that mix browser tests with database flows (invite-page,
// wallet-billing-page) stay in both passes. The PostgreSQL pass (Q2C_CI_PASS=postgres) leaves out, in turn, the
// files that run the same there as in the embedded pass: the ones that start `npm start` and the CLIs on the
// embedded default whatever DATABASE_URL says, and those that open no database at all. A plain `npm test` runs
// everything.
const POSTGRES_PASS_ONLY = [
  // every app on PostgreSQL (startTestApp({ db: "pg" }), its databaseUrl, or a database of its own)
  "/test/idempotency\\.e2e\\.test\\.ts$",
  "/test/discounts-concurrency\\.e2e\\.test\\.ts$",
  "/test/statement-budgets\\.e2e\\.test\\.ts$",
  "/test/import-kill\\.e2e\\.test\\.ts$",
  "/test/kill\\.e2e\\.test\\.ts$",
  "/test/principal-cache\\.e2e\\.test\\.ts$",
  "/test/sql-lane\\.e2e\\.test\\.ts$",
  "/test/quotes-concurrency\\.e2e\\.test\\.ts$",
  "/test/order-ops-concurrency\\.e2e\\.test\\.ts$",
  "/test/subscription-renewal-concurrency\\.e2e\\.test\\.ts$",
  // generated tables of thousands of requests whose answers do not depend on the database (validation, tenancy):
  // once per run is enough, on the real server
  "/test/(hostile-input|cross-tenant|scopes)-every-route\\.e2e\\.test\\.ts$",
  // Chromium (test/helpers/browser.ts)
  "/test/(application-scripts|oauth|quote|extension-bridge)-browser\\.e2e\\.test\\.ts$",
  "/test/checkout-(page|browser)\\.e2e\\.test\\.ts$",
  "/test/quote-page-browser\\.e2e\\.test\\.ts$",
];
const EMBEDDED_PASS_ONLY = [
  // the real entry points on the embedded default (DATABASE_URL set to "" for the child processes)
  "/test/(start|bootstrap-user|readme|webhooks-listen|build)\\.e2e\\.test\\.ts$",
  // no database at all
  "/test/(config|scopes|formatting|events-emitted|graphql-schema|graphql-parity|rest-dispatch|ids|brand-contrast|error-catalogue)\\.test\\.ts$",
];
const PASS_SKIPS = { embedded: POSTGRES_PASS_ONLY, postgres: EMBEDDED_PASS_ONLY };

/** @type {import('jest').Config} */
module.exports = {
  testPathIgnorePatterns: ["/node_modules/", ...(PASS_SKIPS[process.env.Q2C_CI_PASS] ?? [])],
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: {
    // .tsx (the buyer pages): preact's automatic JSX runtime; .ts stays plain TypeScript (tsx parsing would misread <T>() generics)
    "^.+\\.tsx$": ["@swc/jest", { jsc: { target: "es2022", parser: { syntax: "typescript", tsx: true }, transform: { react: { runtime: "automatic", importSource: "preact" } } }, module: { type: "commonjs" } }],
    "^.+\\.(t|j)s$": ["@swc/jest", { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "commonjs" } }],
  },
  // agenda, @agendajs/*, jose, oidc-provider and oauth4webapi are ESM-only: let swc turn them into CommonJS for Jest's runtime
  transformIgnorePatterns: ["/node_modules/(?!(agenda|@agendajs|jose|oidc-provider|oauth4webapi)/)"],
  testTimeout: 60000,
  // embedded runs: one migrated PGlite dump for every test app (test/global-setup.ts)
  globalSetup: "<rootDir>/test/global-setup.ts",
};
