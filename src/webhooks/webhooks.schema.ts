// GraphQL for webhook endpoints and their deliveries: the same services and views as REST. The signing secret
// is shown once, by the mutation that mints it; the stored (sealed) secret is never a field.
import type { WebhookDeliveryAttempt } from "../generated/prisma/client";
import { compact, withClears } from "../graphql/args";
import { builder } from "../graphql/builder";
import { describedEnum, pageOf, pageArgs } from "../graphql/shared-types";
import { type OneTimeSecret, revealed } from "../shared/secrets";
import {
  createEndpoint,
  deleteEndpoint,
  deliveryView,
  endpointView,
  getDelivery,
  getEndpoint,
  listDeliveriesPage,
  listEndpoints,
  replayDelivery,
  rotateSecret,
  testEndpoint,
  updateEndpoint,
} from "./endpoints.service";

type EndpointV = ReturnType<typeof endpointView>;
type DeliveryV = ReturnType<typeof deliveryView> & { attemptLog?: WebhookDeliveryAttempt[] };

type DeliveryStatus = "pending" | "retrying" | "succeeded" | "dead_letter";
const DeliveryStatusEnum = describedEnum<DeliveryStatus>("WebhookDeliveryStatus", "Where a delivery is", {
  pending: "Waiting for its first attempt",
  retrying: "An attempt failed; nextAttemptAt says when the next one goes",
  succeeded: "The endpoint answered 2xx",
  dead_letter: "Every attempt failed; replayWebhookDelivery sends it again",
});

const EndpointRef = builder.objectRef<EndpointV>("WebhookEndpoint").implement({
  description: "A URL that receives signed events of the types it subscribes to",
  fields: (t) => ({
    id: t.exposeID("id"),
    url: t.exposeString("url", { description: "Where events are POSTed" }),
    description: t.exposeString("description", { nullable: true, description: "What it is for" }),
    enabledEvents: t.exposeStringList("enabledEvents", { description: "The event types it receives" }),
    isActive: t.exposeBoolean("isActive", { description: "Inactive endpoints receive nothing" }),
    applicationId: t.exposeID("applicationId"),
    environmentId: t.exposeID("environmentId"),
    previousSecretExpiresAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "End of the rotation window in which the previous secret still signs (deliveries carry two v1 signatures); null outside one",
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
    endpoint: t.field({ type: EndpointRef, description: "The endpoint", resolve: ({ secret: _secret, ...view }) => view }),
  }),
});

const AttemptRef = builder.objectRef<WebhookDeliveryAttempt>("WebhookDeliveryAttempt").implement({
  description: "One try at sending a delivery",
  fields: (t) => ({
    number: t.exposeInt("number", { description: "1 for the first attempt" }),
    statusCode: t.exposeInt("statusCode", { nullable: true, description: "The endpoint's HTTP status; null when it did not answer" }),
    error: t.exposeString("error", { nullable: true, description: "Why it failed (timeout, connection refused, non-2xx)" }),
    responseExcerpt: t.exposeString("responseExcerpt", { nullable: true, description: "The first 500 characters of the answer" }),
    durationMs: t.exposeInt("durationMs", { description: "How long the attempt took" }),
    at: t.field({ type: "DateTime", description: "When it was made", resolve: (a) => a.at }),
  }),
});

export const DeliveryRef = builder.objectRef<DeliveryV>("WebhookDelivery").implement({
  description: "One event on its way to one endpoint",
  fields: (t) => ({
    id: t.exposeID("id"),
    endpointId: t.exposeID("endpointId", { description: "The endpoint" }),
    eventId: t.exposeID("eventId", { description: "The event (the same id in the delivered body)" }),
    eventType: t.string({ nullable: true, description: "The event's type", resolve: (d) => d.eventType ?? null }),
    status: t.field({ type: DeliveryStatusEnum, description: "Where it is", resolve: (d) => d.status as DeliveryStatus }),
    attempts: t.exposeInt("attempts", { description: "Attempts made so far" }),
    nextAttemptAt: t.field({ type: "DateTime", nullable: true, description: "When the next attempt goes; null once it succeeded or dead-lettered", resolve: (d) => d.nextAttemptAt }),
    lastAttemptAt: t.field({ type: "DateTime", nullable: true, description: "When the latest attempt was made", resolve: (d) => d.lastAttemptAt }),
    lastStatusCode: t.exposeInt("lastStatusCode", { nullable: true, description: "The latest attempt's HTTP status" }),
    lastError: t.exposeString("lastError", { nullable: true, description: "Why the latest attempt failed" }),
    succeededAt: t.field({ type: "DateTime", nullable: true, description: "When the endpoint answered 2xx", resolve: (d) => d.succeededAt }),
    createdAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
    attemptLog: t.field({
      type: [AttemptRef],
      nullable: true,
      description: "Every attempt, oldest first; single-delivery reads only (webhookDelivery), null in lists",
      resolve: (d) => d.attemptLog ?? null,
    }),
  }),
});

