// Orders seeded straight into the database for the order-operation tests (fulfillments, returns, timeline,
// export): a paid order in the given status with the given lines, optionally linked to a customer.
import type { TestApp } from "./app";

export interface SeedLine {
  name?: string;
  quantity: number;
  unitPrice?: number;
  requiresShipping?: boolean;
}

export interface SeedTenant {
  applicationId: string;
  environments: { sandbox: { id: string } };
}

export async function seedOrder(
  t: TestApp,
  tenant: SeedTenant,
  opts: { lines: SeedLine[]; status?: string; paymentStatus?: string; email?: string | null; customerEmail?: string; createdAt?: Date } = { lines: [{ quantity: 1 }] },
) {
  const db = t.deps.prisma;
  const applicationId = tenant.applicationId;
  const environmentId = tenant.environments.sandbox.id;
  const customer = opts.customerEmail ? await db.customer.create({ data: { applicationId, environmentId, email: opts.customerEmail } }) : null;
  const subtotal = opts.lines.reduce((a, l) => a + (l.unitPrice ?? 1000) * l.quantity, 0);
  const order = await db.order.create({
    data: {
      applicationId,
      environmentId,
      status: opts.status ?? "processing",
      paymentStatus: opts.paymentStatus ?? "captured",
      currency: "USD",
      subtotal,
      total: subtotal,
      email: opts.email === undefined ? (opts.customerEmail ?? "buyer@example.com") : opts.email,
      customerId: customer?.id ?? null,
      ...(opts.createdAt ? { createdAt: opts.createdAt } : {}),
      lineItems: {
        create: opts.lines.map((l, i) => ({ name: l.name ?? `Line ${i + 1}`, unitPrice: l.unitPrice ?? 1000, quantity: l.quantity, requiresShipping: l.requiresShipping ?? true, position: i })),
      },
    },
    include: { lineItems: { orderBy: { position: "asc" } } },
  });
  return { order, lines: order.lineItems, customer };
}
