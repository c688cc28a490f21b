// orderEvents(filter): the live list of a tenant's orders for dashboards. Every order.* event of the caller's
// application + environment (the hub's tenant topic, fanned out through Redis with REDIS_URL) delivers the order
// as it is after the event, when it matches the filter. Same checks as orderUpdated: orders:read, the tenant,
// and the stream ends (unauthorized) once the credential is revoked.
import { filter, pipe } from "graphql-yoga";
import { whileCredentialLive } from "../events/events.service";
import { liveList } from "../events/live-list";
import type { Ctx } from "../shared/context";
import { requireScope, requireTenant } from "../shared/guards";
import { type Envelope, tenantTopic } from "../shared/hub";
import { isUuid } from "../shared/ids";
import type { OrderStatus } from "./order.machine";
import { orderView, type PAYMENT_STATUSES } from "./orders.service";

type OrderPaymentStatus = (typeof PAYMENT_STATUSES)[number];

export interface OrderEventsFilter {
  status?: OrderStatus | null;
  paymentStatus?: OrderPaymentStatus | null;
  customerId?: string | null;
}

export interface OrderEventItem {
  /** the event's type, e.g. order.fulfilled */
  type: string;
  eventId: string;
  occurredAt: Date;
  order: ReturnType<typeof orderView>;
}

const orderIdOf = (e: Envelope) => (e.data as { orderId?: unknown } | null)?.orderId;
const isOrderEvent = (e: Envelope) => e.type.startsWith("order.") && typeof orderIdOf(e) === "string";

export function subscribeOrderEvents(ctx: Ctx, f: OrderEventsFilter = {}) {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const events = whileCredentialLive(ctx, pipe(ctx.deps.hub.pubsub.subscribe(tenantTopic(t.applicationId, t.environmentId)), filter(isOrderEvent)));
  return liveList(events, async (e: Envelope): Promise<OrderEventItem | null> => {
    const id = String(orderIdOf(e));
    // read again under the tenant: the order as it is now, with its lines and payments (as orderUpdated answers)
    const o = isUuid(id)
      ? await ctx.db.order.findFirst({ where: { id, applicationId: t.applicationId, environmentId: t.environmentId }, include: { lineItems: true, payments: true } })
      : null;
    if (!o || (f.status && o.status !== f.status) || (f.paymentStatus && o.paymentStatus !== f.paymentStatus) || (f.customerId && o.customerId !== f.customerId)) return null;
    return { type: e.type, eventId: e.id, occurredAt: new Date(e.createdAt), order: orderView(o, { single: true }) };
  });
}
