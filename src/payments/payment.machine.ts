// Payment row states (commerce.md part 3) as data; every status write goes through move().
import { type Payment, Prisma } from "../generated/prisma/client";
import { columns } from "../db/prepared";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";
import { type OrderPaymentFacts, orderPaymentFactsJson } from "../orders/payment-facts";

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

export function canMove(from: string, to: PaymentStatus) {
  return (PAYMENT_TRANSITIONS[from as PaymentStatus] ?? []).includes(to);
}

/**
 * Moves a payment with a compare-and-set on its current status, so a racing change is never overwritten.
 * Returns the updated row; throws 409 payment_state_changed when the row moved under us.
 */
export async function movePayment(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment> = {}, ledger: LedgerEntry[] = []) {
  if (!canMove(p.status, to)) {
    throw new DomainError("invalid_payment_transition", 409, `A ${p.status} payment cannot become ${to}`, { from: p.status, to });
  }
  const [row] = ledger.length ? await moveWithLedger(ctx, p, to, data, ledger) : await ctx.db.payment.updateManyAndReturn({ where: { id: p.id, status: p.status }, data: { ...data, status: to } as any });
  if (!row) throw new DomainError("payment_state_changed", 409, "The payment changed while this request ran; retry");
  return row;
}

/**
 * movePayment with its ledger rows, and in the same statement the facts syncOrderAfterPayment needs about the payment's
 * order (null without an order), read as the move left them: one statement fewer for every payment that moves its
 * order (a checkout's capture among them).
 */
export async function movePaymentReadingOrder(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment>, ledger: LedgerEntry[]) {
  if (!canMove(p.status, to)) {
    throw new DomainError("invalid_payment_transition", 409, `A ${p.status} payment cannot become ${to}`, { from: p.status, to });
  }
  const [row] = await moveWithLedger(ctx, p, to, data, ledger, true);
  if (!row) throw new DomainError("payment_state_changed", 409, "The payment changed while this request ran; retry");
  const { _order: order, ...payment } = row as Payment & { _order: OrderPaymentFacts | null };
  return { payment: payment as Payment, order };
}

/** A row of the payment's ledger ("Transaction"), written with the move that it records. */
export interface LedgerEntry {
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
function moveWithLedger(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment>, ledger: LedgerEntry[], readOrder = false) {
  const sets = Object.entries({ ...data, status: to, updatedAt: ctx.clock.now() }).map(([column, v]) => {
    if (!/^[A-Za-z]+$/.test(column)) throw new Error(`movePayment: not a column name: ${column}`);
    const value = v !== null && typeof v === "object" && !(v instanceof Date) ? Prisma.sql`${JSON.stringify(v)}::jsonb` : Prisma.sql`${v ?? null}`;
    return Prisma.sql`${Prisma.raw(`"${column}"`)} = ${value}`;
  });
  return ctx.db.$queryRaw<Payment[]>`
    WITH p AS (
      UPDATE "Payment" SET ${Prisma.join(sets)} WHERE id = ${p.id}::uuid AND status = ${p.status} RETURNING ${columns(Prisma.PaymentScalarFieldEnum)}
    ), t AS (
      INSERT INTO "Transaction" (id, "paymentId", type, status, amount, currency, "processorReference", "createdAt")
      SELECT gen_random_uuid(), p.id, r.type, r.status, r.amount, r.currency, r."processorReference", r."createdAt"
      FROM p, jsonb_to_recordset(${JSON.stringify(ledger.map((e, n) => ({ ...e, n })))}::jsonb) AS r(type text, status text, amount int, currency text, "processorReference" text, "createdAt" timestamptz, n int)
      ORDER BY r.n
    )
    SELECT ${columns(Prisma.PaymentScalarFieldEnum)}${readOrder ? Prisma.sql`, ${orderPaymentFactsJson(Prisma.sql`p."orderId"`, "p")} AS "_order"` : Prisma.empty} FROM p`;
}
