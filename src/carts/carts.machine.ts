// Cart statuses (commerce.md part 3) and the guard every cart mutation takes first.
import type { Tenant } from "../shared/principal";
import type { Ctx } from "../shared/context";
import { cartErrors } from "./carts.errors";
import { isUuid } from "../shared/ids";

export const CART_STATUSES = ["open", "checkout", "converted", "abandoned"] as const;
type CartStatus = (typeof CART_STATUSES)[number];

/** Only open carts take changes; the others belong to a checkout, an order or a recovery flow. */
export const EDITABLE_STATUSES: readonly CartStatus[] = ["open"];

export type TenantIds = Pick<Tenant, "applicationId" | "environmentId">;

/**
 * Guards a mutation of the cart inside the caller's transaction: the conditional update takes the row lock
 * and checks the status in one statement, so a concurrent conversion (which updates `where status = open`)
 * either happens before (409 here) or waits for this transaction. Unknown and foreign ids: 404 cart_not_found.
 */
export async function lockEditableCart(tx: Ctx, tenant: TenantIds, id: string): Promise<void> {
  if (!isUuid(id)) throw cartErrors.notFound();
  const where = { id, applicationId: tenant.applicationId, environmentId: tenant.environmentId };
  const res = await tx.db.cart.updateMany({ where: { ...where, status: { in: [...EDITABLE_STATUSES] } }, data: { updatedAt: tx.clock.now() } });
  if (res.count === 1) return;
  await assertCartEditable(tx, tenant, id);
  throw cartErrors.notEditable("open"); // it became open after the refused update: that update still refused it
}

/** The same 404 and 409 as lockEditableCart, from a read that takes no lock and writes nothing. */
export async function assertCartEditable(ctx: Ctx, tenant: TenantIds, id: string): Promise<void> {
  if (!isUuid(id)) throw cartErrors.notFound();
  const cart = await ctx.db.cart.findFirst({ where: { id, applicationId: tenant.applicationId, environmentId: tenant.environmentId }, select: { status: true } });
  if (!cart) throw cartErrors.notFound();
  if (!(EDITABLE_STATUSES as readonly string[]).includes(cart.status)) throw cartErrors.notEditable(cart.status);
}
