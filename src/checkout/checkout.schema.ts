// GraphQL for checkout sessions: create and embed-token (key); payment methods, the session's embed token and
// complete (buyer: no credential, the session id is the handle).
import { builder } from "../graphql/builder";
import { compact } from "../carts/carts.schema";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import { liveItem } from "../events/events.service";
import { completeCheckout, createCheckoutSession, createEmbedSession, getCheckoutSession, sessionEmbedToken, sessionPaymentMethods, sessionView, subscribeSessionUpdates } from "./checkout.service";

type SessionV = ReturnType<typeof sessionView>;
type MethodsV = Awaited<ReturnType<typeof sessionPaymentMethods>>;

const CollectRef = builder.objectRef<SessionV["collect"]>("CheckoutCollect").implement({
  fields: (t) => ({ shippingAddress: t.exposeBoolean("shippingAddress"), billingAddress: t.exposeBoolean("billingAddress") }),
});
const TermsRef = builder.objectRef<SessionV["paymentTerms"]>("CheckoutPaymentTerms").implement({
  fields: (t) => ({ netN: t.exposeInt("netN", { nullable: true }) }),
});

const SessionRef = builder.objectRef<SessionV>("CheckoutSession").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.exposeString("status"),
    cartId: t.exposeID("cartId"),
    hostedUrl: t.exposeString("hostedUrl"),
    embedUrl: t.exposeString("embedUrl"),
    allowedMethods: t.exposeStringList("allowedMethods"),
    collect: t.field({ type: CollectRef, resolve: (s) => s.collect }),
    customerEmail: t.exposeString("customerEmail", { nullable: true }),
    returnUrl: t.exposeString("returnUrl"),
    cancelUrl: t.exposeString("cancelUrl"),
    paymentTerms: t.field({ type: TermsRef, resolve: (s) => s.paymentTerms }),
    metadata: t.field({ type: "JSON", resolve: (s) => s.metadata }),
    orderId: t.exposeID("orderId", { nullable: true }),
    paymentId: t.exposeID("paymentId", { nullable: true }),
    expiresAt: t.field({ type: "DateTime", resolve: (s) => s.expiresAt }),
    completedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.completedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (s) => s.createdAt }),
  }),
});

const MethodRef = builder.objectRef<MethodsV["methods"][number]>("CheckoutPaymentMethod").implement({
  fields: (t) => ({ method: t.exposeString("method"), displayName: t.exposeString("displayName"), connectorId: t.exposeID("connectorId") }),
});
const UnavailableRef = builder.objectRef<{ code: string; message: string }>("CheckoutUnavailableReason").implement({
  fields: (t) => ({ code: t.exposeString("code"), message: t.exposeString("message") }),
});
const MethodsRef = builder.objectRef<MethodsV>("CheckoutPaymentMethods").implement({
  fields: (t) => ({
    methods: t.field({ type: [MethodRef], resolve: (m) => m.methods }),
    unavailableReason: t.field({
      type: UnavailableRef,
      nullable: true,
      description: "set when the workspace has connections but none for this session's methods",
      resolve: (m) => m.unavailableReason ?? null,
    }),
  }),
});

type EmbedSessionV = Awaited<ReturnType<typeof createEmbedSession>>;
type EmbedTokenV = Awaited<ReturnType<typeof sessionEmbedToken>>;
const embedToken = (v: { embedToken: OneTimeSecret | string }, _a: unknown, ctx: { revealedSecrets?: Set<string> }) => revealed(v.embedToken, ctx);

const EmbedSessionRef = builder.objectRef<EmbedSessionV>("CheckoutEmbedSession").implement({
  description: "A one-line checkout for an amount and its short-lived embed token (shown once)",
  fields: (t) => ({
    checkoutSessionId: t.exposeID("checkoutSessionId"),
    embedToken: t.string({ nullable: true, description: "emb_…, shown once; null when an Idempotency-Key replay returns the stored result", resolve: embedToken }),
    expiresAt: t.field({ type: "DateTime", resolve: (e) => e.expiresAt }),
    hostedUrl: t.exposeString("hostedUrl"),
    embedUrl: t.exposeString("embedUrl"),
  }),
});

const EmbedTokenRef = builder.objectRef<EmbedTokenV>("CheckoutEmbedToken").implement({
  description: "A fresh embed token for an open session and what the embedded page shows",
  fields: (t) => ({
    embedToken: t.string({ resolve: (v, a, ctx) => embedToken(v, a, ctx)! }),
    expiresAt: t.field({ type: "DateTime", resolve: (e) => e.expiresAt }),
    amount: t.exposeInt("amount"),
    currency: t.exposeString("currency"),
    environment: t.exposeString("environment"),
  }),
});

