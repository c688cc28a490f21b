// Recording events in the caller's transaction (the outbox), and reading them back, gated by read scope.
import { randomUUID } from "node:crypto";
import { filter, pipe } from "graphql-yoga";
import { z } from "zod";
import { sql } from "kysely";
import type { Event } from "../generated/prisma/client";
import { credentialIsLive } from "../platform/auth.service";
import { requirePrincipal, requireTenant } from "../shared/guards";
import type { Principal } from "../shared/principal";
import { type Ctx, type PendingEvent } from "../shared/context";
import { errors } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { hasScope } from "../shared/scopes";
import { EVENT_CONVENTIONS, EVENT_TYPES, eventTypeInfo, READ_SCOPE } from "./catalog";
import { type Envelope, tenantTopic } from "../shared/hub";
import { takePendingEmails } from "../mail/mail.service";
import { type Outbox, writingOutbox } from "./outbox";
import { hook } from "../shared/hook";
import { isUuid } from "../shared/ids";

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
 * What a domain above events does with each event recorded in a transaction, in it, as it is recorded: payments
 * queue the buyer's receipt for a capture (payments/receipts.ts), registered at start-up (src/hooks.ts).
 */
export const eventRecorded = hook<(ctx: Ctx, tenant: EventTenant, type: string, data: Record<string, unknown>) => void>("event-recorded handler (events.service.ts)");

/** An event made by newEvent: the row to write, and its envelope for the hub once written. */
export type NewEvent = PendingEvent & { envelope: Envelope };

/**
 * The event `type` with `data`, not written and not announced: for a command whose one statement writes it
 * (writingOutbox with outboxOf), and that announces it once that statement has run (announce). The id is chosen
 * here, so the caller has it at once.
 */
export function newEvent(ctx: Ctx, tenant: EventTenant, type: string, data: Record<string, unknown>, opts: { onlyEndpointId?: string } = {}): NewEvent {
  if (!READ_SCOPE.has(type)) throw new Error(`unknown event type ${type}`);
  const createdAt = ctx.clock.now();
  const event: Event = {
    id: randomUUID(),
    workspaceId: tenant.workspaceId,
    applicationId: tenant.applicationId,
    environmentId: tenant.environmentId,
    environmentKind: tenant.environmentKind,
    type,
    version: "1",
    data: JSON.parse(JSON.stringify(data)), // as stored: undefined fields dropped, dates as strings
    createdAt,
  };
  return { ...event, createdAt: createdAt.toISOString(), onlyEndpointId: opts.onlyEndpointId ?? null, envelope: envelope(event) };
}

/** After the statement that wrote them: the events go to the hub (subscriptions, the delivery worker). */
export function announce(ctx: Ctx, events: readonly NewEvent[]) {
  const items = events.map((e) => ({ applicationId: e.applicationId, envelope: e.envelope }));
  if (ctx.afterCommit) ctx.afterCommit.push(() => ctx.deps.hub.committed(items));
  else void ctx.deps.hub.committed(items);
}

/**
 * Records an event inside the caller's transaction. The transaction's events are written together, by the statement
 * that takes them (outboxOf) or else just before it commits, in one statement that also creates one delivery row per
 * subscribed endpoint of the environment (only to `onlyEndpointId` when given): the outbox costs at most one
 * statement per transaction, however many events it records. After commit the hub fans the events out. Must be
 * called inside withTx or withSqlTx: an event without its change (or the reverse) cannot exist.
 */
export async function recordEvent(ctx: Ctx, tenant: EventTenant, type: string, data: Record<string, unknown>, opts: { onlyEndpointId?: string } = {}) {
  if (!ctx.afterCommit || !ctx.beforeCommit) throw new Error("recordEvent must run inside withTx");
  const { envelope: env, onlyEndpointId, ...row } = newEvent(ctx, tenant, type, data, opts);
  if (!ctx.pendingEvents) {
    ctx.pendingEvents = [];
    ctx.beforeCommit.push((tx) => writeEvents(tx));
  }
  ctx.pendingEvents.push({ ...row, onlyEndpointId });
  const event = { ...row, createdAt: new Date(row.createdAt) } as Event;
  // Every capture, whichever path records it, sends the buyer a receipt (queued in this transaction).
  eventRecorded.call(ctx, tenant, type, event.data as Record<string, unknown>);
  ctx.afterCommit.push(() => ctx.deps.hub.committed([{ applicationId: tenant.applicationId, envelope: env }]));
  return event;
}

/**
 * What a statement writes to the outbox (events/outbox.ts writingOutbox): `events`, and inside a transaction the
 * events and emails it recorded so far, taken (the commit does not write them again). Events recorded later are
 * written at commit as usual.
 */
export function outboxOf(ctx: Ctx, events: readonly NewEvent[] = []): Outbox {
  return {
    events: [...(ctx.pendingEvents?.splice(0) ?? []), ...events.map(({ envelope: _, ...e }) => e)],
    emails: takePendingEmails(ctx),
  };
}

/** Writes the transaction's recorded events now rather than at its end, for a command that reads their deliveries. */
export async function flushEvents(ctx: Ctx) {
  await writeEvents(ctx);
}

