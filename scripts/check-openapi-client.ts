// npm run openapi:lint's last step: generates the TypeScript client types of docs/openapi.json with openapi-typescript,
// as an integrator would, and fails when a documented field comes out as `unknown` (a schema the document left
// untyped). Free-form maps by contract (metadata, error details, a JSON Schema) are index signatures, which pass.
// Usage: tsx scripts/check-openapi-client.ts [document.json] [--out file.d.ts]
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";

/** The generated client types of a document. */
export async function clientTypes(doc: object): Promise<string> {
  return astToString(await openapiTS(structuredClone(doc) as Parameters<typeof openapiTS>[0]));
}

/** Named fields of the generated types whose type involves `unknown`: "line: text", one per field. */
export function untypedFields(dts: string): string[] {
  const lines = dts.split("\n");
  const out: string[] = [];
  lines.forEach((line, i) => {
    const m = /^\s*("[^"]+"|'[^']+'|[A-Za-z_$][\w$]*)\??: (.*);$/.exec(line);
    if (m && /\bunknown\b/.test(m[2].replace(/"[^"]*"/g, ""))) out.push(`${i + 1}: ${line.trim()}`);
  });
  return out;
}

async function main() {
  const args = process.argv.slice(2);
  const outAt = args.indexOf("--out");
  const file = path.resolve(args.find((a, i) => !a.startsWith("--") && (outAt < 0 || i !== outAt + 1)) ?? path.join(__dirname, "../docs/openapi.json"));
  const dts = await clientTypes(JSON.parse(readFileSync(file, "utf8")));
  if (outAt >= 0) writeFileSync(args[outAt + 1], dts);
  const bad = untypedFields(dts);
  if (bad.length) {
    console.error(`openapi-typescript gives ${bad.length} documented field(s) the type unknown (${path.relative(process.cwd(), file)}):\n${bad.join("\n")}`);
    process.exit(1);
  }
  console.log(`openapi-typescript: no documented field of ${path.relative(process.cwd(), file)} is unknown`);
}

if (require.main === module) void main();
