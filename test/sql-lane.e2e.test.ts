// The raw-statement lane (src/db/lane.ts): on PostgreSQL, `$queryRaw`/`$executeRaw` go straight to the driver
// adapter, outside transactions and inside withTx's, instead of through Prisma's client. These tests hold the lane's
// answers, arguments and errors equal to Prisma's own on the same database, and show that inside withTx its
// statements run in Prisma's transaction (on its connection), never on a connection that transaction released.
import fs from "node:fs";
import { openDb, type Db } from "../src/db/client";
import { TransactionClosedError } from "../src/db/lane";
import { Prisma, type PrismaClient } from "../src/generated/prisma/client";
import { isUniqueViolation, makeCtx, pgCode, withTx } from "../src/shared/context";
import { notStarted, pgTest, startPgApp, type TestApp } from "./helpers/app";
import { statementsOf } from "./helpers/statements";

let app: TestApp | null;
/** the same database through Prisma's client alone (the lane off) */
let plain: Db;
let laned: PrismaClient;

beforeAll(async () => {
  app = await startPgApp({ worker: false });
  if (!app) return;
  plain = await openDb({ url: app.databaseUrl, migrate: false, poolMax: 4, rawLane: false });
  laned = app.db.prisma;
});
afterAll(async () => {
  await plain?.close();
  await app?.close();
});

/** Every column type the schema uses, and their arrays, with NULLs among them; fixed values so both runs agree. */
const EVERY_TYPE = Prisma.sql`
  SELECT 7::int4 AS i4, 9007199254740993::int8 AS i8, 12.50::numeric AS num, 1.25::float8 AS f8, 0.5::float4 AS f4,
         true AS yes, 'text'::text AS txt, 'v'::varchar(3) AS vc, 'c'::char(2) AS ch,
         '2026-11-27 10:11:12.345'::timestamp(3) AS ts, '2026-11-27 10:11:12.345+02'::timestamptz AS tstz,
         '2026-11-27'::date AS d, '12:34:56.789'::time AS tm,
         '{"a": [1, "x", null], "b": {"c": true}}'::jsonb AS jb, '{"z": 1}'::json AS js, '\\x01ff'::bytea AS bin,
         '00000000-0000-4000-8000-000000000001'::uuid AS id,
         ARRAY[1, NULL, 3]::int4[] AS i4s, ARRAY[1, NULL, 9007199254740993]::int8[] AS i8s, ARRAY['a', NULL]::text[] AS txts,
         ARRAY['{"k": 1}', NULL]::jsonb[] AS jbs, ARRAY[1.5, NULL]::numeric[] AS nums, ARRAY[true, NULL] AS yeses,
         ARRAY['2026-11-27 10:11:12'::timestamp, NULL] AS tss, ARRAY['\\x00'::bytea] AS bins,
         ARRAY['00000000-0000-4000-8000-000000000002'::uuid] AS ids,
         NULL::int4 AS none_i4, NULL::int8 AS none_i8, NULL::jsonb AS none_jb, NULL::timestamp AS none_ts,
         count(*) AS n, sum(x)::bigint AS total
  FROM (VALUES (1), (2)) v(x)`;

pgTest("results: every column type decodes as Prisma decodes it (BigInt, Decimal, Date, parsed JSON, Uint8Array)", async () => {
  if (!app) throw notStarted();
  expect(app.db.lane).toBeDefined();
  const [viaPrisma] = await plain.prisma.$queryRaw<Record<string, unknown>[]>(EVERY_TYPE);
  const [viaLane] = await laned.$queryRaw<Record<string, unknown>[]>(EVERY_TYPE);
  expect(viaLane).toEqual(viaPrisma);
  expect(Object.keys(viaLane)).toEqual(Object.keys(viaPrisma));
  // and what that is, so that equal-but-wrong on both sides would still fail
  expect(viaLane.i8).toBe(9007199254740993n);
  expect(viaLane.num).toBeInstanceOf(Prisma.Decimal);
  expect(String(viaLane.num)).toBe("12.5");
  expect((viaLane.ts as Date).toISOString()).toBe("2026-11-27T10:11:12.345Z");
  expect((viaLane.tstz as Date).toISOString()).toBe("2026-11-27T08:11:12.345Z");
  expect(viaLane.jb).toEqual({ a: [1, "x", null], b: { c: true } });
  expect(viaLane.bin).toEqual(new Uint8Array([1, 255]));
  expect(viaLane.i8s).toEqual([1n, null, 9007199254740993n]);
  expect(viaLane.jbs).toEqual([{ k: 1 }, null]);
  expect([viaLane.n, viaLane.total, viaLane.none_i8]).toEqual([2n, 3n, null]);
});

