// GraphQL: the event log and the live `events` subscription (graphql-ws and SSE), tenant-scoped and gated by
// each event type's read scope, fed by the same hub that feeds webhooks.
import { builder, PageInfo } from "../graphql/builder";
import type { EVENT_CONVENTIONS, eventTypeInfo } from "./catalog";
import { envelope, getEvent, listEvents, listEventTypes, liveItem, subscribeEvents } from "./events.service";
import type { Envelope } from "./hub";

const EventRef = builder.objectRef<Envelope>("Event").implement({
  description: "Event envelope (platform.md part 2)",
  fields: (t) => ({
    id: t.exposeID("id"),
    type: t.exposeString("type"),
    version: t.exposeString("version"),
    workspaceId: t.exposeID("workspaceId"),
    environmentId: t.exposeID("environmentId"),
    environmentKind: t.exposeString("environmentKind", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.createdAt }),
    data: t.field({ type: "JSON", resolve: (e) => e.data }),
  }),
});

const EventPage = builder.objectRef<{ items: Envelope[]; pagination: { cursor: string | null; hasMore: boolean } }>("EventPage").implement({
  fields: (t) => ({
    nodes: t.field({ type: [EventRef], resolve: (p) => p.items }),
    pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pagination }),
  }),
});

const EventTypeRef = builder.objectRef<ReturnType<typeof eventTypeInfo>>("EventType").implement({
  description: "One entry of the event catalog (REST: GET /event-types)",
  fields: (t) => ({
    type: t.exposeString("type"),
    readScope: t.exposeString("readScope"),
    subscribable: t.exposeBoolean("subscribable"),
    trigger: t.exposeString("trigger"),
    dataShape: t.exposeString("dataShape"),
    requiredDataKeys: t.exposeStringList("requiredDataKeys"),
    example: t.field({ type: EventRef, resolve: (e) => e.example }),
  }),
});

const EventConventionsRef = builder.objectRef<typeof EVENT_CONVENTIONS>("EventConventions").implement({
  description: "How every event looks and is delivered (REST: meta.conventions of GET /event-types)",
  fields: (t) => ({
    envelope: t.exposeStringList("envelope"),
    version: t.exposeString("version"),
    amounts: t.exposeString("amounts"),
    timestamps: t.exposeString("timestamps"),
    ids: t.exposeString("ids"),
    delivery: t.exposeString("delivery"),
    signature: t.exposeString("signature"),
    replay: t.exposeString("replay"),
    retired: t.field({ type: "JSON", description: "retired type name -> the name it is delivered as", resolve: (c) => c.retired }),
  }),
});

const EventTypeCatalogRef = builder.objectRef<ReturnType<typeof listEventTypes>>("EventTypeCatalog").implement({
  fields: (t) => ({
    types: t.field({ type: [EventTypeRef], resolve: (c) => c.types }),
    conventions: t.field({ type: EventConventionsRef, resolve: (c) => c.conventions }),
  }),
});

builder.queryFields((t) => ({
  eventTypes: t.field({
    type: EventTypeCatalogRef,
    authScopes: { authenticated: true },
    resolve: (_r, _a, ctx) => listEventTypes(ctx),
  }),
  events: t.field({
    type: EventPage,
    authScopes: { authenticated: true },
    args: { type: t.arg.string(), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_r, args, ctx) => {
      const page = await listEvents(ctx, { type: args.type ?? undefined, limit: args.limit ?? undefined, cursor: args.cursor ?? undefined });
      return { items: page.items.map(envelope), pagination: page.pagination };
    },
  }),
  event: t.field({
    type: EventRef,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, args, ctx) => envelope(await getEvent(ctx, String(args.id))),
  }),
}));

builder.subscriptionType({});
builder.subscriptionFields((t) => ({
  events: t.field({
    type: EventRef,
    description: "Events of the credential's application and environment as they commit; `types` narrows them",
    authScopes: { authenticated: true },
    args: { types: t.arg.stringList() },
    subscribe: (_r, args, ctx) => subscribeEvents(ctx, args.types),
    resolve: (e) => liveItem(e),
  }),
}));
