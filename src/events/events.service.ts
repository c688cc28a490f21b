// Recording events in the caller's transaction (the outbox), and reading them back, gated by read scope.
import { z } from "zod";
import type { Event } from "../generated/prisma/client";
import { requirePrincipal, requireTenant } from "../platform/auth.service";
import type { Principal } from "../platform/principal";
import { type Ctx, memoInTx } from "../shared/context";
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
  // A command that records several events reads the tenant's endpoints once (they cannot change under it).
  const endpoints = opts.onlyEndpointId
    ? await ctx.db.webhookEndpoint.findMany({ where: { id: opts.onlyEndpointId, deletedAt: null }, select: { id: true } })
    : (
        await memoInTx(ctx, `endpoints:${tenant.applicationId}:${tenant.environmentId}`, () =>
          ctx.db.webhookEndpoint.findMany({
            where: { applicationId: tenant.applicationId, environmentId: tenant.environmentId, isActive: true, deletedAt: null },
            select: { id: true, enabledEvents: true },
          }),
        )
      ).filter((e) => e.enabledEvents.includes(type));
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

// An environment's workspace and kind never change, so they are safe to keep for the life of the process.
const envFacts = new Map<string, { workspaceId: string; kind: string }>();

/** The event tenant of a row, for paths without a credential (buyer checkout, jobs). */
export async function tenantOf(ctx: Ctx, row: { applicationId: string; environmentId: string }): Promise<EventTenant> {
  let env = envFacts.get(row.environmentId);
  if (!env) {
    env = await ctx.db.environment.findUniqueOrThrow({ where: { id: row.environmentId }, select: { workspaceId: true, kind: true } });
    if (envFacts.size > 10_000) envFacts.clear();
    envFacts.set(row.environmentId, env);
  }
  return { workspaceId: env.workspaceId, applicationId: row.applicationId, environmentId: row.environmentId, environmentKind: env.kind };
}
