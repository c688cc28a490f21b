/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  transform: {
    "^.+\\.(t|j)sx?$": ["@swc/jest", { jsc: { target: "es2022", parser: { syntax: "typescript" } }, module: { type: "commonjs" } }],
  },
  // agenda and @agendajs/* are ESM-only: let swc turn them into CommonJS for Jest's runtime
  transformIgnorePatterns: ["/node_modules/(?!(agenda|@agendajs)/)"],
  testTimeout: 60000,
};
