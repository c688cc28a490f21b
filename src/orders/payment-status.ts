// The order's paymentStatus, rolled up from its payments (commerce.md part 3); never set directly.
type P = { status: string; capturedAmount: number; refundedAmount: number; disputed: boolean };

export function derivePaymentStatus(order: { total: number; compAmount: number }, payments: P[]): string {
  if (payments.some((p) => p.disputed)) return "disputed";
  const captured = payments.reduce((a, p) => a + p.capturedAmount, 0);
  const refunded = payments.reduce((a, p) => a + p.refundedAmount, 0);
  const owed = order.total - order.compAmount;
  if (captured > 0 && refunded >= captured) return "refunded";
  if (refunded > 0) return "partially_refunded";
  if (owed <= 0 || (captured > 0 && captured >= owed)) return "captured";
  if (captured > 0) return "partially_paid";
  const has = (s: string) => payments.some((p) => p.status === s);
  if (has("processing")) return "processing";
  if (has("authorized")) return "authorized";
  if (has("pending")) return "pending";
  if (payments.length === 0) return "pending";
  if (payments.every((p) => p.status === "failed")) return "failed";
  if (has("expired")) return "expired";
  if (has("voided")) return "voided";
  return "failed";
}
