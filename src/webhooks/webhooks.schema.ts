// GraphQL for webhook endpoints and their deliveries: the same services and views as REST. The signing secret
// is shown once, by the mutation that mints it; the stored (sealed) secret is never a field.
import type { WebhookDeliveryAttempt } from "../generated/prisma/client";
import { compact, withClears } from "../carts/carts.schema";
import { builder } from "../graphql/builder";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import {
  createEndpoint,
  deleteEndpoint,
  deliveryView,
  endpointView,
  getDelivery,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateSecret,
  testEndpoint,
  updateEndpoint,
} from "./endpoints.service";

type EndpointV = ReturnType<typeof endpointView>;
type DeliveryV = ReturnType<typeof deliveryView> & { attemptLog?: WebhookDeliveryAttempt[] };

const EndpointRef = builder.objectRef<EndpointV>("WebhookEndpoint").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url"),
    description: t.exposeString("description", { nullable: true }),
    enabledEvents: t.exposeStringList("enabledEvents"),
    isActive: t.exposeBoolean("isActive"),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    previousSecretExpiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "end of the rotation window in which the previous secret still signs; null outside one",
      resolve: (e) => e.previousSecretExpiresAt,
    }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (e) => e.updatedAt }),
  }),
});

const EndpointWithSecret = builder.objectRef<EndpointV & { secret: OneTimeSecret | string | null }>("WebhookEndpointWithSecret").implement({
  description: "An endpoint and its new signing secret, shown once and never again",
  fields: (t) => ({
    secret: t.string({ nullable: true, description: "whsec_…: verify deliveries with it; shown once, null when an Idempotency-Key replay returns the stored result", resolve: (e, _a, ctx) => revealed(e.secret, ctx) }),
    endpoint: t.field({ type: EndpointRef, resolve: ({ secret: _secret, ...view }) => view }),
  }),
});

const AttemptRef = builder.objectRef<WebhookDeliveryAttempt>("WebhookDeliveryAttempt").implement({
  fields: (t) => ({
    number: t.exposeInt("number"),
    statusCode: t.exposeInt("statusCode", { nullable: true }),
    error: t.exposeString("error", { nullable: true }),
    responseExcerpt: t.exposeString("responseExcerpt", { nullable: true }),
    durationMs: t.exposeInt("durationMs"),
    at: t.field({ type: "DateTime", resolve: (a) => a.at }),
  }),
});

const DeliveryRef = builder.objectRef<DeliveryV>("WebhookDelivery").implement({
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeID("endpointId"),
    eventId: t.exposeID("eventId"),
    eventType: t.string({ nullable: true, resolve: (d) => d.eventType ?? null }),
    status: t.exposeString("status"),
    attempts: t.exposeInt("attempts"),
    nextAttemptAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.nextAttemptAt }),
    lastAttemptAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.lastAttemptAt }),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true }),
    lastError: t.exposeString("lastError", { nullable: true }),
    succeededAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.succeededAt }),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    attemptLog: t.field({
      type: [AttemptRef],
      nullable: true,
      description: "single-delivery reads only (webhookDelivery)",
      resolve: (d) => d.attemptLog ?? null,
    }),
  }),
});

const DeliveryPage = builder.objectRef<{ items: DeliveryV[]; total: number; limit: number; offset: number }>("WebhookDeliveryPage").implement({
  fields: (t) => ({
    nodes: t.field({ type: [DeliveryRef], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    limit: t.exposeInt("limit"),
    offset: t.exposeInt("offset"),
  }),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [EndpointRef],
    authScopes: { scope: "webhooks:read" },
    resolve: async (_r, _a, ctx) => (await listEndpoints(ctx)).map((e) => endpointView(e, ctx.clock.now())),
  }),
  webhookEndpoint: t.field({
    type: EndpointRef,
    authScopes: { scope: "webhooks:read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => endpointView(await getEndpoint(ctx, String(a.id)), ctx.clock.now()),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPage,
    authScopes: { scope: "webhooks:read" },
    description: "Newest first; offset pagination with the total, as REST",
    args: { endpointId: t.arg.id({ required: true }), limit: t.arg.int(), offset: t.arg.int() },
    resolve: async (_r, a, ctx) => {
      const page = await listDeliveries(ctx, String(a.endpointId), compact({ limit: a.limit, offset: a.offset }));
      return { ...page, items: page.items.map(deliveryView) };
    },
  }),
  webhookDelivery: t.field({
    type: DeliveryRef,
    authScopes: { scope: "webhooks:read" },
    args: { endpointId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => {
      const d = await getDelivery(ctx, String(a.endpointId), String(a.id));
      return { ...deliveryView(d), attemptLog: d.attemptLog };
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointWithSecret,
    authScopes: { scope: "webhooks:write" },
    args: { url: t.arg.string({ required: true }), enabledEvents: t.arg.stringList({ required: true }), description: t.arg.string() },
    resolve: (_r, a, ctx) => createEndpoint(ctx, compact(a)),
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointRef,
    description: "Absent arguments are unchanged; description: null clears the description",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true }), url: t.arg.string(), enabledEvents: t.arg.stringList(), isActive: t.arg.boolean(), description: t.arg.string() },
    resolve: async (_r, { id, ...body }, ctx) => endpointView(await updateEndpoint(ctx, String(id), withClears(body, ["description"])), ctx.clock.now()),
  }),
  deleteWebhookEndpoint: t.boolean({
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await deleteEndpoint(ctx, String(a.id));
      return true;
    },
  }),
  rotateWebhookEndpointSecret: t.field({
    type: EndpointWithSecret,
    description: "A new signing secret; the previous one keeps signing for graceSeconds (default 86400, 0 ends it now)",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true }), graceSeconds: t.arg.int() },
    resolve: (_r, a, ctx) => rotateSecret(ctx, String(a.id), compact({ graceSeconds: a.graceSeconds })),
  }),
  replayWebhookDelivery: t.field({
    type: DeliveryRef,
    description: "Sends a dead-lettered delivery again with the original event",
    authScopes: { scope: "webhooks:write" },
    args: { endpointId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => deliveryView(await replayDelivery(ctx, String(a.endpointId), String(a.id))),
  }),
  testWebhookEndpoint: t.field({
    type: DeliveryRef,
    description: "Sends a signed webhook.ping to this endpoint only",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => deliveryView(await testEndpoint(ctx, String(a.id))),
  }),
}));
