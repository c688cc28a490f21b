// Timeline rows that are neither status-history rows nor payment transactions (holds, comps, fulfillments,
// shipments, returns, line edits). Written in the transaction of the change they record; the timeline
// (GET /orders/{id}/timeline) reads them with the other two sources.
import type { Ctx } from "../shared/context";

export interface ActivityRow {
  kind: "status" | "payment" | "fulfillment" | "hold";
  /** a short English sentence: "Order placed on hold", "Shipment delivered" */
  title: string;
  source: string;
  detail?: string | null;
  amount?: number | null;
  currency?: string | null;
  actorType?: "user" | "system" | "integration" | null;
  actorId?: string | null;
  actorName?: string | null;
  reason?: string | null;
}

/** One statement for any number of rows, in the order given. */
export async function recordActivity(ctx: Ctx, orderId: string, rows: ActivityRow[]) {
  if (!rows.length) return;
  const at = ctx.clock.now();
  await ctx.db.orderActivity.createMany({
    data: rows.map((r) => ({
      orderId,
      kind: r.kind,
      title: r.title,
      source: r.source,
      detail: r.detail ?? null,
      amount: r.amount ?? null,
      currency: r.currency ?? null,
      actorType: r.actorType ?? null,
      actorId: r.actorId ?? null,
      actorName: r.actorName ?? null,
      reason: r.reason ?? null,
      createdAt: at,
    })),
  });
}
