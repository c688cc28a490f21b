// The payment-row table of commerce.md part 3 against PAYMENT_TRANSITIONS, every (from, to) pair, through movePayment
// on a real row (the compare-and-set); and derivePaymentStatus against every case of the derived table.
import { derivePaymentStatus } from "../src/orders/payment-status";
import { movePayment, PAYMENT_TRANSITIONS, type PaymentStatus } from "../src/payments/payment.machine";
import { makeCtx } from "../src/shared/context";
import { DomainError } from "../src/shared/errors";
import { startTestApp, type TestApp } from "./helpers/app";

const STATUSES: PaymentStatus[] = ["pending", "processing", "authorized", "captured", "partially_refunded", "refunded", "failed", "voided", "expired"];

/** The table as the specification writes it: from -> to (trigger). */
const SPEC: [PaymentStatus, PaymentStatus, string][] = [
  ["pending", "processing", "provider needs more time"],
  ["pending", "authorized", "provider or Net30 authorizes"],
  ["pending", "failed", "provider declines / mark-failed"],
  ["processing", "authorized", "challenge cleared"],
  ["processing", "captured", "settled"],
  ["processing", "failed", "abandoned or declined / mark-failed"],
  ["authorized", "captured", "capture"],
  ["authorized", "voided", "void before capture"],
  ["authorized", "expired", "authorization outlives its TTL"],
  ["captured", "refunded", "full refund"],
  ["captured", "partially_refunded", "partial refund"],
  ["partially_refunded", "refunded", "refunds reach full"],
  ["failed", "failed", "mark-failed on a failed payment"],
];
/**
 * Moves the service makes that the table implies without a row of its own: a charge approved and captured in one
 * step (tok_visa, a recorded manual payment) and a further partial refund.
 */
const IMPLIED: [PaymentStatus, PaymentStatus, string][] = [
  ["pending", "captured", "approved and captured at once (tok_visa, recorded payments)"],
  ["partially_refunded", "partially_refunded", "another partial refund"],
];
const ALLOWED = new Set([...SPEC, ...IMPLIED].map(([f, to]) => `${f}->${to}`));

let t: TestApp;
let tenant: { applicationId: string; environmentId: string };
beforeAll(async () => {
  t = (await startTestApp())!;
  const demo = await t.bootstrap();
  tenant = { applicationId: demo.applicationId, environmentId: demo.environments.sandbox.id };
});
afterAll(() => t?.close());

describe("payment rows", () => {
  const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to, ALLOWED.has(`${from}->${to}`)] as const));

  test("the terminal states have no way out", () => {
    for (const s of ["voided", "expired", "refunded"] as PaymentStatus[]) expect(PAYMENT_TRANSITIONS[s]).toEqual([]);
    expect(PAYMENT_TRANSITIONS.failed).toEqual(["failed"]);
  });

  test.each(pairs)("%s -> %s allowed: %s", async (from, to, allowed) => {
    expect(PAYMENT_TRANSITIONS[from].includes(to)).toBe(allowed);
    const row = await t.deps.prisma.payment.create({ data: { ...tenant, amount: 100, currency: "USD", method: "card", processor: "test", status: from } });
    const ctx = makeCtx(t.deps);
    if (allowed) {
      const moved = await movePayment(ctx, row, to);
      expect(moved.status).toBe(to);
      // the compare-and-set: the same move from the stale row is refused unless it is a self-loop
      if (from !== to) await expect(movePayment(ctx, row, to)).rejects.toMatchObject({ code: "payment_state_changed" });
    } else {
      const err = await movePayment(ctx, row, to).catch((e) => e);
      expect(err).toBeInstanceOf(DomainError);
      expect(err.code).toBe("invalid_payment_transition");
      expect((await t.deps.prisma.payment.findUniqueOrThrow({ where: { id: row.id } })).status).toBe(from);
    }
  });
});

describe("derivePaymentStatus: every case of the derived table", () => {
  const p = (status: string, o: Partial<{ capturedAmount: number; refundedAmount: number; disputed: boolean }> = {}) => ({ status, capturedAmount: 0, refundedAmount: 0, disputed: false, ...o });
  const order = { total: 1000, compAmount: 0 };
  const cases: [string, { total: number; compAmount: number }, ReturnType<typeof p>[], string][] = [
    ["nothing arrived", order, [], "pending"],
    ["a pending attempt", order, [p("pending")], "pending"],
    ["authorized", order, [p("authorized")], "authorized"],
    ["in flight at the provider", order, [p("processing")], "processing"],
    ["in flight beats a failed attempt", order, [p("failed"), p("processing")], "processing"],
    ["part arrived", order, [p("captured", { capturedAmount: 400 })], "partially_paid"],
    ["part arrived, rest invoiced", order, [p("captured", { capturedAmount: 400 }), p("authorized")], "partially_paid"],
    ["everything arrived", order, [p("captured", { capturedAmount: 1000 })], "captured"],
    ["fully comped reads captured", { total: 1000, compAmount: 1000 }, [], "captured"],
    ["comped after a part arrived", { total: 1000, compAmount: 600 }, [p("captured", { capturedAmount: 400 }), p("voided")], "captured"],
    ["partially refunded", order, [p("partially_refunded", { capturedAmount: 1000, refundedAmount: 300 })], "partially_refunded"],
    ["refunded", order, [p("refunded", { capturedAmount: 1000, refundedAmount: 1000 })], "refunded"],
    ["every attempt declined, none in flight", order, [p("failed"), p("failed")], "failed"],
    ["a failed attempt while another is pending is not failed", order, [p("failed"), p("pending")], "pending"],
    ["voided", order, [p("voided")], "voided"],
    ["expired", order, [p("expired")], "expired"],
    ["disputed outranks captured", order, [p("captured", { capturedAmount: 1000, disputed: true })], "disputed"],
    ["disputed outranks refunded", order, [p("partially_refunded", { capturedAmount: 1000, refundedAmount: 100, disputed: true })], "disputed"],
  ];
  test.each(cases)("%s", (_name, o, payments, want) => {
    expect(derivePaymentStatus(o, payments)).toBe(want);
  });
});
