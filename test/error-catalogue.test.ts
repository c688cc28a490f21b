// One error catalogue (src/shared/error-catalogue.ts): a code has one HTTP status everywhere, and the catalogue is
// the only place that states it. `new DomainError(code, message, details)` takes a catalogued code (tsc checks it) and
// no status. This reads every source file of src/ with the TypeScript parser and fails when a DomainError is built
// with a status argument, or a hand-written error body or GraphQL extension `{ code, status }` states its status as a
// number instead of reading the catalogue (statusOf(code)).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { DomainError, ERROR_CATALOGUE, errorCatalogue, errors, statusOf } from "../src/shared/errors";

const ROOT = join(__dirname, "..");

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== "generated") sourceFiles(p, out);
    } else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

type Site = { where: string; text: string };

/** Every place src/ builds an error with a status it states itself. */
function scan(): { domainErrors: number; stated: Site[] } {
  const stated: Site[] = [];
  let domainErrors = 0;
  for (const file of sourceFiles(join(ROOT, "src"))) {
    if (file.endsWith(join("shared", "error-catalogue.ts"))) continue;
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const where = (n: ts.Node) => `${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    const visit = (n: ts.Node) => {
      // new DomainError(code, message, details): no argument is a number
      if (ts.isNewExpression(n) && n.expression.getText(sf) === "DomainError") {
        domainErrors++;
        if ((n.arguments ?? []).some((a) => ts.isNumericLiteral(a))) stated.push({ where: where(n), text: n.getText(sf) });
      }
      // hand-written error bodies and GraphQL extensions: { code: "…", status: statusOf("…") }, never a number
      if (ts.isObjectLiteralExpression(n)) {
        const prop = (name: string) =>
          n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === name)?.initializer;
        const status = prop("status");
        if (prop("code") && status && ts.isNumericLiteral(status)) stated.push({ where: where(n), text: n.getText(sf) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { domainErrors, stated };
}

describe("error catalogue", () => {
  const { domainErrors, stated } = scan();

  test("the scan finds the DomainErrors of src/ (it is not vacuous)", () => {
    expect(domainErrors).toBeGreaterThan(200);
  });

  test("no DomainError or error body in src/ states a status: the catalogue is the only place statuses are written", () => {
    expect(stated.map((s) => `${s.where}: ${s.text}`)).toEqual([]);
  });

  test("the scan would see a stated status", () => {
    const sf = ts.createSourceFile("x.ts", `throw new DomainError("conflict", 409, "x"); const b = { code: "conflict", status: 409 };`, ts.ScriptTarget.Latest, true);
    let found = 0;
    const visit = (n: ts.Node) => {
      if (ts.isNewExpression(n) && (n.arguments ?? []).some((a) => ts.isNumericLiteral(a))) found++;
      if (ts.isObjectLiteralExpression(n) && n.properties.some((p) => ts.isPropertyAssignment(p) && p.name.getText(sf) === "status" && ts.isNumericLiteral(p.initializer))) found++;
      ts.forEachChild(n, visit);
    };
    visit(sf);
    expect(found).toBe(2);
  });

  test("each code has one status and a meaning; the statuses are client and server errors", () => {
    for (const { code, status, meaning } of errorCatalogue()) {
      expect({ code, ok: /^[a-z][a-z_]*$/.test(code) && status >= 400 && status < 600 && meaning.length > 10 }).toEqual({ code, ok: true });
    }
    // the codes the issue named, at the statuses the spec gives them
    expect([ERROR_CATALOGUE.invalid_order_state.status, ERROR_CATALOGUE.validation_error.status, ERROR_CATALOGUE.environment_not_found.status]).toEqual([422, 422, 404]);
  });

  test("the constructor takes the catalogue's status", () => {
    expect(new DomainError("order_on_hold", "held").status).toBe(409);
    expect(new DomainError("invalid_order_state", "x").status).toBe(422);
    expect(new DomainError("validation_error", "bad").status).toBe(422);
    expect(errors.notFound("Cart", "cart_not_found").status).toBe(404);
    expect(statusOf("rate_limited")).toBe(429);
  });
});
