// Hand-written SQL through Kysely (src/db/sql.ts) on the database of this pass (PostgreSQL or PGlite): the same values
// on every path, withSqlTx's transactions, and Kysely inside Prisma's transaction (withTx).
import { sql } from "kysely";
import { makeCtx, withSqlTx, withTx } from "../src/shared/context";
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
const slug = (s: string) => `sql-test-${s}-${Math.random().toString(36).slice(2, 8)}`;

async function workspace(name: string) {
  return app!.db.prisma.workspace.create({ data: { name, slug: slug(name) } });
}

test("the same values on every path: counts as numbers, timestamps as the Dates Prisma reads, json parsed", async () => {
  const c = ctx();
  const ws = await workspace("values");
  const read = (s: typeof c.sql) =>
    s
      .selectFrom("Workspace")
      .select(["id", "createdAt", sql<number>`(SELECT count(*) FROM "Workspace" w WHERE w.id = "Workspace".id)`.as("n"), sql<unknown>`'{"a":[1,2]}'::jsonb`.as("j"), sql<number>`12345678901::numeric`.as("big")])
      .where("id", "=", ws.id)
      .executeTakeFirstOrThrow();
  const root = await read(c.sql);
  const inPrisma = await withTx(c, (tx) => read(tx.sql));
  const inSqlTx = await withSqlTx(c, (tx) => read(tx.sql));
  for (const row of [root, inPrisma, inSqlTx]) {
    expect(row).toEqual({ id: ws.id, createdAt: ws.createdAt, n: 1, j: { a: [1, 2] }, big: 12345678901 });
    expect(row.createdAt).toBeInstanceOf(Date);
  }
});

test("a Date parameter is written in UTC whatever the process's time zone, and reads back equal", async () => {
  const c = ctx();
  const ws = await workspace("dates");
  const at = new Date("2026-03-04T05:06:07.089Z");
  await c.sql.updateTable("Workspace").set({ createdAt: at }).where("id", "=", ws.id).execute();
  expect((await app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } })).createdAt).toEqual(at);
  const back = await c.sql.selectFrom("Workspace").select("id").where("createdAt", "=", at).where("id", "=", ws.id).execute();
  expect(back).toEqual([{ id: ws.id }]);
});

test("withSqlTx commits its statements together, or none of them when the command throws", async () => {
  const c = ctx();
  const ws = await workspace("sqltx");
  await withSqlTx(c, async (tx) => {
    await tx.sql.updateTable("Workspace").set({ name: "renamed" }).where("id", "=", ws.id).execute();
    // its own statements see its writes
    expect(await tx.sql.selectFrom("Workspace").select("name").where("id", "=", ws.id).executeTakeFirst()).toEqual({ name: "renamed" });
  });
  expect((await app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } })).name).toBe("renamed");
  await expect(
    withSqlTx(c, async (tx) => {
      await tx.sql.updateTable("Workspace").set({ name: "lost" }).where("id", "=", ws.id).execute();
      throw new Error("refused");
    }),
  ).rejects.toThrow("refused");
  expect((await app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } })).name).toBe("renamed");
});

test("inside withSqlTx a Prisma model query is refused by name instead of running outside the transaction", async () => {
  const c = ctx();
  await expect(withSqlTx(c, (tx) => tx.db.workspace.findFirst())).rejects.toThrow(/withSqlTx: Prisma's `workspace`/);
});

test("inside withTx, Kysely's statements run in Prisma's transaction: a rollback undoes both", async () => {
  const c = ctx();
  const ws = await workspace("mixed");
  await expect(
    withTx(c, async (tx) => {
      await tx.db.workspace.update({ where: { id: ws.id }, data: { name: "by prisma" } });
      const seen = await tx.sql.selectFrom("Workspace").select("name").where("id", "=", ws.id).executeTakeFirst();
      expect(seen).toEqual({ name: "by prisma" }); // the same transaction sees Prisma's uncommitted write
      await tx.sql.updateTable("Workspace").set({ slug: slug("by-kysely") }).where("id", "=", ws.id).execute();
      throw new Error("undo");
    }),
  ).rejects.toThrow("undo");
  const after = await app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } });
  expect({ name: after.name, slug: after.slug }).toEqual({ name: ws.name, slug: ws.slug });
});

test("an update without RETURNING reports its row count on every path", async () => {
  const c = ctx();
  const ws = await workspace("count");
  const update = (s: typeof c.sql) => s.updateTable("Workspace").set({ name: "counted" }).where("id", "=", ws.id).executeTakeFirstOrThrow();
  expect((await update(c.sql)).numUpdatedRows).toBe(1n);
  expect((await withTx(c, (tx) => update(tx.sql))).numUpdatedRows).toBe(1n);
  expect((await withSqlTx(c, (tx) => update(tx.sql))).numUpdatedRows).toBe(1n);
});

test("concurrent withSqlTx and Prisma statements do not see each other's uncommitted writes", async () => {
  const c = ctx();
  const ws = await workspace("isolation");
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const tx = withSqlTx(c, async (t) => {
    await t.sql.updateTable("Workspace").set({ name: "uncommitted" }).where("id", "=", ws.id).execute();
    entered();
    await held;
  });
  await inside;
  // PostgreSQL: another connection reads the committed row; PGlite (one session): the read waits for the commit
  const read = app!.db.prisma.workspace.findUniqueOrThrow({ where: { id: ws.id } }).then((w) => w.name);
  const early = await Promise.race([read, new Promise((r) => setTimeout(() => r("waiting"), 200))]);
  release();
  await tx;
  if (app!.kind === "pg") expect(early).toBe(ws.name);
  else expect([early, await read]).toEqual(["waiting", "uncommitted"]);
});

test("the root query builder refuses to run inside an open transaction (it would run outside it, and on PGlite wait for the command's own lock)", async () => {
  const c = ctx();
  const ws = await workspace("root-in-tx");
  const rootRead = () => c.deps.sql.selectFrom("Workspace").select("name").where("id", "=", ws.id).executeTakeFirst();
  const started = Date.now();
  for (const run of [withTx, withSqlTx]) {
    await expect(
      run(c, async (tx) => {
        await tx.sql.updateTable("Workspace").set({ name: "inside" }).where("id", "=", ws.id).execute();
        return rootRead();
      }),
    ).rejects.toThrow(/root query builder \(deps.sql\) inside an open transaction: use tx.sql/);
  }
  expect(Date.now() - started).toBeLessThan(2_000); // refused at once, not after the transaction's timeout
  // both commands rolled back; once a transaction has ended, work it started may use the root again
  let later: Promise<unknown> = Promise.resolve();
  await withTx(c, async (tx) => {
    later = new Promise((r) => setTimeout(r, 50)).then(rootRead);
    return tx.sql.selectFrom("Workspace").select("id").where("id", "=", ws.id).execute();
  });
  expect(await later).toEqual({ name: ws.name });
  expect(await rootRead()).toEqual({ name: ws.name });
});
