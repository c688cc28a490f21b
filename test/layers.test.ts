// Layers that point one way (docs/architecture.md, "Layers"). This reads every source file of src/ with the
// TypeScript parser, collects what it imports from src/ (static `import` and `export … from`, `import type`,
// `import x = require()`, `require()`, dynamic `import()` and inline `import("…")` types), and builds the graph
// between folders: a node is the first path segment under src/ (src/orders/x.ts is "orders"); the files directly in
// src/ (app.ts, main.ts, runtime.ts, hooks.ts, config.ts) are each their own node ("app.ts", …), since they are the composition
// root and its configuration, not one layer. The test fails, naming the cycle, when the folder graph has one, and
// fails when src/shared imports any src folder other than src/generated (the Prisma client and the row types
// generated from prisma/schema.prisma: data shapes, no domain rule), src/db (the database client) and
// src/config.ts / src/paths.ts (the process settings, the project root).
//
// A lower layer that must call a higher one declares a hook (src/shared/hook.ts) that the composition root registers
// (src/hooks.ts), so no import points up.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

const SRC = resolve(__dirname, "..", "src");

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (/\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

/** Every module specifier a file names, whichever form of import names it. */
function specifiers(fileName: string, text: string): string[] {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const out: string[] = [];
  const literal = (n: ts.Node | undefined) => {
    if (n && ts.isStringLiteralLike(n)) out.push(n.text);
  };
  const visit = (n: ts.Node) => {
    if (ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) literal(n.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) literal(n.moduleReference.expression);
    else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(n.expression) && n.expression.text === "require"))) literal(n.arguments[0]);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) literal(n.argument.literal);
    else if (ts.isModuleDeclaration(n) && ts.isStringLiteral(n.name)) literal(n.name); // declare module "../x" augmentations
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/** The folder node of a path under src/: its first segment, or the file's own name for files directly in src/. */
function nodeOf(absPath: string): string | null {
  const rel = relative(SRC, absPath);
  if (rel.startsWith("..") || rel === "") return null;
  const parts = rel.split(sep);
  return parts.length === 1 ? `${parts[0].replace(/\.(tsx?|js)$/, "")}.ts` : parts[0];
}

type Edge = { from: string; to: string; where: string; spec: string };

function folderEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = nodeOf(file)!;
    for (const spec of specifiers(file, readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue; // packages (and node: builtins) are not src/
      const to = nodeOf(resolve(dirname(file), spec));
      if (to && to !== from) edges.push({ from, to, where: relative(resolve(SRC, ".."), file), spec });
    }
  }
  return edges;
}

/** One cycle of the graph as a list of nodes (first = last), or null when it has none. */
function findCycle(adjacency: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const dfs = (node: string): string[] | null => {
    state.set(node, "open");
    stack.push(node);
    for (const next of [...(adjacency.get(node) ?? [])].sort()) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = dfs(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, "done");
    return null;
  };
  for (const node of [...adjacency.keys()].sort()) {
    if (!state.has(node)) {
      const found = dfs(node);
      if (found) return found;
    }
  }
  return null;
}

function adjacencyOf(edges: Edge[]) {
  const adjacency = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!adjacency.has(e.from)) adjacency.set(e.from, new Set());
    adjacency.get(e.from)!.add(e.to);
  }
  return adjacency;
}

/** A cycle written out with one file per hop that makes it, so the failure says where to look. */
function describeCycle(cycle: string[], edges: Edge[]) {
  const hops = cycle.slice(1).map((to, i) => {
    const from = cycle[i];
    const files = [...new Set(edges.filter((e) => e.from === from && e.to === to).map((e) => e.where))];
    return `  ${from} -> ${to}   (${files.slice(0, 3).join(", ")}${files.length > 3 ? `, +${files.length - 3} more` : ""})`;
  });
  return `import cycle between folders of src/: ${cycle.join(" -> ")}\n${hops.join("\n")}`;
}

/** What src/shared may import besides itself. */
const SHARED_MAY_IMPORT = new Set(["generated", "db", "config.ts", "paths.ts"]);

describe("layers", () => {
  const edges = folderEdges();

  test("the scan sees every import form (it is not vacuous)", () => {
    const text = [
      `import { a } from "../x/a";`,
      `import type { B } from "../y/b";`,
      `export { c } from "../z/c";`,
      `export * from "../w/d";`,
      `const m = await import("../v/e");`,
      `type T = import("../u/f").T;`,
      `import g = require("../t/g");`,
    ].join("\n");
    expect(specifiers("src/q/q.ts", text)).toEqual(["../x/a", "../y/b", "../z/c", "../w/d", "../v/e", "../u/f", "../t/g"]);
    expect(edges.length).toBeGreaterThan(100);
    expect(edges.some((e) => e.from === "app.ts")).toBe(true);
  });

  test("the cycle finder finds a cycle and accepts a graph without one", () => {
    const g = (pairs: [string, string][]) => adjacencyOf(pairs.map(([from, to]) => ({ from, to, where: "", spec: "" })));
    expect(findCycle(g([["a", "b"], ["b", "c"], ["c", "a"]]))).toEqual(["a", "b", "c", "a"]);
    expect(findCycle(g([["a", "b"], ["b", "c"], ["a", "c"]]))).toBeNull();
  });

  test("no import cycle between the folders of src/", () => {
    const cycle = findCycle(adjacencyOf(edges));
    if (cycle) throw new Error(describeCycle(cycle, edges));
  });

  test("src/shared imports no domain (nothing of src/ but generated/, db/, config.ts and paths.ts)", () => {
    const wrong = edges.filter((e) => e.from === "shared" && !SHARED_MAY_IMPORT.has(e.to)).map((e) => `${e.where} imports ${e.spec}`);
    expect(wrong).toEqual([]);
  });
});
