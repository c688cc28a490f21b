// The event envelope and the `data` of every documented event type (src/events/catalog.ts: the types whose
// required data keys the specifications give). Each documented type gets a schema `EventData.<type>` with its
// required keys typed (more keys may come: fields are added without a version change); the Event schema applies
// it to an event of that type (if/then on `type`), and the document's `webhooks` describe each delivery.
import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { EVENT_TYPES, eventTypeInfo } from "../events/catalog";
import * as S from "./schemas";
import { SavedCard } from "./wallet.paths";

const ts = z.iso.datetime();
const idOrNull = z.string().nullable();
const CustomerRef = z.object({ id: z.string(), email: z.string().nullable() }).nullable().meta({ description: "The customer the event concerns (null for a guest)" });
const PlatformCharge = z
  .object({ id: z.string(), plan: z.string(), amount: z.number().int(), currency: z.string(), status: z.enum(["succeeded", "failed"]), paymentMethodId: z.string().nullable(), failureCode: z.string().nullable(), createdAt: ts })
  .meta({ id: "PlatformCharge" });

/** The type of each data key the catalogue requires, by name. */
const KEY_SCHEMAS: Record<string, z.ZodType> = {
  previousPaymentMethodId: idOrNull,
  failedPaymentMethodId: idOrNull,
  orderId: idOrNull.meta({ description: "null for a payment without an order" }),
  recoveryUrl: z.string().nullable().meta({ description: "null when the application has no cartRecoveryUrlTemplate" }),
  previousHoldReason: z.string().nullable(),
  scriptId: idOrNull.meta({ description: "null when a blocked report names only the refused resource" }),
  blockedUri: z.string().nullable().meta({ description: "The refused resource (origin and path) of a csp_violation; else null" }),
  violatedDirective: z.string().nullable().meta({ description: "The directive of a csp_violation; else null" }),
  previousSecretExpiresAt: ts.nullable(),
  uninstalledAt: ts,
  rotatedAt: ts,
  dueDate: z.string().meta({ description: "ISO 8601 date or date-time" }),
  capturedAmount: z.number().int(),
  authorizedAmount: z.number().int(),
  disputedAmount: z.number().int(),
  compAmount: z.number().int(),
  previousCompAmount: z.number().int(),
  amount: z.number().int(),
  customer: CustomerRef,
  paymentMethod: SavedCard,
  charge: PlatformCharge,
  fulfillment: S.Fulfillment,
  return: S.OrderReturn,
  mode: z.enum(["validate", "commit", "undo"]),
  outcome: z.enum(["merchant_won", "buyer_won"]),
  invoiceNumber: z.string().nullable(),
};
const keySchema = (key: string) => KEY_SCHEMAS[key] ?? (/Id$/.test(key) ? z.string() : z.string().meta({ description: key }));

/** Schema component name of a documented type's data. */
const dataId = (type: string) => `EventData.${type}`;

const DOCUMENTED_EVENT_TYPES = EVENT_TYPES.filter((t) => eventTypeInfo(t).requiredDataKeys.length > 0);

function dataSchema(type: string) {
  const info = eventTypeInfo(type);
  return z
    .looseObject(Object.fromEntries(info.requiredDataKeys.map((k) => [k, keySchema(k)])))
    .meta({ id: dataId(type), description: `The data of ${type}: ${info.trigger}` });
}

const envelopeFields = {
  id: z.uuid().meta({ description: "The event's id: the same in every delivery and replay; store it before side effects" }),
  version: z.string().meta({ description: "1; fields are added without a version change, so ignore unknown keys" }),
  workspaceId: z.uuid(),
  environmentId: z.uuid(),
  environmentKind: z.enum(["production", "non_production"]).optional(),
  createdAt: ts,
};

/** JSON Schema `allOf` entries: an event of a documented type has that type's data. */
export function eventDataConditions() {
  return DOCUMENTED_EVENT_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ["type"] },
    then: { properties: { data: { $ref: `#/components/schemas/${dataId(type)}` } } },
  }));
}

const camel = (type: string) => type.split(/[._]/).map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");

/** One webhook per documented event type: the POST a subscribed endpoint receives. */
export function registerEventWebhooks(reg: OpenAPIRegistry) {
  for (const type of DOCUMENTED_EVENT_TYPES) {
    const info = eventTypeInfo(type);
    const body = z.object({ ...envelopeFields, type: z.literal(type), data: dataSchema(type) }).meta({ id: `Event.${type}` });
    reg.registerWebhook({
      method: "post",
      path: type,
      operationId: `${camel(type)}Event`,
      summary: `${type} (scope ${info.readScope})`,
      description: `${info.trigger}\n\nSigned with X-Service-Signature (t=<unix>,v1=<hex HMAC-SHA256 of \`\${t}.\${rawBody}\`>). Delivered at least once; ${info.subscribable ? "subscribe with enabledEvents" : "delivered without a subscription"}.`,
      tags: ["events"],
      security: [],
      request: { body: { required: true, content: { "application/json": { schema: body } } } },
      responses: {
        200: { description: "Any 2xx acknowledges the delivery" },
        400: { description: "Any other answer, or none in time, is retried (5m, 15m, 1h, 6h, 24h), then dead-lettered" },
      },
    });
  }
}
