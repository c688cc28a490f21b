// GraphQL for checkout sessions: create and embed-token (key); payment methods, the session's embed token and
// complete (buyer: no credential, the session id is the handle).
import { builder } from "../graphql/builder";
import { AddressInput, addressArg, describedEnum } from "../graphql/shared-types";
import { compact } from "../graphql/args";
import { PaymentMethodEnum, PaymentStatusEnum } from "../payments/payments.schema";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import { liveItem } from "../events/events.service";
import { completeCheckout } from "./checkout-complete.service";
import { createCheckoutSession, getCheckoutSession, sessionPaymentMethods, sessionView, subscribeSessionUpdates } from "./checkout.service";
import { createEmbedSession, sessionEmbedToken } from "./checkout-embed.service";
import { RecurringInput } from "../subscriptions/subscriptions.schema";
import type { METHODS } from "../payments/processor";

type SessionV = ReturnType<typeof sessionView>;
type MethodsV = Awaited<ReturnType<typeof sessionPaymentMethods>>;

type Method = (typeof METHODS)[number];

const SessionStatusEnum = describedEnum<"open" | "completed" | "expired">("CheckoutSessionStatus", "Where a checkout session is", {
  open: "Waiting for the buyer to pay",
  completed: "Paid (or invoiced): orderId and paymentId are set",
  expired: "Not completed before expiresAt",
});

const CollectRef = builder.objectRef<SessionV["collect"]>("CheckoutCollect").implement({
  description: "Which addresses the hosted page asks the buyer for",
  fields: (t) => ({
    shippingAddress: t.exposeBoolean("shippingAddress", { description: "Ask for a shipping address (default true when a line requires shipping)" }),
    billingAddress: t.exposeBoolean("billingAddress", { description: "Ask for a billing address" }),
  }),
});
const TermsRef = builder.objectRef<SessionV["paymentTerms"]>("CheckoutPaymentTerms").implement({
  description: "Invoice terms for net30 payments",
  fields: (t) => ({ netN: t.exposeInt("netN", { nullable: true, description: "Days until the invoice is due; null uses the customer's or the default terms" }) }),
});

export const SessionRef = builder.objectRef<SessionV>("CheckoutSession").implement({
  description: "A buyer's way to pay for a cart: open hostedUrl (or embed embedUrl), pay, return to returnUrl",
  fields: (t) => ({
    id: t.exposeID("id"),
    status: t.field({ type: SessionStatusEnum, description: "open until completed or expired", resolve: (s) => s.status as "open" | "completed" | "expired" }),
    cartId: t.exposeID("cartId", { description: "The cart being paid for" }),
    hostedUrl: t.exposeString("hostedUrl", { description: "The hosted payment page to send the buyer to" }),
    discountCode: t.exposeString("discountCode", { nullable: true, description: "The promotion code named at creation (applied to the cart; redeemed with the order)" }),
    embedUrl: t.exposeString("embedUrl", { description: "The same page for an iframe (needs an embed token)" }),
    allowedMethods: t.field({ type: [PaymentMethodEnum], description: "Methods the buyer may use", resolve: (s) => s.allowedMethods as Method[] }),
    collect: t.field({ type: CollectRef, description: "Addresses the page asks for", resolve: (s) => s.collect }),
    customerEmail: t.exposeString("customerEmail", { nullable: true, description: "The buyer's email (the cart's when the session named none)" }),
    returnUrl: t.exposeString("returnUrl", { description: "Where the buyer goes after paying, with checkout_session_id and order_id appended" }),
    cancelUrl: t.exposeString("cancelUrl", { description: "Where the page's cancel link goes" }),
    paymentTerms: t.field({ type: TermsRef, description: "Invoice terms for net30", resolve: (s) => s.paymentTerms }),
    metadata: t.field({ type: "JSON", resolve: (s) => s.metadata }),
    orderId: t.exposeID("orderId", { nullable: true, description: "The order, once completed" }),
    paymentId: t.exposeID("paymentId", { nullable: true, description: "The payment, once completed" }),
    expiresAt: t.field({ type: "DateTime", description: "After this an open session expires", resolve: (s) => s.expiresAt }),
    completedAt: t.field({ type: "DateTime", nullable: true, description: "When it was completed", resolve: (s) => s.completedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (s) => s.createdAt }),
  }),
});

