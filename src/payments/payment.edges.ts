// Payment.transactions (issue 37): the payment's processor requests, batched for a page of payments, payments:read.
import { builder } from "../graphql/builder";
import { loader } from "../graphql/loaders";
import { transactionsOfPayments } from "./payment-edges.service";
import { PaymentRef, TransactionRef } from "./payments.schema";

builder.objectFields(PaymentRef, (t) => ({
  transactions: t.field({
    type: [TransactionRef],
    nullable: true,
    description: "Its processor requests, oldest first (the paymentTransactions query; needs payments:read)",
    authScopes: { scope: "payments:read" },
    resolve: async (p, _a, ctx) => (await loader(ctx, "transactionsByPayment", (ids: string[]) => transactionsOfPayments(ctx, ids)).load(p.id)) ?? [],
  }),
}));
