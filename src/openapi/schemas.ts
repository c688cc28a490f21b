// Response shapes of /api/v1 for the OpenAPI document: one zod schema per view function (the views in the
// services are the source of truth; test/helpers/http.ts validates every response of the contract tests against
// the document, so a view that drifts from its schema fails the suite). Request schemas are the services' own.
import { z } from "zod";

const id = z.uuid();
const ts = z.iso.datetime();
const money = z.number().int();
const json = z.unknown();
/** Merchant JSON, returned as stored (at most 50 keys, 10 KB). */
const metadata = z.record(z.string(), z.unknown()).meta({ description: "Your JSON object, returned unchanged (at most 50 keys, 10 KB)" });
/** `X | null` of a named schema: an anyOf with null (zod's .nullable() would make the named component itself nullable). */
export const orNull = <T extends z.ZodType>(s: T) => z.union([s, z.null()]);
const nullable = orNull;

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: "stable machine-readable code (the specification's)" }),
      message: z.string(),
      status: z.number().int(),
      details: z.record(z.string(), json).optional(),
      requestId: z.string().optional().meta({ description: "The response's Request-Id header: quote it when asking for help" }),
    }),
  })
  .meta({ id: "Error", description: "Every 4xx/5xx: 422 validation_error carries details.issues [{ path, message }]; 429 rate_limited carries details.retryAfterSeconds" });

export const PageMeta = z.object({ pagination: z.object({ cursor: z.string().nullable(), hasMore: z.boolean() }) }).meta({ id: "PageMeta" });

export const Whoami = z
  .object({
    type: z.enum(["api_key", "clerk_jwt", "extension_session", "oauth"]),
    scopes: z.array(z.string()),
    workspace: z.object({ id, name: z.string(), slug: z.string() }),
    application: z.object({ id, name: z.string(), slug: z.string(), currency: z.string() }).nullable(),
    environment: z.object({ id, slug: z.string(), kind: z.string(), providerEnvironment: z.string() }),
    apiKey: z.object({ id, name: z.string(), keyPrefix: z.string() }).nullable(),
    oauth: z
      .object({ grantId: z.string(), clientId: z.string(), clientName: z.string().nullable() })
      .optional()
      .meta({ description: "For an OAuth access token: the authorized app (grant) and the client it was issued to" }),
    member: z.object({ id, email: z.string(), workspaceRole: z.string().nullable() }).optional(),
    extension: z
      .object({ installationId: z.string(), extensionId: z.string(), version: z.string().nullable(), user: z.object({ id, email: z.string() }), role: z.string(), expiresAt: ts })
      .optional()
      .meta({ description: "Extension session tokens only: the install it acts for and the user who opened it" }),
  })
  .meta({ id: "Whoami" });

export const ApiKey = z
  .object({ id, name: z.string(), type: z.enum(["secret", "publishable"]), scopes: z.array(z.string()), keyPrefix: z.string(), applicationId: id, environmentId: id, createdAt: ts })
  .meta({ id: "ApiKey" });
export const CreatedApiKey = ApiKey.extend({
  rawKey: z.string().nullable().meta({ description: "The key, shown once. null when an Idempotency-Key replay returns the stored response: secrets are never stored." }),
}).meta({ id: "CreatedApiKey" });

export const Environment = z
  .object({ id, workspaceId: id, slug: z.string(), name: z.string(), kind: z.string(), providerEnvironment: z.string(), status: z.string(), isSystem: z.boolean(), createdAt: ts, archivedAt: ts.nullable() })
  .meta({ id: "Environment" });

export const Connector = z
  .object({ id, kind: z.enum(["card", "invoice_terms"]), provider: z.string(), status: z.enum(["active", "inactive"]), applicationId: id, environmentId: id, createdAt: ts })
  .meta({ id: "Connector" });

