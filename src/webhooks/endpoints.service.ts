// Workspace webhook endpoints (decisions.md part 4): create with a one-time secret, list, read, update,
// soft delete, rotate the secret with a grace window, list deliveries, replay a dead letter, test ping.
import { z } from "zod";
import type { WebhookDelivery, WebhookEndpoint } from "../generated/prisma/client";
import { RETIRED, READ_SCOPE, UNSUBSCRIBABLE } from "../events/catalog";
import { type EventTenant, flushEvents, principalEventTenant, recordEvent } from "../events/events.service";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx, withTx } from "../shared/context";
import { DomainError, errors, parseInput } from "../shared/errors";
import { hasScope } from "../shared/scopes";
import { isSealed, openSecret, revealOnce, sealSecret } from "../shared/secrets";
import { newSigningSecret } from "./signature";
import { checkWebhookUrl } from "./url-policy";
import { isUuid } from "../shared/ids";

const MAX_GRACE = 604_800;

const eventList = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(READ_SCOPE.size)
  .superRefine((list, ctx) => {
    list.forEach((t, i) => {
      const name = RETIRED[t] ?? t;
      if (!READ_SCOPE.has(name)) ctx.addIssue({ code: "custom", path: [i], message: `Unknown event type "${t}"` });
      else if (UNSUBSCRIBABLE.has(name)) ctx.addIssue({ code: "custom", path: [i], message: `"${t}" is delivered without a subscription and cannot be listed` });
    });
  })
  .transform((list) => [...new Set(list.map((t) => RETIRED[t] ?? t))]);

const url = z.string().trim().min(1).max(2048);

export const createEndpointInput = z.strictObject({
  url,
  enabledEvents: eventList,
  description: z.string().max(500).optional(),
});
export const updateEndpointInput = z.strictObject({
  url: url.optional(),
  enabledEvents: eventList.optional(),
  isActive: z.boolean().optional(),
  description: z.string().max(500).nullable().optional(),
});
export const rotateInput = z.strictObject({ graceSeconds: z.number().int().min(0).max(MAX_GRACE).default(86_400) });
export const deliveriesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** Signing secrets are used again for every delivery, so they are sealed (not hashed) at rest. */
export const SIGNING_SECRET_PURPOSE = "webhook-signing-secret";
const sealSigningSecret = (ctx: Ctx, secret: string) => sealSecret(ctx.deps.config, SIGNING_SECRET_PURPOSE, secret);

/** While a rotation's window is open at `at`, the previous signing secret and when it stops signing; else null. */
export function previousSecretOf(e: Pick<WebhookEndpoint, "previousSecret" | "previousSecretExpiresAt">, at: Date): { secret: string; expiresAt: Date } | null {
  return e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt > at ? { secret: e.previousSecret, expiresAt: e.previousSecretExpiresAt } : null;
}

export function endpointView(e: WebhookEndpoint, now: Date) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    enabledEvents: e.enabledEvents,
    isActive: e.isActive,
    applicationId: e.applicationId,
    environmentId: e.environmentId,
    previousSecretExpiresAt: previousSecretOf(e, now)?.expiresAt.toISOString() ?? null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function deliveryView(d: WebhookDelivery & { event?: { type: string } }) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.event?.type,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" || d.status === "retrying" ? d.nextAttemptAt.toISOString() : null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    succeededAt: d.succeededAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
  };
}

/** Each subscribed event needs its read scope on the calling credential (403 insufficient_scopes). */
function checkEventScopes(ctx: Ctx, types: string[]) {
  const p = ctx.principal!;
  const missing = [...new Set(types.map((t) => READ_SCOPE.get(t)!).filter((s) => !hasScope(p.scopes, s)))];
  if (missing.length) {
    throw new DomainError("insufficient_scopes", `Subscribing needs the read scope of each event: missing ${missing.join(", ")}`, { required: missing });
  }
}

async function findEndpoint(ctx: Ctx, id: string) {
  const t = requireTenant(ctx);
  const row = isUuid(id)
    ? await ctx.db.webhookEndpoint.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null, installationId: null } })
    : null;
  if (!row) throw errors.notFound("Webhook endpoint");
  return row;
}

export async function createEndpoint(ctx: Ctx, body: unknown) {
  const p = requireScope(ctx, "webhooks:write");
  const input = parseInput(createEndpointInput, body);
  const t = requireTenant(ctx);
  checkEventScopes(ctx, input.enabledEvents);
  const checkedUrl = await checkWebhookUrl(input.url, p.environment.kind, ctx.deps.resolver);
  const secret = newSigningSecret();
  const row = await ctx.db.webhookEndpoint.create({
    data: { ...t, url: checkedUrl, enabledEvents: input.enabledEvents, description: input.description ?? null, secret: sealSigningSecret(ctx, secret) },
  });
  return { ...endpointView(row, ctx.clock.now()), secret: revealOnce(secret) };
}

