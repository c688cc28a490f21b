// Customer.paymentMethods and Subscription.paymentMethod (issue 37), declared here because the wallet sits above
// customers and subscriptions: the saved cards, batched for a page of parents, tenant-filtered, with the scopes of
// GET /customers/{id}/payment-methods (customer_payment_methods:read, or :write, or customers:read).
import { CustomerRef } from "../customers/customers.schema";
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import type { Ctx } from "../shared/context";
import { hasScope } from "../shared/scopes";
import { requireSecretOrDashboard } from "../shared/guards";
import { CardRef, SubscriptionRef } from "../subscriptions/subscriptions.schema";
import { savedCardView } from "./saved-cards.service";
import { cardsOfCustomers, defaultCardsOfCustomers } from "./wallet-edges.service";
import { SavedCardRef } from "./wallet.schema";

const CARD_READ = ["customer_payment_methods:read", "customer_payment_methods:write", "customers:read"];
/** Any of the card-read scopes passes; otherwise the field errors naming customer_payment_methods:read. */
const cardScopes = (_p: unknown, _a: unknown, ctx: Ctx) => CARD_READ.some((s) => hasScope(requireSecretOrDashboard(ctx).scopes, s)) || { scope: "customer_payment_methods:read" };

builder.objectFields(CustomerRef, (t) => ({
  paymentMethods: t.field({
    type: [SavedCardRef],
    nullable: true,
    description: "The customer's saved cards, oldest first (needs customer_payment_methods:read or customers:read)",
    authScopes: cardScopes,
    resolve: async (c, _a, ctx) => ((await loader(ctx, "cardsByCustomer", (ids: string[]) => cardsOfCustomers(ctx, ids)).load(c.id)) ?? []).map(savedCardView),
  }),
}));

builder.objectFields(SubscriptionRef, (t) => ({
  paymentMethod: t.field({
    type: CardRef,
    nullable: true,
    description: "The customer's default card, which renewals charge (needs customer_payment_methods:read or customers:read)",
    authScopes: cardScopes,
    resolve: async (s, _a, ctx) => {
      const c = await loader(ctx, "defaultCardByCustomer", (ids: string[]) => defaultCardsOfCustomers(ctx, ids)).load(s.customerId);
      return c ? { id: c.id, cardBrand: c.cardBrand, cardLastFour: c.cardLastFour, cardExpMonth: c.cardExpMonth, cardExpYear: c.cardExpYear } : null;
    },
  }),
}));
