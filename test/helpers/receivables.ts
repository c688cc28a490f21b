// Shared by the receivables tests: checkouts on Net-N and card terms through REST, and the PDF's text (pdftotext).
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { termsHash } from "../../src/checkout/checkout-complete.service";
import type { client } from "./http";

type Api = ReturnType<typeof client>;
export const ADDRESS = { addressLine1: "1 Main St", city: "Springfield", postalCode: "12345", countryCode: "US" };
const TERMS = "Net terms: pay within the term of the invoice date.";
const PDFTOTEXT = "/usr/bin/pdftotext";

export function pdfText(bytes: Buffer): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "inv-"));
  const f = path.join(dir, "i.pdf");
  writeFileSync(f, bytes);
  return execFileSync(PDFTOTEXT, ["-layout", f, "-"], { encoding: "utf8" });
}

export async function cartWithLines(api: Api, key: string, email = "buyer@example.com") {
  const cart = await api("POST", "carts", { key, body: { customerEmail: email } });
  expect(cart.status).toBe(201);
  const id = cart.body.data.id as string;
  for (const [name, unitPrice, quantity] of [["Widget", 1500, 2], ["Gadget", 2500, 1], ["Setup", 10000, 1]] as const) {
    expect((await api("POST", `carts/${id}/items`, { key, body: { name, unitPrice, quantity, requiresShipping: false } })).status).toBe(201);
  }
  return id;
}

export async function openSession(api: Api, key: string, extra: Record<string, unknown> = {}, email?: string) {
  const r = await api("POST", "checkout/sessions", { key, body: { cartId: await cartWithLines(api, key, email), returnUrl: "https://shop.example.com/ok", cancelUrl: "https://shop.example.com/cancel", ...extra } });
  expect(r.status).toBe(201);
  return r.body.data.id as string;
}

export const acceptance = (billingEmail = "ap@acme.test") => ({ termsHash: termsHash(TERMS), acceptedAt: new Date().toISOString(), companyName: "Acme Corp", billingEmail });

/** A completed Net-N checkout: { orderId, paymentId }. */
export async function netCheckout(api: Api, key: string, netN = 10, billingEmail?: string) {
  const s = await openSession(api, key, { allowedMethods: ["net30"], paymentTerms: { netN } });
  const r = await api("POST", `checkout-sessions/${s}/complete`, { body: { paymentMethod: "net30", shippingAddress: ADDRESS, net30Acceptance: acceptance(billingEmail) } });
  expect(r.status).toBe(200);
  return r.body.data as { orderId: string; paymentId: string };
}

export async function cardCheckout(api: Api, key: string, token = "tok_visa", email?: string) {
  const s = await openSession(api, key, {}, email);
  const r = await api("POST", `checkout-sessions/${s}/complete`, { body: { paymentMethod: "card", paymentToken: token, shippingAddress: ADDRESS } });
  expect(r.status).toBe(200);
  return r.body.data as { orderId: string; paymentId: string; paymentStatus: string };
}

