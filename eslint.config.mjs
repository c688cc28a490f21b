import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules", "dist", "data", "src/generated", "test/generated", "coverage"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-require-imports": "off",
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Read settings through src/config.ts" }],
      // hand-written SQL lists its columns: a named statement returning `*` breaks when a migration adds a column (src/db/prepared.ts)
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name=/^(selectAll|returningAll)$/]", message: "List the columns (src/db/prepared.ts: no `*` in a named statement)" },
      ],
    },
  },
  { files: ["src/config.ts", "src/cli/**", "scripts/**", "test/**", "bench/**", "prisma.config.ts", "prisma/diff.config.ts", "codegen.ts", "jest.config.js"], rules: { "no-restricted-properties": "off" } },
  { files: ["**/*.js", "**/*.cjs"], languageOptions: { globals: { module: "writable", require: "readonly", __dirname: "readonly", process: "readonly", console: "readonly" } } },
  // the extension bridge modules run in browsers (ES modules, no Node globals)
  {
    files: ["pages/extension-bridge/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: { window: "readonly", document: "readonly", fetch: "readonly", URL: "readonly", Element: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", console: "readonly", module: "off", require: "off", __dirname: "off", process: "off" },
    },
  },
);
