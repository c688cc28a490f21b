// Batch reads behind the saved-card edges of the graph (Customer.paymentMethods, Subscription.paymentMethod): one
// statement for every parent of a page, the scopes of GET /customers/{id}/payment-methods, the caller's tenant only.
import type { SavedCard } from "../generated/prisma/client";
import { groupedBy } from "../graphql/loaders";
import { requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { isUuid } from "../shared/ids";
import { requireCardRead } from "./saved-cards.service";

async function liveCardsOf(ctx: Ctx, customerIds: readonly string[], onlyDefault: boolean): Promise<SavedCard[]> {
  requireCardRead(ctx);
  const t = requireTenant(ctx);
  const uuids = customerIds.filter(isUuid);
  if (uuids.length === 0) return [];
  return ctx.db.savedCard.findMany({
    where: { customerId: { in: uuids }, applicationId: t.applicationId, environmentId: t.environmentId, deletedAt: null, ...(onlyDefault ? { isDefault: true } : {}) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
}

/** Customer.paymentMethods: every customer's live saved cards, oldest first (as the REST list). */
export async function cardsOfCustomers(ctx: Ctx, customerIds: readonly string[]): Promise<Map<string, SavedCard[]>> {
  return groupedBy(customerIds, await liveCardsOf(ctx, customerIds, false), (c) => c.customerId);
}

/** Subscription.paymentMethod: every customer's default card (the one renewals charge), or absent. */
export async function defaultCardsOfCustomers(ctx: Ctx, customerIds: readonly string[]): Promise<Map<string, SavedCard>> {
  return new Map((await liveCardsOf(ctx, customerIds, true)).map((c) => [c.customerId, c]));
}