/** The outbox write at commit: the transaction's events not yet written (with its queued emails), in one statement. */
async function writeEvents(ctx: Ctx) {
  if (!ctx.pendingEvents?.length) return;
  const outbox = outboxOf(ctx);
  await writingOutbox(ctx.sql, outbox).selectNoFrom(sql<number>`1`.as("one")).execute();
}

function canRead(p: Principal, type: string) {
  const scope = READ_SCOPE.get(type);
  return scope !== undefined && hasScope(p.scopes, scope);
}

function readableTypes(p: Principal) {
  return EVENT_TYPES.filter((t) => canRead(p, t));
}

/** The event types a caller asked for (all it may read when none), checked: unknown is 422, unreadable 403. */
function typesToRead(p: Principal, requested: string[] | null | undefined, path: (string | number)[]): string[] {
  if (!requested?.length) return readableTypes(p);
  const unknown = requested.filter((x) => !READ_SCOPE.has(x));
  if (unknown.length) throw errors.validation(unknown.map((x) => ({ path, message: `Unknown event type "${x}"` })));
  const missing = [...new Set(requested.filter((x) => !canRead(p, x)).map((x) => READ_SCOPE.get(x)!))];
  if (missing.length) throw errors.insufficientScopes(missing);
  return requested;
}

/** Marks the end of a live stream whose credential was revoked while it was open. */
const CREDENTIAL_ENDED = Symbol("credential ended");
const LIVE_RECHECK_MS = 1_000;

/**
 * A live stream that ends once its credential is revoked: before passing an item on, the credential is
 * re-checked when the last check is older than a second; a dead one yields CREDENTIAL_ENDED, then stops.
 * An iterator rather than an async generator, so that an unsubscribing client releases the source at once
 * (a generator's return() would wait for the source's next event).
 */
export function whileCredentialLive<T>(ctx: Ctx, source: AsyncIterable<T>): AsyncIterableIterator<T | typeof CREDENTIAL_ENDED> {
  const it = source[Symbol.asyncIterator]();
  let checkedAt = ctx.clock.now().getTime();
  let ended = false;
  const close = async () => {
    ended = true;
    await it.return?.();
  };
  return {
    async next(): Promise<IteratorResult<T | typeof CREDENTIAL_ENDED>> {
      if (ended) return { done: true, value: undefined };
      const r = await it.next();
      if (r.done || ended) return r.done ? r : { done: true, value: undefined };
      const now = ctx.clock.now().getTime();
      if (now - checkedAt >= LIVE_RECHECK_MS) {
        if (!(await credentialIsLive(ctx))) {
          await close();
          return { done: false, value: CREDENTIAL_ENDED };
        }
        checkedAt = now;
      }
      return r;
    },
    async return() {
      await close();
      return { done: true, value: undefined };
    },
    async throw(e?: unknown) {
      await close();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The first item of a `…Updated(id)` stream: "send the current state" (the resolver reads it). */
const CURRENT_STATE = Symbol("current state");

/**
 * A resource's live stream that starts with its current state. The source is subscribed before the first item is
 * handed out, so a change committed while the subscriber reads that state still arrives as the next item: nothing
 * between subscribing and the first event is lost (a change may be seen twice, never missed).
 */
export function currentStateFirst<T>(source: AsyncIterable<T>): AsyncIterableIterator<T | typeof CURRENT_STATE> {
  const it = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | null = it.next(); // subscribes now
  let sentCurrent = false;
  return {
    async next() {
      if (!sentCurrent) {
        sentCurrent = true;
        return { done: false, value: CURRENT_STATE };
      }
      const r = await (pending ?? it.next());
      pending = null;
      return r;
    },
    async return() {
      pending = null;
      await it.return?.();
      return { done: true, value: undefined };
    },
    async throw(e?: unknown) {
      await it.return?.();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** For a live field's resolver: the item, or 401 unauthorized when the stream ended with its credential. */
export function liveItem<T>(item: T | typeof CREDENTIAL_ENDED): T {
  if (item === CREDENTIAL_ENDED) throw errors.unauthorized("The credential of this subscription was revoked or has expired");
  return item;
}

/** The live `events` stream: the tenant's events of the readable (or requested) types as they commit. */
export function subscribeEvents(ctx: Ctx, requested: string[] | null | undefined) {
  const p = requirePrincipal(ctx);
  const t = requireTenant(ctx);
  const wanted = new Set(typesToRead(p, requested, ["types"]));
  return whileCredentialLive<Envelope>(ctx, pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter((e: Envelope) => wanted.has(e.type))));
}

export const eventFilters = { type: z.string().min(1).max(100).optional() };

export async function listEvents(ctx: Ctx, query: unknown) {
  const p = requirePrincipal(ctx);
  const t = requireTenant(ctx);
  const q = parseListQuery(eventFilters, query);
  const types = typesToRead(p, q.type ? [q.type] : undefined, ["query", "type"]);
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
  const row = isUuid(id)
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
    env = await ctx.sql.selectFrom("Environment").select(["workspaceId", "kind"]).where("id", "=", row.environmentId).executeTakeFirstOrThrow();
    if (envFacts.size > 10_000) envFacts.clear();
    envFacts.set(row.environmentId, env);
  }
  return { workspaceId: env.workspaceId, applicationId: row.applicationId, environmentId: row.environmentId, environmentKind: env.kind };
}
