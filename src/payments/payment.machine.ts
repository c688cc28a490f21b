// Payment row states (commerce.md part 3) as data; every status write goes through move().
import { type Payment, Prisma } from "../generated/prisma/client";
import { sql, type Updateable } from "kysely";
import { insertSelect } from "../db/insert-select";
import { runTemplate, slotsOf } from "../db/template";
import type { DB } from "../db/sql";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";
import { type OrderPaymentFacts, orderPaymentFactsJson } from "./payment-facts";

export type PaymentStatus = "pending" | "processing" | "authorized" | "captured" | "partially_refunded" | "refunded" | "failed" | "voided" | "expired";

export const PAYMENT_TRANSITIONS: Record<PaymentStatus, PaymentStatus[]> = {
  pending: ["processing", "authorized", "captured", "failed"],
  processing: ["authorized", "captured", "failed"],
  authorized: ["captured", "voided", "expired"],
  captured: ["refunded", "partially_refunded"],
  partially_refunded: ["partially_refunded", "refunded"],
  failed: ["failed"],
  refunded: [],
  voided: [],
  expired: [],
};

function canMove(from: string, to: PaymentStatus) {
  return (PAYMENT_TRANSITIONS[from as PaymentStatus] ?? []).includes(to);
}

/**
 * Moves a payment with a compare-and-set on its current status, so a racing change is never overwritten.
 * Returns the updated row; throws 409 payment_state_changed when the row moved under us.
 */
export async function movePayment(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment> = {}, ledger: LedgerEntry[] = []) {
  if (!canMove(p.status, to)) {
    throw new DomainError("invalid_payment_transition", `A ${p.status} payment cannot become ${to}`, { from: p.status, to });
  }
  const [row] = ledger.length ? await moveWithLedger(ctx, p, to, data, ledger) : await ctx.db.payment.updateManyAndReturn({ where: { id: p.id, status: p.status }, data: { ...data, status: to } as any });
  if (!row) throw new DomainError("payment_state_changed", "The payment changed while this request ran; retry");
  return row;
}

/**
 * movePayment with its ledger rows, and in the same statement the facts syncOrderAfterPayment needs about the payment's
 * order (null without an order), read as the move left them: one statement fewer for every payment that moves its
 * order (a checkout's capture among them).
 */
export async function movePaymentReadingOrder(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment>, ledger: LedgerEntry[]) {
  if (!canMove(p.status, to)) {
    throw new DomainError("invalid_payment_transition", `A ${p.status} payment cannot become ${to}`, { from: p.status, to });
  }
  const [row] = await moveWithLedger(ctx, p, to, data, ledger, true);
  if (!row) throw new DomainError("payment_state_changed", "The payment changed while this request ran; retry");
  const { _order: order, ...payment } = row as Payment & { _order: OrderPaymentFacts | null };
  return { payment: payment as Payment, order };
}

/** A row of the payment's ledger ("Transaction"), written with the move that it records. */
interface LedgerEntry {
  type: string;
  status: string;
  amount: number;
  currency: string;
  processorReference: string | null;
  createdAt: Date;
}

/**
 * The compare-and-set and its ledger rows in one statement (the ledger rows only if the payment moved; their seq in
 * the order given).
 */
function moveWithLedger(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment>, ledger: LedgerEntry[], readOrder = false): Promise<Payment[]> {
  // a JSON column's value is sent as its JSON text; an undefined field is not written
  const set = Object.fromEntries(
    Object.entries({ ...data, status: to, updatedAt: ctx.clock.now() })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, v !== null && typeof v === "object" && !(v instanceof Date) ? JSON.stringify(v) : v]),
  ) as Updateable<DB["Payment"]>;
  const values = { id: p.id, from: p.status, set, ledger };
  // compiled once per shape (src/db/template.ts): which columns move, the ledger rows' fields, the order's facts
  const key = `payment.move.${Object.keys(set).join(",")}.${ledger.map((e) => Object.keys(e).join("+")).join("|")}.${readOrder ? "order" : ""}`;
  return runTemplate(ctx.sql, key, values, (s, shape) => {
    const q = ctx.sql
      .with("p", (db) => db.updateTable("Payment").set(slotsOf(shape.set, "set")).where("id", "=", s.id).where("status", "=", s.from).returning(PAYMENT_COLUMNS))
      .with("t", (db) =>
        insertSelect(db, "Transaction", {
          data: shape.ledger.map((e, i) => slotsOf(e, `ledger.${i}`)),
          set: { id: sql`gen_random_uuid()`, paymentId: sql.ref("p.id") },
          from: ["p"],
          ordered: true,
        }).returning("id"),
      )
      .selectFrom("p")
      .select(PAYMENT_COLUMNS.map((c) => `p.${c}` as const));
    return readOrder ? q.select(orderPaymentFactsJson(sql.ref("p.orderId"), "p").as("_order")) : q;
  }).then((r) => r.rows as unknown as Payment[]);
}

/** Every column of a payment row, named (no `*`: src/db/prepared.ts). */
export const PAYMENT_COLUMNS = Object.values(Prisma.PaymentScalarFieldEnum) as (keyof DB["Payment"] & string)[];
