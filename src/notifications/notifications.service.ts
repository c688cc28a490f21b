// In-app notifications for the merchant team: a buyer opened an expired quote link, commented, asked for changes,
// declined or accepted. Written in the transaction of what caused them; read over GET /notifications and GraphQL.
// Every type today is about a quote, so reading needs quotes:read and marking read quotes:write.
import { z } from "zod";
import type { Notification, Prisma } from "../generated/prisma/client";
import { requireScope, requireTenant } from "../shared/guards";
import { type Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { keyset, parseListQuery, toPage } from "../shared/pagination";
import { isUuid } from "../shared/ids";

export const NOTIFICATION_TYPES = ["quote.expired_link_opened", "quote.comment_added", "quote.revision_requested", "quote.declined", "quote.accepted"] as const;
type NotificationType = (typeof NOTIFICATION_TYPES)[number];

interface NewNotification {
  type: NotificationType;
  quoteId?: string | null;
  title: string;
  body?: string | null;
  data?: Record<string, unknown>;
}

/** Records a notification inside the caller's transaction. */
export async function notify(tx: Ctx, t: { applicationId: string; environmentId: string }, n: NewNotification) {
  await tx.db.notification.create({
    data: {
      applicationId: t.applicationId,
      environmentId: t.environmentId,
      type: n.type,
      quoteId: n.quoteId ?? null,
      title: n.title.slice(0, 300),
      body: n.body?.slice(0, 2000) ?? null,
      data: (n.data ?? {}) as Prisma.InputJsonValue,
      createdAt: tx.clock.now(),
    },
  });
}

function notificationView(n: Notification) {
  return {
    id: n.id,
    type: n.type,
    quoteId: n.quoteId,
    title: n.title,
    body: n.body,
    data: n.data,
    read: n.readAt !== null,
    readAt: n.readAt?.toISOString() ?? null,
    createdAt: n.createdAt.toISOString(),
  };
}
export type NotificationView = ReturnType<typeof notificationView>;

export const notificationFilters = {
  type: z.enum(NOTIFICATION_TYPES).optional(),
  quoteId: z.uuid().optional(),
  unread: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
};

export async function listNotifications(ctx: Ctx, query: unknown) {
  requireScope(ctx, "quotes:read");
  const t = requireTenant(ctx);
  const page = parseListQuery(notificationFilters, query);
  const ks = keyset(page);
  const where: Prisma.NotificationWhereInput = { applicationId: t.applicationId, environmentId: t.environmentId, ...ks.where };
  if (page.type) where.type = page.type;
  if (page.quoteId) where.quoteId = page.quoteId;
  if (page.unread !== undefined) where.readAt = page.unread ? null : { not: null };
  const rows = await ctx.db.notification.findMany({ where, orderBy: ks.orderBy, take: ks.take });
  const result = toPage(rows, page);
  return { items: result.items.map(notificationView), pagination: result.pagination };
}

/** POST /notifications/{id}/read: idempotent; another tenant's id is 404. */
export async function markNotificationRead(ctx: Ctx, id: string) {
  requireScope(ctx, "quotes:write");
  const t = requireTenant(ctx);
  const n = isUuid(id) ? await ctx.db.notification.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId } }) : null;
  if (!n) throw errors.notFound("Notification");
  if (n.readAt) return notificationView(n);
  return notificationView(await ctx.db.notification.update({ where: { id: n.id }, data: { readAt: ctx.clock.now() } }));
}
