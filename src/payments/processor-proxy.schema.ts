// GraphQL for the test processor's charges (processor-proxy checkouts): the same service as REST.
import { builder } from "../graphql/builder";
import { describedEnum } from "../graphql/shared-types";
import { chargeView, createTestProcessorCharge } from "./processor-proxy.service";

type ChargeV = ReturnType<typeof chargeView>;

const ChargeStatusEnum = describedEnum<ChargeV["status"]>("TestProcessorChargeStatus", "How the buyer's payment on the processor's page ended", {
  captured: "Paid: the checkout's payment is captured",
  authorized: "Funds held: the checkout's payment is authorized",
  failed: "Declined: a checkout naming it fails (402 payment_failed, reason charge_failed)",
});

const ChargeRef = builder.objectRef<ChargeV>("TestProcessorCharge").implement({
  description: "A charge made on the test processor's own page; complete a checkout with its id as processorTransactionId",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The processorTransactionId to complete a processor_proxy checkout with" }),
    amount: t.exposeInt("amount", { description: "Minor units" }),
    currency: t.exposeString("currency"),
    status: t.field({ type: ChargeStatusEnum, description: "captured, authorized or failed", resolve: (c) => c.status }),
    createdAt: t.field({ type: "DateTime", resolve: (c) => c.createdAt }),
  }),
});

builder.mutationFields((t) => ({
  createTestProcessorCharge: t.field({
    type: ChargeRef,
    description: "Mints a charge on the test processor, as if a buyer had paid on its page (non-production environments only; 404 in production)",
    authScopes: { scope: "payments:write" },
    args: {
      amount: t.arg.int({ required: true, description: "Minor units" }),
      currency: t.arg.string({ required: true, description: "ISO 4217" }),
      status: t.arg({ type: ChargeStatusEnum, description: "Default captured" }),
    },
    resolve: async (_r, a, ctx) => chargeView(await createTestProcessorCharge(ctx, Object.fromEntries(Object.entries(a).filter(([, v]) => v !== null && v !== undefined)))),
  }),
}));
