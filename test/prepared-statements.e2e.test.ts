// Named (prepared) statements on PostgreSQL (src/db/prepared.ts): which statement texts get a name, that PostgreSQL
// then keeps them per connection, and that a migration adding columns while a process runs breaks none of that
// process's statements (a statement whose result columns come from `*` would fail with 0A000; those stay unnamed).
import { Client } from "pg";
import { sql } from "kysely";
import { StatementNames } from "../src/db/prepared";
import { notStarted, pgTest, startPgApp, startTestApp, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";

describe("which statement texts are named", () => {
  test("a text is named on its second execution, and at most max texts per process", () => {
    const n = new StatementNames(2);
    expect(n.name({ sql: "SELECT 1" })).toBe("");
    expect(n.name({ sql: "SELECT 1" })).toBe("q2c_0");
    expect(n.name({ sql: "SELECT 1" })).toBe("q2c_0");
    expect([n.name({ sql: "SELECT 2" }), n.name({ sql: "SELECT 2" })]).toEqual(["", "q2c_1"]);
    expect([n.name({ sql: "SELECT 3" }), n.name({ sql: "SELECT 3" }), n.name({ sql: "SELECT 3" })]).toEqual(["", "", ""]);
    expect([n.name({ sql: "SELECT 1" }), n.name({ sql: "SELECT 2" }), n.size]).toEqual(["q2c_0", "q2c_1", 2]);
    const none = new StatementNames(0);
    expect([none.name({ sql: "SELECT 1" }), none.name({ sql: "SELECT 1" })]).toEqual(["", ""]);
  });
});

describe("on PostgreSQL", () => {
  let app: TestApp | null;
  let key = "";
  let applicationId = "";
  beforeAll(async () => {
    app = await startPgApp({ worker: false, env: { RATE_LIMIT_PER_CREDENTIAL: "off" } });
    if (!app) return;
    const demo = await app.bootstrap();
    key = demo.apiKey;
    applicationId = demo.applicationId;
  });
  afterAll(async () => {
    await app?.close();
  });

  /** One storefront checkout through the API; the order's id. */
  async function checkout(): Promise<string> {
    const call = client(app!.url);
    const cart = await call("POST", "carts", { key, body: { applicationId, customerEmail: "buyer@example.com" } });
    expect(cart.status).toBe(201);
    for (const line of [
      { name: "Widget", unitPrice: 1500, quantity: 2 },
      { name: "Setup", unitPrice: 10000, quantity: 1, type: "service" },
    ]) {
      expect((await call("POST", `carts/${cart.body.data.id}/items`, { key, body: line })).status).toBe(201);
    }
    const s = await call("POST", "checkout/sessions", { key, body: { applicationId, cartId: cart.body.data.id, returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel" } });
    expect(s.status).toBe(201);
    const done = await call("POST", `checkout-sessions/${s.body.data.id}/complete`, {
      body: { paymentMethod: "card", paymentToken: "tok_visa", shippingAddress: { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" } },
    });
    expect([done.status, done.body.data?.paymentStatus]).toEqual([200, "captured"]);
    const order = await call("GET", `orders/${done.body.data.orderId}`, { key });
    expect(order.status).toBe(200);
    const read = await call("GET", `carts/${cart.body.data.id}`, { key });
    expect(read.status).toBe(200);
    return done.body.data.orderId;
  }

  pgTest("a repeated statement runs as a named statement that PostgreSQL keeps for the connection: Prisma's and Kysely's", async () => {
    if (!app) throw notStarted();
    const names = await app.db.prisma.$transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await tx.$queryRaw`SELECT id FROM "Workspace" WHERE slug = ${"prepared-probe"}`;
      return tx.$queryRaw<{ name: string; statement: string }[]>`SELECT name, statement FROM pg_prepared_statements`;
    });
    expect(names.find((r) => r.statement.includes(`SELECT id FROM "Workspace"`))?.name).toMatch(/^q2c_\d+$/);
    // Kysely's statements are named on their own connection (sql.ts), held here for the three reads and the check
    const kysely = await app.db.sql.connection().execute(async (c) => {
      for (let i = 0; i < 3; i++) await c.selectFrom("Workspace").select("name").where("slug", "=", "prepared-probe-k").execute();
      return sql<{ name: string; statement: string }>`SELECT name, statement FROM pg_prepared_statements`.execute(c);
    });
    expect(kysely.rows.find((r) => r.statement.includes(`select "name" from "Workspace"`))?.name).toMatch(/^k_\d+$/);
  });

  pgTest("DATABASE_PREPARED_STATEMENTS=0 names nothing", async () => {
    if (!app) throw notStarted();
    const off = await startTestApp({ databaseUrl: app.databaseUrl, worker: false, env: { DATABASE_PREPARED_STATEMENTS: "0" } });
    try {
      const names = await off!.db.prisma.$transaction(async (tx) => {
        for (let i = 0; i < 3; i++) await tx.$queryRaw`SELECT id FROM "Workspace" WHERE slug = ${"prepared-probe"}`;
        return tx.$queryRaw<{ name: string }[]>`SELECT name FROM pg_prepared_statements WHERE name LIKE 'q2c%'`; // not the rate limiter's own
      });
      expect(names).toEqual([]);
    } finally {
      await off?.close();
    }
  });

  pgTest("a migration that adds columns while the process runs breaks none of its statements", async () => {
    if (!app) throw notStarted();
    // Name the scenario's statements (a text is named on its second execution): Prisma's and Kysely's.
    for (let i = 0; i < 3; i++) await checkout();
    const admin = new Client({ connectionString: app.databaseUrl });
    await admin.connect();
    try {
      // The premise: PostgreSQL refuses a named statement whose `*` now expands to more columns.
      const probe = { name: "probe_star", text: `SELECT * FROM "Cart" WHERE id = $1`, values: ["00000000-0000-0000-0000-000000000000"] };
      await admin.query(probe);
      for (const table of ["Cart", "CartLineItem", "CheckoutSession", "Order", "OrderLineItem", "Payment", "Event", "Customer", "Workspace"]) {
        await admin.query(`ALTER TABLE "${table}" ADD COLUMN "addedLater" text`);
      }
      await expect(admin.query(probe)).rejects.toMatchObject({ code: "0A000" });

      for (let i = 0; i < 3; i++) {
        const orderId = await checkout();
        expect(await app.db.prisma.order.findUnique({ where: { id: orderId }, select: { status: true } })).toEqual({ status: "processing" });
      }
    } finally {
      for (const table of ["Cart", "CartLineItem", "CheckoutSession", "Order", "OrderLineItem", "Payment", "Event", "Customer", "Workspace"]) {
        await admin.query(`ALTER TABLE "${table}" DROP COLUMN IF EXISTS "addedLater"`);
      }
      await admin.end();
    }
  });
});
