// Order rows: consecutive rows with the same order number (order.externalId) are one order; its first row carries
// the order-level fields and every row may carry a line. Statuses are read in the vocabulary of the import's
// provider (Shopify, WooCommerce, or ours), and the commit rules turn them into the order's status, a captured
// `external` payment for paid orders, a completed fulfillment for fulfilled ones, and the cancelled, closed and
// completed dates. A batch costs a fixed number of statements whatever its size: one lookup of the batch's order
// numbers, one of its customers, then one createMany per table (orders, lines, payments, transactions,
// fulfillments, fulfillment lines, status history) and at most three bulk updates.
import { randomUUID } from "node:crypto";
import { type Insertable, type Selectable, sql } from "kysely";
import { Prisma } from "../generated/prisma/client";
import type { DB } from "../db/sql";
import { sqlInPrisma } from "../db/prisma-tx-dialect";
import { recordset } from "../shared/bulk-insert";
import { insertOrderRows } from "../orders/order-row";
import type { Tx } from "../shared/context";
import { upsertCustomers } from "./import.customers";
import { type BatchOutcome, emptyOutcome, type ImportHandler, type ImportSettings, type Notes, type RowError } from "./import.handler";
import { type PlannedKey, plannedKeys, planKeys } from "./import.planned";
import "./import.order-undo";
import { type Line, type ParsedOrder, orderNumber, parseLine, parseOrder } from "./import.order-rows";

// ---- the batch. Known: an order this pass wrote (or, in a dry run, would have); later rows of its number append lines to it.
interface Known {
  id: string;
  currency: string;
  lineCount: number;
  /** the fulfillment this import created for it, which appended shippable lines join */
  fulfillmentId: string | null;
}

interface Plan {
  id: string;
  parsed: ParsedOrder;
  /** null: a new order; else the existing order being rewritten */
  existing: Found | null;
  customerId: string | null;
  rows: number;
}

type Found = {
  id: string;
  externalId: string | null;
  status: string;
  paymentStatus: string;
  currency: string;
  _count: { lineItems: number; payments: number; fulfillments: number; returns: number };
  fulfillments: { id: string }[];
};

function note(notes: Notes, key: string, count: number, sample: string) {
  const n = (notes[key] ??= { count: 0, sample: [] });
  n.count += count;
  if (n.sample.length < 10 && !n.sample.includes(sample)) n.sample.push(sample);
}

