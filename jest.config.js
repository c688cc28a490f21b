// CI runs the whole suite twice, on the embedded database and then on PostgreSQL (.ci/run). Its embedded pass
// (Q2C_CI_PASS=embedded) leaves out the files that would run there exactly as they run in the PostgreSQL pass, so
// each still runs once per CI run: files whose every test app is on PostgreSQL whatever the pass (concurrency,
// statement counts, killed processes), and the Chromium files whose every test drives a browser or checks what does
// not touch the database (headers, a 404 page, a CORS refusal): the pages' database paths are covered in both passes
// by their HTTP tests. Files that mix browser tests with database flows (invite-page, wallet-billing-page) stay in
// both passes. A plain `npm test` runs everything.
const POSTGRES_PASS_ONLY = [
  // every app on PostgreSQL (startTestApp({ db: "pg" }) or its databaseUrl)
  "/test/idempotency\\.e2e\\.test\\.ts$",
  "/test/discounts-concurrency\\.e2e\\.test\\.ts$",
  "/test/statement-budgets\\.e2e\\.test\\.ts$",
  "/test/import-kill\\.e2e\\.test\\.ts$",
  "/test/principal-cache\\.e2e\\.test\\.ts$",
  "/test/quotes-concurrency\\.e2e\\.test\\.ts$",
  "/test/order-ops-concurrency\\.e2e\\.test\\.ts$",
  "/test/subscription-renewal-concurrency\\.e2e\\.test\\.ts$",
  // Chromium (test/helpers/browser.ts)
  "/test/(application-scripts|oauth|quote|extension-bridge)-browser\\.e2e\\.test\\.ts$",
  "/test/checkout-page\\.e2e\\.test\\.ts$",
];

/** @type {import('jest').Config} */
module.exports = {
  testPathIgnorePatterns: ["/node_modules/", ...(process.env.Q2C_CI_PASS === "embedded" ? POSTGRES_PASS_ONLY : [])],
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
