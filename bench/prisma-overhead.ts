// What one statement costs this Node process through Prisma, next to the same statement on pg directly (issue 10:
// where the gap to the bare reference comes from). A driver, not a test: it prints figures.
//   npx tsx bench/prisma-overhead.ts      (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
// Knobs: BENCH_STATEMENTS (default 5000 per variant), BENCH_ROUNDS (2; the first warms the plan cache and the JIT, and
// every round is printed).
// Variants, each reading one Workspace row by primary key, awaited one after another on the same pool:
//   prisma findUnique, prisma $queryRaw, Kysely on the pool (src/db/sql.ts, what services use outside a
//   transaction), pg pool.query, and inside transactions of ten reads each, opened by withTx as services do (the
//   per-statement figure then includes a tenth of BEGIN and COMMIT): findUnique, Kysely through Prisma's transaction,
//   Kysely in withSqlTx; then a transaction of one read: withTx, withSqlTx (Kysely's transaction, no Prisma
//   transaction), and on a pg client (figures per transaction).
// CPU is this process's user + system time (process.cpuUsage) divided by the statements sent; PostgreSQL's own CPU
// is not in it. Wall time is per statement, one at a time.
import { type Ctx, withSqlTx, withTx } from "../src/shared/context";
import { closeBenchDb, openBenchDb } from "./harness";

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function main() {
  const bench = await openBenchDb({ embedded: false, poolMax: 4 });
  const { db } = bench;
  const p = db.prisma;
  const { id } = await p.workspace.create({ data: { name: "Bench", slug: "bench" } });
  const ctx = { deps: { prisma: db.prisma, sql: db.sql }, db: db.prisma, sql: db.sql } as unknown as Ctx;
  const read = (c: Ctx) => c.sql.selectFrom("Workspace").select(["id", "name"]).where("id", "=", id).execute();

  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const variants: [string, () => Promise<unknown>][] = [
    ["prisma findUnique", async () => {
      for (let i = 0; i < STATEMENTS; i++) await p.workspace.findUnique({ where: { id } });
    }],
    ["prisma $queryRaw", async () => {
      for (let i = 0; i < STATEMENTS; i++) await p.$queryRaw`SELECT id, name FROM "Workspace" WHERE id = ${id}::uuid`;
    }],
    ["Kysely on the pool", async () => {
      for (let i = 0; i < STATEMENTS; i++) await read(ctx);
    }],
    ["pg pool.query", async () => {
      for (let i = 0; i < STATEMENTS; i++) await db.pool!.query({ name: "bench_ws", text: `SELECT id, name FROM "Workspace" WHERE id = $1::uuid`, values: [id] });
    }],
    ["prisma findUnique, 10 per withTx", async () => {
      for (let i = 0; i < STATEMENTS / 10; i++) await withTx(ctx, async (tx) => {
        for (let j = 0; j < 10; j++) await tx.db.workspace.findUnique({ where: { id } });
      });
    }],
    ["Kysely, 10 per withTx (through Prisma's transaction)", async () => {
      for (let i = 0; i < STATEMENTS / 10; i++) await withTx(ctx, async (tx) => {
        for (let j = 0; j < 10; j++) await read(tx);
      });
    }],
    ["Kysely, 10 per withSqlTx (Kysely's transaction)", async () => {
      for (let i = 0; i < STATEMENTS / 10; i++) await withSqlTx(ctx, async (tx) => {
        for (let j = 0; j < 10; j++) await read(tx);
      });
    }],
    // One read per transaction: the per-"read" figure is then the whole transaction (BEGIN, the read, COMMIT).
    ["withTx of 1 Kysely read (per transaction)", async () => {
      for (let i = 0; i < STATEMENTS; i++) await withTx(ctx, read);
    }],
    ["withSqlTx of 1 Kysely read (per transaction)", async () => {
      for (let i = 0; i < STATEMENTS; i++) await withSqlTx(ctx, read);
    }],
    ["pg BEGIN, 1 query, COMMIT on one client (per transaction)", async () => {
      for (let i = 0; i < STATEMENTS; i++) {
        const c = await db.pool!.connect();
        try {
          await c.query({ name: "bench_begin", text: "BEGIN" });
          await c.query({ name: "bench_ws", text: `SELECT id, name FROM "Workspace" WHERE id = $1::uuid`, values: [id] });
          await c.query({ name: "bench_commit", text: "COMMIT" });
        } finally {
          c.release();
        }
      }
    }],
  ];

  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`\nround ${round} of ${ROUNDS}, ${STATEMENTS} reads per variant\n`);
    console.log("| variant | CPU µs per read | wall µs per read |");
    console.log("| --- | ---: | ---: |");
    for (const [name, run] of variants) {
      const c0 = cpuMs();
      const t0 = performance.now();
      await run();
      const cpu = ((cpuMs() - c0) * 1000) / STATEMENTS;
      const wall = ((performance.now() - t0) * 1000) / STATEMENTS;
      console.log(`| ${name} | ${cpu.toFixed(0)} | ${wall.toFixed(0)} |`);
    }
  }

  await closeBenchDb(bench);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
