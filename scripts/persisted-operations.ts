// Builds the trusted documents' manifest: every operation of clients/**/*.graphql (with the fragments it uses),
// validated against the schema, keyed by the sha256 of its printed text -> clients/persisted-operations.json.
// `npx tsx scripts/persisted-operations.ts [dir…]` writes it; `--check` fails when the file is stale (as
// schema:print --check does). src/graphql/trusted-documents.ts serves it; docs/graphql.md "Trusted documents".
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { buildManifest } from "../src/graphql/trusted-documents";
import { schema } from "../src/server/graphql-schema";

const ROOT = path.resolve(__dirname, "..");
const file = path.join(ROOT, "clients/persisted-operations.json");

function graphqlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) graphqlFiles(p, out);
    else if (name.endsWith(".graphql")) out.push(p);
  }
  return out;
}

/** The manifest's text for the .graphql files under `dirs` (default: clients/). */
export function manifestText(dirs: string[] = [path.join(ROOT, "clients")]): string {
  const sources = dirs.flatMap((d) => graphqlFiles(d)).map((f) => ({ name: path.relative(ROOT, f), body: readFileSync(f, "utf8") }));
  return `${JSON.stringify(buildManifest(sources, schema), null, 2)}\n`;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const dirs = args.filter((a) => !a.startsWith("--")).map((d) => path.resolve(d));
  const text = manifestText(dirs.length ? dirs : undefined);
  if (args.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(file, "utf8");
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) {
      console.error("clients/persisted-operations.json is stale: run `npx tsx scripts/persisted-operations.ts` and commit the result.");
      process.exit(1);
    }
    console.log("clients/persisted-operations.json is up to date");
  } else {
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(process.cwd(), file)} (${Object.keys(JSON.parse(text)).length} operations)`);
  }
}
