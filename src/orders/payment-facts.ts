// What an order's payments add up to, as syncOrderAfterPayment (orders.service.ts) needs it, in SQL that a payment's
// move can carry: the move and this read in one statement (payment.machine.ts movePaymentReadingOrder).
import { Prisma } from "../generated/prisma/client";

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
export function orderPaymentFactsJson(orderId: Prisma.Sql, moved?: "p"): Prisma.Sql {
  const payments = moved
    ? Prisma.sql`SELECT q.status, q."capturedAmount", q."refundedAmount", q.disputed FROM "Payment" q WHERE q."orderId" = o.id AND q.id <> p.id
                 UNION ALL SELECT p.status, p."capturedAmount", p."refundedAmount", p.disputed`
    : Prisma.sql`SELECT q.status, q."capturedAmount", q."refundedAmount", q.disputed FROM "Payment" q WHERE q."orderId" = o.id`;
  return Prisma.sql`(SELECT json_build_object('id', o.id, 'status', o.status, 'paymentStatus', o."paymentStatus", 'applicationId', o."applicationId",
      'environmentId', o."environmentId", 'total', o.total, 'compAmount', o."compAmount",
      'payments', (SELECT COALESCE(json_agg(json_build_object('status', x.status, 'capturedAmount', x."capturedAmount", 'refundedAmount', x."refundedAmount", 'disputed', x.disputed)), '[]'::json)
                   FROM (${payments}) x),
      'needsShipping', EXISTS (SELECT 1 FROM "OrderLineItem" l WHERE l."orderId" = o.id AND l."requiresShipping"))
    FROM "Order" o WHERE o.id = ${orderId})`;
}