const CollectInput = builder.inputType("CheckoutCollectInput", {
  fields: (t) => ({ shippingAddress: t.boolean(), billingAddress: t.boolean() }),
});

const CustomerInput = builder.inputType("CheckoutCustomerInput", {
  fields: (t) => ({
    customerId: t.id(),
    externalCustomerId: t.string(),
    email: t.string(),
    firstName: t.string(),
    lastName: t.string(),
    phone: t.string(),
    shippingAddress: t.field({ type: "JSON" }),
    billingAddress: t.field({ type: "JSON" }),
    metadata: t.field({ type: "JSON" }),
  }),
});

builder.queryFields((t) => ({
  checkoutSessionPaymentMethods: t.field({
    type: MethodsRef,
    description: "Browser-safe: no credential, the session id is the handle",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, a, ctx) => sessionPaymentMethods(ctx, String(a.id)),
  }),
  checkoutSessionEmbedToken: t.field({
    type: EmbedTokenRef,
    description: "Browser-safe: no credential, the session id is the handle; mints a new token on each call",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, a, ctx) => sessionEmbedToken(ctx, String(a.id)),
  }),
}));

const Completion = builder.objectRef<{ orderId: string; paymentId: string; paymentStatus: string }>("CheckoutCompletion").implement({
  fields: (t) => ({ orderId: t.exposeID("orderId"), paymentId: t.exposeID("paymentId"), paymentStatus: t.exposeString("paymentStatus") }),
});

builder.mutationFields((t) => ({
  createCheckoutSession: t.field({
    type: SessionRef,
    authScopes: { scope: "checkout:write" },
    args: {
      applicationId: t.arg.id({ required: true }),
      cartId: t.arg.id({ description: "this or externalCartId" }),
      externalCartId: t.arg.string(),
      returnUrl: t.arg.string({ required: true }),
      cancelUrl: t.arg.string({ required: true }),
      customerEmail: t.arg.string(),
      customer: t.arg({ type: CustomerInput }),
      allowedMethods: t.arg.stringList(),
      netN: t.arg.int(),
      collect: t.arg({ type: CollectInput }),
      discountCode: t.arg.string(),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, a, ctx) => {
      const { netN, customer, collect, ...rest } = a;
      const body = compact({
        ...rest,
        applicationId: String(a.applicationId),
        cartId: a.cartId === null || a.cartId === undefined ? null : String(a.cartId),
        customer: customer ? compact({ ...customer, customerId: customer.customerId === null || customer.customerId === undefined ? null : String(customer.customerId) }) : null,
        collect: collect ? compact(collect) : null,
        ...(netN !== null && netN !== undefined ? { paymentTerms: { netN } } : {}),
      });
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
      processorTransactionId: t.arg.string(),
      shippingAddress: t.arg({ type: "JSON" }),
      billingAddress: t.arg({ type: "JSON" }),
      net30Acceptance: t.arg({ type: "JSON" }),
    },
    resolve: (_r, a, ctx) => {
      const { id, ...body } = a;
      return completeCheckout(ctx, String(id), compact(body));
    },
  }),
  createCheckoutEmbedToken: t.field({
    type: EmbedSessionRef,
    description: "REST: POST /checkout-sessions/embed-token",
    authScopes: { scope: "checkout:write" },
    args: { amount: t.arg.int({ required: true }), currency: t.arg.string({ required: true }), country: t.arg.string(), externalCartId: t.arg.string() },
    resolve: (_r, a, ctx) => createEmbedSession(ctx, compact(a)),
  }),
}));

builder.subscriptionFields((t) => ({
  checkoutSessionUpdated: t.field({
    type: SessionRef,
    description: "A checkout session: its current state first, then again after each event about it (checkout started, order created, completed, abandoned)",
    authScopes: { scope: "checkout:write" },
    args: { id: t.arg.id({ required: true, description: "The checkout session id" }) },
    subscribe: (_r, a, ctx) => subscribeSessionUpdates(ctx, String(a.id)),
    resolve: async (e, a, ctx) => {
      liveItem(e);
      return sessionView(await getCheckoutSession(ctx, String(a.id)), ctx.deps.config.CHECKOUT_URL);
    },
  }),
}));