export const Event = z
  .object({
    id: id.meta({ description: "The event's id: the same in every delivery and replay; store it before side effects" }),
    type: z.string().meta({ description: "One of GET /event-types" }),
    version: z.string().meta({ description: "1; fields are added without a version change, so ignore unknown keys" }),
    workspaceId: id,
    environmentId: id,
    environmentKind: z.enum(["production", "non_production"]).optional(),
    createdAt: ts,
    data: z.record(z.string(), z.unknown()).meta({ description: "The event's data: for the documented types, the EventData.<type> schema" }),
  })
  .meta({ id: "Event", description: "The event envelope (in the log and in webhook deliveries); ignore unknown keys" });

export const EventType = z
  .object({ type: z.string(), readScope: z.string(), subscribable: z.boolean(), emitted: z.boolean().describe("Whether the service records this type today; the others are reserved for capabilities still being built"), trigger: z.string(), dataShape: z.string(), requiredDataKeys: z.array(z.string()), example: Event })
  .meta({ id: "EventType" });

export const WebhookEndpoint = z
  .object({
    id,
    url: z.string(),
    description: z.string().nullable(),
    enabledEvents: z.array(z.string()),
    isActive: z.boolean(),
    applicationId: id,
    environmentId: id,
    previousSecretExpiresAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "WebhookEndpoint" });
export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().nullable().meta({ description: "The whsec_ signing secret, shown once. null when an Idempotency-Key replay returns the stored response." }),
}).meta({ id: "WebhookEndpointWithSecret" });

export const WebhookDelivery = z
  .object({
    id,
    endpointId: id,
    eventId: id,
    eventType: z.string().optional(),
    status: z.enum(["pending", "retrying", "succeeded", "dead_letter"]),
    attempts: z.number().int(),
    nextAttemptAt: ts.nullable(),
    lastAttemptAt: ts.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    succeededAt: ts.nullable(),
    createdAt: ts,
  })
  .meta({ id: "WebhookDelivery" });
export const WebhookDeliveryWithAttempts = WebhookDelivery.extend({
  attemptLog: z.array(
    z.object({ number: z.number().int(), statusCode: z.number().int().nullable(), error: z.string().nullable(), responseExcerpt: z.string().nullable(), durationMs: z.number().int(), at: ts }),
  ),
}).meta({ id: "WebhookDeliveryWithAttempts" });

export const Customer = z
  .object({ id, externalId: z.string().nullable(), email: z.string().nullable(), metadata, company: z.string().nullable(), name: z.string().nullable(), phone: z.string().nullable(), createdAt: ts })
  .meta({ id: "Customer" });

const lineFields = {
  id,
  type: z.string(),
  referenceId: z.string().nullable(),
  name: z.string(),
  description: z.string().nullable(),
  unitPrice: money,
  quantity: z.number().int(),
  taxAmount: money,
  discountAmount: money,
  imageUrl: z.string().nullable(),
  requiresShipping: z.boolean(),
  metadata,
  total: money,
};
export const CartLineItem = z.object(lineFields).meta({ id: "CartLineItem" });

const totals = { subtotal: money, discountTotal: money, shippingTotal: money, taxTotal: money, total: money };
export const Totals = z.object(totals).meta({ id: "Totals" });

export const Address = z
  .object({
    addressLine1: z.string(),
    addressLine2: z.string().nullable(),
    city: z.string(),
    stateProvince: z.string().nullable(),
    postalCode: z.string().nullable(),
    countryCode: z.string().meta({ description: "ISO 3166-1 alpha-2, upper case" }),
  })
  .strict()
  .meta({ id: "Address", description: "A postal address: all six keys, absent optional ones as null" });

export const ShippingRate = z
  .object({
    methodId: z.string(),
    displayName: z.string(),
    rateAmount: money,
    currency: z.string().optional().meta({ description: "The cart's currency: on a cart's or order's rates, not on the settings' flat rates" }),
    carrier: z.string().nullish(),
    serviceCode: z.string().nullish(),
    estimatedDeliveryDays: z.number().int().nullish(),
  })
  .meta({ id: "ShippingRate" });
