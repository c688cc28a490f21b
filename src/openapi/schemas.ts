// Response shapes of /api/v1 for the OpenAPI document: one zod schema per view function (the views in the
// services are the source of truth; test/helpers/http.ts validates every response of the contract tests against
// the document, so a view that drifts from its schema fails the suite). Request schemas are the services' own.
import { z } from "zod";
import { Address, lineFields, metadata, orNull, ShippingRate, totals } from "./common-schemas";

export { Address, orNull, ShippingRate } from "./common-schemas";

const id = z.uuid();
const ts = z.iso.datetime();
const money = z.number().int();
const json = z.unknown();
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

/** The catalogue's example envelope: its data holds each required key with a placeholder ("<orderId>"). */
const EventExample = Event.extend({
  data: z.record(z.string(), z.string()).meta({ description: "Each required data key with a placeholder value, e.g. \"<orderId>\"" }),
})
  .meta({ id: "EventExample", description: "An example envelope of the type: the data values are placeholders, not typed values" });

export const EventType = z
  .object({ type: z.string(), readScope: z.string(), subscribable: z.boolean(), emitted: z.boolean().describe("Whether the service records this type today; the others are reserved for capabilities still being built"), trigger: z.string(), dataShape: z.string(), requiredDataKeys: z.array(z.string()), example: EventExample })
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
  .object({
    id,
    externalId: z.string().nullable(),
    email: z.string().nullable(),
    metadata,
    company: z.string().nullable(),
    name: z.string().nullable(),
    phone: z.string().nullable(),
    shippingAddress: nullable(Address),
    billingAddress: nullable(Address),
    createdAt: ts,
  })
  .meta({ id: "Customer" });

export const CartLineItem = z.object(lineFields).meta({ id: "CartLineItem" });

const Totals = z.object(totals).meta({ id: "Totals" });

const TaxLine = z
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

export * from "./order-schemas";
export * from "./quote-schemas";

export * from "./mail-schemas";
