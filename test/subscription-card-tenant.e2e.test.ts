// A subscription's card over REST under a forged customer id: a small two-tenant world of orders, payments and
// subscriptions (the GraphQL edges' own cases run in the shared table, test/cross-tenant-edges.e2e.test.ts).
import { randomUUID } from "node:crypto";
import { startWithTwoTenants, type TestApp } from "./helpers/app";
import { client } from "./helpers/http";
import type { EdgeIds, EdgeWorld } from "./edges/types";

let t: TestApp;
let w: EdgeWorld;
let keyB: string;

async function seedTenant(prisma: EdgeWorld["prisma"], tenant: { applicationId: string; environmentId: string }, tag: string): Promise<EdgeIds> {
  const c = await prisma.customer.create({ data: { ...tenant, email: `tenant-${tag}@example.com` } });
  const o = await prisma.order.create({
    data: { ...tenant, status: "processing", paymentStatus: "captured", currency: "USD", subtotal: 100, total: 100, customerId: c.id, lineItems: { create: [{ name: "x", unitPrice: 100, quantity: 1, position: 0, requiresShipping: true }] } },
    include: { lineItems: true },
  });
  const p = await prisma.payment.create({ data: { ...tenant, orderId: o.id, status: "captured", amount: 100, capturedAmount: 100, currency: "USD", method: "card", processor: "test" } });
  await prisma.transaction.create({ data: { paymentId: p.id, type: "capture", status: "succeeded", amount: 100, currency: "USD" } });
  const f = await prisma.fulfillment.create({ data: { ...tenant, orderId: o.id, status: "completed", lines: { create: [{ lineItemId: o.lineItems[0].id, quantity: 1 }] } } });
  const s = await prisma.subscription.create({
    data: { ...tenant, customerId: c.id, status: "active", planReference: "p", interval: "monthly", amount: 100, currency: "USD", currentPeriodStart: new Date(), currentPeriodEnd: new Date(Date.now() + 86_400_000) },
  });
  await prisma.order.update({ where: { id: o.id }, data: { subscriptionId: s.id } });
  const card = await prisma.savedCard.create({
    data: { id: `cpm_${tag}${randomUUID().replace(/-/g, "").slice(0, 12)}`, ...tenant, customerId: c.id, cardBrand: "visa", cardLastFour: "4242", cardExpMonth: 12, cardExpYear: 2030, isDefault: true, chargeable: true, source: "checkout" },
  });
  const unused = () => randomUUID();
  return {
    customerId: c.id, quoteId: unused(), revisionId: unused(), orderId: o.id, paymentId: p.id, fulfillmentId: f.id, subscriptionId: s.id, paymentMethodId: card.id,
    cartId: unused(), checkoutSessionId: unused(), installationId: null, extensionId: null, versionId: null, memberId: unused(), userId: unused(), invitationId: null,
  };
}

beforeAll(async () => {
  const { t: app, demo, other } = await startWithTwoTenants("edges-b");
  t = app;
  keyB = other.apiKey;
  const prisma = t.deps.prisma;
  const a = await seedTenant(prisma, { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id }, "a");
  const b = await seedTenant(prisma, { applicationId: other.applicationId, environmentId: other.environments.sandbox.id }, "b");
  w = {
    prisma,
    a,
    b,
    gqlB: async (query, variables) => {
      const r = await fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": other.apiKey }, body: JSON.stringify({ query, variables }) });
      return (await r.json()) as { data: unknown; errors?: unknown[] };
    },
  };
}, 60_000);
afterAll(() => t?.close());

test("REST reads of a subscription show the default card of its own tenant only (GET /subscriptions/{id}, the list)", async () => {
  // B's subscription pointed at A's customer, whose default card is A's
  await w.prisma.savedCard.update({ where: { id: w.a.paymentMethodId! }, data: { customerId: w.a.customerId, isDefault: true, deletedAt: null } });
  await w.prisma.subscription.update({ where: { id: w.b.subscriptionId! }, data: { customerId: w.a.customerId } });
  const api = client(t.url);
  const one = await api("GET", `subscriptions/${w.b.subscriptionId}`, { key: keyB });
  expect(one.status).toBe(200);
  expect(one.body.data.paymentMethod).toBeNull();
  const list = await api("GET", "subscriptions", { key: keyB });
  expect(list.status).toBe(200);
  expect(JSON.stringify(list.body)).not.toContain(w.a.paymentMethodId!);
});