export const TaxLine = z
  .object({
    name: z.string(),
    amount: money,
    rateBps: z.number().int().nullish().meta({ description: "The rate in basis points, when a rate produced the line" }),
    jurisdiction: z.string().nullish().meta({ description: "Where the rate applies (a country code for the built-in provider)" }),
  })
  .meta({ id: "TaxLine" });

export const Cart = z
  .object({
    id,
    status: z.enum(["open", "checkout", "converted", "abandoned"]),
    currency: z.string(),
    applicationId: id,
    customerId: id.nullable(),
    customerEmail: z.string().nullable(),
    externalCartId: z.string().nullable(),
    lineItems: z.array(CartLineItem),
    ...totals,
    appliedDiscount: z.object({ code: z.string(), type: z.enum(["percent", "fixed"]), value: z.number().int(), amount: money }).nullable(),
    selectedShipping: nullable(ShippingRate),
    taxLines: z.array(TaxLine),
    shippingAddress: nullable(Address),
    billingAddress: nullable(Address),
    notes: z.string().nullable(),
    metadata,
    expiresAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Cart" });

export const ShippingTaxSettings = z
  .object({
    flatRates: z.array(ShippingRate),
    taxRates: z.record(z.string(), z.object({ rateBps: z.number().int(), name: z.string().nullable() })).meta({ description: "Tax rate by ISO 3166-1 alpha-2 country code" }),
    updatedAt: ts.nullable(),
  })
  .meta({ id: "ShippingTaxSettings" });

export const Calculation = z
  .object({
    snapshotId: z.string(),
    shipping: z.object({ methods: z.array(ShippingRate), selectedMethod: nullable(ShippingRate) }),
    tax: z.object({ lines: z.array(TaxLine) }),
    totals: Totals,
  })
  .meta({ id: "Calculation" });

export const Discount = z
  .object({
    id,
    code: z.string(),
    type: z.enum(["percent", "fixed"]),
    value: z.number().int(),
    currency: z.string().nullable(),
    startsAt: ts.nullable(),
    endsAt: ts.nullable(),
    maxRedemptions: z.number().int().nullable(),
    redemptionCount: z.number().int(),
    minSubtotal: money.nullable(),
    active: z.boolean(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Discount" });

const EstimateNote = z.object({ code: z.string(), message: z.string(), field: z.string().optional() });
export const ShippingTaxEstimate = z
  .object({
    kind: z.literal("quote"),
    status: z.enum(["estimated", "final", "failed"]),
    currency: z.string(),
    shipping: z.object({ methods: z.array(ShippingRate), selectedMethod: nullable(ShippingRate) }),
    tax: z.object({ taxTotal: money, lines: z.array(TaxLine) }),
    totals: z.object(totals),
    prompts: z.array(EstimateNote),
    warnings: z.array(EstimateNote),
    errors: z.array(EstimateNote),
  })
  .meta({ id: "ShippingTaxEstimate" });

export const TestProcessorCharge = z
  .object({ id, amount: money, currency: z.string(), status: z.enum(["captured", "authorized", "failed"]), createdAt: ts })
  .meta({ id: "TestProcessorCharge" });

export const CheckoutSession = z
  .object({
    id,
    status: z.enum(["open", "completed", "expired", "cancelled"]),
    cartId: id,
    hostedUrl: z.string(),
    embedUrl: z.string(),
    allowedMethods: z.array(z.string()),
    collect: z.object({ shippingAddress: z.boolean(), billingAddress: z.boolean() }),
    customerEmail: z.string().nullable(),
    returnUrl: z.string(),
    cancelUrl: z.string(),
    paymentTerms: z.object({ netN: z.number().int().nullable() }),
    discountCode: z.string().nullable(),
    metadata,
    orderId: id.nullable(),
    paymentId: id.nullable(),
    expiresAt: ts,
    completedAt: ts.nullable(),
    createdAt: ts,
  })
  .meta({ id: "CheckoutSession" });

export const EmbedSession = z
  .object({
    checkoutSessionId: id,
    embedToken: z.string().nullable().meta({ description: "emb_… shown once; null on an Idempotency-Key replay" }),
    expiresAt: ts,
    hostedUrl: z.string(),
    embedUrl: z.string(),
  })
  .meta({ id: "EmbedSession" });
export const SessionEmbedToken = z
  .object({ embedToken: z.string(), expiresAt: ts, amount: money, currency: z.string(), environment: z.string() })
  .meta({ id: "SessionEmbedToken" });
export const SessionPaymentMethods = z
  .object({
    methods: z.array(z.object({ method: z.string(), displayName: z.string(), connectorId: id })),
    unavailableReason: z.object({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ id: "SessionPaymentMethods" });
export const Completion = z.object({ orderId: id, paymentId: id, paymentStatus: z.string(), subscriptionId: id.optional() }).meta({ id: "CheckoutCompletion" });

export const Payment = z
  .object({
    id,
    orderId: id.nullable(),
    status: z.string(),
    amount: money,
    currency: z.string(),
    method: z.string(),
    processor: z.string(),
    authorizedAmount: money,
    capturedAmount: money,
    refundedAmount: money,
    error: z.object({ code: z.string(), message: z.string().nullable() }).nullable(),
    disputed: z.boolean(),
    disputeReason: z.string().nullable(),
    disputeOpenedAt: ts.nullable(),
    disputeResolvedAt: ts.nullable(),
    disputeOutcome: z.enum(["merchant_won", "buyer_won"]).nullable().meta({ description: "How the last dispute ended (set while a resolution runs)" }),
    invoiceNumber: z.string().nullable().meta({ description: "Net-N invoices: INV-{seq}, gap-free per application and environment" }),
    net_n: z.number().int().nullable(),
    netNSource: z.string().nullable(),
    metadata,
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Payment" });

export const InvoicePdfUrl = z.object({ url: z.string().meta({ description: "Signed for 15 minutes" }) }).meta({ id: "InvoicePdfUrl" });
export const InvoiceResend = z.object({ messageId: id.meta({ description: "The queued email's id (GET /emails)" }) }).meta({ id: "InvoiceResend" });

export const Transaction = z
  .object({ id, paymentId: id, type: z.string(), status: z.string(), amount: money, currency: z.string(), createdAt: ts })
  .meta({ id: "Transaction" });

export const Order = z
  .object({
    id,
    status: z.string(),
    paymentStatus: z.string(),
    displayStatus: z.string(),
    currency: z.string(),
    customerId: id.nullable(),
    email: z.string().nullable(),
    checkoutSessionId: id.nullable(),
    cartId: id.nullable(),
    lineItems: z.array(z.object(lineFields)),
    ...totals,
    compAmount: money,
    fulfillmentSummary: z.object({ itemsTotal: z.number().int(), itemsFulfilled: z.number().int(), itemsRemaining: z.number().int() }),
    deliveryState: z.enum(["in_transit", "delivered", "partially_returned", "returned"]).nullable(),
    compReason: z.string().nullable(),
    compedAt: ts.nullable(),
    discountCode: z.string().nullable(),
    shippingAddress: nullable(Address),
    billingAddress: nullable(Address),
    selectedShipping: nullable(ShippingRate),
    notes: z.string().nullable(),
    metadata,
    onHold: z.boolean(),
    holdReason: z.string().nullable(),
    heldAt: ts.nullable(),
    heldBy: z.string().nullable(),
    subscriptionId: z.string().nullable(),
    source: z.string().nullable().meta({ description: "Where the order came from: checkout, draft, import, subscription, ..." }),
    cancelledAt: ts.nullable(),
    closedAt: ts.nullable(),
    capturedAmount: money.optional().meta({ description: "single-order reads only" }),
    refundedAmount: money.optional().meta({ description: "single-order reads only" }),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Order" });

export const StatusChange = z
  .object({ fromStatus: z.string().nullable(), toStatus: z.string(), actorType: z.string(), actorId: z.string().nullable(), reason: z.string().nullable(), source: z.string(), createdAt: ts })
  .meta({ id: "OrderStatusChange" });

const lineQuantity = z.object({ lineItemId: id, quantity: z.number().int().min(1) });

export const Fulfillment = z
  .object({
    id,
    orderId: id,
    status: z.enum(["pending", "processing", "completed", "cancelled"]),
    lineItems: z.array(lineQuantity),
    shipment: z
      .object({ carrier: z.string().nullable(), trackingNumber: z.string().nullable(), trackingUrl: z.string().nullable(), shippedAt: ts.nullable(), deliveredAt: ts.nullable() })
      .nullable()
      .meta({ description: "null for a handover without a shipment" }),
    note: z.string().nullable(),
    cancelledAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "Fulfillment" });

export const OrderReturn = z
  .object({
    id,
    orderId: id,
    status: z.enum(["requested", "received", "cancelled"]),
    reason: z.string().nullable(),
    lineItems: z.array(lineQuantity),
    receivedAt: ts.nullable(),
    cancelledAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .meta({ id: "OrderReturn" });

export const TimelineRow = z
  .object({
    id,
    at: ts,
    kind: z.enum(["status", "payment", "fulfillment", "hold"]),
    title: z.string().meta({ description: "A short English sentence" }),
    source: z.string(),
    detail: z.string().optional(),
    amount: money.optional(),
    currency: z.string().optional(),
    actorType: z.string().optional(),
    actorName: z.string().optional(),
    reason: z.string().optional(),
    subscriptionId: z.string().optional().meta({ description: "refund rows of a subscription's order" }),
  })
  .strict()
  .meta({ id: "OrderTimelineRow" });

// ---- quotes ---------------------------------------------------------------------------------------------------

export const QuoteLineItem = z
  .object({
    id,
    name: z.string(),
    description: z.string().nullable(),
    unitPrice: money.nullable().meta({ description: "null while unpriced (a request's lines)" }),
    quantity: z.number().int(),
    type: z.string(),
    optional: z.boolean(),
    selected: z.boolean(),
    qtyEditable: z.boolean(),
    sku: z.string().nullable(),
    referenceId: z.string().nullable(),
    note: z.string().nullable(),
    targetUnitPrice: money.nullable().meta({ description: "The buyer's asked price: recorded, never quoted" }),
    deliveryMethod: z.enum(["shipment", "in_person", "none"]),
    total: money.nullable(),
  })
  .strict()
  .meta({ id: "QuoteLineItem" });

const collect = z.object({ shippingAddress: z.boolean(), billingAddress: z.boolean() }).strict();

export const QuoteRevision = z
  .object({
    id,
    number: z.number().int(),
    status: z.enum(["working", "issued", "superseded"]),
    items: z.array(QuoteLineItem),
    paymentTerms: z.object({ mode: z.enum(["pay_in_full", "net_terms", "deposit_balance"]), netN: z.number().int().nullable(), balanceNetN: z.number().int().nullable() }).strict(),
    deposit: z.object({ type: z.enum(["percent", "fixed"]), value: z.number().int() }).strict().nullable(),
    depositAmount: money.nullable().meta({ description: "Frozen at issue" }),
    collectShipping: z.boolean().nullable().meta({ description: "Stored override; null derives" }),
    collectBilling: z.boolean().nullable().meta({ description: "Stored override; null derives" }),
    collect: collect.meta({ description: "What checkout will ask for" }),
    collectDefault: collect.meta({ description: "What derivation alone would ask for" }),
    shippingMode: z.enum(["none", "flat", "at_checkout"]),
    shippingAmount: money.nullable(),
    subtotal: money,
    shippingTotal: money,
    taxTotal: money,
    total: money,
    issuedAt: ts.nullable(),
    supersededAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "QuoteRevision" });

export const QuoteComment = z
  .object({ id, visibility: z.enum(["shared", "internal"]), authorType: z.enum(["merchant", "buyer"]), authorName: z.string().nullable(), body: z.string(), createdAt: ts })
  .strict()
  .meta({ id: "QuoteComment" });

const QuoteAcceptanceRecord = z
  .object({
    by: z.enum(["buyer", "merchant"]),
    name: z.string(),
    email: z.string(),
    items: z.array(z.object({ itemId: id, selected: z.boolean(), quantity: z.number().int() }).strict()),
  })
  .strict();

export const Quote = z
  .object({
    id,
    number: z.string().meta({ description: "Q-{seq}" }),
    status: z.enum(["draft", "requested", "under_review", "proposed", "revision_requested", "accepted", "converted", "declined", "expired", "archived"]),
    currency: z.string(),
    customerId: id.nullable(),
    customer: z.object({ id, email: z.string().nullable() }).strict().nullable(),
    customerEmail: z.string(),
    companyName: z.string().nullable(),
    buyerReference: z.string().nullable(),
    source: z.enum(["api", "dashboard", "request_form", "cart"]),
    shareToken: z.string().meta({ description: "The buyer link's token (rotate-link replaces it)" }),
    buyerUrl: z.string(),
    expiresAt: ts.nullable(),
    declinedReason: z.string().nullable(),
    declinedBy: z.enum(["merchant", "buyer"]).nullable(),
    internalNote: z.string().nullable(),
    currentRevisionId: id.nullable(),
    workingRevision: nullable(QuoteRevision),
    revisions: z.array(QuoteRevision),
    comments: z.array(QuoteComment),
    requestFormId: id.nullable(),
    cartId: id.nullable(),
    acceptedRevisionId: id.nullable(),
    acceptedAt: ts.nullable(),
    acceptance: QuoteAcceptanceRecord.extend({ reason: z.string().nullable() }).strict().nullable(),
    checkoutSessionId: id.nullable().meta({ description: "The accepted quote's checkout (the latest, when a lapsed one was resumed)" }),
    orderId: id.nullable().meta({ description: "Set with the order, in the same transaction (converted)" }),
    convertedAt: ts.nullable(),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "Quote", description: "The merchant view: internal notes and comments included" });

export const QuoteAcceptance = z.object({ quote: Quote, checkoutUrl: z.string() }).strict().meta({ id: "QuoteAcceptance" });

const BuyerQuoteLine = QuoteLineItem.omit({ targetUnitPrice: true }).meta({ id: "BuyerQuoteLineItem" });

export const BuyerQuoteComment = z
  .object({ id, authorType: z.enum(["merchant", "buyer"]), authorName: z.string().nullable(), body: z.string(), createdAt: ts })
  .strict()
  .meta({ id: "BuyerQuoteComment" });

export const BuyerQuote = z
  .object({
    quote: z
      .object({
        number: z.string(),
        status: Quote.shape.status,
        currency: z.string(),
        expiresAt: ts.nullable(),
        buyerReference: z.string().nullable(),
        declinedReason: z.string().nullable().meta({ description: "The merchant's reason when the merchant declined" }),
        acceptedRevisionId: id.nullable(),
        acceptedAt: ts.nullable(),
        acceptance: QuoteAcceptanceRecord.nullable(),
        checkoutUrl: z.string().nullable().meta({ description: "While accepted: the checkout to pay" }),
      })
      .strict(),
    revision: z
      .object({
        id,
        number: z.number().int(),
        status: z.enum(["issued", "superseded"]),
        items: z.array(BuyerQuoteLine),
        paymentTerms: QuoteRevision.shape.paymentTerms,
        depositAmount: money.nullable(),
        shippingMode: QuoteRevision.shape.shippingMode,
        shippingAmount: money.nullable(),
        subtotal: money,
        shippingTotal: money,
        taxTotal: money,
        total: money,
        issuedAt: ts.nullable(),
      })
      .strict()
      .nullable()
      .meta({ description: "The current offer (null before the first issue)" }),
    revisions: z.array(z.object({ id, number: z.number().int(), status: z.enum(["issued", "superseded"]), issuedAt: ts.nullable(), total: money }).strict()),
    comments: z.array(BuyerQuoteComment),
    merchant: z.object({ name: z.string(), logoUrl: z.string().nullable(), brandColor: z.string().nullable() }).strict(),
    pdfUrl: z.string().nullable(),
  })
  .strict()
  .meta({ id: "BuyerQuote", description: "What the buyer link shows: never internal comments or notes, the working revision or target prices" });

export const BuyerQuoteAcceptance = z.object({ quote: BuyerQuote, checkoutUrl: z.string() }).strict().meta({ id: "BuyerQuoteAcceptance" });

export const Notification = z
  .object({
    id,
    type: z.string(),
    quoteId: id.nullable(),
    title: z.string(),
    body: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    read: z.boolean(),
    readAt: ts.nullable(),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Notification" });

export const QuoteRequestForm = z
  .object({
    id,
    name: z.string(),
    fields: z.object({ lineItems: z.boolean(), targetPrice: z.boolean(), requireBotChallenge: z.boolean() }).strict(),
    successMessage: z.string().nullable(),
    tokenPrefix: z.string(),
    formToken: z.string().nullable().meta({ description: "The qrf_ token: only in the response that minted it (null on reads and Idempotency-Key replays)" }),
    hostedUrl: z.string().nullable().meta({ description: "The hosted form (carries the token): only when minted" }),
    createdAt: ts,
    updatedAt: ts,
  })
  .strict()
  .meta({ id: "QuoteRequestForm" });

export const QuoteRequestReceipt = z.object({ received: z.literal(true) }).strict().meta({ id: "QuoteRequestReceipt", description: "The same for every accepted submission" });

export const Application = z
  .object({
    id,
    workspaceId: id,
    name: z.string(),
    slug: z.string(),
    currency: z.string(),
    storefrontBaseUrl: z.string().nullable(),
    allowedOrigins: z.array(z.string()),
    cartRecoveryUrlTemplate: z.string().nullable(),
    checkoutLinkBaseUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    brandColor: z.string().nullable(),
    supportEmail: z.string().nullable(),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Application" });

// ---- mail --------------------------------------------------------------------------------------------------

export const Email = z
  .object({
    id,
    template: z.string(),
    audience: z.enum(["buyer", "merchant", "invitee", "member"]),
    to: z.array(z.string()),
    status: z.enum(["queued", "sending", "sent", "kept", "failed"]),
    subject: z.string().nullable().meta({ description: "Set once rendered by the mail job" }),
    html: z.string().nullable(),
    text: z.string().nullable(),
    quoteId: id.nullable(),
    orderId: id.nullable(),
    paymentId: id.nullable(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    sentAt: ts.nullable(),
    createdAt: ts,
  })
  .strict()
  .meta({ id: "Email" });

const templateText = { subject: z.string(), heading: z.string(), body: z.string(), ctaLabel: z.string().nullable() };
export const EmailTemplate = z
  .object({
    name: z.string(),
    audience: z.enum(["buyer", "merchant", "invitee", "member"]),
    description: z.string(),
    ...templateText,
    defaults: z.object(templateText).strict(),
    customized: z.boolean(),
    variables: z.array(z.string()).meta({ description: "The {{placeholders}} a template may use" }),
    updatedAt: ts.nullable(),
  })
  .strict()
  .meta({ id: "EmailTemplate" });

export const RenderedEmail = z.object({ subject: z.string(), html: z.string(), text: z.string() }).strict().meta({ id: "RenderedEmail" });
