// GET /orders/export.csv: the orders GET /orders would list (same filters), as RFC 4180 CSV (csv-stringify,
// CRLF records; fields with commas, quotes, CR or LF quoted: csv-stringify quotes a lone LF only through quoted_match), streamed in keyset batches so neither the file
// nor the result is ever held whole; at most EXPORT_MAX_ROWS rows.
import type { Writable } from "node:stream";
import { stringify } from "csv-stringify";
import type { Prisma } from "../generated/prisma/client";
import { requireScope, requireTenant } from "../shared/guards";
import type { Ctx } from "../shared/context";
import { parseInput } from "../shared/errors";
import { displayStatus, orderFilters, orderWhere } from "./orders.service";

export const EXPORT_MAX_ROWS = 100_000;
const BATCH = 1000;

export const EXPORT_COLUMNS = ["id", "createdAt", "status", "paymentStatus", "displayStatus", "customerEmail", "currency", "subtotal", "total", "compAmount", "capturedAmount", "refundedAmount", "delivery_state"] as const;

/** The GET /orders filters without the page fields. */
export const exportFilters = orderFilters.omit({ limit: true, cursor: true });
type ExportFilters = ReturnType<typeof exportFilters.parse>;

/** Scope, tenant and filters, checked before anything is streamed (so errors are still JSON). */
export function prepareExport(ctx: Ctx, query: unknown) {
  requireScope(ctx, "orders:read");
  const t = requireTenant(ctx);
  const q = parseInput(exportFilters, query ?? {}, ["query"]);
  return { t, q, empty: Boolean(q.applicationId && q.applicationId !== t.applicationId) };
}

/** The export's rows, BATCH at a time (one statement each: orders with their payments' sums, relationJoins). */
export async function* exportBatches(ctx: Ctx, prepared: ReturnType<typeof prepareExport>, max = EXPORT_MAX_ROWS) {
  if (prepared.empty) return;
  const where = orderWhere(prepared.t, prepared.q);
  let after: { createdAt: Date; id: string } | null = null;
  let sent = 0;
  while (sent < max) {
    const take = Math.min(BATCH, max - sent);
    const page: Prisma.OrderWhereInput = after ? { ...where, AND: [{ OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] }] } : where;
    const rows = await ctx.db.order.findMany({
      where: page,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take,
      select: {
        id: true, createdAt: true, status: true, paymentStatus: true, compAmount: true, deliveryState: true, email: true, currency: true, subtotal: true, total: true,
        payments: { select: { capturedAmount: true, refundedAmount: true } },
      },
    });
    if (!rows.length) return;
    yield rows.map((o) => [
      o.id,
      o.createdAt.toISOString(),
      o.status,
      o.paymentStatus,
      displayStatus(o),
      o.email ?? "",
      o.currency,
      o.subtotal,
      o.total,
      o.compAmount,
      o.payments.reduce((a, p) => a + p.capturedAmount, 0),
      o.payments.reduce((a, p) => a + p.refundedAmount, 0),
      o.deliveryState ?? "",
    ]);
    sent += rows.length;
    if (rows.length < take) return;
    after = { createdAt: rows[rows.length - 1].createdAt, id: rows[rows.length - 1].id };
  }
}

/**
 * Writes the CSV to `out` (an HTTP response): the header row, then each batch as it is read, waiting for the
 * socket to drain so memory stays flat; stops early when the client goes away. Values starting with =, +, -, @,
 * tab or CR are prefixed with ' (spreadsheet formula injection).
 */
export async function streamOrdersCsv(ctx: Ctx, prepared: ReturnType<typeof prepareExport>, out: Writable, max = EXPORT_MAX_ROWS) {
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], record_delimiter: "windows", escape_formulas: true, quoted_match: /[\r\n]/ });
  csv.pipe(out);
  const gone = () => out.destroyed || out.writableEnded;
  for await (const batch of exportBatches(ctx, prepared, max)) {
    for (const row of batch) {
      if (!csv.write(row)) await drainOrClose(csv, out);
      if (gone()) break;
    }
    if (gone()) break;
  }
  csv.end();
  if (!gone()) await new Promise<void>((resolve) => {
    const done = () => {
      out.off("finish", done);
      out.off("close", done);
      resolve();
    };
    out.on("finish", done);
    out.on("close", done);
  });
}

/** Resolves once the stringifier drains or the client goes away (listeners removed either way). */
function drainOrClose(csv: Writable, out: Writable) {
  return new Promise<void>((resolve) => {
    const done = () => {
      csv.off("drain", done);
      out.off("close", done);
      resolve();
    };
    csv.on("drain", done);
    out.on("close", done);
  });
}

/** The relative URL of the export for these filters (GraphQL's ordersExport hands it out; fetch it with the same credential). */
export function exportUrl(q: ExportFilters) {
  const params = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined && v !== null).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : String(v)]));
  const s = params.toString();
  return `/api/v1/orders/export.csv${s ? `?${s}` : ""}`;
}
