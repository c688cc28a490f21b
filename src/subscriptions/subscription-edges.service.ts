// Batch reads behind the subscription edges of the graph (Order.subscription, Customer.subscriptions): one statement
// for every parent of a page, subscriptions:read, the caller's tenant only.
import type { Subscription } from "../generated/prisma/client";
import { groupedBy, keyedBy } from "../graphql/loaders";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { isUuid } from "../shared/ids";
import { subscriptionView } from "./subscriptions.service";

/**
 * The view without its card: Subscription.paymentMethod is an edge of its own (customer_payment_methods:read),
 * read in a batch by the wallet.
 */
const view = (s: Subscription) => subscriptionView(s, null);

/** Order.subscription: the tenant's subscriptions among `ids`. */
export async function subscriptionsByIds(ctx: Ctx, ids: readonly string[]): Promise<Map<string, ReturnType<typeof view>>> {
  requireScope(ctx, "subscriptions:read");
  const t = requireTenant(ctx);
  const uuids = ids.filter(isUuid);
  const rows = uuids.length ? await ctx.db.subscription.findMany({ where: { id: { in: uuids }, applicationId: t.applicationId, environmentId: t.environmentId } }) : [];
  return keyedBy(rows.map(view), (s) => s.id);
}

/** Customer.subscriptions: every customer's subscriptions, newest first (a customer has a handful). */
export async function subscriptionsOfCustomers(ctx: Ctx, customerIds: readonly string[]): Promise<Map<string, ReturnType<typeof view>[]>> {
  requireScope(ctx, "subscriptions:read");
  const t = requireTenant(ctx);
  const uuids = customerIds.filter(isUuid);
  const rows = uuids.length
    ? await ctx.db.subscription.findMany({ where: { customerId: { in: uuids }, applicationId: t.applicationId, environmentId: t.environmentId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] })
    : [];
  return groupedBy(customerIds, rows.map(view), (s) => s.customerId);
}