pgTest("arguments: every JS value is sent as Prisma sends it, in all four raw methods", async () => {
  if (!app) throw notStarted();
  const at = new Date("2026-11-27T10:11:12.345Z");
  const values = [at, 9007199254740993n, new Prisma.Decimal("1.10"), Buffer.from([1, 2]), new Uint8Array([3]), { a: 1, b: [true, null] }, ["00000000-0000-4000-8000-000000000003"], [1, 2.5], true, null, 42, 1.5, "it's"];
  const sql = Prisma.sql`SELECT ${values[0]}::timestamp(3) AS ts, ${values[0]}::timestamptz AS tstz, ${values[1]}::int8 AS big, ${values[2]}::numeric AS dec,
    ${values[3]}::bytea AS buf, ${values[4]}::bytea AS u8, ${values[5]}::jsonb AS obj, ${values[6]}::uuid[] AS ids, ${values[7]}::float8[] AS nums,
    ${values[8]}::boolean AS yes, ${values[9]}::text AS nothing, ${values[10]}::int4 AS i, ${values[11]}::float8 AS f, ${values[12]}::text AS s`;
  const [a] = await plain.prisma.$queryRaw<Record<string, unknown>[]>(sql);
  const [b] = await laned.$queryRaw<Record<string, unknown>[]>(sql);
  expect(b).toEqual(a);
  expect(b.ts).toEqual(at);
  expect(b.obj).toEqual({ a: 1, b: [true, null] });
  // the tagged-template form, the Unsafe forms, and $executeRaw's row count
  const id = "00000000-0000-4000-8000-000000000004";
  expect(await laned.$queryRaw`SELECT ${id}::uuid AS id, ${[1n, 2n]}::int8[] AS xs`).toEqual(await plain.prisma.$queryRaw`SELECT ${id}::uuid AS id, ${[1n, 2n]}::int8[] AS xs`);
  expect(await laned.$queryRawUnsafe("SELECT $1::int8 + 1 AS n, $2::jsonb AS j", 41n, { k: "v" })).toEqual([{ n: 42n, j: { k: "v" } }]);
  const slug = `lane-exec-${Date.now()}`;
  expect(await laned.$executeRaw`INSERT INTO "Workspace" (id, name, slug, "createdAt") VALUES (gen_random_uuid(), 'Lane', ${slug}, ${at})`).toBe(1);
  expect(await laned.$executeRawUnsafe(`UPDATE "Workspace" SET name = $1 WHERE slug LIKE $2`, "Lane 2", `${slug}%`)).toBe(1);
  expect(await laned.workspace.findUnique({ where: { slug }, select: { name: true, createdAt: true } })).toEqual({ name: "Lane 2", createdAt: at });
  // an invalid Date is refused before anything is sent, as Prisma refuses it
  await expect(laned.$queryRaw`SELECT ${new Date("nope")}::timestamp`).rejects.toThrow("Provided Date object is invalid");
});

pgTest("errors: a refused statement throws Prisma's raw-query error with the driver's SQLSTATE", async () => {
  if (!app) throw notStarted();
  const slug = `lane-dup-${Date.now()}`;
  const insert = Prisma.sql`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Dup', ${slug})`;
  await laned.$executeRaw(insert);
  const fromPrisma = await plain.prisma.$executeRaw(insert).catch((e) => e);
  const fromLane = await laned.$executeRaw(insert).catch((e) => e);
  expect(fromLane).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
  expect([fromLane.code, fromLane.message, pgCode(fromLane), isUniqueViolation(fromLane)]).toEqual([fromPrisma.code, fromPrisma.message, "23505", true]);
  expect(fromLane.code).toBe("P2010");
  const syntax = await laned.$queryRaw`SELECT ${"x"}::int4`.catch((e) => e);
  expect(pgCode(syntax)).toBe("22P02");
});

