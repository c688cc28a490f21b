// The raw cart reads (src/carts/carts.service.ts findCart, src/checkout/checkout.service.ts findSessionWithCart) return
// exactly what Prisma's include returned for the same rows: every column populated, NULLs, lines that share a
// timestamp (ordered by id), an empty cart, and another tenant's cart. On PGlite and on PostgreSQL (through the lane).
import { randomUUID } from "node:crypto";
import { startWithSandbox, type TestApp } from "./helpers/app";
import { findCart } from "../src/carts/carts.service";
import { findSessionWithCart } from "../src/checkout/checkout.service";
import { makeCtx } from "../src/shared/context";
import type { BootstrapResult } from "../src/platform/bootstrap.service";

let t: TestApp;
let demo: BootstrapResult;
let tenant: { applicationId: string; environmentId: string };

beforeAll(async () => void ({ t, demo, tenant } = await startWithSandbox({ worker: false })));
afterAll(() => t?.close());

const prismaCart = (id: string) =>
  t.deps.prisma.cart.findFirst({ where: { id, ...tenant }, include: { lineItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } } });

async function fullCart() {
  const customer = await t.deps.prisma.customer.create({ data: { ...tenant, email: `full-${randomUUID()}@example.com`, name: "Full" } });
  const at = new Date("2026-11-20T10:11:12.345Z");
  const cart = await t.deps.prisma.cart.create({
    data: {
      ...tenant,
      status: "abandoned",
      currency: "USD",
      customerId: customer.id,
      customerEmail: "cart@example.com",
      externalCartId: "ext-1",
      shippingAddress: { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" },
      billingAddress: { addressLine1: "2 Side St", city: "Shelbyville", postalCode: "54321", countryCode: "US" },
      notes: "leave at the door",
      metadata: { a: 1, nested: { b: [true, null, "x"] } },
      selectedShipping: { methodId: "std", displayName: "Standard", rateAmount: 700, carrier: null, serviceCode: null, estimatedDeliveryDays: 3, currency: "USD" },
      taxLines: [{ name: "VAT", amount: 120, rateBps: 1000, jurisdiction: "US" }],
      appliedDiscount: { code: "TEN", percentOff: 10 },
      expiresAt: new Date("2026-12-01T00:00:00.001Z"),
      createdAt: at,
      updatedAt: new Date("2026-11-21T00:00:00.999Z"),
    },
  });
  // three lines with one timestamp (ordered by id) and one earlier (first); every nullable column set on one of them
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  for (const id of ids) {
    await t.deps.prisma.cartLineItem.create({ data: { id, cartId: cart.id, name: `same-${id}`, unitPrice: 100, requiresShipping: true, createdAt: at } });
  }
  await t.deps.prisma.cartLineItem.create({
    data: {
      cartId: cart.id,
      type: "service",
      referenceId: "sku-1",
      name: "Setup",
      description: "An hour of setup",
      unitPrice: 10000,
      quantity: 3,
      taxAmount: 55,
      discountAmount: 44,
      imageUrl: "https://img.example.com/x.png",
      requiresShipping: false,
      metadata: { color: "blue", n: 1.5 },
      createdAt: new Date("2026-11-20T10:11:12.344Z"),
    },
  });
  return { cart, customer, lineIds: ids };
}

test("findCart returns what Prisma's include returns, every column set, lines sharing a timestamp ordered by id", async () => {
  const { cart, customer, lineIds } = await fullCart();
  const ctx = makeCtx(t.deps);
  const raw = await findCart(ctx, tenant, cart.id);
  const viaPrisma = await prismaCart(cart.id);
  expect(raw).toEqual({ ...viaPrisma, customer: { id: customer.id, email: customer.email } });
  // the types, not only the values: Dates are Dates, numbers are numbers
  expect(raw!.lineItems[0].createdAt).toBeInstanceOf(Date);
  expect(raw!.expiresAt).toBeInstanceOf(Date);
  expect(raw!.lineItems.map((l) => l.name)).toEqual(["Setup", ...[...lineIds].sort().map((id) => `same-${id}`)]);
  // with the tenant's active connection kinds (checkout session creation reads them in the same statement)
  const kinds = (await t.deps.prisma.connector.findMany({ where: { ...tenant, status: "active" }, select: { kind: true } })).map((c) => c.kind);
  expect(kinds.length).toBeGreaterThan(0);
  const withKinds = await findCart(ctx, tenant, cart.id, { connectorKinds: true });
  expect(withKinds).toEqual({ ...raw, connectorKinds: expect.any(Array) });
  expect([...withKinds!.connectorKinds].sort()).toEqual([...new Set(kinds)].sort());
  // an inactive connection does not count
  const one = await t.deps.prisma.connector.findFirstOrThrow({ where: { ...tenant, status: "active", kind: "invoice_terms" } });
  await t.deps.prisma.connector.update({ where: { id: one.id }, data: { status: "inactive" } });
  try {
    const after = await findCart(ctx, tenant, cart.id, { connectorKinds: true });
    const stillActive = await t.deps.prisma.connector.count({ where: { ...tenant, status: "active", kind: "invoice_terms" } });
    expect(after!.connectorKinds.includes("invoice_terms")).toBe(stillActive > 0);
  } finally {
    await t.deps.prisma.connector.update({ where: { id: one.id }, data: { status: "active" } });
  }
});

test("findCart: an empty cart with no customer, an unknown id, a malformed id and another tenant's cart", async () => {
  const cart = await t.deps.prisma.cart.create({ data: { ...tenant, currency: "USD" } });
  const ctx = makeCtx(t.deps);
  expect(await findCart(ctx, tenant, cart.id)).toEqual({ ...(await prismaCart(cart.id)), customer: null });
  expect((await findCart(ctx, tenant, cart.id))!.lineItems).toEqual([]);
  expect(await findCart(ctx, tenant, randomUUID())).toBeNull();
  expect(await findCart(ctx, tenant, "not-a-uuid")).toBeNull();
  // the same cart through the other environment of the same application, and through another workspace's tenant
  expect(await findCart(ctx, { ...tenant, environmentId: demo.environments.production.id }, cart.id)).toBeNull();
  const other = await t.otherWorkspace("cart-read-other");
  expect(await findCart(ctx, { applicationId: other.applicationId, environmentId: other.environments.sandbox.id }, cart.id)).toBeNull();
});

test("findSessionWithCart returns what Prisma's nested include returns, and 404 session_not_found otherwise", async () => {
  const { cart } = await fullCart();
  const session = await t.deps.prisma.checkoutSession.create({
    data: {
      ...tenant,
      cartId: cart.id,
      status: "open",
      returnUrl: "https://shop.example.com/ok",
      cancelUrl: "https://shop.example.com/cancel",
      customerEmail: "buyer@example.com",
      customerId: randomUUID(),
      customer: { email: "buyer@example.com", shippingAddress: { city: "X" } },
      allowedMethods: ["card", "net30"],
      netN: 45,
      collectShipping: false,
      collectBilling: true,
      metadata: { order: "A-1" },
      expiresAt: new Date("2026-12-02T00:00:00.002Z"),
      quoteId: randomUUID(),
      depositAmount: 500,
      balanceNetN: 30,
      payOrderId: randomUUID(),
      discountCode: "TEN",
      recurring: { planReference: "gold", interval: "month", amount: 900 },
      completionStartedAt: new Date("2026-11-22T00:00:00.003Z"),
      completedAt: new Date("2026-11-22T00:00:00.004Z"),
      orderId: randomUUID(),
      paymentId: randomUUID(),
    },
  });
  const ctx = makeCtx(t.deps);
  const viaPrisma = await t.deps.prisma.checkoutSession.findUnique({
    where: { id: session.id },
    include: { cart: { include: { lineItems: { orderBy: [{ createdAt: "asc" }, { id: "asc" }] } } } },
  });
  const raw = await findSessionWithCart(ctx, session.id);
  expect(raw).toEqual(viaPrisma);
  expect(raw.cart.updatedAt).toBeInstanceOf(Date);
  expect(raw.completedAt).toBeInstanceOf(Date);

  // a session whose cart has no lines and a null expiry
  const bare = await t.deps.prisma.cart.create({ data: { ...tenant, currency: "USD" } });
  const s2 = await t.deps.prisma.checkoutSession.create({
    data: { ...tenant, cartId: bare.id, returnUrl: "https://a.example/ok", cancelUrl: "https://a.example/no", allowedMethods: [], expiresAt: new Date("2026-12-03T00:00:00Z") },
  });
  expect(await findSessionWithCart(ctx, s2.id)).toEqual(
    await t.deps.prisma.checkoutSession.findUnique({ where: { id: s2.id }, include: { cart: { include: { lineItems: true } } } }),
  );

  for (const id of [randomUUID(), "nope"]) {
    await expect(findSessionWithCart(ctx, id)).rejects.toMatchObject({ code: "session_not_found", status: 404 });
  }
});
