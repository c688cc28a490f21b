// Payment row states (commerce.md part 3) as data; every status write goes through move().
import type { Payment } from "../generated/prisma/client";
import type { Ctx } from "../shared/context";
import { DomainError } from "../shared/errors";

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

export const TERMINAL: PaymentStatus[] = ["voided", "expired", "failed", "refunded"];

export function canMove(from: string, to: PaymentStatus) {
  return (PAYMENT_TRANSITIONS[from as PaymentStatus] ?? []).includes(to);
}

/**
 * Moves a payment with a compare-and-set on its current status, so a racing change is never overwritten.
 * Returns the updated row; throws 409 payment_state_changed when the row moved under us.
 */
export async function movePayment(ctx: Ctx, p: Pick<Payment, "id" | "status">, to: PaymentStatus, data: Partial<Payment> = {}) {
  if (!canMove(p.status, to)) {
    throw new DomainError("invalid_payment_transition", 409, `A ${p.status} payment cannot become ${to}`, { from: p.status, to });
  }
  const [row] = await ctx.db.payment.updateManyAndReturn({ where: { id: p.id, status: p.status }, data: { ...data, status: to } as any });
  if (!row) throw new DomainError("payment_state_changed", 409, "The payment changed while this request ran; retry");
  return row;
}
