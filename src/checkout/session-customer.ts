// A checkout session's `customer` object (commerce.md part 4): `customerId` names an existing customer,
// `externalCustomerId` finds or creates the customer with that externalId, and email, names, phone and metadata create
// or update it, and its shipping and billing addresses are stored on the customer. Resolved when the session is created, in its transaction; the session then names the customer, whose
// the order, subscription and saved card become at completion. The addresses also stay the session's (they prefill the page).
import { sql } from "kysely";
import { randomUUID } from "node:crypto";
import type { Customer } from "../generated/prisma/client";
import { addressData, customerExists, findCustomer, findOrCreateCustomerByEmail } from "../customers/customers.service";
import { type Address, canonicalAddress } from "../shared/address";
import { type EventTenant, recordEvent } from "../events/events.service";
import { type Ctx, isUniqueViolation } from "../shared/context";
import { errors } from "../shared/errors";

interface SessionCustomer {
  customerId?: string;
  externalCustomerId?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
  shippingAddress?: Address;
  billingAddress?: Address;
  metadata?: Record<string, unknown>;
}

/** Whether the object identifies a customer to find, create or update (else the session writes no customer). */
export function identifiesCustomer(c: SessionCustomer | undefined, email: string | undefined): boolean {
  return Boolean(c && (c.customerId || c.externalCustomerId?.trim() || c.email || email));
}

/**
 * The customer the object names, created or updated with what it sends: one customer per externalId however many
 * sessions create it at once (a transaction-scoped lock on the externalId, and the unique constraint with a read of the
 * winner). An email that is another customer's answers 409 customer_already_exists (field email). Runs in the caller's
 * transaction; returns the customer's id.
 */
export async function resolveSessionCustomer(tx: Ctx, t: EventTenant, c: SessionCustomer, fallbackEmail: string | undefined): Promise<string> {
  const tenant = { applicationId: t.applicationId, environmentId: t.environmentId };
  const email = (c.email ?? fallbackEmail)?.trim().toLowerCase();
  const ext = c.externalCustomerId?.trim() || undefined;
  const name = c.firstName || c.lastName ? [c.firstName, c.lastName].filter(Boolean).join(" ").trim() : undefined;
  let row: Customer | null;
  if (c.customerId) {
    row = await findCustomer(tx, t, c.customerId);
    if (!row) throw errors.notFound("Customer");
  } else if (ext) {
    const key = `customer-ext:${t.applicationId}:${t.environmentId}:${ext}`;
    await tx.sql.selectNoFrom(sql<number>`(SELECT 1 FROM pg_advisory_xact_lock(hashtext(${key})))`.as("locked")).execute();
    const byExt = () => tx.db.customer.findFirst({ where: { ...tenant, externalId: ext } });
    const byEmail = () => (email ? tx.db.customer.findFirst({ where: { ...tenant, email } }) : Promise.resolve(null));
    row = (await byExt()) ?? (await byEmail());
    if (!row) {
      const [created] = await tx.db.customer.createManyAndReturn({
        data: [{ id: randomUUID(), ...tenant, externalId: ext, email: email ?? null, name: name ?? null, phone: c.phone ?? null, ...addressData(c), metadata: (c.metadata ?? {}) as object }],
        skipDuplicates: true,
      });
      if (created) {
        await recordEvent(tx, t, "customer.created", { customerId: created.id, email: created.email, externalId: created.externalId });
        return created.id;
      }
      // another request created this externalId or this email meanwhile: theirs is the customer
      row = (await byExt()) ?? (await byEmail());
      if (!row) throw new Error(`customer ${ext} neither inserted nor found`);
    }
  } else {
    // email only: the customer with it, created when missing (race-safe on the email's unique constraint)
    row = await findOrCreateCustomerByEmail(tx, { email: email!, name, phone: c.phone, shippingAddress: c.shippingAddress, billingAddress: c.billingAddress, metadata: c.metadata }, t);
  }
  // found by email while looking for an externalId: an email of a customer with another externalId is taken
  if (!c.customerId && ext && row.externalId && row.externalId !== ext) throw customerExists("email", row);
  return (await updateFromSession(tx, row, { ext, email, name, phone: c.phone, shippingAddress: c.shippingAddress, billingAddress: c.billingAddress, metadata: c.metadata })).id;
}

/** What the object sends, written onto the customer it names (only what differs; the metadata keys merge; an externalId only where none is set). */
async function updateFromSession(
  tx: Ctx,
  row: Customer,
  u: { ext?: string; email?: string; name?: string; phone?: string; shippingAddress?: Address; billingAddress?: Address; metadata?: Record<string, unknown> },
) {
  const data: Record<string, unknown> = {};
  if (u.ext && !row.externalId) data.externalId = u.ext;
  if (u.email && u.email !== row.email) data.email = u.email;
  if (u.name !== undefined && u.name !== row.name) data.name = u.name;
  if (u.phone !== undefined && u.phone !== row.phone) data.phone = u.phone;
  for (const k of ["shippingAddress", "billingAddress"] as const) {
    const a = u[k] ? canonicalAddress(u[k]) : null;
    if (a && JSON.stringify(a) !== JSON.stringify(canonicalAddress(row[k] as Address | null))) data[k] = a;
  }
  if (u.metadata && Object.entries(u.metadata).some(([k, v]) => JSON.stringify((row.metadata as Record<string, unknown>)?.[k]) !== JSON.stringify(v))) {
    data.metadata = { ...((row.metadata ?? {}) as object), ...u.metadata };
  }
  if (Object.keys(data).length === 0) return row;
  if (data.email) {
    const holder = await tx.db.customer.findFirst({ where: { applicationId: row.applicationId, environmentId: row.environmentId, email: data.email as string, NOT: { id: row.id } } });
    if (holder) throw customerExists("email", holder);
  }
  try {
    return await tx.db.customer.update({ where: { id: row.id }, data: { ...data, updatedAt: tx.clock.now() } });
  } catch (e) {
    // a concurrent request took the email or externalId between the check and the update (the transaction rolls back)
    if (isUniqueViolation(e)) throw customerExists(data.email ? "email" : "externalId");
    throw e;
  }
}
