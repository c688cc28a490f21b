// The one place Order rows are created: `insertOrderRows`, an INSERT … SELECT with typed rows (db/insert-select.ts),
// one row or many in one statement, on the caller's QueryCreator, so a caller composes it with the rest of its
// statement. Its callers: checkout (checkout/order-placement.ts, with the claim, lines, payment and outbox), a
// subscription charge (placeSubscriptionOrder below, registered with subscriptions/charge.ts by the composition
// root: orders is the higher layer) and the order import (imports/import.orders.ts, a batch's new orders at once).
// A renamed Order column, or a new required one none of them names, fails tsc here for all three.
import { randomUUID } from "node:crypto";
import { type Insertable, type QueryCreator, sql } from "kysely";
import type { DB } from "../db/sql";
import { type Computed, type InsertSelect, insertSelect } from "../db/insert-select";
import { recordEvent, tenantOf } from "../events/events.service";
import type { Ctx } from "../shared/context";
import type { SubscriptionOrder } from "../subscriptions/charge";

/** `INSERT INTO "Order" … SELECT …` of one row or many: the caller chains onConflict / returning. */
export function insertOrderRows<S extends Computed<"Order">>(qc: QueryCreator<any>, spec: InsertSelect<"Order", S>) {
  return insertSelect(qc, "Order", spec);
}

/** A new order's lines (the `o` CTE's order): id and orderId computed, the rest as given. */
export function insertOrderLines(qc: QueryCreator<any>, lines: Omit<Insertable<DB["OrderLineItem"]>, "id" | "orderId">[]) {
  return insertSelect(qc, "OrderLineItem", { data: lines, set: { id: sql`gen_random_uuid()`, orderId: sql.ref("o.id") }, from: ["o"] });
}

/** A new order's first history row (the `o` CTE's order, created pending by the state machine). */
export function insertFirstHistoryRow(qc: QueryCreator<any>, at: Date) {
  return insertSelect(qc, "OrderStatusHistory", {
    data: { fromStatus: null, toStatus: "pending", actorType: "system", source: "state_machine", createdAt: at },
    set: { id: sql`gen_random_uuid()`, orderId: sql.ref("o.id") },
    from: ["o"],
  });
}

/** The order of a subscription charge, its line, its first history row, linked to the payment: one statement. */
export async function placeSubscriptionOrder(tx: Ctx, a: SubscriptionOrder): Promise<string> {
  const { sub, line, purpose } = a;
  const at = tx.clock.now();
  const orderId = randomUUID();
  const subtotal = line.unitPrice * line.quantity;
  const total = subtotal - line.discountAmount;
  const source = purpose === "retry" ? "renewal" : purpose;
  await tx.sql
    .with("o", (db) =>
      insertOrderRows(db, {
        data: {
          id: orderId, applicationId: sub.applicationId, environmentId: sub.environmentId, customerId: sub.customerId, status: "pending", currency: sub.currency,
          subtotal, discountTotal: line.discountAmount, total, metadata: { subscriptionId: sub.id, purpose }, subscriptionId: sub.id, source, createdAt: at, updatedAt: at,
        },
        // the buyer's email: the one the charge was given, else the customer's
        set: { email: sql`COALESCE(${a.email ?? null}::text, ${db.selectFrom("Customer").select("Customer.email").where("Customer.id", "=", sub.customerId)})` },
      }).returning("id"),
    )
    .with("l", (db) =>
      insertOrderLines(db, [
        {
          type: "subscription", referenceId: sub.planReference, name: line.name, unitPrice: line.unitPrice, quantity: line.quantity, discountAmount: line.discountAmount,
          requiresShipping: false, metadata: { interval: sub.interval }, position: 0,
        },
      ]),
    )
    .with("h", (db) => insertFirstHistoryRow(db, at))
    .updateTable("Payment")
    .set((eb) => ({ orderId: eb.selectFrom("o").select("o.id") }))
    .where("id", "=", a.paymentId)
    .execute();
  await recordEvent(tx, await tenantOf(tx, sub), "order.created", { orderId, subscriptionId: sub.id, total, currency: sub.currency, customerId: sub.customerId, source });
  return orderId;
}
