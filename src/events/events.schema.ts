// GraphQL: the event log and the live `events` subscription (graphql-ws and SSE), tenant-scoped and gated by
// each event type's read scope, fed by the same hub that feeds webhooks.
import { builder } from "../graphql/builder";
import { pageOf, pageArgs } from "../graphql/shared-types";
import { EnvironmentKindEnum } from "../platform/platform.schema";
import type { EVENT_CONVENTIONS, eventTypeInfo } from "./catalog";
import { envelope, getEvent, listEvents, listEventTypes, liveItem, subscribeEvents } from "./events.service";
import type { Envelope } from "../shared/hub";

const EventRef = builder.objectRef<Envelope>("Event").implement({
  description: "Something that happened, as webhooks deliver it and the events subscription streams it; ignore unknown keys",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Unique and stable: store it to drop duplicates (delivery is at least once)" }),
    type: t.exposeString("type", { description: "What happened, e.g. order.created (Query.eventTypes lists every type)" }),
    version: t.exposeString("version", { description: "Envelope version, \"1\"; fields are added without a change" }),
    workspaceId: t.exposeID("workspaceId"),
    environmentId: t.exposeID("environmentId"),
    environmentKind: t.field({ type: EnvironmentKindEnum, nullable: true, description: "Whether it happened in production", resolve: (e) => (e.environmentKind as "production" | "non_production" | null) ?? null }),
    createdAt: t.field({ type: "DateTime", description: "When it happened (kept on replays)", resolve: (e) => e.createdAt }),
    data: t.field({ type: "JSON", description: "The event's payload; its keys depend on the type (EventType.requiredDataKeys, EventType.example)", resolve: (e) => e.data }),
  }),
});

const EventPage = pageOf<Envelope>("EventPage", EventRef, "events");

const EventTypeRef = builder.objectRef<ReturnType<typeof eventTypeInfo>>("EventType").implement({
  description: "One entry of the event catalog (REST: GET /event-types)",
  fields: (t) => ({
    type: t.exposeString("type", { description: "The type name, e.g. payment.captured" }),
    readScope: t.exposeString("readScope", { description: "The scope a credential needs to read, stream or subscribe an endpoint to it" }),
    subscribable: t.exposeBoolean("subscribable", { description: "Whether a webhook endpoint may list it in enabledEvents (webhook.ping is sent to one endpoint on request)" }),
    emitted: t.exposeBoolean("emitted", { description: "Whether the service records this type today; the others are reserved for capabilities still being built" }),
    trigger: t.exposeString("trigger", { description: "When it is recorded" }),
    dataShape: t.exposeString("dataShape", { description: "The JSON type of data (object)" }),
    requiredDataKeys: t.exposeStringList("requiredDataKeys", { description: "Keys data always has (more may appear)" }),
    example: t.field({ type: EventRef, description: "A sample envelope", resolve: (e) => e.example }),
  }),
});

const RetiredRef = builder.objectRef<{ name: string; deliveredAs: string }>("RetiredEventType").implement({
  description: "An old type name still accepted in enabledEvents and delivered under its new name",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The retired name" }),
    deliveredAs: t.exposeString("deliveredAs", { description: "The name events are delivered as" }),
  }),
});

const EventConventionsRef = builder.objectRef<typeof EVENT_CONVENTIONS>("EventConventions").implement({
  description: "How every event looks and is delivered (REST: meta.conventions of GET /event-types)",
  fields: (t) => ({
    envelope: t.exposeStringList("envelope", { description: "The envelope's keys" }),
    version: t.exposeString("version", { description: "How the envelope is versioned" }),
    amounts: t.exposeString("amounts", { description: "How money is written" }),
    timestamps: t.exposeString("timestamps", { description: "How times are written" }),
    ids: t.exposeString("ids", { description: "How to treat ids" }),
    delivery: t.exposeString("delivery", { description: "The delivery guarantee and what it asks of a receiver" }),
    signature: t.exposeString("signature", { description: "The signature header and how to verify it" }),
    replay: t.exposeString("replay", { description: "What a replayed delivery keeps" }),
    retired: t.field({
      type: [RetiredRef],
      description: "Retired type names and the names they are delivered as (REST: an object keyed by the retired name)",
      resolve: (c) => Object.entries(c.retired).map(([name, deliveredAs]) => ({ name, deliveredAs })),
    }),
  }),
});

const EventTypeCatalogRef = builder.objectRef<ReturnType<typeof listEventTypes>>("EventTypeCatalog").implement({
  description: "Every event type and the conventions they share",
  fields: (t) => ({
    types: t.field({ type: [EventTypeRef], description: "Every type, by name", resolve: (c) => c.types }),
    conventions: t.field({ type: EventConventionsRef, description: "Envelope, signature and delivery rules", resolve: (c) => c.conventions }),
  }),
});

builder.queryFields((t) => ({
  eventTypes: t.field({
    type: EventTypeCatalogRef,
    description: "The event catalog: which types exist, which the service emits today, and how events are delivered",
    authScopes: { authenticated: true },
    resolve: (_r, _a, ctx) => listEventTypes(ctx),
  }),
  events: t.field({
    type: EventPage,
    description: "Recorded events of the credential's application and environment, newest first, of the types it may read",
    authScopes: { authenticated: true },
    args: { type: t.arg.string({ description: "Only this type, e.g. order.created" }), ...pageArgs(t) },
    resolve: async (_r, args, ctx) => {
      const page = await listEvents(ctx, { type: args.type ?? undefined, limit: (args.first ?? args.limit) ?? undefined, cursor: (args.after ?? args.cursor) ?? undefined });
      return { items: page.items.map(envelope), pagination: page.pagination };
    },
  }),
  event: t.field({
    type: EventRef,
    description: "One event (404 when the credential may not read its type)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true, description: "The event's id" }) },
    resolve: async (_r, args, ctx) => envelope(await getEvent(ctx, String(args.id))),
  }),
}));

builder.subscriptionType({
  description: "Live updates over graphql-ws (or server-sent events) on /graphql; each checks the credential's scopes when it starts and ends when the credential is revoked",
});
builder.subscriptionFields((t) => ({
  events: t.field({
    type: EventRef,
    description: "Events of the credential's application and environment as they commit; `types` narrows them",
    authScopes: { authenticated: true },
    args: { types: t.arg.stringList({ description: "Only these types (default: every type the credential may read)" }) },
    subscribe: (_r, args, ctx) => subscribeEvents(ctx, args.types),
    resolve: (e) => liveItem(e),
  }),
}));