export const orderHandler: ImportHandler = {
  groupKey: orderNumber,
  async runBatch(db, s, groups, write) {
    const out = emptyOutcome();

    // one lookup for the batch's order numbers, one for which of them this import already wrote (a commit: they
    // are in the database) or would have written (a dry run: its planned keys)
    const numbers = [...new Set(groups.map((g) => orderNumber(g[0]!)).filter((n): n is string => !!n))];
    const found: Found[] = numbers.length
      ? await db.order.findMany({
          where: { applicationId: s.applicationId, environmentId: s.environmentId, externalId: { in: numbers } },
          select: {
            id: true,
            externalId: true,
            status: true,
            paymentStatus: true,
            currency: true,
            _count: { select: { lineItems: true, payments: true, fulfillments: true, returns: true } },
            fulfillments: { select: { id: true }, orderBy: { createdAt: "asc" }, take: 1 },
          },
        })
      : [];
    const byNumber = new Map(found.map((f) => [f.externalId!, f]));
    // the orders this commit wrote in earlier batches (or before a crash), and the fulfillments it gave them
    const ours = new Set(
      write && found.length
        ? (
            await db.importRecord.findMany({
              where: { importId: s.importId, entityType: { in: ["order", "fulfillment"] }, entityId: { in: found.flatMap((f) => [f.id, ...f.fulfillments.map((x) => x.id)]) } },
              select: { entityId: true },
            })
          ).map((r) => r.entityId)
        : [],
    );
    const planned = write ? new Map<string, PlannedKey>() : await plannedKeys(db, s.importId, numbers.map((n) => `o:${n}`));
    const earlierOrder = (number: string, f: Found | undefined): Known | undefined => {
      if (!write) {
        const p = planned.get(`o:${number}`);
        return p && { id: "", currency: p.ref, lineCount: 0, fulfillmentId: null };
      }
      if (!f || !ours.has(f.id)) return undefined;
      const fulfillment = f.fulfillments[0];
      return { id: f.id, currency: f.currency, lineCount: f._count.lineItems, fulfillmentId: fulfillment && ours.has(fulfillment.id) ? fulfillment.id : null };
    };

    const plans = new Map<string, Plan>(); // by order number: orders created or rewritten in this batch
    const appendTo = new Map<string, { known: Known; lines: Line[] }>(); // orders written in earlier batches
    for (const group of groups) {
      const first = group[0]!;
      const number = orderNumber(first);
      const errors: RowError[] = [];
      const failGroup = () => {
        out.errors.push(...errors);
        const bad = new Set(errors.map((e) => e.rowNumber));
        for (const r of group) {
          if (bad.has(r.rowNumber)) out.failed++;
          else out.skipped++;
        }
      };
      if (!number) {
        errors.push({ rowNumber: first.rowNumber, columnName: first.column("order.externalId"), code: "missing_required", message: "a row needs an order number" });
        failGroup();
        continue;
      }
      const inBatch = plans.get(number);
      const f = byNumber.get(number);
      const earlier = earlierOrder(number, f);
      if (inBatch || earlier) {
        // rows of an order this import already wrote (not next to its first rows): their lines are appended
        const currency = inBatch ? inBatch.parsed.currency : earlier!.currency;
        const lines: Line[] = [];
        for (const row of group) {
          const l = parseLine(row, currency, errors);
          if (l) lines.push(l);
        }
        if (errors.length) {
          failGroup();
          continue;
        }
        if (inBatch) inBatch.parsed.lines.push(...lines);
        else {
          const a = appendTo.get(number) ?? { known: earlier!, lines: [] };
          a.lines.push(...lines);
          appendTo.set(number, a);
        }
        out.skipped += group.length;
        note(out.notes, "rows_appended", group.length, number);
        continue;
      }
      const parsed = parseOrder(group, s, errors);
      if (!parsed) {
        failGroup();
        continue;
      }
      if (f && f._count.payments > 0 && parsed.currency !== f.currency) {
        errors.push({ rowNumber: first.rowNumber, columnName: first.column("order.currency"), code: "invalid_currency", message: `order ${number} already exists with payments in ${f.currency}, not ${parsed.currency}` });
        failGroup();
        continue;
      }
      plans.set(number, { id: f?.id ?? randomUUID(), parsed, existing: f ?? null, customerId: null, rows: group.length });
      if (f) {
        out.updated++;
        note(out.notes, "orders_rewritten", 1, number);
      } else out.created++;
      out.skipped += group.length - 1;
    }

    await resolveCustomers(db, s, [...plans.values()], write, out);

    // totals, and what each order gets: a payment when paid, a fulfillment when fulfilled
    const orderRows: Insertable<DB["Order"]>[] = [];
    const rewrites: Partial<Selectable<DB["Order"]>>[] = [];
    const lineRows: Prisma.OrderLineItemCreateManyInput[] = [];
    const replaceLinesOf: string[] = [];
    const payments: Prisma.PaymentCreateManyInput[] = [];
    const transactions: Prisma.TransactionCreateManyInput[] = [];
    const fulfillments: Prisma.FulfillmentCreateManyInput[] = [];
    const fulfillmentLines: Prisma.FulfillmentLineCreateManyInput[] = [];
    const history: Prisma.OrderStatusHistoryCreateManyInput[] = [];
    for (const plan of plans.values()) {
      const { parsed: p, existing } = plan;
      const linesSum = p.lines.reduce((a, l) => a + l.unitPrice * l.quantity, 0);
      const subtotal = p.lines.length ? linesSum : (p.fileSubtotal ?? 0);
      const expected = subtotal - p.discount + p.shipping + p.tax;
      const total = p.fileTotal ?? expected;
      if (p.fileTotal !== undefined && p.fileTotal !== expected) note(out.notes, "total_mismatches", 1, p.number);
      const status = p.statuses.status;
      const fulfilled = p.statuses.fulfillment === "fulfilled";
      const hasPayments = (existing?._count.payments ?? 0) > 0;
      const hasFulfillments = (existing?._count.fulfillments ?? 0) + (existing?._count.returns ?? 0) > 0;
      const writePayment = p.statuses.payment === "captured" && !hasPayments && total > 0;
      const keepLines = !!existing && hasFulfillments; // lines that fulfillments or returns point at stay
      const shippable = keepLines ? [] : p.lines.filter((l) => l.requiresShipping);
      const fulfillmentId = fulfilled && !hasFulfillments && shippable.length ? randomUUID() : null;
      const dates = {
        cancelledAt: status === "cancelled" ? p.date : null,
        closedAt: status === "closed" ? p.date : null,
        completedAt: status === "fulfilled" || (status === "closed" && fulfilled) ? p.date : null,
      };
      const paymentStatus = hasPayments ? existing!.paymentStatus : p.statuses.payment;
      if (!write) continue;
      const fields = {
        customerId: plan.customerId,
        email: p.email,
        status,
        paymentStatus,
        currency: p.currency,
        subtotal,
        taxTotal: p.tax,
        shippingTotal: p.shipping,
        discountTotal: p.discount,
        total,
        notes: p.notes ?? null,
        ...dates,
      };
      if (existing) {
        rewrites.push({ id: plan.id, ...fields, billingAddress: p.billingAddress, shippingAddress: p.shippingAddress, createdAt: p.date });
        out.records.push({ entityType: "order", entityId: plan.id, action: "updated", rowNumber: p.rowNumber });
        if (existing.status !== status) history.push({ orderId: plan.id, fromStatus: existing.status, toStatus: status, actorType: "system", reason: "rewritten by an import", source: "migration", createdAt: s.now });
        if (!keepLines) replaceLinesOf.push(plan.id);
      } else {
        orderRows.push({
          id: plan.id,
          applicationId: s.applicationId,
          environmentId: s.environmentId,
          ...fields,
          ...(p.billingAddress ? { billingAddress: p.billingAddress } : {}),
          ...(p.shippingAddress ? { shippingAddress: p.shippingAddress } : {}),
          source: "import",
          importId: s.importId,
          externalId: p.number,
          createdAt: p.date,
          updatedAt: s.now,
        });
        out.records.push({ entityType: "order", entityId: plan.id, action: "created", rowNumber: p.rowNumber });
        history.push({ orderId: plan.id, fromStatus: null, toStatus: status, actorType: "system", reason: "imported", source: "migration", createdAt: p.date });
      }
      if (!keepLines) {
        p.lines.forEach((l, i) => {
          const lineId = randomUUID();
          const handed = fulfillmentId && l.requiresShipping ? l.quantity : 0;
          lineRows.push({ id: lineId, orderId: plan.id, name: l.name, referenceId: l.sku, unitPrice: l.unitPrice, quantity: l.quantity, requiresShipping: l.requiresShipping, position: i, fulfilledQuantity: handed });
          if (handed) fulfillmentLines.push({ fulfillmentId: fulfillmentId!, lineItemId: lineId, quantity: l.quantity });
        });
      }
      if (writePayment) {
        const paymentId = randomUUID();
        payments.push({
          id: paymentId,
          applicationId: s.applicationId,
          environmentId: s.environmentId,
          orderId: plan.id,
          status: "captured",
          amount: total,
          currency: p.currency,
          method: "external",
          processor: "manual",
          authorizedAmount: total,
          capturedAmount: total,
          receivedAt: p.date,
          recordedBy: "import",
          metadata: { importId: s.importId },
          createdAt: p.date,
          updatedAt: s.now,
        });
        transactions.push({ paymentId, type: "capture", status: "succeeded", amount: total, currency: p.currency, createdAt: p.date });
        out.records.push({ entityType: "payment", entityId: paymentId, action: "created", rowNumber: p.rowNumber });
      }
      if (fulfillmentId) {
        fulfillments.push({ id: fulfillmentId, applicationId: s.applicationId, environmentId: s.environmentId, orderId: plan.id, status: "completed", hasShipment: false, note: "imported", createdAt: p.date, updatedAt: s.now });
        out.records.push({ entityType: "fulfillment", entityId: fulfillmentId, action: "created", rowNumber: p.rowNumber });
      }
    }

    // lines appended to orders written by earlier batches; their totals follow unless the file gives them
    const totalsAdd: { id: string; add: number }[] = [];
    for (const { known, lines } of appendTo.values()) {
      let add = 0;
      for (const l of lines) {
        const lineId = randomUUID();
        const handed = known.fulfillmentId && l.requiresShipping ? l.quantity : 0;
        if (write) lineRows.push({ id: lineId, orderId: known.id, name: l.name, referenceId: l.sku, unitPrice: l.unitPrice, quantity: l.quantity, requiresShipping: l.requiresShipping, position: known.lineCount++, fulfilledQuantity: handed });
        else known.lineCount++;
        if (write && handed) fulfillmentLines.push({ fulfillmentId: known.fulfillmentId!, lineItemId: lineId, quantity: l.quantity });
        add += l.unitPrice * l.quantity;
      }
      if (add) totalsAdd.push({ id: known.id, add });
    }
    if (!write) {
      await planKeys(db, s.importId, new Map([...plans.values()].map((p) => [`o:${p.parsed.number}`, { ref: p.parsed.currency, ext: null }])));
      return out;
    }
    const sqlTx = sqlInPrisma(db);
    if (orderRows.length) await insertOrderRows(sqlTx, { data: orderRows }).execute();
    if (rewrites.length) await rewriteOrders(db, rewrites, s.now);
    if (replaceLinesOf.length) await db.orderLineItem.deleteMany({ where: { orderId: { in: replaceLinesOf } } });
    if (lineRows.length) await db.orderLineItem.createMany({ data: lineRows });
    if (totalsAdd.length) {
      // the subtotal is the sum of the lines; the total too, unless the file gives the order's total
      const totalFromFile = groups[0]![0]!.column("order.total") !== null;
      const added = () => sql<{ id: string; add: number }>`jsonb_to_recordset(${JSON.stringify(totalsAdd)}::jsonb)`.as<"x">(sql`x("id" uuid, "add" int)`);
      await sqlTx
        .updateTable("Order as o")
        .from(added())
        .set((eb) => ({
          subtotal: eb("o.subtotal", "+", eb.ref("x.add")),
          total: totalFromFile ? eb.ref("o.total") : eb("o.total", "+", eb.ref("x.add")),
          updatedAt: s.now,
        }))
        .whereRef("o.id", "=", "x.id")
        .execute();
      if (!totalFromFile) {
        // the import's own captured payment paid the whole order: it grows with it (amount and capture row)
        await sqlTx
          .updateTable("Transaction as t")
          .from(["Payment as p", added()])
          .set((eb) => ({ amount: eb("t.amount", "+", eb.ref("x.add")) }))
          .whereRef("t.paymentId", "=", "p.id")
          .where("t.type", "=", "capture")
          .whereRef("p.orderId", "=", "x.id")
          .where(sql`${sql.ref("p.metadata")}->>'importId'`, "=", s.importId)
          .execute();
        await sqlTx
          .updateTable("Payment as p")
          .from(added())
          .set((eb) => ({
            amount: eb("p.amount", "+", eb.ref("x.add")),
            authorizedAmount: eb("p.authorizedAmount", "+", eb.ref("x.add")),
            capturedAmount: eb("p.capturedAmount", "+", eb.ref("x.add")),
            updatedAt: s.now,
          }))
          .whereRef("p.orderId", "=", "x.id")
          .where(sql`${sql.ref("p.metadata")}->>'importId'`, "=", s.importId)
          .execute();
      }
    }
    if (payments.length) {
      await db.payment.createMany({ data: payments });
      await db.transaction.createMany({ data: transactions });
    }
    if (fulfillments.length) await db.fulfillment.createMany({ data: fulfillments });
    if (fulfillmentLines.length) await db.fulfillmentLine.createMany({ data: fulfillmentLines });
    if (history.length) await db.orderStatusHistory.createMany({ data: history });
    return out;
  },
};

