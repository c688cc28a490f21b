// Customers (commerce.md parts 2 and 4): create, read by id or by the merchant's external id, and the
// race-safe find-or-create by email that checkout uses when a buyer arrives with only an email.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { emailSchema } from "../shared/email";
import type { Customer } from "../generated/prisma/client";
import { type EventTenant, principalEventTenant, recordEvent } from "../events/events.service";
import { requireScope, requireTenant } from "../shared/guards";
import type { Tenant } from "../shared/principal";
import { type Address, addressSchema, canonicalAddress, metadataSchema } from "../shared/address";
import { type Ctx, isUniqueViolation, withTx } from "../shared/context";
import { DomainError, errors, parseInput, UNSAFE_TEXT } from "../shared/errors";
import { isUuid } from "../shared/ids";

/** The application + environment a customer row belongs to. */
type TenantIds = Pick<Tenant, "applicationId" | "environmentId">;

/** Emails are stored trimmed and lower-cased, so one buyer is one row whatever the casing they type. */

/** Free text that null or an empty string clears (commerce.md part 2, `company`). */
const clearableText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));

const externalIdSchema = z.string().trim().min(1).max(255).refine((s) => !UNSAFE_TEXT.test(s), "must not contain NUL characters or unpaired surrogates");

export const createCustomerInput = z.strictObject({
  email: emailSchema.nullish(),
  externalId: externalIdSchema.nullish(),
  company: clearableText(200),
  name: clearableText(200),
  phone: clearableText(50),
  shippingAddress: addressSchema.nullish(),
  billingAddress: addressSchema.nullish(),
  metadata: metadataSchema.optional(),
});

const findOrCreateByEmailInput = createCustomerInput.extend({ email: emailSchema });
type FindOrCreateByEmailInput = z.input<typeof findOrCreateByEmailInput>;

export function customerView(c: Customer) {
  return {
    id: c.id,
    externalId: c.externalId,
    email: c.email,
    metadata: c.metadata,
    company: c.company,
    name: c.name,
    phone: c.phone,
    shippingAddress: canonicalAddress(c.shippingAddress as Address | null),
    billingAddress: canonicalAddress(c.billingAddress as Address | null),
    createdAt: c.createdAt.toISOString(),
  };
}

/** Where a route expects `cus_`, the bare UUID is accepted too (decisions.md part 1). */
export function customerUuid(id: string): string | null {
  const raw = id.startsWith("cus_") ? id.slice(4) : id;
  return isUuid(raw) ? raw : null;
}

export function customerExists(field: "email" | "externalId", existing?: Customer | null) {
  return new DomainError("customer_already_exists", `A customer with this ${field} already exists`, {
    field,
    ...(existing ? { customerId: existing.id } : {}),
  });
}

/** The addresses a new customer row gets, canonical (absent ones stay NULL). */
export function addressData(a: { shippingAddress?: Address | null; billingAddress?: Address | null }) {
  return {
    ...(a.shippingAddress ? { shippingAddress: canonicalAddress(a.shippingAddress) } : {}),
    ...(a.billingAddress ? { billingAddress: canonicalAddress(a.billingAddress) } : {}),
  };
}

function tenantOf(ctx: Ctx): EventTenant {
  return principalEventTenant(ctx);
}

export async function createCustomer(ctx: Ctx, body: unknown) {
  requireScope(ctx, "customers:write");
  const input = parseInput(createCustomerInput, body);
  const t = tenantOf(ctx);
  return withTx(ctx, async (tx) => {
    const where = { applicationId: t.applicationId, environmentId: t.environmentId };
    if (input.email) {
      const clash = await tx.db.customer.findFirst({ where: { ...where, email: input.email } });
      if (clash) throw customerExists("email", clash);
    }
    if (input.externalId) {
      const clash = await tx.db.customer.findFirst({ where: { ...where, externalId: input.externalId } });
      if (clash) throw customerExists("externalId", clash);
    }
    let row: Customer;
    try {
      row = await tx.db.customer.create({
        data: {
          ...where,
          email: input.email ?? null,
          externalId: input.externalId ?? null,
          company: input.company,
          name: input.name,
          phone: input.phone,
          ...addressData(input),
          metadata: (input.metadata ?? {}) as object,
        },
      });
    } catch (e) {
      // A concurrent create won between the check and the insert: same answer as the check would give.
      if (isUniqueViolation(e)) throw customerExists(input.email ? "email" : "externalId");
      throw e;
    }
    await recordEvent(tx, t, "customer.created", { customerId: row.id, email: row.email, externalId: row.externalId });
    return row;
  });
}

