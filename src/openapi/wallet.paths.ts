// OpenAPI paths of the saved-card wallet (src/wallet/wallet.rest.ts), registered by document.ts. The /me/* routes
// take the wallet client token (X-Service-PM-Token), not a key.
import { z } from "zod";
import { clientTokenInput } from "../wallet/pm-tokens.service";
import { attachCardInput, confirmInput, setDefaultInput } from "../wallet/saved-cards.service";
import type { Register } from "./operation";

const ts = z.iso.datetime();

export const SavedCard = z
  .object({
    id: z.string().meta({ description: "cpm_…" }),
    methodType: z.literal("card"),
    cardBrand: z.string(),
    cardLastFour: z.string(),
    cardExpMonth: z.number().int(),
    cardExpYear: z.number().int(),
    isDefault: z.boolean(),
    isActive: z.boolean(),
    chargeable: z.boolean().meta({ description: "false for merchant-attached record-keeping cards: renewals cannot charge them" }),
    source: z.enum(["checkout", "vault", "merchant"]),
    createdAt: ts,
  })
  .meta({ id: "SavedCard" });

const ClientToken = z
  .object({
    token: z.string().nullable().meta({ description: "pmt_…, shown once; null on an Idempotency-Key replay" }),
    expiresAt: ts,
    customerId: z.string(),
    subscriptionId: z.string().nullable(),
    updateCardUrl: z.string().nullable().meta({ description: "The hosted update-card page (with a subscription); it carries the token: null without a subscription and on an Idempotency-Key replay" }),
  })
  .meta({ id: "WalletClientToken" });

const VaultSession = z
  .object({
    embedToken: z.string().nullable().meta({ description: "emb_… shown once; null on an Idempotency-Key replay" }),
    checkoutSessionId: z.string(),
    amount: z.literal(0),
    currency: z.string(),
    processorInstanceId: z.string().nullable(),
    merchantAccountId: z.string(),
    environment: z.string(),
    hostedUrl: z.string(),
    embedUrl: z.string(),
    expiresAt: ts,
  })
  .meta({ id: "WalletVaultSession" });

const CardRef = z.object({ id: z.string(), cardBrand: z.string(), cardLastFour: z.string(), cardExpMonth: z.number().int(), cardExpYear: z.number().int() });
const BuyerSubscription = z
  .object({
    id: z.string(),
    status: z.string(),
    planReference: z.string(),
    planName: z.string().nullable(),
    amount: z.number().int(),
    quantity: z.number().int(),
    currency: z.string(),
    interval: z.string(),
    currentPeriodEnd: ts.nullable(),
    failureCount: z.number().int(),
    cancelAtPeriodEnd: z.boolean(),
    paymentMethod: CardRef.nullable(),
    pendingPlanReference: z.string().nullable(),
    pendingPlanName: z.string().nullable(),
    pendingInterval: z.string().nullable(),
    pendingAmount: z.number().int().nullable(),
    pendingQuantity: z.number().int().nullable(),
  })
  .meta({ id: "BuyerSubscription" });

type Reg = Register;

export function registerWallet(r: Reg) {
  const tag = "wallet";
  const card = { customerId: "Customer", id: "Saved card (cpm_…)" };
  r("post", "/payment-methods/client-token", { tag, summary: "Mint a wallet client token for a customer (customer_payment_methods:write)", body: clientTokenInput, ok: [201, ClientToken] });
  r("get", "/customers/{id}/payment-methods", { tag, summary: "A customer's saved methods (customer_payment_methods:read or customers:read)", params: { id: "Customer" }, ok: [200, z.array(SavedCard)] });
  r("post", "/customers/{id}/payment-methods", { tag, summary: "Attach a record-keeping card (not chargeable)", params: { id: "Customer" }, body: attachCardInput, ok: [201, SavedCard] });
  r("post", "/customers/{customerId}/payment-methods/{id}/pause", { tag, summary: "Pause a saved method (renewals skip it)", params: card, ok: [200, SavedCard] });
  r("post", "/customers/{customerId}/payment-methods/{id}/resume", { tag, summary: "Resume a paused saved method", params: card, ok: [200, SavedCard] });
  r("get", "/me/payment-methods", { tag, pmToken: true, summary: "The buyer's saved cards (X-Service-PM-Token)", ok: [200, z.array(SavedCard)] });
  r("post", "/me/payment-methods/embed-token", { tag, pmToken: true, summary: "A zero-amount vault session to add a card (X-Service-PM-Token)", ok: [201, VaultSession] });
  r("post", "/me/payment-methods/confirm", { tag, pmToken: true, summary: "Vault the card of a vault session (X-Service-PM-Token)", body: confirmInput, ok: [201, SavedCard] });
  r("patch", "/me/payment-methods/{id}", { tag, pmToken: true, summary: "Make this card the default (X-Service-PM-Token)", params: { id: "Saved card (cpm_…)" }, body: setDefaultInput, ok: [200, SavedCard] });
  r("delete", "/me/payment-methods/{id}", { errors: ["cannot_remove_default"], tag, pmToken: true, summary: "Remove a card (X-Service-PM-Token)", params: { id: "Saved card (cpm_…)" }, ok: [200, z.object({ id: z.string() })] });
  r("get", "/me/subscriptions/{id}", { tag, pmToken: true, summary: "The buyer's subscription (X-Service-PM-Token)", params: { id: "Subscription" }, ok: [200, BuyerSubscription] });
  r("post", "/me/subscriptions/{id}/retry-charge", { errors: ["invalid_state", "conflict", "payment_failed"],
    tag,
    pmToken: true,
    summary: "Charge a past-due subscription again on the default card now (X-Service-PM-Token); 422 invalid_state when not past due, 409 conflict while a renewal runs",
    params: { id: "Subscription" },
    ok: [200, BuyerSubscription.extend({ charged: z.boolean() })],
  });
}