pgTest("in withTx the lane's statements run in Prisma's transaction: seen by its model queries, hidden from others until COMMIT, undone by ROLLBACK", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  const slug = `lane-tx-${Date.now()}`;
  let seenOutside: unknown = "unset";
  await withTx(ctx, async (tx) => {
    await tx.db.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'In tx', ${slug})`;
    expect(await tx.db.workspace.findUnique({ where: { slug }, select: { name: true } })).toEqual({ name: "In tx" });
    seenOutside = await app!.deps.prisma.workspace.findUnique({ where: { slug } });
    // Prisma's write in the same transaction is visible to the lane's next statement
    await tx.db.workspace.update({ where: { slug }, data: { name: "Renamed" } });
    expect(await tx.db.$queryRaw`SELECT name FROM "Workspace" WHERE slug = ${slug}`).toEqual([{ name: "Renamed" }]);
  });
  expect(seenOutside).toBeNull();
  expect(await laned.workspace.findUnique({ where: { slug }, select: { name: true } })).toEqual({ name: "Renamed" });

  const gone = `lane-rollback-${Date.now()}`;
  await expect(
    withTx(ctx, async (tx) => {
      await tx.db.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Undone', ${gone})`;
      throw new Error("abort");
    }),
  ).rejects.toThrow("abort");
  expect(await laned.workspace.findUnique({ where: { slug: gone } })).toBeNull();
});

pgTest("concurrent transactions each send their statements on their own connection (30 at once on a pool of 10)", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  const stamp = Date.now();
  const pids = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      withTx(ctx, async (tx) => {
        const slug = `lane-many-${stamp}-${i}`;
        const [{ pid }] = await tx.db.$queryRaw<{ pid: number }[]>`
          WITH w AS (INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Many', ${slug}) RETURNING id)
          SELECT pg_backend_pid() AS pid FROM w`;
        await new Promise((r) => setTimeout(r, 5 + (i % 7)));
        // uncommitted: only this transaction's connection can see it
        expect(await tx.db.workspace.findUnique({ where: { slug }, select: { slug: true } })).toEqual({ slug });
        const [again] = await tx.db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
        expect(again.pid).toBe(pid);
        return pid;
      }),
    ),
  );
  expect(pids).toHaveLength(30);
  expect(await laned.workspace.count({ where: { slug: { startsWith: `lane-many-${stamp}-` } } })).toBe(30);
});

pgTest("a statement sent through a transaction's handle after it closed is refused, not run on a released connection", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  let leaked: typeof ctx.db | null = null;
  await withTx(ctx, async (tx) => {
    leaked = tx.db;
    await tx.db.$queryRaw`SELECT 1`;
  });
  const slug = `lane-leak-${Date.now()}`;
  const err = await leaked!.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Leak', ${slug})`.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TransactionClosedError);
  expect(await laned.workspace.findUnique({ where: { slug } })).toBeNull();
});

