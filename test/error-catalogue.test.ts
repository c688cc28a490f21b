// One error catalogue (src/shared/error-catalogue.ts): a code has one HTTP status everywhere. This reads every
// source file of src/ with the TypeScript parser and fails when a `new DomainError(code, status, …)`, an
// `errors.notFound(what, code)`, or a hand-written `{ code, status }` error body uses a code the catalogue does not
// know or states another status than the catalogue's. Sites whose code or status is not a literal are listed below
// with what they can produce, so a new one is looked at rather than slipping by.
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

type Site = { where: string; code: string | null; status: number | null; text: string };

const literalString = (n: ts.Node | undefined) => (n && ts.isStringLiteralLike(n) ? n.text : null);
const literalNumber = (n: ts.Node | undefined) => (n && ts.isNumericLiteral(n) ? Number(n.text) : null);

/** Every place src/ names an error code with a status. */
function scan(): Site[] {
  const sites: Site[] = [];
  for (const file of sourceFiles(join(ROOT, "src"))) {
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const where = (n: ts.Node) => `${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    const visit = (n: ts.Node) => {
      if (ts.isNewExpression(n) && n.expression.getText(sf) === "DomainError") {
        const [code, status] = n.arguments ?? [];
        sites.push({ where: where(n), code: literalString(code), status: literalNumber(status), text: `${code?.getText(sf)}, ${status?.getText(sf)}` });
      }
      // errors.notFound(what, code): a 404 under the code given
      if (ts.isCallExpression(n) && n.expression.getText(sf) === "errors.notFound" && n.arguments.length > 1) {
        sites.push({ where: where(n), code: literalString(n.arguments[1]), status: 404, text: n.arguments[1].getText(sf) });
      }
      // hand-written error bodies and GraphQL extensions: { code: "…", status: N }
      if (ts.isObjectLiteralExpression(n)) {
        const prop = (name: string) =>
          n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === name)?.initializer;
        const code = literalString(prop("code"));
        const status = literalNumber(prop("status"));
        if (code !== null && status !== null) sites.push({ where: where(n), code, status, text: n.getText(sf) });
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return sites;
}

// Sites whose code or status is an expression, with the catalogued codes each can produce.
const DYNAMIC: Record<string, string[]> = {
  // errors.notFound's own default ("not_found") or the code its callers pass (checked above as 404 codes)
  "code, 404": ["not_found"],
  // the production-credential gate: one of the three billing states
  "state, 402": ["workspace_not_live", "workspace_not_entitled_for_live", "trial_expired"],
  // the outbound URL check: the code each caller names
  "rules.code, 422": ["invalid_webhook_url", "invalid_script_url"],
  // DomainError.of: the status is the catalogue's by construction
  "code, ERROR_CATALOGUE[code].status": [],
};

describe("error catalogue", () => {
  const sites = scan();

  test("the scan finds the DomainErrors of src/ (it is not vacuous)", () => {
    expect(sites.length).toBeGreaterThan(200);
    expect(sites.some((s) => s.code === "invalid_order_state")).toBe(true);
  });

  test("every literal code in src/ is catalogued, with the catalogue's status", () => {
    const wrong = sites
      .filter((s) => s.code !== null && s.status !== null)
      .filter((s) => statusOf(s.code!) !== s.status)
      .map((s) => `${s.where}: ${s.code} ${s.status} (catalogue: ${statusOf(s.code!) ?? "missing"})`);
    expect(wrong).toEqual([]);
  });

  test("a site whose code or status is an expression is a known one, producing catalogued codes of that status", () => {
    const dynamic = sites.filter((s) => s.code === null || s.status === null);
    expect(dynamic.filter((s) => !(s.text in DYNAMIC)).map((s) => `${s.where}: new DomainError(${s.text}, …)`)).toEqual([]);
    for (const s of dynamic) {
      for (const code of DYNAMIC[s.text]) {
        expect({ code, catalogued: statusOf(code) !== undefined }).toEqual({ code, catalogued: true });
        if (s.status !== null) expect({ code, status: statusOf(code) }).toEqual({ code, status: s.status });
      }
    }
    // the outbound-URL codes are the ones its callers pass
    const callers = readFileSync(join(ROOT, "src/application-scripts/script-source.ts"), "utf8") + readFileSync(join(ROOT, "src/webhooks/url-policy.ts"), "utf8");
    for (const code of DYNAMIC["rules.code, 422"]) expect(callers).toContain(`code: "${code}"`);
  });

  test("each code has one status and a meaning; the statuses are client and server errors", () => {
    for (const { code, status, meaning } of errorCatalogue()) {
      expect({ code, ok: /^[a-z][a-z_]*$/.test(code) && status >= 400 && status < 600 && meaning.length > 10 }).toEqual({ code, ok: true });
    }
    // the codes the issue named, at the statuses the spec gives them
    expect([ERROR_CATALOGUE.invalid_order_state.status, ERROR_CATALOGUE.validation_error.status, ERROR_CATALOGUE.environment_not_found.status]).toEqual([422, 422, 404]);
  });

  test("the constructor takes the catalogue's status and refuses another one or an uncatalogued code", () => {
    expect(new DomainError("order_on_hold", 409, "held").status).toBe(409);
    expect(DomainError.of("validation_error", "bad").status).toBe(422);
    expect(errors.notFound("Cart", "cart_not_found").status).toBe(404);
    expect(() => new DomainError("invalid_order_state", 409, "x")).toThrow(/status 422 in the error catalogue, not 409/);
    expect(() => new DomainError("no_such_code", 400, "x")).toThrow(/not in the error catalogue/);
    expect(() => errors.notFound("Order", "order_on_hold")).toThrow(/status 409/);
  });
});