const MethodRef = builder.objectRef<MethodsV["methods"][number]>("CheckoutPaymentMethod").implement({
  description: "A way to pay this session, backed by an active connector",
  fields: (t) => ({
    method: t.field({ type: PaymentMethodEnum, description: "Send it as completeCheckoutSession(paymentMethod:)", resolve: (m) => m.method as Method }),
    displayName: t.exposeString("displayName", { description: "What the buyer sees" }),
    connectorId: t.exposeID("connectorId", { description: "The connector that takes the payment" }),
  }),
});
const UnavailableRef = builder.objectRef<{ code: string; message: string }>("CheckoutUnavailableReason").implement({
  description: "Why no method can be offered",
  fields: (t) => ({ code: t.exposeString("code", { description: "Machine-readable reason" }), message: t.exposeString("message", { description: "What to do about it" }) }),
});
const MethodsRef = builder.objectRef<MethodsV>("CheckoutPaymentMethods").implement({
  description: "The methods a buyer can pay this session with",
  fields: (t) => ({
    methods: t.field({ type: [MethodRef], description: "Usable methods; empty when none is connected", resolve: (m) => m.methods }),
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
    checkoutSessionId: t.exposeID("checkoutSessionId", { description: "The session created for the amount" }),
    embedToken: t.string({ nullable: true, description: "emb_…, shown once; null when an Idempotency-Key replay returns the stored result", resolve: embedToken }),
    expiresAt: t.field({ type: "DateTime", description: "When the token stops working", resolve: (e) => e.expiresAt }),
    hostedUrl: t.exposeString("hostedUrl", { description: "The hosted payment page" }),
    embedUrl: t.exposeString("embedUrl", { description: "The page for an iframe" }),
  }),
});

const EmbedTokenRef = builder.objectRef<EmbedTokenV>("CheckoutEmbedToken").implement({
  description: "A fresh embed token for an open session and what the embedded page shows",
  fields: (t) => ({
    embedToken: t.string({ description: "emb_…, for the embedded page", resolve: (v, a, ctx) => embedToken(v, a, ctx)! }),
    expiresAt: t.field({ type: "DateTime", description: "When the token stops working", resolve: (e) => e.expiresAt }),
    amount: t.exposeInt("amount", { description: "What the buyer pays, in minor units" }),
    currency: t.exposeString("currency"),
    environment: t.exposeString("environment", { description: "sandbox or production: which processor environment takes the payment" }),
  }),
});

const CollectInput = builder.inputType("CheckoutCollectInput", {
  description: "Which addresses the hosted page asks for",
  fields: (t) => ({
    shippingAddress: t.boolean({ description: "Ask for a shipping address (default: when a line requires shipping)" }),
    billingAddress: t.boolean({ description: "Ask for a billing address (default false)" }),
  }),
});

const CustomerInput = builder.inputType("CheckoutCustomerInput", {
  description: "The buyer: an existing customer (customerId or externalCustomerId) or details to create or update one",
  fields: (t) => ({
    customerId: t.id({ description: "An existing customer (`cus_` prefix optional)" }),
    externalCustomerId: t.string({ description: "Your id for the customer; found or created" }),
    email: t.string({ description: "The buyer's email" }),
    firstName: t.string({ description: "Given name" }),
    lastName: t.string({ description: "Family name" }),
    phone: t.string({ description: "Phone number" }),
    shippingAddress: t.field({ type: AddressInput, description: "Prefills the page's shipping address" }),
    billingAddress: t.field({ type: AddressInput, description: "Prefills the page's billing address" }),
    metadata: t.field({ type: "JSON" }),
  }),
});

const Net30AcceptanceInput = builder.inputType("Net30AcceptanceInput", {
  description: "The buyer's acceptance of invoice terms, required to pay with net30",
  fields: (t) => ({
    termsHash: t.string({ required: true, description: "SHA-256 hex of the terms text the buyer accepted (64 hex characters)" }),
    acceptedAt: t.string({ required: true, description: "When they accepted, ISO 8601 with offset" }),
    companyName: t.string({ required: true, description: "The company being invoiced" }),
    billingEmail: t.string({ required: true, description: "Where the invoice goes" }),
  }),
});

builder.queryFields((t) => ({
  checkoutSessionPaymentMethods: t.field({
    type: MethodsRef,
    description: "Browser-safe: no credential, the session id is the handle",
    args: { id: t.arg.id({ required: true, description: "The checkout session id" }) },
    resolve: (_r, a, ctx) => sessionPaymentMethods(ctx, String(a.id)),
  }),
  checkoutSessionEmbedToken: t.field({
    type: EmbedTokenRef,
    description: "Browser-safe: no credential, the session id is the handle; mints a new token on each call",
    args: { id: t.arg.id({ required: true, description: "The checkout session id" }) },
    resolve: (_r, a, ctx) => sessionEmbedToken(ctx, String(a.id)),
  }),
}));