pgTest("a Prisma transaction's handle attaches on its first raw statement: once, with no statement of its own, and no AsyncLocalStorage", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  const stats = app.deps.lane!.stats;
  const before = { ...stats };
  const slug = `lane-attach-${Date.now()}`;
  const { result, statements } = await statementsOf(() =>
    withTx(ctx, async (tx) => {
      await tx.db.workspace.create({ data: { name: "Attach", slug } });
      // two raw statements sent together: one attachment; both on the transaction's connection (they see its row)
      return Promise.all([
        tx.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Workspace" WHERE slug = ${slug}`,
        tx.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "Workspace" WHERE slug = ${slug}`,
      ]);
    }),
  );
  expect(result).toEqual([[{ n: 1 }], [{ n: 1 }]]);
  expect({ attached: stats.attached - before.attached, unattached: stats.unattached - before.unattached }).toEqual({ attached: 1, unattached: 0 });
  // the marker never reaches PostgreSQL: BEGIN, Prisma's insert, the two reads, COMMIT
  expect(statements.filter((q) => q.includes("q2c lane slot"))).toEqual([]);
  expect(statements.map((q) => q.trim().split(/\s+/)[0].toUpperCase())).toEqual(["BEGIN", "INSERT", "SELECT", "SELECT", "COMMIT"]);
  // an AsyncLocalStorage turns on promise hooks for the whole process (steps eleven and twelve used one): none in src/
  for (const f of ["../src/db/lane.ts", "../src/shared/context.ts", "../src/db/client.ts"]) {
    expect(fs.readFileSync(require.resolve(f), "utf8")).not.toMatch(/from "(node:)?async_hooks"|new AsyncLocalStorage/);
  }
});

pgTest("a handle leaked from a Prisma transaction that sent no raw statement is refused by Prisma (P2028)", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  let leaked: typeof ctx.db | null = null;
  await withTx(ctx, async (tx) => {
    leaked = tx.db;
    await tx.db.workspace.findFirst({ select: { id: true } });
  });
  const slug = `lane-leak-model-${Date.now()}`;
  const err = await leaked!.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Leak', ${slug})`.catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "P2028" });
  expect(await laned.workspace.findUnique({ where: { slug } })).toBeNull();
});

pgTest("the lane's repeated statements are named statements, as Prisma's are", async () => {
  if (!app) throw notStarted();
  const ctx = makeCtx(app.deps);
  const names = await withTx(ctx, async (tx) => {
    for (let i = 0; i < 3; i++) await tx.db.$queryRaw`SELECT id FROM "Workspace" WHERE slug = ${"lane-named-probe"}`;
    return tx.db.$queryRaw<{ name: string; statement: string }[]>`SELECT name, statement FROM pg_prepared_statements`;
  });
  expect(names.find((r) => r.statement.includes(`SELECT id FROM "Workspace" WHERE slug`))?.name).toMatch(/^q2c_\d+$/);
});

describe("withTx's sqlOnly: a command of raw statements runs in a lane transaction, without Prisma's", () => {
  pgTest("its statements share one connection and commit together; a throw rolls them all back", async () => {
    if (!app) throw notStarted();
    const ctx = makeCtx(app.deps);
    const stats = app.db.lane!.stats;
    const [before, fellBefore] = [stats.transactions, stats.fellBack];
    const slug = `lane-sqlonly-${Date.now()}`;
    const pids = await withTx(ctx, async (tx) => {
      const [a] = await tx.db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      await tx.db.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Lane only', ${slug})`;
      expect(await app!.deps.prisma.workspace.findUnique({ where: { slug } })).toBeNull(); // not committed yet
      const [b] = await tx.db.$queryRaw<{ pid: number; n: bigint }[]>`SELECT pg_backend_pid() AS pid, count(*) AS n FROM "Workspace" WHERE slug = ${slug}`;
      expect(b.n).toBe(1n);
      return [a.pid, b.pid];
    }, { sqlOnly: true });
    expect(pids[0]).toBe(pids[1]);
    expect([stats.transactions - before, stats.fellBack - fellBefore]).toEqual([1, 0]);
    expect(await laned.workspace.findUnique({ where: { slug }, select: { name: true } })).toEqual({ name: "Lane only" });

    const gone = `lane-sqlonly-rollback-${Date.now()}`;
    await expect(
      withTx(ctx, async (tx) => {
        await tx.db.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Undone', ${gone})`;
        throw new Error("abort");
      }, { sqlOnly: true }),
    ).rejects.toThrow("abort");
    expect(await laned.workspace.findUnique({ where: { slug: gone } })).toBeNull();
  });

  pgTest("a command that reaches for a model query runs again in Prisma's transaction, its first attempt undone, even when it swallowed the refusal", async () => {
    if (!app) throw notStarted();
    const ctx = makeCtx(app.deps);
    const stats = app.db.lane!.stats;
    const fellBefore = stats.fellBack;
    const slug = `lane-fallback-${Date.now()}`;
    const attempts: string[] = [];
    const name = await withTx(ctx, async (tx) => {
      // a unique slug: had the first attempt's insert survived, the second would fail
      await tx.db.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), 'Fallback', ${slug})`;
      let read: { name: string } | null = null;
      try {
        read = await tx.db.workspace.findUnique({ where: { slug }, select: { name: true } });
        attempts.push("prisma");
      } catch {
        attempts.push("lane, refused"); // swallowed: withTx still knows
      }
      return read?.name ?? "swallowed";
    }, { sqlOnly: true });
    expect(attempts).toEqual(["lane, refused", "prisma"]);
    expect(name).toBe("Fallback");
    expect(stats.fellBack - fellBefore).toBe(1);
    expect(await laned.workspace.count({ where: { slug } })).toBe(1);
  });

  pgTest("a serialization failure is retried as in Prisma's transactions", async () => {
    if (!app) throw notStarted();
    const ctx = makeCtx(app.deps);
    const slug = `lane-serial-${Date.now()}`;
    await laned.$executeRaw`INSERT INTO "Workspace" (id, name, slug) VALUES (gen_random_uuid(), '0', ${slug})`;
    let waiting = 2;
    let release!: () => void;
    const bothRead = new Promise<void>((r) => (release = r));
    const bump = () =>
      withTx(ctx, async (tx) => {
        const [row] = await tx.db.$queryRaw<{ name: string }[]>`SELECT name FROM "Workspace" WHERE slug = ${slug}`;
        if (--waiting === 0) release();
        await bothRead; // both have read the same value before either writes (on the first attempt)
        await tx.db.$executeRaw`UPDATE "Workspace" SET name = ${String(Number(row.name) + 1)} WHERE slug = ${slug}`;
      }, { sqlOnly: true, isolationLevel: "Serializable" });
    await Promise.all([bump(), bump()]);
    expect(await laned.workspace.findUnique({ where: { slug }, select: { name: true } })).toEqual({ name: "2" });
  });
});