export async function listEndpoints(ctx: Ctx) {
  requireScope(ctx, "webhooks:read");
  const t = requireTenant(ctx);
  return ctx.db.webhookEndpoint.findMany({
    // an extension install's managed endpoint is the install's (src/extensions), not the workspace's to change
    where: { applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null, installationId: null },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
}

export async function getEndpoint(ctx: Ctx, id: string) {
  requireScope(ctx, "webhooks:read");
  return findEndpoint(ctx, id);
}

export async function updateEndpoint(ctx: Ctx, id: string, body: unknown) {
  const p = requireScope(ctx, "webhooks:write");
  const input = parseInput(updateEndpointInput, body);
  const row = await findEndpoint(ctx, id);
  // Changing where, whether or what an endpoint receives needs the read scope of every event it will receive,
  // not only of newly listed ones: else a narrower key could point another's endpoint at its own URL.
  checkEventScopes(ctx, input.enabledEvents ?? row.enabledEvents);
  const checkedUrl = input.url !== undefined ? await checkWebhookUrl(input.url, p.environment.kind, ctx.deps.resolver) : undefined;
  return ctx.db.webhookEndpoint.update({
    where: { id: row.id },
    data: {
      ...(checkedUrl !== undefined ? { url: checkedUrl } : {}),
      ...(input.enabledEvents ? { enabledEvents: input.enabledEvents } : {}),
      ...(input.isActive !== undefined ? { isActive: input.isActive } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    },
  });
}

export async function deleteEndpoint(ctx: Ctx, id: string) {
  requireScope(ctx, "webhooks:write");
  const row = await findEndpoint(ctx, id);
  await ctx.db.webhookEndpoint.update({ where: { id: row.id }, data: { deletedAt: ctx.clock.now(), isActive: false } });
}

export async function rotateSecret(ctx: Ctx, id: string, body: unknown) {
  requireScope(ctx, "webhooks:write");
  const { graceSeconds } = parseInput(rotateInput, body ?? {});
  const row = await findEndpoint(ctx, id);
  checkEventScopes(ctx, row.enabledEvents); // the new secret reads every payload the endpoint receives
  const now = ctx.clock.now();
  const r = await rotateSigningSecretOf(ctx, row, graceSeconds);
  return { ...endpointView(r.endpoint, now), secret: revealOnce(r.secret), previousSecretExpiresAt: r.previousSecretExpiresAt?.toISOString() ?? null };
}

/**
 * A new signing secret for an endpoint the caller already found and may change: the outgoing one keeps signing
 * beside it (two v1 digests) for graceSeconds, or stops at once with 0. Shared by workspace and install endpoints.
 */
export async function rotateSigningSecretOf(ctx: Ctx, row: WebhookEndpoint, graceSeconds: number) {
  const now = ctx.clock.now();
  const secret = newSigningSecret();
  const previousSecretExpiresAt = graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
  const endpoint = await ctx.db.webhookEndpoint.update({
    where: { id: row.id },
    data: { secret: sealSigningSecret(ctx, secret), previousSecret: graceSeconds > 0 ? row.secret : null, previousSecretExpiresAt },
  });
  return { endpoint, secret, previousSecretExpiresAt };
}

/** An endpoint's current signing secret in clear (sealed at rest), for its owner to read again. */
export function openSigningSecret(ctx: Ctx, row: WebhookEndpoint) {
  return openSecret(ctx.deps.config, SIGNING_SECRET_PURPOSE, row.secret);
}

/** A fresh signing secret sealed for storage (a managed endpoint created outside this file). */
export function newSealedSigningSecret(ctx: Ctx) {
  const secret = newSigningSecret();
  return { secret, sealed: sealSigningSecret(ctx, secret) };
}

export async function listDeliveries(ctx: Ctx, id: string, query: unknown) {
  requireScope(ctx, "webhooks:read");
  const q = parseInput(deliveriesQuery, query ?? {}, ["query"]);
  const row = await findEndpoint(ctx, id);
  return deliveriesOf(ctx, row.id, q);
}

/** One endpoint's deliveries, newest first, offset-paged (the caller found the endpoint and checked access). */
export async function deliveriesOf(ctx: Ctx, endpointId: string, q: z.output<typeof deliveriesQuery>) {
  const [items, total] = await Promise.all([
    ctx.db.webhookDelivery.findMany({
      where: { endpointId },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      skip: q.offset,
      take: q.limit,
      include: { event: { select: { type: true } } },
    }),
    ctx.db.webhookDelivery.count({ where: { endpointId } }),
  ]);
  return { items, total, limit: q.limit, offset: q.offset };
}

/**
 * The same list in the cursor shape every other list has (GraphQL): the opaque cursor carries the offset of the
 * next page, so newest-first order and the REST route's semantics are unchanged.
 */
export async function listDeliveriesPage(ctx: Ctx, id: string, page: { limit?: number; cursor?: string }) {
  let offset = 0;
  if (page.cursor !== undefined) {
    const m = /^o:(\d{1,7})$/.exec(Buffer.from(page.cursor, "base64url").toString("utf8"));
    if (!m) throw errors.validation([{ path: ["cursor"], message: "Invalid cursor: pass pageInfo.cursor of the previous page" }]);
    offset = Number(m[1]);
  }
  const r = await listDeliveries(ctx, id, { limit: page.limit, offset });
  const hasMore = r.offset + r.items.length < r.total;
  return { items: r.items, pagination: { cursor: hasMore ? Buffer.from(`o:${r.offset + r.items.length}`).toString("base64url") : null, hasMore } };
}

export async function getDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  requireScope(ctx, "webhooks:read");
  const ep = await findEndpoint(ctx, endpointId);
  const d = isUuid(deliveryId)
    ? await ctx.db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId: ep.id }, include: { event: { select: { type: true } }, attemptLog: { orderBy: { at: "asc" } } } })
    : null;
  if (!d) throw errors.notFound("Delivery");
  return d;
}

