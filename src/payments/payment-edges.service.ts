// Batch reads behind the payment edges of the graph (Order.payments, Order.invoices, Payment.transactions): one
// statement for every parent of a page, each checking its scope and filtering by the caller's tenant.
import type { Payment, Transaction } from "../generated/prisma/client";
import { groupedBy } from "../graphql/loaders";
import { requireScope, requireSecretOrDashboard, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { errors } from "../shared/errors";
import { isUuid } from "../shared/ids";
import { hasScope } from "../shared/scopes";

const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];

/** Order.payments: every order's payments, newest first (payments:read). */
export async function paymentsOfOrders(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, Payment[]>> {
  requireScope(ctx, "payments:read");
  const t = requireTenant(ctx);
  const ids = orderIds.filter(isUuid);
  const rows = ids.length ? await ctx.db.payment.findMany({ where: { orderId: { in: ids }, applicationId: t.applicationId, environmentId: t.environmentId }, orderBy: newestFirst }) : [];
  return groupedBy(orderIds, rows, (p) => p.orderId);
}

/** The invoice reads' scope: payments:read or invoices:read (as GET /payments/{id}/invoice-pdf). */
export function canReadInvoices(ctx: Ctx): boolean {
  const p = requireSecretOrDashboard(ctx);
  return ["payments:read", "invoices:read"].some((s) => hasScope(p.scopes, s));
}

/** Order.invoices: every order's issued Net-N invoices (net30 payments with a number), newest first. */
export async function invoicesOfOrders(ctx: Ctx, orderIds: readonly string[]): Promise<Map<string, Payment[]>> {
  if (!canReadInvoices(ctx)) throw errors.insufficientScopes(["payments:read", "invoices:read"]);
  const t = requireTenant(ctx);
  const ids = orderIds.filter(isUuid);
  const rows = ids.length
    ? await ctx.db.payment.findMany({ where: { orderId: { in: ids }, applicationId: t.applicationId, environmentId: t.environmentId, method: "net30", invoiceNumber: { not: null } }, orderBy: newestFirst })
    : [];
  return groupedBy(orderIds, rows, (p) => p.orderId);
}

/** Payment.transactions: every payment's processor requests, oldest first (payments:read; the payment's tenant). */
export async function transactionsOfPayments(ctx: Ctx, paymentIds: readonly string[]): Promise<Map<string, Transaction[]>> {
  requireScope(ctx, "payments:read");
  const t = requireTenant(ctx);
  const ids = paymentIds.filter(isUuid);
  const rows = ids.length
    ? await ctx.db.transaction.findMany({ where: { paymentId: { in: ids }, payment: { applicationId: t.applicationId, environmentId: t.environmentId } }, orderBy: [{ seq: "asc" }] })
    : [];
  return groupedBy(paymentIds, rows, (x) => x.paymentId);
}