export const DeliveryPage = pageOf<DeliveryV>("WebhookDeliveryPage", DeliveryRef, "deliveries");
const endpointId = "The endpoint's id";

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    type: [EndpointRef],
    description: "The environment's endpoints, newest first (at most 500, so not paged)",
    authScopes: { scope: "webhooks:read" },
    resolve: async (_r, _a, ctx) => (await listEndpoints(ctx)).map((e) => endpointView(e, ctx.clock.now())),
  }),
  webhookEndpoint: t.field({
    type: EndpointRef,
    description: "One endpoint (never its secret)",
    authScopes: { scope: "webhooks:read" },
    args: { id: t.arg.id({ required: true, description: endpointId }) },
    resolve: async (_r, a, ctx) => endpointView(await getEndpoint(ctx, String(a.id)), ctx.clock.now()),
  }),
  webhookDeliveries: t.field({
    type: DeliveryPage,
    authScopes: { scope: "webhooks:read" },
    description: "An endpoint's deliveries, newest first",
    args: { endpointId: t.arg.id({ required: true, description: endpointId }), ...pageArgs(t) },
    resolve: async (_r, a, ctx) => {
      const page = await listDeliveriesPage(ctx, String(a.endpointId), compact({ limit: (a.first ?? a.limit), cursor: (a.after ?? a.cursor) }));
      return { ...page, items: page.items.map(deliveryView) };
    },
  }),
  webhookDelivery: t.field({
    type: DeliveryRef,
    description: "One delivery with its attempt log",
    authScopes: { scope: "webhooks:read" },
    args: { endpointId: t.arg.id({ required: true, description: endpointId }), id: t.arg.id({ required: true, description: "The delivery's id" }) },
    resolve: async (_r, a, ctx) => {
      const d = await getDelivery(ctx, String(a.endpointId), String(a.id));
      return { ...deliveryView(d), attemptLog: d.attemptLog };
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: EndpointWithSecret,
    description: "Adds an endpoint; the answer holds its signing secret, once",
    authScopes: { scope: "webhooks:write" },
    args: {
      url: t.arg.string({ required: true, description: "Where to POST events; in production an address that resolves to a private network receives nothing" }),
      enabledEvents: t.arg.stringList({ required: true, description: "Event types to receive; each must be subscribable and readable by the key (Query.eventTypes)" }),
      description: t.arg.string({ description: "What it is for" }),
    },
    resolve: (_r, a, ctx) => createEndpoint(ctx, compact(a)),
  }),
  updateWebhookEndpoint: t.field({
    type: EndpointRef,
    description: "Absent arguments are unchanged; description: null clears the description",
    authScopes: { scope: "webhooks:write" },
    args: {
      id: t.arg.id({ required: true, description: endpointId }),
      url: t.arg.string({ description: "New URL" }),
      enabledEvents: t.arg.stringList({ description: "New event types (replaces the list)" }),
      isActive: t.arg.boolean({ description: "false pauses deliveries" }),
      description: t.arg.string({ description: "New description; null clears it" }),
    },
    resolve: async (_r, { id, ...body }, ctx) => endpointView(await updateEndpoint(ctx, String(id), withClears(body, ["description"])), ctx.clock.now()),
  }),
  deleteWebhookEndpoint: t.boolean({
    description: "Deletes an endpoint: it receives nothing more. true when done",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true, description: endpointId }) },
    resolve: async (_r, a, ctx) => {
      await deleteEndpoint(ctx, String(a.id));
      return true;
    },
  }),
  rotateWebhookEndpointSecret: t.field({
    type: EndpointWithSecret,
    description: "A new signing secret; the previous one keeps signing for graceSeconds (default 86400, 0 ends it now)",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true, description: endpointId }), graceSeconds: t.arg.int({ description: "Seconds the previous secret keeps signing (default 86400; 0 ends it now)" }) },
    resolve: (_r, a, ctx) => rotateSecret(ctx, String(a.id), compact({ graceSeconds: a.graceSeconds })),
  }),
  replayWebhookDelivery: t.field({
    type: DeliveryRef,
    description: "Sends a dead-lettered delivery again with the original event",
    authScopes: { scope: "webhooks:write" },
    args: { endpointId: t.arg.id({ required: true, description: endpointId }), id: t.arg.id({ required: true, description: "The dead-lettered delivery's id" }) },
    resolve: async (_r, a, ctx) => deliveryView(await replayDelivery(ctx, String(a.endpointId), String(a.id))),
  }),
  testWebhookEndpoint: t.field({
    type: DeliveryRef,
    description: "Sends a signed webhook.ping to this endpoint only",
    authScopes: { scope: "webhooks:write" },
    args: { id: t.arg.id({ required: true, description: endpointId }) },
    resolve: async (_r, a, ctx) => deliveryView(await testEndpoint(ctx, String(a.id))),
  }),
}));