/**
 * The tenant's customer with this email, created when missing (checkout: a buyer known only by email).
 * Race-safe across processes: the insert is `ON CONFLICT DO NOTHING` on the unique (application, environment,
 * email) constraint, so a concurrent insert never aborts the caller's transaction; the loser re-reads the
 * winner's row. An existing customer is returned unchanged (the other fields only seed a new one).
 * `tenant` defaults to the calling credential's; pass it from a buyer route that has no credential.
 */
export async function findOrCreateCustomerByEmail(ctx: Ctx, input: FindOrCreateByEmailInput, tenant?: EventTenant): Promise<Customer> {
  const data = parseInput(findOrCreateByEmailInput, input);
  const t = tenant ?? tenantOf(ctx);
  const where = { applicationId: t.applicationId, environmentId: t.environmentId };
  return withTx(ctx, async (tx) => {
    const existing = await tx.db.customer.findFirst({ where: { ...where, email: data.email } });
    if (existing) return existing;
    const [created] = await tx.db.customer.createManyAndReturn({
      data: [
        {
          id: randomUUID(),
          ...where,
          email: data.email,
          externalId: data.externalId ?? null,
          company: data.company,
          name: data.name,
          phone: data.phone,
          ...addressData(data),
          metadata: (data.metadata ?? {}) as object,
        },
      ],
      skipDuplicates: true,
    });
    if (created) {
      await recordEvent(tx, t, "customer.created", { customerId: created.id, email: created.email, externalId: created.externalId });
      return created;
    }
    const winner = await tx.db.customer.findFirst({ where: { ...where, email: data.email } });
    if (winner) return winner;
    // Nothing was inserted and no row has this email: the externalId belongs to another customer.
    const holder = data.externalId ? await tx.db.customer.findFirst({ where: { ...where, externalId: data.externalId } }) : null;
    throw customerExists("externalId", holder);
  });
}

/** A customer of the tenant, or null; no scope check (for services that reference customers). */
export async function findCustomer(ctx: Ctx, tenant: TenantIds, id: string) {
  const uuid = customerUuid(id);
  if (!uuid) return null;
  return ctx.db.customer.findFirst({ where: { id: uuid, applicationId: tenant.applicationId, environmentId: tenant.environmentId } });
}

/**
 * Graph edges (Quote.customer, Order.customer, ...): the tenant's customers among `ids`, by id, in one statement.
 * Ids of another tenant, or of no customer, are simply absent. Checks customers:read.
 */
export async function customersByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof customerView>>> {
  requireScope(ctx, "customers:read");
  const t = requireTenant(ctx);
  if (ids.length === 0) return new Map();
  const rows = await ctx.db.customer.findMany({ where: { id: { in: [...ids] }, applicationId: t.applicationId, environmentId: t.environmentId } });
  return new Map(rows.map((r) => [r.id, customerView(r)]));
}

export async function getCustomer(ctx: Ctx, id: string) {
  requireScope(ctx, "customers:read");
  const row = await findCustomer(ctx, requireTenant(ctx), id);
  if (!row) throw errors.notFound("Customer");
  return row;
}

export async function getCustomerByExternalId(ctx: Ctx, externalId: string) {
  requireScope(ctx, "customers:read");
  const t = requireTenant(ctx);
  const parsed = externalIdSchema.safeParse(externalId);
  const row = parsed.success
    ? await ctx.db.customer.findFirst({ where: { applicationId: t.applicationId, environmentId: t.environmentId, externalId: parsed.data } })
    : null;
  if (!row) throw errors.notFound("Customer");
  return row;
}
