// Recording events in the caller's transaction (the outbox), and reading them back, gated by read scope.
import { z } from "zod";
import type { Event } from "../generated/prisma/client";
import { requirePrincipal, requireTenant } from "../platform/auth.service";
import type { Principal } from "../platform/principal";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { hasScope } from "../shared/scopes";
import { EVENT_CONVENTIONS, EVENT_TYPES, eventTypeInfo, READ_SCOPE } from "./catalog";
import type { Envelope } from "./hub";

export interface EventTenant {
  workspaceId: string;
  applicationId: string;
  environmentId: string;
  environmentKind: string;
}

/** The tenant of the calling credential, for services that record events on its behalf. */
export function principalEventTenant(ctx: Ctx): EventTenant {
  const t = requireTenant(ctx);
  return { ...t, environmentKind: ctx.principal!.environment.kind };
}

export function envelope(e: Event): Envelope {
  return {
    id: e.id,
    type: e.type,
    version: e.version,
    workspaceId: e.workspaceId,
    environmentId: e.environmentId,
    environmentKind: e.environmentKind,
    createdAt: e.createdAt.toISOString(),
    data: e.data,
  };
}

/**
 * Records an event inside the caller's transaction and, in the same transaction, one delivery row per
 * subscribed endpoint of the environment (only to `onlyEndpointId` when given). After commit the hub fans
 * it out. Must be called inside withTx: an event without its change (or the reverse) cannot exist.
 */
export async function recordEvent(ctx: Ctx, tenant: EventTenant, type: string, data: Record<string, unknown>, opts: { onlyEndpointId?: string } = {}) {
  if (!ctx.afterCommit) throw new Error("recordEvent must run inside withTx");
  if (!READ_SCOPE.has(type)) throw new Error(`unknown event type ${type}`);
  const event = await ctx.db.event.create({
    data: { ...tenant, type, data: data as any, createdAt: ctx.clock.now() },
  });
  const endpoints = await ctx.db.webhookEndpoint.findMany({
    where: opts.onlyEndpointId
      ? { id: opts.onlyEndpointId, deletedAt: null }
      : { applicationId: tenant.applicationId, environmentId: tenant.environmentId, isActive: true, deletedAt: null, enabledEvents: { has: type } },
    select: { id: true },
  });
  if (endpoints.length) {
    await ctx.db.webhookDelivery.createMany({
      data: endpoints.map((e) => ({ endpointId: e.id, eventId: event.id, nextAttemptAt: event.createdAt })),
    });
  }
  const env = envelope(event);
  ctx.afterCommit.push(() => ctx.deps.hub.committed([{ applicationId: tenant.applicationId, envelope: env }]));
  return event;
}

export function canRead(p: Principal, type: string) {
  const scope = READ_SCOPE.get(type);
  return scope !== undefined && hasScope(p.scopes, scope);
}

export function readableTypes(p: Principal) {
  return EVENT_TYPES.filter((t) => canRead(p, t));
}

const eventFilters = { type: z.string().min(1).max(100).optional() };

export async function listEvents(ctx: Ctx, query: unknown) {
  const p = requirePrincipal(ctx);
  const t = requireTenant(ctx);
  const q = parseListQuery(eventFilters, query);
  if (q.type && !READ_SCOPE.has(q.type)) throw errors.validation([{ path: ["query", "type"], message: `Unknown event type "${q.type}"` }]);
  if (q.type && !canRead(p, q.type)) throw errors.insufficientScopes([READ_SCOPE.get(q.type)!]);
  const types = q.type ? [q.type] : readableTypes(p);
  const ks = keyset(q);
  const rows = await ctx.db.event.findMany({
    where: { applicationId: t.applicationId, environmentId: t.environmentId, type: { in: types }, ...ks.where },
    orderBy: ks.orderBy,
    take: ks.take,
  });
  return toPage(rows, q);
}

export async function getEvent(ctx: Ctx, id: string) {
  const p = requirePrincipal(ctx);
  const t = requireTenant(ctx);
  const row = z.uuid().safeParse(id).success
    ? await ctx.db.event.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } })
    : null;
  if (!row) throw errors.notFound("Event");
  if (!canRead(p, row.type)) throw errors.insufficientScopes([READ_SCOPE.get(row.type)!]);
  return row;
}

export function listEventTypes(ctx: Ctx) {
  requirePrincipal(ctx);
  return { types: EVENT_TYPES.map(eventTypeInfo), conventions: EVENT_CONVENTIONS };
}

/** The event tenant of a row, for paths without a credential (buyer checkout, jobs). */
export async function tenantOf(ctx: Ctx, row: { applicationId: string; environmentId: string }): Promise<EventTenant> {
  const env = await ctx.db.environment.findUniqueOrThrow({ where: { id: row.environmentId }, select: { workspaceId: true, kind: true } });
  return { workspaceId: env.workspaceId, applicationId: row.applicationId, environmentId: row.environmentId, environmentKind: env.kind };
}
