/** @type {import('jest').Config} */
module.exports = {
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
