// What one statement costs this Node process through Prisma, next to the same statement on pg directly (issue 10:
// where the gap to the bare reference comes from). A driver, not a test: it prints figures.
//   npx tsx bench/prisma-overhead.ts      (PostgreSQL: a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
// Knobs: BENCH_STATEMENTS (default 5000 per variant), BENCH_ROUNDS (2; the first warms the plan cache and the JIT, and
// every round is printed).
// Variants, each reading one Workspace row by primary key, awaited one after another on the same pool:
//   prisma findUnique, prisma $queryRaw, pg pool.query, and the first two inside interactive transactions of ten
//   reads each (the per-statement figure then includes a tenth of BEGIN and COMMIT, as a service's transactions do);
//   then a transaction of one read, through Prisma's interactive transaction and on a pg client (figures per
//   transaction).
// CPU is this process's user + system time (process.cpuUsage) divided by the statements sent; PostgreSQL's own CPU
// is not in it. Wall time is per statement, one at a time.
import { closeBenchDb, openBenchDb } from "./harness";

const STATEMENTS = Number(process.env.BENCH_STATEMENTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

async function main() {
  const bench = await openBenchDb({ embedded: false, poolMax: 4 });
  const { db } = bench;
  const p = db.prisma;
  const { id } = await p.workspace.create({ data: { name: "Bench", slug: "bench" } });

  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const variants: [string, () => Promise<unknown>][] = [
    ["prisma findUnique", async () => {
      for (let i = 0; i < STATEMENTS; i++) await p.workspace.findUnique({ where: { id } });
    }],
    ["prisma $queryRaw", async () => {
      for (let i = 0; i < STATEMENTS; i++) await p.$queryRaw`SELECT * FROM "Workspace" WHERE id = ${id}::uuid`;
    }],
    ["pg pool.query", async () => {
      for (let i = 0; i < STATEMENTS; i++) await db.pool!.query(`SELECT * FROM "Workspace" WHERE id = $1::uuid`, [id]);
    }],
    ["prisma findUnique, 10 per transaction", async () => {
      for (let i = 0; i < STATEMENTS / 10; i++) await p.$transaction(async (tx) => {
        for (let j = 0; j < 10; j++) await tx.workspace.findUnique({ where: { id } });
      });
    }],
    ["prisma $queryRaw, 10 per transaction", async () => {
      for (let i = 0; i < STATEMENTS / 10; i++) await p.$transaction(async (tx) => {
        for (let j = 0; j < 10; j++) await tx.$queryRaw`SELECT * FROM "Workspace" WHERE id = ${id}::uuid`;
      });
    }],
    // One read per transaction: the per-"read" figure is then the whole transaction (BEGIN, the read, COMMIT), which is
    // what each of the checkout scenario's seven transactions pays around its statements.
    ["prisma $transaction of 1 $queryRaw (per transaction)", async () => {
      for (let i = 0; i < STATEMENTS; i++) await p.$transaction(async (tx) => tx.$queryRaw`SELECT * FROM "Workspace" WHERE id = ${id}::uuid`);
    }],
    ["pg BEGIN, 1 query, COMMIT on one client (per transaction)", async () => {
      for (let i = 0; i < STATEMENTS; i++) {
        const c = await db.pool!.connect();
        try {
          await c.query("BEGIN");
          await c.query(`SELECT * FROM "Workspace" WHERE id = $1::uuid`, [id]);
          await c.query("COMMIT");
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