const Completion = builder.objectRef<{ orderId: string; paymentId: string; paymentStatus: string; subscriptionId?: string }>("CheckoutCompletion").implement({
  description: "What completing a session made",
  fields: (t) => ({
    subscriptionId: t.id({ nullable: true, description: "The subscription a recurring session created", resolve: (c) => c.subscriptionId ?? null }),
    orderId: t.exposeID("orderId", { description: "The new order" }),
    paymentId: t.exposeID("paymentId", { description: "Its payment" }),
    paymentStatus: t.field({
      type: PaymentStatusEnum,
      description: "captured or authorized when paid; processing while 3-D Secure waits (settle it in sandbox with resolveTestPayment)",
      resolve: (c) => c.paymentStatus as never,
    }),
  }),
});

builder.mutationFields((t) => ({
  createCheckoutSession: t.field({
    type: SessionRef,
    description: "Opens a checkout session for a cart; send the buyer to hostedUrl",
    authScopes: { scope: "checkout:write" },
    args: {
      applicationId: t.arg.id({ description: "Optional: the credential's application; when sent it must be that one (404 otherwise)" }),
      cartId: t.arg.id({ description: "The cart to pay for (this or externalCartId)" }),
      externalCartId: t.arg.string({ description: "Your cart id, for a cart created by an embed session" }),
      returnUrl: t.arg.string({ required: true, description: "Where the buyer goes after paying (http or https)" }),
      cancelUrl: t.arg.string({ required: true, description: "Where the page's cancel link goes" }),
      customerEmail: t.arg.string({ description: "The buyer's email (default: the cart's)" }),
      customer: t.arg({ type: CustomerInput, description: "The buyer as a customer" }),
      allowedMethods: t.arg({ type: [PaymentMethodEnum], description: "Restrict the methods (default: all connected; net30 only with a customer)" }),
      netN: t.arg.int({ description: "Invoice terms in days for net30" }),
      collect: t.arg({ type: CollectInput, description: "Which addresses to ask for" }),
      discountCode: t.arg.string({ description: "A promotion code to apply" }),
      recurring: t.arg({ type: RecurringInput, description: "Creates a subscription at completion; card only (an empty cart gets the plan's line)" }),
      metadata: t.arg({ type: "JSON" }),
    },
    resolve: async (_r, a, ctx) => {
      const { netN, customer, collect, ...rest } = a;
      const body = compact({
        ...rest,
        applicationId: a.applicationId === null || a.applicationId === undefined ? null : String(a.applicationId),
        cartId: a.cartId === null || a.cartId === undefined ? null : String(a.cartId),
        customer: customer
          ? compact({
              ...customer,
              customerId: customer.customerId === null || customer.customerId === undefined ? null : String(customer.customerId),
              shippingAddress: addressArg(customer.shippingAddress),
              billingAddress: addressArg(customer.billingAddress),
            })
          : null,
        collect: collect ? compact(collect) : null,
        recurring: a.recurring ? compact(a.recurring) : null,
        ...(netN !== null && netN !== undefined ? { paymentTerms: { netN } } : {}),
      });
      return sessionView(await createCheckoutSession(ctx, body), ctx.deps.config.CHECKOUT_URL);
    },
  }),
  completeCheckoutSession: t.field({
    type: Completion,
    description: "Pays an open session (browser-safe: no credential, the session id is the handle); makes the order",
    args: {
      id: t.arg.id({ required: true, description: "The checkout session id" }),
      paymentMethod: t.arg({ type: PaymentMethodEnum, required: true, description: "One of the session's allowedMethods" }),
      email: t.arg.string({ description: "The buyer's email (default: the session's)" }),
      paymentToken: t.arg.string({ description: "Card token from the processor; sandbox: tok_visa, tok_card_declined, tok_3ds_required" }),
      processorTransactionId: t.arg.string({ description: "A charge the buyer already made on the processor's own page" }),
      shippingAddress: t.arg({ type: AddressInput, description: "Where to ship (required when the cart needs shipping and has none)" }),
      billingAddress: t.arg({ type: AddressInput, description: "Billing address" }),
      net30Acceptance: t.arg({ type: Net30AcceptanceInput, description: "Required for net30" }),
    },
    resolve: (_r, a, ctx) => {
      const { id, ...body } = a;
      return completeCheckout(ctx, String(id), compact({ ...body, shippingAddress: addressArg(body.shippingAddress), billingAddress: addressArg(body.billingAddress) }));
    },
  }),
  createCheckoutEmbedToken: t.field({
    type: EmbedSessionRef,
    description: "A one-line cart for an amount, its checkout session and an embed token (REST: POST /checkout-sessions/embed-token)",
    authScopes: { scope: "checkout:write" },
    args: {
      amount: t.arg.int({ required: true, description: "What the buyer pays, in minor units" }),
      currency: t.arg.string({ required: true, description: "ISO 4217 code; must be the application's" }),
      country: t.arg.string({ description: "The buyer's country (ISO 3166-1 alpha-2), kept on the cart's metadata" }),
      externalCartId: t.arg.string({ description: "Your cart id, to find the session again" }),
    },
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
