// npm run openapi:print writes docs/openapi.json from the document the server serves; --check fails when stale.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openApiDocument } from "../src/openapi/document";

const file = path.resolve(__dirname, "../docs/openapi.json");
const text = `${JSON.stringify(openApiDocument(), null, 2)}\n`;
if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(file, "utf8");
  } catch {
    /* missing counts as stale */
  }
  if (current !== text) {
    console.error("docs/openapi.json is stale: run `npm run openapi:print` and commit the result.");
    process.exit(1);
  }
  console.log("docs/openapi.json is up to date");
} else {
  writeFileSync(file, text);
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
