// GraphQL for the merchant side of the wallet: client tokens and a customer's saved methods. The buyer's /me/*
// routes are REST only (the PM token is refused on GraphQL). Same services and views as REST.
import { builder } from "../graphql/builder";
import { revealed } from "../shared/secrets";
import { mintClientToken } from "./pm-tokens.service";
import { attachCustomerCard, listCustomerCards, savedCardView, setCustomerCardActive } from "./saved-cards.service";

const MethodTypeEnum = builder.enumType("SavedCardMethodType", { description: "The kind of saved method", values: { card: { description: "A payment card" } } as const });
const SourceEnum = builder.enumType("SavedCardSource", {
  description: "How the card was saved",
  values: {
    checkout: { description: "Vaulted by a recurring checkout" },
    vault: { description: "Added by the buyer through the zero-amount vault flow" },
    merchant: { description: "Attached by the merchant for record keeping (not chargeable)" },
  } as const,
});

export const SavedCardRef = builder.objectRef<ReturnType<typeof savedCardView>>("SavedCard").implement({
  description: "A customer's saved card (id cpm_…): vaulted cards are chargeable, merchant-attached ones are records only",
  fields: (t) => ({
    id: t.exposeID("id", { description: "cpm_…" }),
    methodType: t.field({ type: MethodTypeEnum, description: "Always card", resolve: (c) => c.methodType as "card" }),
    cardBrand: t.exposeString("cardBrand", { description: "Issuer brand" }),
    cardLastFour: t.exposeString("cardLastFour", { description: "Last four digits" }),
    cardExpMonth: t.exposeInt("cardExpMonth", { description: "Expiry month, 1 to 12" }),
    cardExpYear: t.exposeInt("cardExpYear", { description: "Expiry year, four digits" }),
    isDefault: t.exposeBoolean("isDefault", { description: "The card renewals charge; one per customer" }),
    isActive: t.exposeBoolean("isActive", { description: "false while paused: listed but not charged for renewals" }),
    chargeable: t.exposeBoolean("chargeable", { description: "false for merchant-attached record-keeping cards" }),
    source: t.field({ type: SourceEnum, description: "How the card was saved", resolve: (c) => c.source as "checkout" | "vault" | "merchant" }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

const ClientTokenRef = builder.objectRef<Awaited<ReturnType<typeof mintClientToken>>>("PaymentMethodClientToken").implement({
  description: "A wallet client token for the buyer's browser (X-Service-PM-Token)",
  fields: (t) => ({
    token: t.string({ nullable: true, description: "pmt_…, shown once; null when an Idempotency-Key replay returns the stored result", resolve: (v, _a, ctx) => revealed(v.token, ctx) }),
    expiresAt: t.field({ type: "DateTime", description: "When the token stops working", resolve: (v) => v.expiresAt }),
    customerId: t.exposeID("customerId", { description: "The customer it speaks for" }),
    subscriptionId: t.exposeID("subscriptionId", { nullable: true, description: "The one subscription it is restricted to" }),
    updateCardUrl: t.string({
      nullable: true,
      description: "The hosted update-card page (with a subscription); it carries the token, so it is shown once too (null on a replay)",
      resolve: (v, _a, ctx) => revealed(v.updateCardUrl, ctx),
    }),
  }),
});

const customerArg = (t: any) => t.arg.id({ required: true, description: "The customer's id (`cus_` prefix optional)" });

builder.queryFields((t) => ({
  customerPaymentMethods: t.field({
    type: [SavedCardRef],
    description: "A customer's saved methods (customer_payment_methods:read or customers:read)",
    authScopes: { secret: true },
    args: { customerId: customerArg(t) },
    resolve: async (_r, a, ctx) => (await listCustomerCards(ctx, String(a.customerId))).map(savedCardView),
  }),
}));

builder.mutationFields((t) => ({
  createPaymentMethodClientToken: t.field({
    type: ClientTokenRef,
    description: "Mints a wallet client token: 30 minutes, or 14 days restricted to the subscription when one is named",
    authScopes: { scope: "customer_payment_methods:write" },
    args: { customerId: customerArg(t), subscriptionId: t.arg.id({ description: "A subscription of this customer" }) },
    resolve: (_r, a, ctx) => mintClientToken(ctx, { customerId: String(a.customerId), ...(a.subscriptionId != null ? { subscriptionId: String(a.subscriptionId) } : {}) }),
  }),
  attachCustomerPaymentMethod: t.field({
    type: SavedCardRef,
    description: "Attaches a record-keeping card (chargeable false: renewals cannot charge it)",
    authScopes: { scope: "customer_payment_methods:write" },
    args: {
      customerId: customerArg(t),
      cardBrand: t.arg.string({ required: true, description: "Issuer brand" }),
      cardLastFour: t.arg.string({ required: true, description: "Four digits" }),
      cardExpMonth: t.arg.int({ required: true, description: "1 to 12" }),
      cardExpYear: t.arg.int({ required: true, description: "Four digits" }),
    },
    resolve: async (_r, { customerId, ...card }, ctx) => savedCardView(await attachCustomerCard(ctx, String(customerId), card)),
  }),
  pauseCustomerPaymentMethod: t.field({
    type: SavedCardRef,
    description: "Pauses a saved method: it stays listed, renewals skip it",
    authScopes: { scope: "customer_payment_methods:write" },
    args: { customerId: customerArg(t), id: t.arg.id({ required: true, description: "cpm_…" }) },
    resolve: async (_r, a, ctx) => savedCardView(await setCustomerCardActive(ctx, String(a.customerId), String(a.id), false)),
  }),
  resumeCustomerPaymentMethod: t.field({
    type: SavedCardRef,
    description: "Resumes a paused saved method",
    authScopes: { scope: "customer_payment_methods:write" },
    args: { customerId: customerArg(t), id: t.arg.id({ required: true, description: "cpm_…" }) },
    resolve: async (_r, a, ctx) => savedCardView(await setCustomerCardActive(ctx, String(a.customerId), String(a.id), true)),
  }),
}));