/** A dead-lettered delivery goes out again with the original event: same id, payload and createdAt. */
export async function replayDelivery(ctx: Ctx, endpointId: string, deliveryId: string) {
  requireScope(ctx, "webhooks:write");
  const ep = await findEndpoint(ctx, endpointId);
  return replayDeliveryOf(ctx, ep.id, deliveryId, (tx, type) => checkEventScopes(tx, [type]));
}

/** Puts a dead letter of an endpoint the caller found back in the queue; `check` vets the event type first. */
export async function replayDeliveryOf(ctx: Ctx, endpointId: string, deliveryId: string, check: (tx: Ctx, type: string) => void = () => {}) {
  if (!isUuid(deliveryId)) throw errors.notFound("Delivery");
  return withTx(ctx, async (tx) => {
    const d = await tx.db.webhookDelivery.findFirst({ where: { id: deliveryId, endpointId }, include: { event: { select: { type: true } } } });
    if (!d) throw errors.notFound("Delivery");
    check(tx, d.event.type);
    if (d.status !== "dead_letter") {
      throw new DomainError("delivery_not_replayable", `Only dead-lettered deliveries can be replayed; this one is ${d.status}`, { status: d.status });
    }
    const updated = await tx.db.webhookDelivery.update({
      where: { id: d.id },
      data: { status: "pending", attempts: 0, nextAttemptAt: tx.clock.now(), lockedUntil: null, lastError: null },
      include: { event: { select: { type: true } } },
    });
    tx.afterCommit!.push(() => tx.deps.hub.committed([]));
    return updated;
  });
}

/** Sends a signed webhook.ping to this endpoint only, through the normal delivery path. */
export async function testEndpoint(ctx: Ctx, id: string) {
  requireScope(ctx, "webhooks:write");
  const ep = await findEndpoint(ctx, id);
  return withTx(ctx, async (tx) => sendToEndpoint(tx, principalEventTenant(tx), ep.id, "webhook.ping", { endpointId: ep.id }));
}

/** Records an event delivered to one endpoint only (a ping, an install notice) and returns its delivery row. */
export async function sendToEndpoint(tx: Ctx, tenant: EventTenant, endpointId: string, type: string, data: Record<string, unknown>) {
  const event = await recordEvent(tx, tenant, type, data, { onlyEndpointId: endpointId });
  await flushEvents(tx);
  return tx.db.webhookDelivery.findUniqueOrThrow({ where: { endpointId_eventId: { endpointId, eventId: event.id } }, include: { event: { select: { type: true } } } });
}

/** Endpoints saved before signing secrets were sealed: seal them (idempotent; run at start-up). */
export async function sealLegacySigningSecrets(deps: Ctx["deps"]) {
  const rows = await deps.prisma.webhookEndpoint.findMany({
    where: { OR: [{ secret: { startsWith: "whsec_" } }, { previousSecret: { startsWith: "whsec_" } }] },
    select: { id: true, secret: true, previousSecret: true },
  });
  for (const r of rows) {
    const seal = (v: string | null) => (v && !isSealed(v) ? sealSecret(deps.config, SIGNING_SECRET_PURPOSE, v) : v);
    await deps.prisma.webhookEndpoint.updateMany({ where: { id: r.id, secret: r.secret }, data: { secret: seal(r.secret)!, previousSecret: seal(r.previousSecret) } });
  }
  return rows.length;
}
