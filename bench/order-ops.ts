// SQL statements per order operation on PostgreSQL: an order refund (two captured payments), a comp (with and
// without an open authorization to void), a status change, a hold. A driver, not a test: it prints figures.
//   npx tsx bench/order-ops.ts          (a fresh database on BENCH_DATABASE_URL or the local default, dropped after)
// Statements are counted as test/helpers/statements.ts does (every pg client's query(), BEGIN and COMMIT included),
// around one HTTP request to the app in this process; the API key's principal is cached, so the first call of a
// series warms it. Knob: BENCH_SAMPLES (default 10) per operation; the median and one sample's statements print.
import { startTestApp } from "../test/helpers/app";
import { client } from "../test/helpers/http";
import { kindOf, statementsOf } from "../test/helpers/statements";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10);

async function main() {
  if (process.env.BENCH_DATABASE_URL) process.env.DATABASE_URL = process.env.BENCH_DATABASE_URL;
  const t = await startTestApp({ db: "pg", worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
  if (!t) throw new Error("PostgreSQL is not reachable (BENCH_DATABASE_URL or postgresql://postgres@127.0.0.1:5432/postgres)");
  const api = client(t.url);
  const key = (await t.bootstrap()).apiKey;
  const call = async (m: string, p: string, body?: unknown) => {
    const r = await api(m, p, { key, body, validate: false });
    if (r.status >= 300) throw new Error(`${m} ${p}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.data;
  };
  const draft = async () => (await call("POST", "orders", { customerEmail: "bench@example.com", lineItems: [{ name: "Widget", unitPrice: 1000, quantity: 2 }] })).id as string;

  const scenarios: { name: string; prepare: () => Promise<string>; run: (id: string) => Promise<unknown> }[] = [
    {
      name: "order refund (2 captured payments, full)",
      prepare: async () => {
        const id = await draft();
        await call("POST", `orders/${id}/payments/record`, { amount: 800, method: "cash" });
        await call("POST", `orders/${id}/authorize`, { paymentToken: "tok_visa" });
        return id;
      },
      run: (id) => call("POST", `orders/${id}/refund`, {}),
    },
    {
      name: "comp (nothing to void)",
      prepare: draft,
      run: (id) => call("POST", `orders/${id}/comp`, { reason: "goodwill" }),
    },
    {
      name: "comp (voids one authorization, buyer emailed)",
      prepare: async () => {
        const id = await draft();
        await call("POST", `orders/${id}/authorize`, { paymentToken: "tok_visa_authorize" });
        return id;
      },
      run: (id) => call("POST", `orders/${id}/comp`, { reason: "goodwill" }),
    },
    {
      name: "status change (processing -> fulfilled)",
      prepare: async () => {
        const id = await draft();
        await call("POST", `orders/${id}/status`, { status: "processing" });
        return id;
      },
      run: (id) => call("POST", `orders/${id}/status`, { status: "fulfilled", reason: "handed over" }),
    },
    {
      name: "hold",
      prepare: async () => {
        const id = await draft();
        await call("POST", `orders/${id}/status`, { status: "processing" });
        return id;
      },
      run: (id) => call("POST", `orders/${id}/hold`, { reason: "check" }),
    },
  ];

  console.log(`order operations, SQL statements per request on PostgreSQL (${SAMPLES} samples each; median, min-max)`);
  for (const s of scenarios) {
    const counts: number[] = [];
    let sample: string[] = [];
    for (let i = 0; i < SAMPLES + 1; i++) {
      const id = await s.prepare();
      const { statements } = await statementsOf(() => s.run(id));
      if (i === 0) continue; // warms the principal cache and the prepared statements
      counts.push(statements.length);
      sample = statements;
    }
    counts.sort((a, b) => a - b);
    console.log(`\n${s.name}: ${counts[Math.floor(counts.length / 2)]} (${counts[0]}-${counts[counts.length - 1]})`);
    console.log(`  ${sample.map(kindOf).join(" | ")}`);
  }
  await t.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
