// Session expiry: open sessions past expiresAt become expired and their carts abandoned (cart.abandoned with
// the application's recovery URL). One transaction per session so a failure never blocks the rest.
import { recordEvent, tenantOf } from "../events/events.service";
import { type Ctx, withTx } from "../shared/context";
import { STALE_CLAIM_MS } from "./order-placement";

function recoveryUrl(template: unknown, cartId: string): string | null {
  return typeof template === "string" && template.includes("{cartId}") ? template.replaceAll("{cartId}", encodeURIComponent(cartId)) : null;
}

export async function expireCheckoutSessions(ctx: Ctx, limit = 500) {
  const now = ctx.clock.now();
  // A completion in progress holds the session; a claim older than STALE_CLAIM_MS belongs to a process that died.
  const unclaimed = { OR: [{ completionStartedAt: null }, { completionStartedAt: { lt: new Date(now.getTime() - STALE_CLAIM_MS) } }] };
  const due = await ctx.db.checkoutSession.findMany({ where: { status: "open", expiresAt: { lte: now }, ...unclaimed }, take: limit, orderBy: { expiresAt: "asc" } });
  let expired = 0;
  for (const s of due) {
    const done = await withTx(ctx, async (tx) => {
      const moved = await tx.db.checkoutSession.updateMany({ where: { id: s.id, status: "open", ...unclaimed }, data: { status: "expired", completionStartedAt: null } });
      if (moved.count !== 1) return false;
      const cart = await tx.db.cart.findUnique({ where: { id: s.cartId } });
      if (cart && cart.status === "open") {
        const others = await tx.db.checkoutSession.count({ where: { cartId: cart.id, status: "open", id: { not: s.id }, expiresAt: { gt: now } } });
        if (others === 0) {
          await tx.db.cart.update({ where: { id: cart.id }, data: { status: "abandoned" } });
          const app = await tx.db.application.findUniqueOrThrow({ where: { id: cart.applicationId } });
          await recordEvent(tx, await tenantOf(tx, cart), "cart.abandoned", {
            cartId: cart.id,
            checkoutSessionId: s.id,
            customerId: cart.customerId,
            customerEmail: cart.customerEmail,
            recoveryUrl: recoveryUrl((app.settings as any)?.cartRecoveryUrlTemplate, cart.id),
          });
        }
      }
      return true;
    });
    if (done) expired++;
  }
  return expired;
}
