// Customer rows: matched to an existing customer by externalId, else by email (the two must not point at two
// different customers); a match is updated with the file's non-empty values, anything else is created. One query
// reads the batch's matches, one statement creates its new customers; updates are one statement each. A dry run
// creates nothing, so it reads and records what it would have created as planned keys (import.planned.ts).
import { randomUUID } from "node:crypto";
import type { Prisma } from "../generated/prisma/client";
import { addNote, type BatchOutcome, emptyOutcome, type ImportHandler, type ImportSettings, type MappedRow, type RowError } from "./import.handler";
import { parseEmail, parseInteger, text } from "./import.values";
import type { Tx } from "../shared/context";
import type { Insertable } from "kysely";
import { bulkInsert } from "../shared/bulk-insert";
import type { DB } from "../db/sql";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { type PlannedKey, plannedKeys, planKeys } from "./import.planned";

export interface CustomerFields {
  email?: string;
  externalId?: string;
  name?: string;
  company?: string;
  phone?: string;
  netTermsDays?: number;
}

/** The customer fields of a row under `prefix` ("customer"); errors name the row's columns. */
export function parseCustomerFields(row: MappedRow, prefix = "customer"): { fields: CustomerFields; errors: RowError[] } {
  const errors: RowError[] = [];
  const fields: CustomerFields = {};
  const f = (k: string) => row.get(`${prefix}.${k}`);
  const fail = (k: string, code: string, message: string) => errors.push({ rowNumber: row.rowNumber, columnName: row.column(`${prefix}.${k}`), code, message });
  const email = f("email");
  if (email !== undefined) {
    const p = parseEmail(email);
    if (p.ok) fields.email = p.value;
    else fail("email", p.code, p.message);
  }
  // Shopify writes numeric ids with a leading apostrophe so spreadsheets keep them as text
  fields.externalId = text(f("externalId")?.replace(/^'(?=\d)/, ""), 200);
  const first = text(f("firstName"), 200);
  const last = text(f("lastName"), 200);
  fields.name = text(f("name"), 200) ?? (text([first, last].filter(Boolean).join(" "), 200) || undefined);
  fields.company = text(f("company"), 200);
  fields.phone = text(f("phone"), 50);
  const terms = f("netTermsDays");
  if (terms !== undefined) {
    const p = parseInteger(terms, 0, 365);
    if (p.ok) fields.netTermsDays = p.value;
    else fail("netTermsDays", p.code, p.message);
  }
  return { fields, errors };
}

type Known = { id: string; email: string | null; externalId: string | null };

/** Whether a known customer has an externalId other than `ext`. */
function otherExternalId(target: Known, ext: string): boolean {
  return target.externalId !== null && target.externalId !== ext;
}
type NewCustomer = CustomerFields & { id: string };

const customerRow = (s: ImportSettings, c: NewCustomer): Insertable<DB["Customer"]> => ({
  id: c.id,
  applicationId: s.applicationId,
  environmentId: s.environmentId,
  email: c.email ?? null,
  externalId: c.externalId ?? null,
  name: c.name ?? null,
  company: c.company ?? null,
  phone: c.phone ?? null,
  netTermsDays: c.netTermsDays ?? null,
  createdAt: s.now,
  updatedAt: s.now,
});

/**
 * Finds or creates customers for a list of parsed rows, in two statements plus one per update. Shared by the
 * customer import and the order import (which creates customers from billing or shipping details).
 */
export async function upsertCustomers(
  db: Tx,
  s: ImportSettings,
  items: { rowNumber: number; fields: CustomerFields; column: (k: string) => string | null }[],
  write: boolean,
  out: BatchOutcome,
  opts: { countRows: boolean } = { countRows: true },
): Promise<Map<number, string | null>> {
  const result = new Map<number, string | null>();
  const emails = [...new Set(items.map((i) => i.fields.email).filter((e): e is string => !!e))];
  const externalIds = [...new Set(items.map((i) => i.fields.externalId).filter((e): e is string => !!e))];
  const found: Known[] =
    emails.length || externalIds.length
      ? await db.customer.findMany({
          where: { applicationId: s.applicationId, environmentId: s.environmentId, OR: [...(emails.length ? [{ email: { in: emails } }] : []), ...(externalIds.length ? [{ externalId: { in: externalIds } }] : [])] },
          select: { id: true, email: true, externalId: true },
        })
      : [];
  // a dry run writes nothing, so what it "created" in earlier batches is read from its planned keys
  const planned = write ? new Map<string, PlannedKey>() : await plannedKeys(db, s.importId, [...emails.map((e) => `e:${e}`), ...externalIds.map((x) => `x:${x}`)]);
  const plan = new Map<string, PlannedKey>();
  const remember = (email: string | null, externalId: string | null, id: string) => {
    if (email) plan.set(`e:${email}`, { ref: id, ext: externalId });
    if (externalId) plan.set(`x:${externalId}`, { ref: id, ext: externalId });
  };
  const fromPlan = (key: "e" | "x", v: string): Known | undefined => {
    const p = planned.get(`${key}:${v}`);
    return p && { id: p.ref, email: key === "e" ? v : null, externalId: p.ext };
  };
  const byEmail = new Map<string, Known>();
  const byExt = new Map<string, Known>();
  for (const c of found) {
    if (c.email) byEmail.set(c.email, c);
    if (c.externalId) byExt.set(c.externalId, c);
  }
  const lookup = (key: "e" | "x", v: string | undefined) => (v ? ((key === "e" ? byEmail : byExt).get(v) ?? fromPlan(key, v)) : undefined);
  const creates: NewCustomer[] = [];
  const updates = new Map<string, Prisma.CustomerUpdateManyMutationInput>();
  for (const item of items) {
    const { fields } = item;
    const byX = lookup("x", fields.externalId);
    const byE = lookup("e", fields.email);
    if (byX && byE && byX.id !== byE.id) {
      out.errors.push({ rowNumber: item.rowNumber, columnName: item.column("email"), code: "identity_conflict", message: `email ${fields.email} belongs to another customer than externalId ${fields.externalId}` });
      if (opts.countRows) out.failed++;
      result.set(item.rowNumber, null);
      continue;
    }
    const target = byX ?? byE;
    if (target && fields.externalId && otherExternalId(target, fields.externalId)) {
      out.errors.push({ rowNumber: item.rowNumber, columnName: item.column("externalId"), code: "identity_conflict", message: `the customer with email ${fields.email} has another externalId than ${fields.externalId}` });
      if (opts.countRows) out.failed++;
      result.set(item.rowNumber, null);
      continue;
    }
    const data = {
      ...(fields.email ? { email: fields.email } : {}),
      ...(fields.externalId ? { externalId: fields.externalId } : {}),
      ...(fields.name ? { name: fields.name } : {}),
      ...(fields.company ? { company: fields.company } : {}),
      ...(fields.phone ? { phone: fields.phone } : {}),
      ...(fields.netTermsDays !== undefined ? { netTermsDays: fields.netTermsDays } : {}),
    };
    if (target) {
      result.set(item.rowNumber, target.id);
      if (opts.countRows) out.updated++;
      if (write) {
        updates.set(target.id, { ...(updates.get(target.id) ?? {}), ...data, updatedAt: s.now });
        out.records.push({ entityType: "customer", entityId: target.id, action: "updated", rowNumber: item.rowNumber });
      }
      // the row may add an email or externalId to the match: later rows find it by either
      const merged = { ...target, email: target.email ?? fields.email ?? null, externalId: target.externalId ?? fields.externalId ?? null };
      if (merged.email) byEmail.set(merged.email, merged);
      if (merged.externalId) byExt.set(merged.externalId, merged);
      if (!write && (merged.email !== target.email || merged.externalId !== target.externalId)) remember(merged.email, merged.externalId, target.id);
      continue;
    }
    const id = randomUUID();
    const k: Known = { id, email: fields.email ?? null, externalId: fields.externalId ?? null };
    if (k.email) byEmail.set(k.email, k);
    if (k.externalId) byExt.set(k.externalId, k);
    if (!write) remember(k.email, k.externalId, id);
    result.set(item.rowNumber, id);
    if (opts.countRows) out.created++;
    else addNote(out.notes, "customers_created", fields.email ?? fields.externalId ?? item.rowNumber);
    if (write) {
      creates.push({ id, ...fields });
      out.records.push({ entityType: "customer", entityId: id, action: "created", rowNumber: item.rowNumber });
    }
  }
  if (write) {
    await bulkInsert(sqlInPrisma(db), "Customer", creates.map((c) => customerRow(s, c)));
    for (const [id, data] of updates) await db.customer.update({ where: { id }, data });
  } else await planKeys(db, s.importId, plan);
  return result;
}

export const customerHandler: ImportHandler = {
  groupKey: () => null,
  async runBatch(db, s, groups, write) {
    const out = emptyOutcome();
    const items: Parameters<typeof upsertCustomers>[2] = [];
    for (const [row] of groups) {
      if (!row) continue;
      const { fields, errors } = parseCustomerFields(row);
      if (!errors.length && !fields.email && !fields.externalId) {
        errors.push({ rowNumber: row.rowNumber, columnName: row.column("customer.email"), code: "missing_required", message: "a customer row needs an email or an externalId" });
      }
      if (errors.length) {
        out.errors.push(...errors);
        out.failed++;
        continue;
      }
      items.push({ rowNumber: row.rowNumber, fields, column: (k) => row.column(`customer.${k}`) });
    }
    await upsertCustomers(db, s, items, write, out);
    return out;
  },
};
