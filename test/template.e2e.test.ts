// Statement templates (src/db/template.ts) on the database of this pass: compiled once, then every call's own values,
// whether they sit in a parameter of their own or inside the one jsonb parameter insertSelect writes rows from, and
// whatever bytes they hold (quotes, backslashes, the marker's own text, non-Latin letters, Dates).
import { sql } from "kysely";
import { randomUUID } from "node:crypto";
import { insertSelect } from "../src/db/insert-select";
import { runTemplate, slotsOf } from "../src/db/template";
import { makeCtx } from "../src/shared/context";
import { notStarted, startTestApp, type TestApp } from "./helpers/app";

let app: TestApp | null;
beforeAll(async () => {
  app = await startTestApp({ worker: false });
});
afterAll(() => app?.close());

const ctx = () => {
  if (!app) throw notStarted();
  return makeCtx(app.deps);
};

const NASTY = ['plain', 'a "quoted" name', "back\\slash \\u0001ws.name\\u0001 and \u0001ws.name\u0001", "ünïcødé ✓ 名前", "", "'; DROP TABLE x; --"];

test("one compiled text, each call's values: in their own parameters and inside the rows' JSON", async () => {
  const c = ctx();
  const key = `test.template.${randomUUID()}`;
  let builds = 0;
  const texts = new Set<string>();
  for (const [i, name] of NASTY.entries()) {
    const ws = { id: randomUUID(), name, slug: `tpl-${randomUUID()}`, trialEndsAt: new Date(Date.UTC(2030, 0, i + 1)) };
    const { rows } = await runTemplate(c.sql, key, { ws, label: `${name}|${i}`, at: new Date(Date.UTC(2031, 1, i + 1)) }, (p, shape) => {
      builds++;
      const q = insertSelect(c.sql, "Workspace", { data: slotsOf(shape.ws, "ws") }).returning(["id", "name", "slug", "trialEndsAt"]);
      texts.add(q.compile().sql);
      return c.sql
        .with("w", () => q)
        .selectFrom("w")
        .select(["w.id", "w.name", "w.slug", "w.trialEndsAt", sql<string>`${p.label}::text`.as("label"), sql<Date>`${p.at}::timestamp`.as("at")]);
    });
    expect(rows).toEqual([{ id: ws.id, name, slug: ws.slug, trialEndsAt: ws.trialEndsAt, label: `${name}|${i}`, at: new Date(Date.UTC(2031, 1, i + 1)) }]);
    const stored = await app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } });
    expect(stored).toMatchObject({ name, slug: ws.slug, trialEndsAt: ws.trialEndsAt });
  }
  expect(builds).toBe(1);
  expect(texts.size).toBe(1);
});

test("what changes the text goes in the key: two shapes, two keys, two texts", async () => {
  // A builder may read its values for their shape only (here how many columns): that shape is part of the key.
  const c = ctx();
  const run = (n: number) =>
    runTemplate(c.sql, `test.template.shape.${n}.${randomUUID()}`, { n }, (_p, shape) =>
      c.sql.selectNoFrom(Array.from({ length: shape.n }, (_, k) => sql<number>`${k}::int`.as(`c${k}`))),
    );
  expect((await run(1)).rows).toEqual([{ c0: 0 }]);
  expect((await run(2)).rows).toEqual([{ c0: 0, c1: 1 }]);
});