/** Orders of another source rewritten from the file, in one statement. */
async function rewriteOrders(db: Tx, rows: Partial<Selectable<DB["Order"]>>[], now: Date) {
  await sqlInPrisma(db)
    .updateTable("Order as o")
    .from(recordset("Order", rows, "x"))
    .set((eb) => ({
      customerId: eb.ref("x.customerId"),
      email: eb.ref("x.email"),
      status: eb.ref("x.status"),
      paymentStatus: eb.ref("x.paymentStatus"),
      currency: eb.ref("x.currency"),
      subtotal: eb.ref("x.subtotal"),
      taxTotal: eb.ref("x.taxTotal"),
      shippingTotal: eb.ref("x.shippingTotal"),
      discountTotal: eb.ref("x.discountTotal"),
      total: eb.ref("x.total"),
      notes: eb.ref("x.notes"),
      billingAddress: eb.ref("x.billingAddress"),
      shippingAddress: eb.ref("x.shippingAddress"),
      cancelledAt: eb.ref("x.cancelledAt"),
      closedAt: eb.ref("x.closedAt"),
      completedAt: eb.ref("x.completedAt"),
      createdAt: eb.ref("x.createdAt"),
      updatedAt: now,
    }))
    .whereRef("o.id", "=", "x.id")
    .execute();
}

