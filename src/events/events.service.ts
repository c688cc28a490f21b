// Recording events in the caller's transaction (the outbox), and reading them back, gated by read scope.
import { randomUUID } from "node:crypto";
import { filter, pipe } from "graphql-yoga";
import { z } from "zod";
import { type Event, Prisma } from "../generated/prisma/client";
import { credentialIsLive, requirePrincipal, requireTenant } from "../platform/auth.service";
import type { Principal } from "../platform/principal";
import { type Ctx, type PendingEvent } from "../shared/context";
import { errors } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { hasScope } from "../shared/scopes";
import { EVENT_CONVENTIONS, EVENT_TYPES, eventTypeInfo, READ_SCOPE } from "./catalog";
import { type Envelope, tenantTopic } from "./hub";
import { emailInsert, takePendingEmails } from "../mail/mail.service";
import { queuePaymentReceipt, RECEIPT_EVENTS } from "../payments/receipts";
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
 * Records an event inside the caller's transaction. The transaction's events are written together just before it
 * commits, in one statement that also creates one delivery row per subscribed endpoint of the environment (only to
 * `onlyEndpointId` when given): the outbox costs one statement per transaction, however many events it records.
 * The id is chosen here, so the caller has it at once. After commit the hub fans the events out. Must be called
 * inside withTx: an event without its change (or the reverse) cannot exist.
 */
export async function recordEvent(ctx: Ctx, tenant: EventTenant, type: string, data: Record<string, unknown>, opts: { onlyEndpointId?: string } = {}) {
  if (!ctx.afterCommit || !ctx.beforeCommit) throw new Error("recordEvent must run inside withTx");
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
  if (!ctx.pendingEvents) {
    ctx.pendingEvents = [];
    const pending = ctx.pendingEvents;
    ctx.beforeCommit.push((tx) => writeEvents(tx, pending));
  }
  ctx.pendingEvents.push({ ...event, createdAt: createdAt.toISOString(), onlyEndpointId: opts.onlyEndpointId ?? null });
  // Every capture, whichever path records it, sends the buyer a receipt (queued in this transaction).
  if (RECEIPT_EVENTS.has(type)) queuePaymentReceipt(ctx, tenant, event.data as Record<string, unknown>);
  const env = envelope(event);
  ctx.afterCommit.push(() => ctx.deps.hub.committed([{ applicationId: tenant.applicationId, envelope: env }]));
  return event;
}

/** Writes the transaction's recorded events now rather than at its end, for a command that reads their deliveries. */
export async function flushEvents(ctx: Ctx) {
  if (ctx.pendingEvents) await writeEvents(ctx, ctx.pendingEvents);
}

/** The outbox write at commit: the transaction's events not yet written (with its queued emails), in one statement. */
async function writeEvents(ctx: Ctx, events: PendingEvent[]) {
  const ctes = outboxCtes(ctx, events);
  if (ctes) await ctx.db.$executeRaw(Prisma.sql`WITH ${ctes} SELECT 1`);
}

/**
 * The outbox as CTEs, taking what is pending: the transaction's events, one delivery per subscribed active endpoint of
 * the environment (only `onlyEndpointId` when given), and its queued emails (mail.service.ts emailInsert). Null when
 * no event is pending: emails alone are written at commit by mail.service.ts.
 */
function outboxCtes(ctx: Ctx, pending: PendingEvent[] | undefined, when: Prisma.Sql = Prisma.sql`true`): Prisma.Sql | null {
  if (!pending?.length) return null;
  const events = JSON.stringify(pending);
  pending.length = 0;
  const emails = takePendingEmails(ctx);
  const parts: Prisma.Sql[] = [];
  if (emails) parts.push(Prisma.sql`ox_em AS (${emailInsert(emails, when)})`);
  parts.push(Prisma.sql`ox_x AS (
       SELECT id, "workspaceId", "applicationId", "environmentId", "environmentKind", type, version, data, "createdAt", "onlyEndpointId"
       FROM jsonb_to_recordset(${events}::jsonb) AS x(id uuid, "workspaceId" uuid, "applicationId" uuid, "environmentId" uuid,
         "environmentKind" text, type text, version text, data jsonb, "createdAt" timestamptz, "onlyEndpointId" uuid)
       WHERE ${when}
     ), ox_ev AS (
       INSERT INTO "Event" (id, "workspaceId", "applicationId", "environmentId", "environmentKind", type, version, data, "createdAt")
       SELECT id, "workspaceId", "applicationId", "environmentId", "environmentKind", type, version, data, "createdAt" FROM ox_x
       RETURNING id
     ), ox_wd AS (
       INSERT INTO "WebhookDelivery" (id, "endpointId", "eventId", "nextAttemptAt")
       SELECT gen_random_uuid(), e.id, x.id, x."createdAt"
       FROM ox_x x JOIN ox_ev USING (id)
       JOIN "WebhookEndpoint" e ON e."applicationId" = x."applicationId" AND e."environmentId" = x."environmentId" AND e."deletedAt" IS NULL
        AND CASE WHEN x."onlyEndpointId" IS NULL THEN e."isActive" AND x.type = ANY (e."enabledEvents") ELSE e.id = x."onlyEndpointId" END
     )`);
  return Prisma.join(parts, ", ");
}

/**
 * `statement` carrying the outbox: the events recorded so far in this transaction (with its queued emails) are written
 * by the same statement, as CTEs before its own, instead of by one more statement at commit. Events recorded later
 * are written at commit as usual. PostgreSQL runs every CTE of a statement on one snapshot: the outbox reads
 * endpoints, and an email addressed from a payment reads that payment and its order, as they were before the
 * statement, so it must not ride in the statement that writes them (mail.service.ts emailInsert).
 */
export function withOutbox(ctx: Ctx, statement: Prisma.Sql): Prisma.Sql {
  const ctes = outboxCtes(ctx, ctx.pendingEvents);
  if (!ctes) return statement;
  const [head, ...rest] = statement.strings;
  const m = /^\s*WITH\s/i.exec(head);
  if (!m) return Prisma.sql`WITH ${ctes} ${statement}`;
  return Prisma.sql`WITH ${ctes}, ${new Prisma.Sql([head.slice(m[0].length), ...rest], statement.values)}`;
}

/**
 * The outbox as further CTEs (with their leading comma; empty when nothing is pending) for a statement that may
 * refuse its own write outside a transaction: placed after the statement's own CTEs, the outbox is written only if
 * `when`, a condition on them, holds. Otherwise as withOutbox.
 */
export function outboxIf(ctx: Ctx, when: Prisma.Sql): Prisma.Sql {
  const ctes = outboxCtes(ctx, ctx.pendingEvents, when);
  return ctes ? Prisma.sql`, ${ctes}` : Prisma.empty;
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
    env = await ctx.db.environment.findUniqueOrThrow({ where: { id: row.environmentId }, select: { workspaceId: true, kind: true } });
    if (envFacts.size > 10_000) envFacts.clear();
    envFacts.set(row.environmentId, env);
  }
  return { workspaceId: env.workspaceId, applicationId: row.applicationId, environmentId: row.environmentId, environmentKind: env.kind };
}
