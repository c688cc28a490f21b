// What an order's payments add up to, as syncOrderAfterPayment (orders.service.ts) needs it, in SQL (Kysely) that a
// payment's move can carry: the move and this read in one statement (payment.machine.ts movePaymentReadingOrder).
import { type Expression, expressionBuilder, type RawBuilder, sql } from "kysely";
import type { DB } from "../db/sql";

export interface OrderPaymentFacts {
  id: string;
  status: string;
  paymentStatus: string;
  applicationId: string;
  environmentId: string;
  total: number;
  compAmount: number;
  payments: { status: string; capturedAmount: number; refundedAmount: number; disputed: boolean }[];
  needsShipping: boolean;
}

/**
 * The order `orderId` (an SQL expression) with its payments' facts and whether a line ships, as one JSON value (null
 * when there is no such order). `moved`: the alias of a payment row the same statement has just written (a CTE, in
 * scope where this is placed); a statement reads the table as it was when it began, so that payment's facts are read
 * from the row it wrote, and the order's other payments from the table.
 */
export function orderPaymentFactsJson(orderId: Expression<string | null>, moved?: "p"): RawBuilder<OrderPaymentFacts | null> {
  const eb = expressionBuilder<{ o: DB["Order"]; q: DB["Payment"]; p: DB["Payment"]; l: DB["OrderLineItem"] }, "o" | "q" | "p" | "l">();
  const facts = (t: "q" | "p") => sql`${eb.ref(`${t}.status`)}, ${eb.ref(`${t}.capturedAmount`)}, ${eb.ref(`${t}.refundedAmount`)}, ${eb.ref(`${t}.disputed`)}`;
  const others = sql`SELECT ${facts("q")} FROM ${sql.table("Payment")} q WHERE ${eb.ref("q.orderId")} = ${eb.ref("o.id")}`;
  const payments = moved ? sql`${others} AND ${eb.ref("q.id")} <> ${eb.ref("p.id")} UNION ALL SELECT ${facts("p")}` : others;
  return sql<OrderPaymentFacts | null>`(SELECT json_build_object('id', ${eb.ref("o.id")}, 'status', ${eb.ref("o.status")}, 'paymentStatus', ${eb.ref("o.paymentStatus")},
      'applicationId', ${eb.ref("o.applicationId")}, 'environmentId', ${eb.ref("o.environmentId")}, 'total', ${eb.ref("o.total")}, 'compAmount', ${eb.ref("o.compAmount")},
      'payments', (SELECT COALESCE(json_agg(json_build_object('status', x.status, 'capturedAmount', x."capturedAmount", 'refundedAmount', x."refundedAmount", 'disputed', x.disputed)), '[]'::json)
                   FROM (${payments}) x),
      'needsShipping', EXISTS (SELECT 1 FROM ${sql.table("OrderLineItem")} l WHERE ${eb.ref("l.orderId")} = ${eb.ref("o.id")} AND ${eb.ref("l.requiresShipping")}))
    FROM ${sql.table("Order")} o WHERE ${eb.ref("o.id")} = ${orderId})`;
}