/**
 * Customers of the batch's orders: found by email (one query); missing ones created from the order's contact
 * details when the mapping says createMissingCustomers (a `customers_created` note, not a row count).
 */
async function resolveCustomers(db: Tx, s: ImportSettings, plans: Plan[], write: boolean, out: BatchOutcome) {
  const wanted = plans.filter((p) => p.parsed.email && !p.parsed.guest);
  const emails = [...new Set(wanted.map((p) => p.parsed.email!))];
  if (!emails.length) return;
  const known = await db.customer.findMany({ where: { applicationId: s.applicationId, environmentId: s.environmentId, email: { in: emails } }, select: { id: true, email: true } });
  const byEmail = new Map(known.map((c) => [c.email!, c.id]));
  if (s.createMissingCustomers) {
    const items: Parameters<typeof upsertCustomers>[2] = [];
    const seen = new Set<string>();
    for (const p of wanted) {
      const e = p.parsed.email!;
      if (byEmail.has(e) || seen.has(e)) continue;
      seen.add(e);
      items.push({ rowNumber: p.parsed.rowNumber, fields: p.parsed.customer, column: () => null });
    }
    if (items.length) {
      const ids = await upsertCustomers(db, s, items, write, out, { countRows: false });
      for (const item of items) {
        const id = ids.get(item.rowNumber);
        if (id) byEmail.set(item.fields.email!, id);
      }
    }
  }
  for (const p of wanted) p.customerId = byEmail.get(p.parsed.email!) ?? null;
}
