// GraphQL for checkout sessions: create (key) and complete (buyer: no credential, the session id is the handle).
import { builder } from "../graphql/builder";
import { compact } from "../carts/carts.schema";
import { completeCheckout, createCheckoutSession, sessionView } from "./checkout.service";

type SessionV = ReturnType<typeof sessionView>;

const SessionRef = builder.objectRef<SessionV>("CheckoutSession").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status"),
    cartId: t.exposeID("cartId"),
    hostedUrl: t.exposeString("hostedUrl"),
    embedUrl: t.exposeString("embedUrl"),
    allowedMethods: t.exposeStringList("allowedMethods"),
    expiresAt: t.field({ type: "DateTime", resolve: (s) => s.expiresAt }),
  }),
});

const Completion = builder.objectRef<{ orderId: string; paymentId: string; paymentStatus: string }>("CheckoutCompletion").implement({
  fields: (t) => ({ orderId: t.exposeID("orderId"), paymentId: t.exposeID("paymentId"), paymentStatus: t.exposeString("paymentStatus") }),
});

builder.mutationFields((t) => ({
  createCheckoutSession: t.field({
    type: SessionRef,
    authScopes: { scope: "checkout:write" },
    args: {
      applicationId: t.arg.id({ required: true }),
      cartId: t.arg.id({ required: true }),
      returnUrl: t.arg.string({ required: true }),
      cancelUrl: t.arg.string({ required: true }),
      customerEmail: t.arg.string(),
      allowedMethods: t.arg.stringList(),
      netN: t.arg.int(),
    },
    resolve: async (_r, a, ctx) => {
      const { netN, ...rest } = a;
      const body = compact({ ...rest, applicationId: String(a.applicationId), cartId: String(a.cartId), ...(netN !== null && netN !== undefined ? { paymentTerms: { netN } } : {}) });
      return sessionView(await createCheckoutSession(ctx, body), ctx.deps.config.CHECKOUT_URL);
    },
  }),
  completeCheckoutSession: t.field({
    type: Completion,
    args: {
      id: t.arg.id({ required: true }),
      paymentMethod: t.arg.string({ required: true }),
      email: t.arg.string(),
      paymentToken: t.arg.string(),
      shippingAddress: t.arg({ type: "JSON" }),
      billingAddress: t.arg({ type: "JSON" }),
      net30Acceptance: t.arg({ type: "JSON" }),
    },
    resolve: (_r, a, ctx) => {
      const { id, ...body } = a;
      return completeCheckout(ctx, String(id), compact(body));
    },
  }),
}));
