// Customers over REST (create, read by id and by external id) and the race-safe find-or-create by email
// that checkout uses.
import type { BootstrapResult } from "../src/platform/bootstrap.service";
import { findOrCreateCustomerByEmail } from "../src/customers/customers.service";
import { makeCtx } from "../src/shared/context";
import { startWithTwoTenants, type BootstrapLike, type TestApp } from "./helpers/app";
import { client, mintKeyVia } from "./helpers/http";

let t: TestApp;
let api: ReturnType<typeof client>;
let demo: BootstrapResult;
let other: BootstrapLike;

beforeAll(async () => void ({ t, api, demo, other } = await startWithTwoTenants("cust-other")));
afterAll(() => t?.close());

const mintKey = async (scopes: string[]) => (await mintKeyVia(api, demo, scopes)).rawKey;

const tenant = () => ({ workspaceId: demo.workspaceId, applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id, environmentKind: "non_production" });

test("POST /customers: 201 with the customer view; email trimmed and lower-cased; empty company is null", async () => {
  const r = await api("POST", "customers", {
    key: demo.apiKey,
    body: { email: "  Ada@Example.COM ", externalId: "crm-1", company: "", name: "Ada", phone: "+1 555 0100", metadata: { tier: "gold", nested: { a: [1, 2] } } },
  });
  expect(r.status).toBe(201);
  expect(Object.keys(r.body.data).sort()).toEqual(["billingAddress", "company", "createdAt", "email", "externalId", "id", "metadata", "name", "phone", "shippingAddress"]);
  expect(r.body.data).toMatchObject({ email: "ada@example.com", externalId: "crm-1", company: null, name: "Ada", phone: "+1 555 0100", metadata: { tier: "gold", nested: { a: [1, 2] } } });
  expect(r.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
  const ev = await t.deps.prisma.event.findMany({ where: { type: "customer.created", applicationId: demo.applicationId } });
  expect(ev.map((e) => (e.data as any).customerId)).toContain(r.body.data.id);
});

test("GET /customers/{id} (with or without cus_) and GET /customers/by-external/{externalId}", async () => {
  const c = (await api("POST", "customers", { key: demo.apiKey, body: { email: "grace@example.com", externalId: "ext/with space" } })).body.data;
  for (const id of [c.id, `cus_${c.id}`]) {
    const r = await api("GET", `customers/${id}`, { key: demo.apiKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(c);
  }
  const byExt = await api("GET", `customers/by-external/${encodeURIComponent("ext/with space")}`, { key: demo.apiKey });
  expect(byExt.status).toBe(200);
  expect(byExt.body.data.id).toBe(c.id);
});

test("unknown, malformed and other tenants' ids: 404 not_found on every customer route", async () => {
  const c = (await api("POST", "customers", { key: demo.apiKey, body: { email: "private@example.com", externalId: "private-1" } })).body.data;
  const cases: [string, string][] = [
    [demo.apiKey, "customers/00000000-0000-4000-8000-000000000000"],
    [demo.apiKey, "customers/not-a-uuid"],
    [demo.apiKey, "customers/by-external/nope"],
    [other.apiKey, `customers/${c.id}`],
    [other.apiKey, `customers/cus_${c.id}`],
    [other.apiKey, "customers/by-external/private-1"],
    [demo.apiKey, "customers/by-external/%00"],
    [demo.apiKey, "customers/by-external/a%00b"],
  ];
  for (const [key, path] of cases) {
    const r = await api("GET", path, { key });
    expect([path, r.status, r.body.error?.code]).toEqual([path, 404, "not_found"]);
  }
  // The same email and external id are free in another tenant.
  const mine = await api("POST", "customers", { key: other.apiKey, body: { email: "private@example.com", externalId: "private-1" } });
  expect(mine.status).toBe(201);
  expect(mine.body.data.id).not.toBe(c.id);
});

test("duplicate email or externalId in the tenant: 409 customer_already_exists naming the field and the holder", async () => {
  const c = (await api("POST", "customers", { key: demo.apiKey, body: { email: "dup@example.com", externalId: "dup-1" } })).body.data;
  const byEmail = await api("POST", "customers", { key: demo.apiKey, body: { email: "DUP@example.com" } });
  expect(byEmail.status).toBe(409);
  expect(byEmail.body.error).toMatchObject({ code: "customer_already_exists", details: { field: "email", customerId: c.id } });
  const byExt = await api("POST", "customers", { key: demo.apiKey, body: { externalId: "dup-1" } });
  expect(byExt.status).toBe(409);
  expect(byExt.body.error.details).toMatchObject({ field: "externalId", customerId: c.id });
});

test.each([
  ["bad email", { email: "not-an-email" }, ["email"]],
  ["unknown field", { email: "x@example.com", firstName: "X" }, ["firstName"]],
  ["metadata over 50 keys", { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, ["metadata"]],
  ["metadata over 10 KB", { metadata: { big: "x".repeat(10_300) } }, ["metadata"]],
  ["externalId empty", { externalId: "" }, ["externalId"]],
  ["wrong type", { name: 42 }, ["name"]],
])("422 validation_error: %s", async (_n, body, path) => {
  const r = await api("POST", "customers", { key: demo.apiKey, body });
  expect(r.status).toBe(422);
  expect(r.body.error.code).toBe("validation_error");
  expect(r.body.error.details.issues.map((i: any) => i.path)).toContainEqual(path);
});

test("scopes: customers:read reads, customers:write creates; anything else is 403 insufficient_scopes", async () => {
  const c = (await api("POST", "customers", { key: demo.apiKey, body: { externalId: "scoped-1" } })).body.data;
  const reader = await mintKey(["customers:read"]);
  const carts = await mintKey(["carts:read", "carts:write"]);
  expect((await api("GET", `customers/${c.id}`, { key: reader })).status).toBe(200);
  expect((await api("GET", "customers/by-external/scoped-1", { key: reader })).status).toBe(200);
  const denied = [
    await api("POST", "customers", { key: reader, body: { externalId: "scoped-2" } }),
    await api("GET", `customers/${c.id}`, { key: carts }),
    await api("GET", "customers/by-external/scoped-1", { key: carts }),
  ];
  for (const r of denied) expect([r.status, r.body.error.code]).toEqual([403, "insufficient_scopes"]);
});

test("findOrCreateCustomerByEmail: concurrent calls create exactly one row and one event; an existing customer is returned as is", async () => {
  const ctx = makeCtx(t.deps);
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) => findOrCreateCustomerByEmail(ctx, { email: "Race@Example.com", name: `n${i}` }, tenant())));
  expect(new Set(results.map((c) => c.id)).size).toBe(1);
  expect(results[0].email).toBe("race@example.com");
  const rows = await t.deps.prisma.customer.findMany({ where: { applicationId: demo.applicationId, email: "race@example.com" } });
  expect(rows).toHaveLength(1);
  const events = await t.deps.prisma.event.findMany({ where: { type: "customer.created" } });
  expect(events.filter((e) => (e.data as any).customerId === rows[0].id)).toHaveLength(1);

  const existing = (await api("POST", "customers", { key: demo.apiKey, body: { email: "known@example.com", name: "Known" } })).body.data;
  const found = await findOrCreateCustomerByEmail(ctx, { email: "KNOWN@example.com", name: "Other name" }, tenant());
  expect(found).toMatchObject({ id: existing.id, name: "Known" });
});

test("findOrCreateCustomerByEmail: an externalId held by another customer is 409; a bad email is 422", async () => {
  const ctx = makeCtx(t.deps);
  const holder = (await api("POST", "customers", { key: demo.apiKey, body: { externalId: "held-1" } })).body.data;
  await expect(findOrCreateCustomerByEmail(ctx, { email: "new@example.com", externalId: "held-1" }, tenant())).rejects.toMatchObject({
    code: "customer_already_exists",
    details: { field: "externalId", customerId: holder.id },
  });
  await expect(findOrCreateCustomerByEmail(ctx, { email: "nope" }, tenant())).rejects.toMatchObject({ code: "validation_error", status: 422 });
});
