// The processor interface a real card processor plugs into, and the built-in deterministic test processor
// (decisions.md part 5).
import { randomUUID } from "node:crypto";

/** How a checkout session collects payment (its allowedMethods); manual records add their own (payments.schema.ts). */
export const METHODS = ["card", "net30", "processor_proxy"] as const;

type ChargeOutcome = "captured" | "authorized" | "processing" | "failed";

interface ChargeRequest {
  amount: number;
  currency: string;
  paymentToken: string;
  /** our payment id: processors use it as their idempotency key */
  reference: string;
}

export interface ChargeResult {
  outcome: ChargeOutcome;
  processorPaymentId: string;
  errorCode?: string;
  errorMessage?: string;
}

interface Processor {
  readonly name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
  capture(processorPaymentId: string, amount: number): Promise<{ ok: boolean; errorCode?: string }>;
  refund(processorPaymentId: string, amount: number): Promise<{ ok: boolean; reference: string; errorCode?: string }>;
  void(processorPaymentId: string): Promise<{ ok: boolean }>;
}

export const TEST_TOKENS: Record<string, ChargeResult["outcome"]> = {
  tok_visa: "captured",
  tok_visa_authorize: "authorized",
  tok_card_declined: "failed",
  tok_3ds_required: "processing",
};

/**
 * The test processor's reference for a vaulted card (saved at a recurring checkout or through the wallet's vault
 * flow): charging it later behaves as the token it was vaulted from (tok_visa captures, tok_card_declined declines).
 */
export function testVaultReference(paymentToken: string) {
  return `testvault_${paymentToken}_${randomUUID()}`;
}
const VAULTED = /^testvault_(.+)_[0-9a-f-]{36}$/;

const testProcessor: Processor = {
  name: "test",
  async charge(req) {
    const outcome = TEST_TOKENS[VAULTED.exec(req.paymentToken)?.[1] ?? req.paymentToken];
    const processorPaymentId = `testpay_${randomUUID()}`;
    if (!outcome) return { outcome: "failed", processorPaymentId, errorCode: "invalid_payment_token", errorMessage: `Unknown test token "${req.paymentToken}"` };
    if (outcome === "failed") return { outcome, processorPaymentId, errorCode: "card_declined", errorMessage: "The card was declined" };
    return { outcome, processorPaymentId };
  },
  async capture() {
    return { ok: true };
  },
  async refund() {
    return { ok: true, reference: `testre_${randomUUID()}` };
  },
  async void() {
    return { ok: true };
  },
};

const PROCESSORS: Record<string, Processor> = { test: testProcessor };

/**
 * A refund of a payment: recorded (manual) payments, and imported ones, took their money outside any processor, so
 * it goes back the same way: the ledger records the refund, no processor is asked. A processor that throws is a
 * refused refund (the caller releases its claim), not a 500.
 */
export async function refundAtProcessor(p: { processor: string; processorPaymentId: string | null }, amount: number): Promise<{ ok: boolean; reference: string; errorCode?: string }> {
  if (p.processor === "manual") return { ok: true, reference: `manual_refund_${randomUUID()}` };
  try {
    return await processorFor(p.processor).refund(p.processorPaymentId ?? "", amount);
  } catch (e) {
    // a processor that is not configured, or one that failed in a way it could not answer: the operator must see it
    console.error(`[payments] the refund at processor "${p.processor}" failed:`, e instanceof Error ? e.message : e);
    return { ok: false, reference: "", errorCode: "refund_failed" };
  }
}

export function processorFor(name: string): Processor {
  const p = PROCESSORS[name];
  if (!p) throw new Error(`no processor "${name}"`);
  return p;
}
